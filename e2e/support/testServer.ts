import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { installedPaths, pathsOf, type StackPlace } from '../../src/server/agents/offline/backupScripts';
import { LEGACY_PLACE, ownFile } from '../../src/server/agents/offline/stackPlace';

/** The server `npm run test-server:up` started (its one line of JSON, kept in .test-server/server.json; journeys run from the repository root). */
export interface TestServer {
  host: string;
  port: number;
  user: string;
  private_key_file: string;
}

const SERVER_JSON = process.env.DA_TEST_SERVER_JSON ?? path.resolve('.test-server', 'server.json');

export function testServer(): TestServer | undefined {
  return existsSync(SERVER_JSON) ? (JSON.parse(readFileSync(SERVER_JSON, 'utf8')) as TestServer) : undefined;
}

/** Runs a command on the test server over SSH (as a person would from their own machine). */
export function onServer(server: TestServer, command: string): string {
  return execFileSync(
    'ssh',
    ['-i', server.private_key_file, '-p', String(server.port), '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR', `${server.user}@${server.host}`, command],
    { encoding: 'utf8', timeout: 120_000 },
  );
}

/** Removes what an earlier deploy left on the test server in `place` (the legacy /opt/stack unless a project's is given). */
export function resetServer(server: TestServer, place: StackPlace = LEGACY_PLACE): void {
  const dir = place.dir;
  onServer(server, `if [ -d ${dir} ]; then cd ${dir} && docker-compose down -v --remove-orphans >/dev/null 2>&1 || true; fi; sudo rm -rf ${dir} ${ownFile(place, '/etc/cron.d/stack-maintenance')} ${installedPaths(pathsOf(place)).join(' ')}`);
}
