import { http, HttpResponse } from 'msw';
import type { DocumentationResponse } from '../../../src/shared/api/documentation';
import type {
  ContainerActionResponse,
  ContainerStatusResponse,
  SandboxBackupResponse,
} from '../../../src/shared/api/sandbox';
import { api, server } from '../utils/server';

/** A fake sandbox host and documentation endpoint for the project home tests; tests change its fields. */
export interface FakeProjectHome {
  status: ContainerStatusResponse;
  docs: DocumentationResponse;
  /** Answer of the next backups; null for success. */
  backupError: string | null;
  /** A 409 detail the stop answers with, or null. */
  stopConflict: string | null;
  calls: string[];
  statusCalls: number;
  folderPaths: string[];
}

export const BACKUP_TIME = '2025-03-02T10:00:00.000Z';

export function useFakeProjectHome(changes: Partial<Pick<FakeProjectHome, 'status' | 'docs'>> = {}): FakeProjectHome {
  const fake: FakeProjectHome = {
    status: { container_status: 'Running', username: 'user-7-ab12', last_sync_time: null },
    docs: {
      status: 'ready',
      documentation: '# Infrastructure\n\nTraefik in front of **two** services.',
      quickstart: '## Connect\n\nRun `ssh deploy@host`.',
      key_value_data: {},
    },
    backupError: null,
    stopConflict: null,
    calls: [],
    statusCalls: 0,
    folderPaths: [],
    ...changes,
  };
  server.use(
    http.get(api('/sandboxes/:projectId/status'), () => {
      fake.statusCalls += 1;
      return HttpResponse.json(fake.status);
    }),
    http.post(api('/sandboxes/:projectId/backup'), () => {
      fake.calls.push('backup');
      if (fake.backupError) {
        const answer: SandboxBackupResponse = { status: 'error', last_sync_time: fake.status.last_sync_time, error: fake.backupError };
        return HttpResponse.json(answer);
      }
      fake.status = { ...fake.status, last_sync_time: new Date().toISOString() };
      return HttpResponse.json({ status: 'success', last_sync_time: fake.status.last_sync_time } satisfies SandboxBackupResponse);
    }),
    http.post(api('/sandboxes/:projectId/stop'), () => {
      fake.calls.push('stop');
      if (fake.stopConflict) return HttpResponse.json({ detail: fake.stopConflict }, { status: 409 });
      fake.status = { ...fake.status, container_status: 'NotRunning' };
      return HttpResponse.json({ container_status: 'NotRunning', message: 'Sandbox stopped' } satisfies ContainerActionResponse);
    }),
    http.post(api('/sandboxes/:projectId/start'), () => {
      fake.calls.push('start');
      fake.status = { ...fake.status, container_status: 'Running' };
      return HttpResponse.json({ container_status: 'Running', message: 'Sandbox started' } satisfies ContainerActionResponse);
    }),
    http.get(api('/projects/:id/workspace/download'), ({ request }) => {
      fake.calls.push(new URL(request.url).searchParams.get('include_secrets') === 'true' ? 'workspace with secrets' : 'workspace');
      return new HttpResponse(new Uint8Array([0x50, 0x4b, 3, 4]), { headers: { 'content-type': 'application/zip' } });
    }),
    http.get(api('/sandboxes/:projectId/workspace/folder_download'), ({ request }) => {
      fake.calls.push('folder');
      fake.folderPaths.push(new URL(request.url).searchParams.get('path') ?? '');
      return new HttpResponse(new Uint8Array([0x50, 0x4b, 3, 4]), { headers: { 'content-type': 'application/zip' } });
    }),
    http.get(api('/documentation/current'), () => HttpResponse.json(fake.docs)),
  );
  return fake;
}
