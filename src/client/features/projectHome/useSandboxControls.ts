import { useCallback, useState } from 'react';
import type { ContainerStatusResponse } from '../../../shared/api/sandbox';
import { PROJECT_HOME_TEXT } from '../../../shared/constants/environmentGuide';
import { containerDisplayState, SANDBOX_ERRORS, type SandboxOperation } from '../../../shared/constants/sandbox';
import { useAppDispatch } from '../../app/hooks';
import { errorMessage, errorStatus } from '../../api/apiSlice';
import {
  sandboxControlApi,
  useBackupSandboxMutation,
  useContainerStatus,
  useDownloadProjectFolderMutation,
  useDownloadWorkspaceMutation,
  useStartSandboxMutation,
  useStopSandboxMutation,
} from '../../common/sandbox/sandboxControlApi';

export interface SandboxNotice {
  kind: 'error' | 'success';
  text: string;
}

export interface SandboxControls {
  status: ContainerStatusResponse | undefined;
  statusLoading: boolean;
  statusError: boolean;
  operation: SandboxOperation;
  /** A download is under way (both share one flag: one zip at a time). */
  downloading: boolean;
  running: boolean;
  /** Start is offered only for NotRunning, Stop only for Running (part 2 section 4). */
  canStart: boolean;
  canStop: boolean;
  notice: SandboxNotice | null;
  onBackup: () => Promise<void>;
  onStart: () => Promise<void>;
  onStop: () => Promise<void>;
  onDownloadWorkspace: () => Promise<void>;
  onDownloadProjectFolder: () => Promise<void>;
  /** Whether the downloads include files holding secrets (`include_secrets=true`). */
  includeSecrets: boolean;
  setIncludeSecrets: (include: boolean) => void;
}

/** The text of a backup that did not succeed, from its answer's error or the failed call. */
function syncError(error: string | undefined): string {
  return error?.trim() ? SANDBOX_ERRORS.syncWithError(error) : SANDBOX_ERRORS.sync;
}

/**
 * The project home's sandbox controls: the 10 s status poll and the operations (idle, backing_up,
 * stopping, starting). Stop backs up first and aborts with the backup's error; the server backs up
 * again under its own lock and answers 409 when that fails, whose detail is shown as it is.
 */
export function useSandboxControls(projectId: number): SandboxControls {
  const dispatch = useAppDispatch();
  const statusQuery = useContainerStatus(projectId);
  const [backup] = useBackupSandboxMutation();
  const [start] = useStartSandboxMutation();
  const [stop] = useStopSandboxMutation();
  const [downloadWorkspace, workspaceDownload] = useDownloadWorkspaceMutation();
  // Ours: secret files are left out of downloads unless the person ticks this.
  const [includeSecrets, setIncludeSecrets] = useState(false);
  const [downloadFolder, folderDownload] = useDownloadProjectFolderMutation();
  const [operation, setOperation] = useState<SandboxOperation>('idle');
  const [notice, setNotice] = useState<SandboxNotice | null>(null);

  const status = statusQuery.data;
  const containerStatus = status?.container_status;
  const running = containerDisplayState(containerStatus) === 'running';
  const busy = operation !== 'idle';
  const { refetch } = statusQuery;

  const setLastSync = useCallback(
    (lastSyncTime: string | null) => {
      if (!lastSyncTime) return;
      dispatch(
        sandboxControlApi.util.updateQueryData('getContainerStatus', projectId, (draft) => {
          draft.last_sync_time = lastSyncTime;
        }),
      );
    },
    [dispatch, projectId],
  );

  /** Runs one backup; answers the error text, or null when it succeeded. */
  const runBackup = useCallback(async (): Promise<string | null> => {
    try {
      const result = await backup(projectId).unwrap();
      setLastSync(result.last_sync_time);
      return result.status === 'error' ? syncError(result.error) : null;
    } catch (err) {
      return syncError(errorMessage(err, ''));
    }
  }, [backup, projectId, setLastSync]);

  const onBackup = useCallback(async () => {
    setNotice(null);
    setOperation('backing_up');
    const error = await runBackup();
    setNotice(error ? { kind: 'error', text: error } : { kind: 'success', text: PROJECT_HOME_TEXT.backedUp });
    setOperation('idle');
    void refetch();
  }, [runBackup, refetch]);

  const onStop = useCallback(async () => {
    setNotice(null);
    setOperation('backing_up');
    const error = await runBackup();
    if (error) {
      setNotice({ kind: 'error', text: error });
      setOperation('idle');
      return;
    }
    setOperation('stopping');
    try {
      await stop(projectId).unwrap();
    } catch (err) {
      setNotice({ kind: 'error', text: errorStatus(err) === 409 ? errorMessage(err, SANDBOX_ERRORS.stop) : SANDBOX_ERRORS.stop });
    }
    setOperation('idle');
    void refetch();
  }, [runBackup, stop, projectId, refetch]);

  const onStart = useCallback(async () => {
    setNotice(null);
    setOperation('starting');
    try {
      await start(projectId).unwrap();
    } catch {
      setNotice({ kind: 'error', text: SANDBOX_ERRORS.start });
    }
    setOperation('idle');
    void refetch();
  }, [start, projectId, refetch]);

  const onDownloadWorkspace = useCallback(async () => {
    setNotice(null);
    try {
      await downloadWorkspace({ projectId, includeSecrets }).unwrap();
    } catch {
      setNotice({ kind: 'error', text: SANDBOX_ERRORS.downloadWorkingDirectory });
    }
  }, [downloadWorkspace, projectId, includeSecrets]);

  const onDownloadProjectFolder = useCallback(async () => {
    setNotice(null);
    const username = status?.username;
    if (!username) {
      setNotice({ kind: 'error', text: SANDBOX_ERRORS.projectPath });
      return;
    }
    try {
      await downloadFolder({ projectId, username, includeSecrets }).unwrap();
    } catch {
      setNotice({ kind: 'error', text: SANDBOX_ERRORS.download });
    }
  }, [downloadFolder, projectId, status?.username, includeSecrets]);

  return {
    status,
    statusLoading: statusQuery.isLoading,
    statusError: Boolean(statusQuery.error) && !status,
    operation,
    downloading: workspaceDownload.isLoading || folderDownload.isLoading,
    running,
    canStart: !busy && containerStatus === 'NotRunning',
    canStop: !busy && containerStatus === 'Running',
    notice,
    onBackup,
    onStart,
    onStop,
    onDownloadWorkspace,
    onDownloadProjectFolder,
    includeSecrets,
    setIncludeSecrets,
  };
}
