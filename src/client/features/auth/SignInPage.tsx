import { useId, useState, type FormEvent, type ReactElement } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import styled from 'styled-components';
import { INPUT_LIMITS, PRODUCT_NAME, SIGN_IN } from '../../../shared/constants';
import { errorMessage } from '../../api/apiSlice';
import { Button } from '../../common/components/Button';
import { Card } from '../../common/components/Card';
import { ErrorText, FieldGroup, FieldHint, Label, TextInput } from '../../common/components/Field';
import { useDocumentTitle } from '../../common/hooks/useDocumentTitle';
import { useLocalLoginMutation } from '../../common/auth/authApi';

const loginRule = new RegExp(INPUT_LIMITS.loginPattern);

/**
 * The local provider's sign-in page (ARCHITECTURE.md, "Sign-in and sessions"): a login name creates
 * or finds that user; the flow then ends on /github-success like the GitHub provider's.
 */
export function SignInPage(): ReactElement {
  useDocumentTitle(`${SIGN_IN.title} - ${PRODUCT_NAME}`);
  const navigate = useNavigate();
  const inputId = useId();
  const hintId = useId();
  const [login, setLogin] = useState('');
  const [validationError, setValidationError] = useState<string | null>(null);
  const [localLogin, { isLoading, error }] = useLocalLoginMutation();

  const onSubmit = async (event: FormEvent<HTMLFormElement>): Promise<void> => {
    event.preventDefault();
    const name = login.trim();
    if (!loginRule.test(name)) {
      setValidationError(SIGN_IN.invalidLogin);
      return;
    }
    setValidationError(null);
    const result = await localLogin({ login: name });
    if ('data' in result && result.data) {
      navigate(`/github-success?installation_id=${encodeURIComponent(String(result.data.installation_id))}`, {
        replace: true,
      });
    }
  };

  const shownError = validationError ?? (error ? errorMessage(error) : null);
  return (
    <Page>
      <Brand to="/">{PRODUCT_NAME}</Brand>
      <FormCard>
        <h1>{SIGN_IN.title}</h1>
        <p>This server uses local sign-in: each login name is its own account.</p>
        <form onSubmit={onSubmit} noValidate>
          <FieldGroup>
            <Label htmlFor={inputId}>{SIGN_IN.loginLabel}</Label>
            <TextInput
              id={inputId}
              name="login"
              autoComplete="username"
              autoCapitalize="none"
              spellCheck={false}
              value={login}
              onChange={(event) => setLogin(event.target.value)}
              aria-invalid={validationError ? true : undefined}
              aria-describedby={hintId}
              disabled={isLoading}
              data-autofocus
              // eslint-disable-next-line jsx-a11y/no-autofocus -- the page exists for this one field; the title is announced first
              autoFocus
            />
            <FieldHint id={hintId}>1 to 39 letters, digits or hyphens.</FieldHint>
            {shownError && <ErrorText>{shownError}</ErrorText>}
          </FieldGroup>
          <Button type="submit" $variant="primary" $block disabled={isLoading}>
            {isLoading ? 'Signing in...' : SIGN_IN.submit}
          </Button>
        </form>
      </FormCard>
    </Page>
  );
}

const Page = styled.main`
  display: flex;
  flex-direction: column;
  align-items: center;
  justify-content: center;
  min-height: 100vh;
  padding: ${({ theme }) => theme.space(6)};
  gap: ${({ theme }) => theme.space(6)};
`;

const Brand = styled(Link)`
  color: ${({ theme }) => theme.colors.text};
  font-size: ${({ theme }) => theme.fontSizes.xl};
  font-weight: 700;
  text-decoration: none;
`;

const FormCard = styled(Card)`
  width: 100%;
  max-width: 380px;
  h1 { font-size: ${({ theme }) => theme.fontSizes.xl}; }
  p { color: ${({ theme }) => theme.colors.textMuted}; margin: ${({ theme }) => theme.space(2)} 0 ${({ theme }) => theme.space(5)}; }
`;
