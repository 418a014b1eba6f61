import { SSH_CONFIG } from '../../agents/offline/remoteShell';
import { SSH_ALIAS } from '../../agents/offline/sshTarget';
import { STACK_DIRECTORY } from './serverChecks';

/**
 * The files of a deploy as they are on the server: the paths the plan wrote into the workspace's
 * `stack/` folder (the compose file and its configuration files), read back from the stack directory on
 * the server. The environment file holds secret values and the application checkout is source, not
 * configuration: neither is part of a release. Files the server does not have are left out.
 */

/** Larger files are not configuration (a release keeps texts, not data). */
export const MAX_RELEASE_FILE_BYTES = 256 * 1024;

const FILE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*(?:\/[A-Za-z0-9_-][A-Za-z0-9_.-]*)*$/;

/**
 * The sandbox command: one line per file, `path<TAB>base64`, from the server. `also` names files beyond
 * the workspace's (a roll back restores a release whose files the workspace no longer has).
 */
export function readDeployedFilesCommand(directory: string, also: string[] = [], workspaceFolder = 'stack'): string {
  if (!STACK_DIRECTORY.test(directory)) throw new Error(`not a stack directory: ${directory}`);
  const extra = also.filter((f) => FILE_NAME.test(f) && f !== '.env' && !f.startsWith('app/'));
  const list = `find . -type f ! -name .env ! -path './app/*' ! -path './.git/*' -size -${MAX_RELEASE_FILE_BYTES + 1}c -printf '%P\\0'`;
  const read = `cd ${directory} && while IFS= read -r -d "" f; do if [ -f "$f" ]; then printf "%s\\t" "$f"; base64 -w0 < "$f"; echo; fi; done`;
  return [
    `test -f ${SSH_CONFIG} || { echo "no server: ${SSH_CONFIG} is missing" >&2; exit 3; }`,
    `test -f ${workspaceFolder}/docker-compose.yml || { echo "the workspace has no ${workspaceFolder}/docker-compose.yml: this plan deploys no stack" >&2; exit 4; }`,
    `{ (cd ${workspaceFolder} && ${list})${extra.length ? `; printf '%s\\0' ${extra.join(' ')}` : ''}; } | sort -zu | ssh -F ${SSH_CONFIG} ${SSH_ALIAS} '${read}'`,
  ].join('\n');
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Parses what the command printed. A line that is not `path<TAB>base64` (an SSH warning on stderr, a
 * file whose text held a secret and came back redacted) is skipped and named in `skipped`.
 */
export function parseDeployedFiles(output: string): { files: Record<string, string>; skipped: string[] } {
  const files: Record<string, string> = {};
  const skipped: string[] = [];
  for (const line of output.split('\n')) {
    if (!line.trim()) continue;
    const tab = line.indexOf('\t');
    const path = tab > 0 ? line.slice(0, tab) : '';
    const data = tab > 0 ? line.slice(tab + 1).trim() : '';
    if (!path || !BASE64.test(data) || data.length % 4 !== 0) {
      skipped.push(path || line.slice(0, 80));
      continue;
    }
    files[path] = Buffer.from(data, 'base64').toString('utf8');
  }
  return { files, skipped };
}
