import { http, HttpResponse } from 'msw';
import type { BackupsStatus } from '../../../src/shared/api/backups';

const api = (path: string): string => `http://localhost/api${path}`;

/** Each project's backups as the server answers them; `failing` projects answer 500. */
export const backupsDb = {
  byProject: new Map<number, BackupsStatus>(),
  failing: new Set<number>(),
};

export function resetBackupsDb(): void {
  backupsDb.byProject = new Map();
  backupsDb.failing = new Set();
}

export const backupsHandlers = [
  http.get(api('/projects/:id/backups'), ({ params }) => {
    const id = Number(params.id);
    if (backupsDb.failing.has(id)) return HttpResponse.json({ detail: 'The database is not answering' }, { status: 500 });
    return HttpResponse.json(backupsDb.byProject.get(id) ?? { last_backup: null, last_drill: null, last_proven: null, overdue: null });
  }),
];
