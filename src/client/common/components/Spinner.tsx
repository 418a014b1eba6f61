import type { ReactElement } from 'react';
import styled, { keyframes } from 'styled-components';

/** A spinner with a visible or screen-reader label, announced politely. */
export function Spinner({ label, showLabel = true }: { label: string; showLabel?: boolean }): ReactElement {
  return (
    <SpinnerRow role="status" aria-live="polite">
      <Ring aria-hidden="true" />
      <span className={showLabel ? undefined : 'visually-hidden'}>{label}</span>
    </SpinnerRow>
  );
}

/** Fills the page while a lazy route chunk loads. */
export function PageSpinner(): ReactElement {
  return (
    <Centered>
      <Spinner label="Loading..." />
    </Centered>
  );
}

const spin = keyframes`to { transform: rotate(360deg); }`;

const SpinnerRow = styled.div`
  display: inline-flex;
  align-items: center;
  gap: ${({ theme }) => theme.space(2)};
  color: ${({ theme }) => theme.colors.textMuted};
`;

const Ring = styled.span`
  width: 16px;
  height: 16px;
  border-radius: 50%;
  border: 2px solid ${({ theme }) => theme.colors.border};
  border-top-color: ${({ theme }) => theme.colors.primary};
  animation: ${spin} 800ms linear infinite;
`;

export const Centered = styled.div`
  display: flex;
  align-items: center;
  justify-content: center;
  min-height: 100%;
  padding: ${({ theme }) => theme.space(10)};
`;
