import type { ReactElement } from 'react';
import styled from 'styled-components';
import type { BackupRun } from '../../../../shared/api/backups';
import { relativeTime } from '../../../../shared/constants/activity';
import { BACKUPS_TEXT } from '../../../../shared/constants/backups';
import { Card } from '../../../common/components/Card';
import { ErrorText, FieldHint } from '../../../common/components/Field';
import { useGetBackupsQuery } from '../backupsApi';

/** How often the panel reads again: a nightly run or a drill the validation ran shows up without a reload. */
const REFRESH_MS = 60_000;

const at = (iso: string): string => `${relativeTime(iso)} (${iso.slice(0, 16).replace('T', ' ')} UTC)`;
const when = (r: BackupRun): string => at(r.started_at);

function RunLine({ label, run }: { label: string; run: BackupRun }): ReactElement {
  const done = run.kind === 'drill' ? BACKUPS_TEXT.drillDone(run, when(run)) : BACKUPS_TEXT.backupDone(run, when(run));
  return (
    <Item>
      <dt>{label}</dt>
      <dd>{run.ok ? done : <ErrorText>{BACKUPS_TEXT.failed(run, when(run))}</ErrorText>}</dd>
    </Item>
  );
}

/**
 * The project's backups: the last backup and the last proven restore with their times and sizes, and
 * the last drill when it failed (shown failed, in words: the step and what the server said), and a
 * nightly backup that did not run when its schedule said: overdue since when, and what to check.
 */
export function BackupsPanel({ projectId }: { projectId: number }): ReactElement {
  const { data, error, isLoading } = useGetBackupsQuery(projectId, { pollingInterval: REFRESH_MS });
  const drillFailed = data?.last_drill && !data.last_drill.ok ? data.last_drill : null;
  return (
    <Card aria-labelledby="backups-title">
      <h2 id="backups-title">{BACKUPS_TEXT.title}</h2>
      <FieldHint>{BACKUPS_TEXT.intro}</FieldHint>
      {isLoading ? <FieldHint role="status">{BACKUPS_TEXT.loading}</FieldHint> : null}
      {error ? <ErrorText>{BACKUPS_TEXT.loadError}</ErrorText> : null}
      {data && !data.last_backup && !data.last_drill ? <FieldHint>{BACKUPS_TEXT.none}</FieldHint> : null}
      {data && (data.last_backup || data.last_drill) ? (
        <List>
          {data.overdue ? (
            <Item>
              <dt>{BACKUPS_TEXT.nightly}</dt>
              <dd>
                <ErrorText>{BACKUPS_TEXT.overdue(data.overdue, at(data.overdue.since))}</ErrorText>
              </dd>
            </Item>
          ) : null}
          {data.last_backup ? <RunLine label={BACKUPS_TEXT.lastBackup} run={data.last_backup} /> : null}
          {drillFailed ? <RunLine label={BACKUPS_TEXT.lastDrill} run={drillFailed} /> : null}
          {data.last_proven ? (
            <RunLine label={BACKUPS_TEXT.lastProven} run={data.last_proven} />
          ) : (
            <Item>
              <dt>{BACKUPS_TEXT.lastProven}</dt>
              <dd>{data.last_drill ? BACKUPS_TEXT.noProven : BACKUPS_TEXT.noDrill}</dd>
            </Item>
          )}
        </List>
      ) : null}
    </Card>
  );
}

const List = styled.dl`
  margin: ${({ theme }) => theme.space(3)} 0 0;
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(2)};
`;

const Item = styled.div`
  dt { font-weight: 600; }
  dd { margin: 0; overflow-wrap: anywhere; }
`;
