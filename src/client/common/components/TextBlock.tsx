import styled from 'styled-components';

/**
 * Text shown exactly as it was written or printed (a command about to run, a step's whole output):
 * monospace, wrapped at any character rather than widening the page, and scrolling once it is taller
 * than `$maxHeight`. Focusable where it scrolls (`tabIndex={0}`), so the keyboard can scroll it too.
 */
export const TextBlock = styled.pre<{ $maxHeight: string }>`
  max-height: ${({ $maxHeight }) => $maxHeight};
  margin: 0;
  padding: ${({ theme }) => theme.space(3)};
  overflow: auto;
  border-radius: ${({ theme }) => theme.radii.md};
  background: ${({ theme }) => theme.colors.background};
  font-family: ${({ theme }) => theme.fonts.mono};
  font-size: ${({ theme }) => theme.fontSizes.sm};
  white-space: pre-wrap;
  overflow-wrap: anywhere;
`;
