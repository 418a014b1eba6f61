import { dispatchCustomEvent } from '@langchain/core/callbacks/dispatch';
import type { ToolMessage } from '@langchain/core/messages';
import type { ToolCall } from '@langchain/core/messages/tool';
import type { RunnableConfig } from '@langchain/core/runnables';
import type { Db } from '../../db/client';
import { HttpError } from '../../errors';
import type { ModelProvider } from '../../agents/models';
import { DEVOPS_HELPER_TOOLS } from '../../agents/toolNames';
import { STOPPED_TOOL_ANSWER, type AgentTool } from '../../agents/turnLoop';
import { createTurnSession, type Turn, type TurnMeter } from '../../agents/turnSession';
import { messageText } from '../../agents/messageText';
import type { ExecOptions, ExecResult } from '../../sandbox/driver';
import { execOutcome } from '../../sandbox/execTracker';
import { textRedactor } from '../../sandbox/redactor';
import { dangerousReason } from '../execution/dangerous';
import type { ApprovalDecision, Approvals } from './approvals';
import { projectPlace } from '../releases/projectPlace';
import { LEGACY_STACK_DIR } from '../../agents/offline/stackPlace';
import { loadProjectServers, runsOn, SSH_CONFIG_FILE, type ProjectServers } from './projectServers';

/** The agent id its token usage is recorded under. */
export const DEVOPS_HELPER_AGENT_ID = 'devopsHelperAgent';
const THREAD_AGENT = 'devops-helper';
/** The custom graph event carrying text for the chat (command outcome), already redacted. */
const CHAT_NOTE = 'devops_helper_note';
/** Longest command the helper may propose. */
const MAX_COMMAND_LENGTH = 8_000;
/** How much of a command's output the model reads back (the end is kept). */
const MAX_TOOL_OUTPUT = 8_000;

const TOOLS: AgentTool[] = [
  {
    type: 'function',
    function: {
      name: DEVOPS_HELPER_TOOLS.runCommand,
      description:
        "Run one shell command in the project's sandbox (bash, in the workspace, with the User Secrets as environment variables); to run it on one of the project's servers, wrap it in `ssh -F ssh-keys/config <server name> '<command>'`. The person sees the exact command and where it runs, and it runs only if they approve it; you get its exit code and output.",
      parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
    },
  },
];

export interface DevopsHelperDeps {
  db: Db;
  models: ModelProvider;
  approvals: Approvals;
  /** The sandbox (SandboxService narrowed): a stopped one answers 409. */
  sandbox: { exec(project: { id: number; installationId: number }, command: string, options?: ExecOptions): Promise<ExecResult> };
  /** The project's User Secrets: names for the danger check, values as env. */
  secretValues(projectId: number): Promise<Record<string, string>>;
  /** The values that are secrets, for redaction (a host or a port the person wrote is not); all when absent. */
  hiddenValues?(projectId: number): Promise<Record<string, string>>;
  meter: TurnMeter;
  /** Upper bound of one command; the driver's default when absent. */
  commandTimeoutMs?: number;
}

/** What a helper turn reads before it starts. */
interface HelperState {
  /** Redacts everything the turn sends to the chat and to the model. */
  redact(text: string): string;
  secrets: Record<string, string>;
  /** The values redacted (the secrets among `secrets`). */
  hidden: string[];
  /** The servers the project's steps configured, read at the start of the turn. */
  servers: ProjectServers;
}

type HelperTurn = Turn<HelperState>;

/** The chat's note of a command that ran: its outcome and its (redacted) output in a code block. */
const ranNote = (command: string, outcome: string, output: string): string => {
  const shown = output.trimEnd() ? `\n\`\`\`\n${output.trimEnd().replace(/```/g, '`\u200b``')}\n\`\`\`\n` : '\n_(no output)_\n';
  return `\n\n\`${command}\` ${outcome}:\n${shown}`;
};
/** The chat's note of a command that did not run (denied, expired, failed to start). */
const notRunNote = (text: string): string => `\n\n_${text}_\n`;
/** What the model reads of a command that ran; `noteOfResult` reads it back for a reloaded chat. */
const RAN_RESULT = /^The command (.+?)\. Output:\n([\s\S]*)$/;

/** The note a command's tool result showed in the chat while the turn streamed, rebuilt from the thread. */
function noteOfResult(call: ToolCall | undefined, result: ToolMessage): string | null {
  const text = messageText(result);
  const command = (call?.args as { command?: unknown } | undefined)?.command;
  const ran = RAN_RESULT.exec(text);
  if (ran && typeof command === 'string') return ranNote(command, ran[1]!, ran[2]!);
  // Neither a refused call nor one a stop left open showed anything.
  if (text === STOPPED_TOOL_ANSWER || text.startsWith('Error: the command must be')) return null;
  return notRunNote(text.replace(/^Error: /, ''));
}

/**
 * The DevOps Helper, on the one turn loop (turnLoop.ts): its one tool
 * runs a shell command in the project's sandbox, but only after the person approves that exact request:
 * the tools node announces an approval request (flagged with `dangerousReason`) and waits for
 * `approvals.decide`; a denied, expired or cancelled request never runs. The command's outcome, redacted
 * of the project's secrets, is streamed into the chat and read back by the model. Every model call is
 * metered; a turn is refused with 402 at a spent balance.
 */
export function createDevopsHelperAgent(deps: DevopsHelperDeps) {
  const { approvals, sandbox } = deps;
  const hiddenValues = deps.hiddenValues ?? deps.secretValues;

  /** The system prompt of a turn: the role, and the project's servers with how to reach them. */
  const systemPrompt = (servers: ProjectServers): string =>
    [
      'Role: devops',
      "You are the DevOps Helper of a DevOps workspace. You help the person investigate and operate their infrastructure from the project's sandbox (which can reach their VPS over SSH). To run anything, call run_command with the exact shell command; the person approves or denies each command, and you get its output. Prefer read-only investigation before changes, explain what a command does, and never print secret values (User Secrets are environment variables).",
      servers.servers.length
        ? `The project's servers, as its steps configured them in ${SSH_CONFIG_FILE} (the stack lives in ${servers.stackDirectory ?? LEGACY_STACK_DIR} on the server; docker may need sudo): when a question is about a server, its containers, services, logs, disk, memory or certificates, run the command there with \`ssh -F ${SSH_CONFIG_FILE} <name> '<command>'\`, not in the sandbox.`
        : 'The project has no server configured yet (no ssh-keys/config in the workspace): commands run in the sandbox.',
      `<servers>\n${JSON.stringify(servers)}\n</servers>`,
    ].join('\n\n');

  /** Waits for the person's decision on one command; a kill of the turn cancels the request. */
  async function awaitDecision(turn: HelperTurn, command: string): Promise<ApprovalDecision> {
    const { state } = turn;
    // The person approves the command as shown (a secret typed into it blanked); the exact bytes run.
    const pending = approvals.request(turn.project, state.redact(command), dangerousReason(command, Object.keys(state.secrets)), runsOn(command, state.servers.servers));
    const onAbort = (): void => approvals.cancel(pending.id);
    turn.signal.addEventListener('abort', onAbort, { once: true });
    try {
      return await pending.decision;
    } finally {
      turn.signal.removeEventListener('abort', onAbort);
    }
  }

  async function runCommand(turn: HelperTurn, command: string, config: RunnableConfig): Promise<string> {
    if (!command.trim() || command.length > MAX_COMMAND_LENGTH) return `Error: the command must be 1 to ${MAX_COMMAND_LENGTH} characters.`;
    const decision = await awaitDecision(turn, command);
    turn.signal.throwIfAborted();
    const { state } = turn;
    if (decision !== 'approved') {
      const note = decision === 'denied' ? 'The command was denied; it did not run.' : 'The approval request expired; the command did not run.';
      await dispatchCustomEvent(CHAT_NOTE, { text: notRunNote(note) }, config);
      return note;
    }
    try {
      const result = await sandbox.exec({ id: turn.project.projectId, installationId: turn.project.installationId }, command, {
        env: state.secrets,
        secrets: state.hidden,
        signal: turn.signal,
        ...(deps.commandTimeoutMs ? { timeoutMs: deps.commandTimeoutMs } : {}),
      });
      const output = state.redact(result.output);
      await dispatchCustomEvent(CHAT_NOTE, { text: ranNote(command, execOutcome(result), output) }, config);
      return `The command ${execOutcome(result)}. Output:\n${output.slice(-MAX_TOOL_OUTPUT)}`;
    } catch (err) {
      turn.signal.throwIfAborted();
      const detail = state.redact(err instanceof HttpError ? err.message : `The command could not run: ${(err as Error).message}`);
      await dispatchCustomEvent(CHAT_NOTE, { text: notRunNote(detail) }, config);
      return `Error: ${detail}`;
    }
  }

  return createTurnSession<HelperState>({
    db: deps.db,
    meter: deps.meter,
    model: () => deps.models.forAgent('implementation'),
    usageAgent: DEVOPS_HELPER_AGENT_ID,
    threadAgent: THREAD_AGENT,
    tools: TOOLS,
    hiddenValues,
    defaultMessage: 'What can you do?',
    recursionLimit: 12,
    failureDetail: 'The DevOps Helper failed to answer; please try again.',
    noteEvent: CHAT_NOTE,
    toolNote: noteOfResult,
    async prepare(project) {
      const secrets = await deps.secretValues(project.projectId);
      const hidden = Object.values(await hiddenValues(project.projectId));
      const found = await loadProjectServers((command) => sandbox.exec({ id: project.projectId, installationId: project.installationId }, command, { timeoutMs: 10_000 }));
      const servers = { ...found, stackDirectory: (await projectPlace(deps.db, project.projectId, { fix: false })).dir };
      return { secrets, hidden, servers, redact: textRedactor(hidden) };
    },
    systemPrompt: ({ state }) => systemPrompt(state.servers),
    /** The one tool: a command that runs once the person approves it. */
    async runTool(turn, call, config) {
      const command = (call.args as { command?: unknown }).command;
      return call.name === DEVOPS_HELPER_TOOLS.runCommand && typeof command === 'string' ? runCommand(turn, command, config) : `Error: bad call of ${call.name}`;
    },
  });
}

export type DevopsHelperAgent = ReturnType<typeof createDevopsHelperAgent>;
