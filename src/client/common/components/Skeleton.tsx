import styled, { keyframes } from 'styled-components';

const shimmer = keyframes`
  0% { opacity: 0.5; }
  50% { opacity: 1; }
  100% { opacity: 0.5; }
`;

/** A grey block standing in for content that is loading. */
export const Skeleton = styled.span<{ $width?: string; $height?: string; $round?: boolean }>`
  display: block;
  width: ${({ $width }) => $width ?? '100%'};
  height: ${({ $height }) => $height ?? '12px'};
  border-radius: ${({ theme, $round }) => ($round ? theme.radii.round : theme.radii.sm)};
  background: ${({ theme }) => theme.colors.surfaceHover};
  animation: ${shimmer} 1.4s ease-in-out infinite;
`;
