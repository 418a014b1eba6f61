import type { ReactElement } from 'react';
import styled from 'styled-components';
import type { DriftCheck, DriftKind } from '../../../../shared/api/releases';
import { relativeTime } from '../../../../shared/constants/activity';
import { DRIFT_TEXT } from '../../../../shared/constants/releases';
import { errorMessage } from '../../../api/apiSlice';
import { Button } from '../../../common/components/Button';
import { ButtonRow, Card } from '../../../common/components/Card';
import { ErrorText, FieldHint } from '../../../common/components/Field';
import { TextBlock } from '../../../common/components/TextBlock';
import { useCheckDriftMutation, useGetDriftQuery } from '../releasesApi';

const KINDS = Object.keys(DRIFT_TEXT.kinds) as DriftKind[];

function CheckResult({ check }: { check: DriftCheck }): ReactElement {
  const kinds = KINDS.filter((k) => check.differences.some((d) => d.kind === k));
  return (
    <>
      <FieldHint>{DRIFT_TEXT.lastChecked(relativeTime(check.checked_at), check.release)}</FieldHint>
      {check.error ? <ErrorText>{check.error}</ErrorText> : null}
      {!check.error && !check.differences.length ? <FieldHint role="status">{DRIFT_TEXT.clean}</FieldHint> : null}
      {kinds.map((k) => (
        <section key={k} aria-label={DRIFT_TEXT.kinds[k]}>
          <h3>{DRIFT_TEXT.kinds[k]}</h3>
          <ul>
            {check.differences.filter((d) => d.kind === k).map((d) => (
              <li key={d.detail}>{d.detail}</li>
            ))}
          </ul>
        </section>
      ))}
      {check.checks.length ? (
        <details>
          <summary>{DRIFT_TEXT.commands}</summary>
          {check.checks.map((c) => (
            <div key={c.title}>
              <h4>
                {c.title} <span>(exit {c.exit_code ?? 'killed'})</span>
              </h4>
              <TextBlock $maxHeight="16rem" tabIndex={0} aria-label={`${c.title}: command`}>
                {c.command}
              </TextBlock>
              <TextBlock $maxHeight="16rem" tabIndex={0} aria-label={`${c.title}: output`}>
                {c.output}
              </TextBlock>
            </div>
          ))}
        </details>
      ) : null}
    </>
  );
}

/** "Check drift": the read-only checks of the live server against the last release, what differs, and when. */
export function DriftPanel({ projectId }: { projectId: number }): ReactElement {
  const last = useGetDriftQuery(projectId);
  const [check, checking] = useCheckDriftMutation();
  const current = last.data?.check ?? null;
  return (
    <Card aria-labelledby="drift-title">
      <h2 id="drift-title">{DRIFT_TEXT.title}</h2>
      <FieldHint>{DRIFT_TEXT.intro}</FieldHint>
      {last.error ? <ErrorText>{DRIFT_TEXT.loadError}</ErrorText> : null}
      {last.data && !current ? <FieldHint>{DRIFT_TEXT.never}</FieldHint> : null}
      <Body>{current ? <CheckResult check={current} /> : null}</Body>
      {checking.error ? <ErrorText>{errorMessage(checking.error)}</ErrorText> : null}
      <ButtonRow>
        <Button type="button" disabled={checking.isLoading} onClick={() => void check(projectId)}>
          {checking.isLoading ? DRIFT_TEXT.checking : DRIFT_TEXT.check}
        </Button>
      </ButtonRow>
    </Card>
  );
}

const Body = styled.div`
  h3 { margin: ${({ theme }) => theme.space(2)} 0 0; font-size: ${({ theme }) => theme.fontSizes.md}; }
  h4 { margin: ${({ theme }) => theme.space(2)} 0 ${({ theme }) => theme.space(1)}; font-size: ${({ theme }) => theme.fontSizes.sm}; }
  ul { margin: ${({ theme }) => theme.space(1)} 0; }
`;
