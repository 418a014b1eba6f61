import { useEffect, useState, type ReactElement } from 'react';
import styled, { css } from 'styled-components';
import {
  containerDisplayState,
  lastBackupText,
  PROJECT_HOME_SANDBOX,
  SANDBOX_ERRORS,
  type ContainerDisplayState,
} from '../../../../shared/constants/sandbox';
import { PROJECT_HOME_TEXT } from '../../../../shared/constants/environmentGuide';
import { Button } from '../../../common/components/Button';
import { Card } from '../../../common/components/Card';
import { ErrorText } from '../../../common/components/Field';
import { Spinner } from '../../../common/components/Spinner';
import { useSandboxControls } from '../useSandboxControls';

const STATE_LABEL: Record<ContainerDisplayState, string> = {
  running: 'Running',
  stopped: 'Stopped',
  pending: 'Pending',
  unknown: 'Unknown',
};

const BACKUP_TOOLTIP_ID = 'sandbox-backup-tooltip';

/** Re-renders every minute, so that 'N minutes ago' moves on between status polls. */
function useMinuteClock(): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(new Date()), 60_000);
    return () => window.clearInterval(timer);
  }, []);
  return now;
}

/** 'Project Sandbox': status (polled every 10 s), downloads, backup, start/stop and the last backup time. */
export function SandboxPanel({ projectId }: { projectId: number }): ReactElement {
  const controls = useSandboxControls(projectId);
  const now = useMinuteClock();
  const { status, operation, running, downloading } = controls;
  const display = containerDisplayState(status?.container_status);
  const busy = operation !== 'idle';
  const stopShown = status?.container_status === 'Running';

  let startStopLabel: string = stopShown ? PROJECT_HOME_SANDBOX.stop : PROJECT_HOME_SANDBOX.start;
  if (operation === 'stopping') startStopLabel = PROJECT_HOME_TEXT.stopping;
  else if (operation === 'starting') startStopLabel = PROJECT_HOME_TEXT.starting;

  return (
    <Panel aria-labelledby="project-sandbox-heading">
      <Header>
        <h2 id="project-sandbox-heading">{PROJECT_HOME_SANDBOX.header}</h2>
        {controls.statusLoading ? (
          <Spinner label={PROJECT_HOME_TEXT.loadingStatus} />
        ) : (
          <StatusBadge $state={display} data-testid="sandbox-status" aria-label={`${PROJECT_HOME_TEXT.statusLabel}: ${STATE_LABEL[display]}`}>
            <Dot aria-hidden="true" $state={display} />
            {STATE_LABEL[display]}
          </StatusBadge>
        )}
      </Header>
      {controls.statusError && <ErrorText>{SANDBOX_ERRORS.loadStatus}</ErrorText>}

      <Actions>
        <Button onClick={() => void controls.onDownloadWorkspace()} disabled={!running || busy || downloading}>
          {PROJECT_HOME_SANDBOX.downloadWorkspace}
        </Button>
        <Button onClick={() => void controls.onDownloadProjectFolder()} disabled={!running || busy || downloading}>
          {PROJECT_HOME_SANDBOX.downloadProjectFolder}
        </Button>
        <TooltipAnchor>
          <Button
            onClick={() => void controls.onBackup()}
            disabled={!running || busy}
            aria-describedby={BACKUP_TOOLTIP_ID}
          >
            {operation === 'backing_up' ? PROJECT_HOME_TEXT.backingUp : PROJECT_HOME_SANDBOX.backup}
          </Button>
          <Tooltip id={BACKUP_TOOLTIP_ID} role="tooltip">
            {PROJECT_HOME_SANDBOX.backupTooltip}
          </Tooltip>
        </TooltipAnchor>
        <Button
          $variant={stopShown ? 'danger' : 'primary'}
          onClick={() => void (stopShown ? controls.onStop() : controls.onStart())}
          disabled={stopShown ? !controls.canStop : !controls.canStart}
        >
          {startStopLabel}
        </Button>
      </Actions>

      <SecretsChoice>
        <label>
          <input type="checkbox" checked={controls.includeSecrets} onChange={(event) => controls.setIncludeSecrets(event.target.checked)} />{' '}
          {PROJECT_HOME_SANDBOX.includeSecrets}
        </label>
        <small>{controls.includeSecrets ? PROJECT_HOME_SANDBOX.secretsIncluded : PROJECT_HOME_SANDBOX.secretsLeftOut}</small>
      </SecretsChoice>
      {downloading && <Spinner label={PROJECT_HOME_TEXT.downloading} />}
      {controls.notice?.kind === 'error' && <ErrorText>{controls.notice.text}</ErrorText>}
      {controls.notice?.kind === 'success' && <Success role="status">{controls.notice.text}</Success>}

      <LastBackup data-testid="last-backup">
        {PROJECT_HOME_TEXT.lastBackup} {status ? lastBackupText(status.last_sync_time, now) : '—'}
      </LastBackup>
    </Panel>
  );
}

const Panel = styled(Card)`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(4)};
  margin-bottom: ${({ theme }) => theme.space(6)};
`;

const Header = styled.div`
  display: flex;
  align-items: center;
  gap: ${({ theme }) => theme.space(3)};
  h2 { font-size: ${({ theme }) => theme.fontSizes.xl}; margin: 0; }
`;

const stateColour = css<{ $state: ContainerDisplayState }>`
  color: ${({ theme, $state }) =>
    $state === 'running' ? theme.colors.success : $state === 'pending' ? theme.colors.warning : theme.colors.textMuted};
`;

const StatusBadge = styled.span<{ $state: ContainerDisplayState }>`
  display: inline-flex;
  align-items: center;
  gap: ${({ theme }) => theme.space(1.5)};
  padding: ${({ theme }) => `${theme.space(0.5)} ${theme.space(2.5)}`};
  border-radius: ${({ theme }) => theme.radii.round};
  border: 1px solid ${({ theme }) => theme.colors.border};
  font-size: ${({ theme }) => theme.fontSizes.sm};
  font-weight: 600;
  ${stateColour}
`;

const Dot = styled.span<{ $state: ContainerDisplayState }>`
  width: 8px;
  height: 8px;
  border-radius: 50%;
  background: currentColor;
  ${stateColour}
`;

const Actions = styled.div`
  display: flex;
  flex-wrap: wrap;
  gap: ${({ theme }) => theme.space(2)};
`;

const Tooltip = styled.span`
  position: absolute;
  left: 0;
  top: calc(100% + 6px);
  z-index: 10;
  width: max-content;
  max-width: 260px;
  padding: ${({ theme }) => `${theme.space(1.5)} ${theme.space(2.5)}`};
  border-radius: ${({ theme }) => theme.radii.md};
  border: 1px solid ${({ theme }) => theme.colors.border};
  background: ${({ theme }) => theme.colors.surfaceRaised};
  box-shadow: ${({ theme }) => theme.shadows.raised};
  font-size: ${({ theme }) => theme.fontSizes.xs};
  visibility: hidden;
  opacity: 0;
  transition: opacity 120ms ease;
`;

/** The tooltip shows on hover and on keyboard focus. */
const TooltipAnchor = styled.span`
  position: relative;
  display: inline-flex;
  &:hover ${Tooltip}, &:focus-within ${Tooltip} {
    visibility: visible;
    opacity: 1;
  }
`;

const Success = styled.p`
  margin: 0;
  color: ${({ theme }) => theme.colors.success};
  font-size: ${({ theme }) => theme.fontSizes.sm};
`;

const LastBackup = styled.p`
  margin: 0;
  color: ${({ theme }) => theme.colors.textMuted};
  font-size: ${({ theme }) => theme.fontSizes.sm};
`;

const SecretsChoice = styled.div`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(1)};
  font-size: ${({ theme }) => theme.fontSizes.sm};
  small { color: ${({ theme }) => theme.colors.textMuted}; }
`;
