import styled, { css } from 'styled-components';

export type ButtonVariant = 'primary' | 'secondary' | 'ghost' | 'danger';

/** The one button of the app. `$variant` defaults to secondary; `$block` fills the row. */
export const Button = styled.button.attrs<{ type?: 'button' | 'submit' | 'reset' }>((props) => ({
  type: props.type ?? 'button',
}))<{ $variant?: ButtonVariant; $block?: boolean; $size?: 'sm' | 'md' }>`
  display: inline-flex;
  align-items: center;
  justify-content: center;
  gap: ${({ theme }) => theme.space(2)};
  width: ${({ $block }) => ($block ? '100%' : 'auto')};
  padding: ${({ theme, $size }) => ($size === 'sm' ? `${theme.space(1)} ${theme.space(2.5)}` : `${theme.space(2)} ${theme.space(4)}`)};
  border-radius: ${({ theme }) => theme.radii.md};
  border: 1px solid ${({ theme }) => theme.colors.border};
  background: ${({ theme }) => theme.colors.surfaceRaised};
  color: ${({ theme }) => theme.colors.text};
  font-size: ${({ theme, $size }) => ($size === 'sm' ? theme.fontSizes.sm : theme.fontSizes.md)};
  font-weight: 600;
  cursor: pointer;
  white-space: nowrap;
  transition: background 120ms ease, border-color 120ms ease;

  &:hover:not(:disabled) { background: ${({ theme }) => theme.colors.surfaceHover}; }
  &:disabled { opacity: 0.55; cursor: not-allowed; }

  ${({ $variant, theme }) =>
    $variant === 'primary' &&
    css`
      background: ${theme.colors.primaryFill};
      border-color: ${theme.colors.primaryFill};
      color: ${theme.colors.primaryText};
      &:hover:not(:disabled) { background: ${theme.colors.primaryFillHover}; }
    `}
  ${({ $variant, theme }) =>
    $variant === 'ghost' &&
    css`
      background: transparent;
      border-color: transparent;
      &:hover:not(:disabled) { background: ${theme.colors.surfaceHover}; }
    `}
  ${({ $variant, theme }) =>
    $variant === 'danger' &&
    css`
      background: transparent;
      border-color: ${theme.colors.danger};
      color: ${theme.colors.danger};
      &:hover:not(:disabled) { background: ${theme.colors.dangerSurface}; }
    `}
`;
