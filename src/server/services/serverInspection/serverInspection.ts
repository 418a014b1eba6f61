import { conflict } from '../../errors';
import type { ExecOptions, ExecResult } from '../../sandbox/driver';
import type { StackModel } from '../../../shared/stackModel';
import { describeServerFacts } from '../../../shared/serverFactsText';
import type { ServerInspectionOffer, ServerInspectionResult } from '../../../shared/api/serverInspection';
import {
  HOSTKEY_MARK,
  inspectionCommand,
  KNOWN_HOSTS,
  knownHostsName,
  namedBySecrets,
  safeTarget,
  SECRETS_TARGET,
  targetLabel,
  type Inspected,
} from '../serverReadback/inspectionCommand';
import { blankIn, blankValues } from './blankValues';
import { parseInspection } from '../serverReadback/parseInspection';
import { wakeSandbox, type WakeableSandbox, type WakeOptions } from '../sandbox/wakeSandbox';
import { stepEnvironment } from '../userSecrets/reservedNames';

/**
 * The inspection of the person's existing server while planning (see inspectionCommand.ts): offers the exact
 * read-only command for the stack model's target, runs it in the project's sandbox only when the person
 * sends that same command back (their approval, once), and records what it found with the stack model's
 * `setServerFacts` operation. A server that cannot be reached is said in words; the plan goes on without facts.
 */

export interface InspectionProject {
  projectId: number;
  installationId: number;
}

/** The planning calls it makes (PlanningService narrowed). */
export interface InspectionPlanning {
  stack(projectId: number): Promise<{ model: StackModel }>;
  editStack(projectId: number, ops: unknown[]): Promise<{ model: StackModel }>;
  secretValues(projectId: number): Promise<Record<string, string>>;
  listSecrets(projectId: number): Promise<Array<{ name: string }>>;
  hiddenValues(projectId: number): Promise<Record<string, string>>;
}

/** The sandbox calls it makes (SandboxService narrowed): a wake, then the command. */
export interface InspectionSandbox extends WakeableSandbox {
  exec(project: { id: number; installationId: number }, command: string, options?: ExecOptions): Promise<ExecResult>;
}

/** The User Secret the command logs in with (the one the plans declare for an existing server). */
export const INSPECTION_KEY_SECRET = 'SSH_PRIVATE_KEY';
/** Long enough for a slow first contact and a busy Docker; the person waits for it. */
export const INSPECTION_TIMEOUT_MS = 120_000;

/** What OpenSSH says when the server's key is not the pinned one (a changed key under strict or accept-new checking). */
const HOST_KEY_CHANGED = /REMOTE HOST IDENTIFICATION HAS CHANGED|Host key verification failed|has changed and you have requested strict checking/i;

/** Why the command failed, in words, from its exit and its last lines. */
function failure(result: ExecResult, target: string, where: Inspected, blank: (text: string) => string): string {
  if (result.timedOut) return `The inspection of ${target} did not finish within ${INSPECTION_TIMEOUT_MS / 1000} seconds.`;
  if (result.cancelled) return 'The inspection was stopped before it finished.';
  // What ssh and the server said, without the host key section the command prints after them (blanked: only it can hold a secret's value).
  const said = blank(result.output.split(`\n${HOSTKEY_MARK} `)[0]!);
  const last = said.trim().split('\n').filter((l) => !l.startsWith('== da-readback')).slice(-1)[0] ?? '';
  if (result.exitCode === 3) return last;
  if (result.exitCode === 255 && HOST_KEY_CHANGED.test(said)) {
    return `${target} answered with another SSH host key than the one pinned in this workspace (${KNOWN_HOSTS}), so nothing was read, and the deploy would refuse it too. If the server was reinstalled, remove the old key in the workspace terminal (ssh-keygen -R ${namedBySecrets(where) ? `<the address in ${where.hostVar}>` : `'${knownHostsName(where)}'`} -f ${KNOWN_HOSTS}) and inspect it again; if not, something may be answering in the server's place.`;
  }
  if (result.exitCode === 255) {
    const why = /Permission denied/i.test(result.output)
      ? 'the key in SSH_PRIVATE_KEY was refused'
      : /refused|timed out|No route|Could not resolve|unreachable/i.test(result.output)
        ? 'nothing answered on that address and port'
        : 'SSH failed';
    return `Could not reach ${target} over SSH: ${why} (${last || 'no message'}).`;
  }
  return `The inspection of ${target} failed (exit ${result.exitCode ?? 'none'}): ${last || 'no message'}.`;
}

/**
 * One try: the person who approved the command waits on this answer, so a sandbox another request is still
 * starting is said at once (try again in a minute) rather than holding the request while it finishes.
 */
const INSPECTION_WAKE: WakeOptions = { attempts: 1 };

export function createServerInspection(deps: { planning: InspectionPlanning; sandbox: InspectionSandbox; timeoutMs?: number; wake?: WakeOptions }) {
  const { planning, sandbox } = deps;
  /** Projects with an inspection under way: a second approval waits for none, it is refused. */
  const running = new Set<number>();

  async function offer(projectId: number): Promise<ServerInspectionOffer & { where?: Inspected }> {
    const { model } = await planning.stack(projectId);
    const target = model.target;
    if (target?.kind === 'new') return { target_kind: 'new', available: false, reason: 'The plan creates a new machine, which runs nothing yet: there is nothing to inspect.' };
    const facts = model.serverFacts ? { facts: model.serverFacts } : {};
    let where: Inspected;
    if (target) {
      where = { user: target.user, host: target.host, port: target.port };
      if (!safeTarget(where)) return { target_kind: 'existing', available: false, reason: `The server ${target.user}@${target.host} cannot be named in a command as it is written.` };
    } else {
      // No server in the words: the plan may still name it through User Secrets, as its first step reaches it.
      const declared = new Set((await planning.listSecrets(projectId)).map((x) => x.name));
      if (!declared.has(SECRETS_TARGET.userVar) || !declared.has(SECRETS_TARGET.hostVar)) {
        return { target_kind: 'none', available: false, reason: 'No server is named yet: say which server the stack goes on (user@host and SSH port) in the requirements, or go on without an inspection.' };
      }
      where = SECRETS_TARGET;
    }
    const label = targetLabel(where);
    const named = namedBySecrets(where) ? { named_by_secrets: [where.userVar, where.hostVar] } : {};
    // Declared is not enough: each value must be there (values never leave the server but into the sandbox).
    const values = await planning.secretValues(projectId);
    const needed = [INSPECTION_KEY_SECRET, ...(namedBySecrets(where) ? [where.hostVar, where.userVar] : [])];
    const missing = needed.filter((name) => !values[name]?.trim());
    if (missing.length) {
      const what = missing.map((name) => (name === INSPECTION_KEY_SECRET ? `the private key that logs in (${name})` : name)).join(', ');
      return { target_kind: 'existing', available: false, target: label, ...named, reason: `Add ${what} to User Secrets to inspect ${label}, or go on without an inspection.`, ...facts };
    }
    if (namedBySecrets(where) && !safeTarget({ user: values[where.userVar]!, host: values[where.hostVar]!, port: where.port })) {
      return { target_kind: 'existing', available: false, target: label, ...named, reason: `${where.userVar} or ${where.hostVar} in User Secrets is not a user name or address ssh can take (a plain user name, and a host name or IP address without brackets or port): correct it to inspect the server.`, ...facts };
    }
    return { target_kind: 'existing', available: true, target: label, ...named, command: inspectionCommand(where), where, ...facts };
  }

  return {
    async offer(projectId: number): Promise<ServerInspectionOffer> {
      const { where: _where, ...shown } = await offer(projectId);
      return shown;
    },

    /**
     * Runs the command the person approved, when it is exactly the one offered now (409 otherwise: the
     * target or the key changed since it was shown), and records what it found.
     */
    async run(scope: InspectionProject, approved: string): Promise<ServerInspectionResult> {
      const current = await offer(scope.projectId);
      if (!current.available || !current.command) throw conflict(current.reason ?? 'There is nothing to inspect.');
      if (approved !== current.command) throw conflict('The inspection command is not the one offered now (the server in the plan changed): read the new command and approve it again.');
      if (running.has(scope.projectId)) throw conflict('An inspection of this server is already running.');
      running.add(scope.projectId);
      try {
        const project = { id: scope.projectId, installationId: scope.installationId };
        const notRunning = await wakeSandbox(sandbox, project, deps.wake ?? INSPECTION_WAKE);
        if (notRunning) return { status: 'failed', detail: `The inspection could not run: ${notRunning}.`, not_read: [] };
        const [env, hidden] = await Promise.all([planning.secretValues(scope.projectId), planning.hiddenValues(scope.projectId)]);
        const result = await sandbox.exec(project, current.command, { env: stepEnvironment(env), secrets: Object.values(hidden), timeoutMs: deps.timeoutMs ?? INSPECTION_TIMEOUT_MS });
        // A server named by User Secrets is named by them in what is sent back and stored, never by their values.
        const where = current.where!;
        const named = namedBySecrets(where) ? { [where.userVar]: env[where.userVar] ?? '', [where.hostVar]: env[where.hostVar] ?? '' } : {};
        const tail = blankValues(result.output.trim().split('\n').slice(-20).join('\n'), named);
        if (result.exitCode !== 0 || !result.output.includes('== da-readback end ==')) {
          const detail = failure(result, current.target!, where, (text) => blankValues(text, named));
          return { status: 'failed', detail: `${detail} The plan goes on without facts about the server.`, not_read: [], output: tail };
        }
        const parsed = parseInspection(result.output, new Date());
        const { facts, notRead } = blankIn(parsed, named);
        await planning.editStack(scope.projectId, [{ op: 'setServerFacts', facts }]);
        return { status: 'completed', detail: describeServerFacts(facts), facts, not_read: notRead };
      } finally {
        running.delete(scope.projectId);
      }
    },
  };
}

export type ServerInspection = ReturnType<typeof createServerInspection>;
