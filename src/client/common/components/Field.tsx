import styled, { css } from 'styled-components';

const control = css`
  width: 100%;
  padding: ${({ theme }) => `${theme.space(2)} ${theme.space(3)}`};
  border-radius: ${({ theme }) => theme.radii.md};
  border: 1px solid ${({ theme }) => theme.colors.border};
  background: ${({ theme }) => theme.colors.background};
  color: ${({ theme }) => theme.colors.text};
  &::placeholder { color: ${({ theme }) => theme.colors.textMuted}; }
  /* The border alone (1 px) is too faint a cue: the outline every other control has, flush with it. */
  &:focus { border-color: ${({ theme }) => theme.colors.focus}; outline: 2px solid ${({ theme }) => theme.colors.focus}; outline-offset: 0; }
  &[aria-invalid='true'] { border-color: ${({ theme }) => theme.colors.danger}; }
`;

export const TextInput = styled.input`
  ${control}
`;

export const TextArea = styled.textarea`
  ${control}
  resize: vertical;
  min-height: 96px;
`;

export const Label = styled.label`
  display: block;
  margin-bottom: ${({ theme }) => theme.space(1.5)};
  font-weight: 600;
  font-size: ${({ theme }) => theme.fontSizes.sm};
`;

export const FieldGroup = styled.div`
  margin-bottom: ${({ theme }) => theme.space(4)};
`;

export const FieldHint = styled.p`
  margin: ${({ theme }) => theme.space(1)} 0 0;
  color: ${({ theme }) => theme.colors.textMuted};
  font-size: ${({ theme }) => theme.fontSizes.xs};
`;

/** An error text under a form or a field; `role="alert"` so that it is announced when it appears. */
export const ErrorText = styled.p.attrs({ role: 'alert' })`
  margin: ${({ theme }) => theme.space(1.5)} 0 0;
  color: ${({ theme }) => theme.colors.danger};
  font-size: ${({ theme }) => theme.fontSizes.sm};
`;
