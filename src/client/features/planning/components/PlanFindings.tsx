import type { ReactElement } from 'react';
import styled from 'styled-components';
import type { PlanFinding } from '../../../../shared/api/planning';

/**
 * What the plan verifier found in a plan, shown above it: errors (which block the confirm) first, then
 * warnings, each saying where. Nothing is shown for a plan with no findings.
 */
export function PlanFindings({ findings }: { findings: readonly PlanFinding[] | undefined }): ReactElement | null {
  if (!findings?.length) return null;
  const errors = findings.filter((f) => f.severity === 'error');
  const warnings = findings.filter((f) => f.severity === 'warning');
  const summary = errors.length
    ? `${errors.length} ${errors.length === 1 ? 'error blocks' : 'errors block'} the confirm: ask the assistant to fix ${errors.length === 1 ? 'it' : 'them'}, or change what you asked for.`
    : `${warnings.length} ${warnings.length === 1 ? 'warning' : 'warnings'}: the plan can be confirmed.`;
  return (
    <Box aria-label="Plan check" $blocking={errors.length > 0}>
      <h3>Plan check</h3>
      <p role="status">{summary}</p>
      <ul>
        {[...errors, ...warnings].map((f, i) => (
          <li key={`${f.code}-${i}`} data-severity={f.severity}>
            <Badge $severity={f.severity}>{f.severity === 'error' ? 'Error' : 'Warning'}</Badge> <Where>{f.where}</Where>: {f.message}
          </li>
        ))}
      </ul>
    </Box>
  );
}

const Box = styled.section<{ $blocking: boolean }>`
  margin-bottom: ${({ theme }) => theme.space(3)};
  padding: ${({ theme }) => `${theme.space(2)} ${theme.space(3)}`};
  border: 1px solid ${({ theme, $blocking }) => ($blocking ? theme.colors.danger : theme.colors.warning)};
  border-radius: ${({ theme }) => theme.radii.md};
  h3 { margin: 0 0 ${({ theme }) => theme.space(1)}; font-size: ${({ theme }) => theme.fontSizes.md}; }
  p { margin: 0 0 ${({ theme }) => theme.space(2)}; }
  ul { margin: 0; padding-left: ${({ theme }) => theme.space(4)}; }
  li { margin-bottom: ${({ theme }) => theme.space(1)}; overflow-wrap: anywhere; }
`;

const Badge = styled.strong<{ $severity: PlanFinding['severity'] }>`
  color: ${({ theme, $severity }) => ($severity === 'error' ? theme.colors.danger : theme.colors.warning)};
`;

const Where = styled.code`
  font-family: ${({ theme }) => theme.fonts.mono};
  font-size: ${({ theme }) => theme.fontSizes.sm};
`;
