import type { PlannerReply, Turn } from './plannerTypes';
import { intentOf, onServer, serviceOf, wordsOf } from './helperIntents';
import { SSH_CONFIG } from './remoteShell';

/** The DevOps Helper's one tool (see services/devopsHelper/devopsHelperAgent.ts). */
import { DEVOPS_HELPER_TOOLS } from '../toolNames';
import { isStackDirectory, LEGACY_STACK_DIR } from './stackPlace';

export { DEVOPS_HELPER_TOOLS };

/**
 * The command a message asks to run: the first `backticked` command after run/execute (or any backticked
 * command), else `run <command>` to the end of the line.
 *
 * @example commandOf('please run `echo hello-helper`') === 'echo hello-helper'
 */
export function commandOf(message: string): string | undefined {
  const ticked = message.match(/`([^`\n]+)`/);
  if (ticked?.[1]?.trim()) return ticked[1].trim();
  const plain = message.match(/^\s*(?:please\s+)?(?:run|execute|exec)\s*:?\s+(.+)$/im);
  return plain?.[1]?.trim() || undefined;
}

/** The servers block of the helper's system prompt (services/devopsHelper/projectServers.ts). */
export interface HelperServers {
  servers: Array<{ name: string; host: string; user: string | null; port: number }>;
  services: string[];
  /** Where the project's stack lives on the server (stackPlace.ts); absent: the legacy `/opt/stack`. */
  stackDirectory?: string;
}

/** The stack directory the servers block names, when it is one the shell may be given unquoted; else the legacy one. */
const stackDirectoryOf = (known: HelperServers): string => (known.stackDirectory && isStackDirectory(known.stackDirectory) ? known.stackDirectory : LEGACY_STACK_DIR);

/** Words that put a question in the sandbox rather than on the server. */
const SANDBOX_WORDS = ['sandbox', 'workspace'];

/**
 * The offline DevOps Helper: when the person asks to run something it proposes exactly that command;
 * a question in words is mapped to a command by the intents table (helperIntents.ts), run on the
 * project's server over the SSH configuration its steps wrote when the question is about the server,
 * else in the sandbox. Every command runs only after the person approves it; otherwise it says what it
 * can do.
 */
export function devopsHelperReply(turns: Turn[], known: HelperServers = { servers: [], services: [] }): PlannerReply {
  const message = [...turns].reverse().find((t) => t.role === 'user')?.content ?? '';
  const command = commandOf(message);
  if (command) {
    return {
      text: `I will run \`${command}\` once you approve it.`,
      toolCalls: [{ name: DEVOPS_HELPER_TOOLS.runCommand, args: { command } }],
    };
  }
  const intent = intentOf(message);
  const words = wordsOf(message);
  // The server the question names (by name or address), else the project's first.
  const server = known.servers.find((s) => words.includes(s.name.toLowerCase()) || words.includes(s.host.toLowerCase())) ?? known.servers[0];
  if (intent) {
    const ssh = server ? `ssh -F ${SSH_CONFIG} ${server.name}` : '';
    const context = { services: known.services, ssh, dir: stackDirectoryOf(known), ...(serviceOf(message, known.services) ? { service: serviceOf(message, known.services) } : {}) };
    const inSandbox = intent.where === 'sandbox' || (intent.where === 'either' && (!server || words.some((w) => SANDBOX_WORDS.some((s) => w.startsWith(s)))));
    if (!inSandbox && !server) {
      return {
        text: `That is a question about your server, and this project has none configured yet: its steps write the SSH configuration (\`${SSH_CONFIG}\`) when they first connect. Run the execution stage first, or ask me to run a command in the sandbox.`,
        toolCalls: [],
      };
    }
    const proposed = inSandbox ? intent.script(context) : intent.fromSandbox ? intent.script(context) : onServer(ssh, intent, context);
    const where = inSandbox ? 'in the project sandbox' : `on ${server!.name} (${server!.user ? `${server!.user}@` : ''}${server!.host}), over SSH from the sandbox`;
    return {
      text: `Let me check ${where}: this ${intent.why(context)}. It runs once you approve it.`,
      toolCalls: [{ name: DEVOPS_HELPER_TOOLS.runCommand, args: { command: proposed } }],
    };
  }
  const servers = known.servers.map((s) => `${s.name} (${s.host})`).join(', ');
  return {
    text: [
      `I'm the DevOps Helper. I can investigate and change things in your project's sandbox${servers ? ` and on its server ${servers}` : ' (and, through it, on your VPS)'}:`,
      'ask me to run a command, e.g. "run `docker ps`", or ask in words about the containers, a service\'s logs, disk and memory, restarting a service, updating images, certificate expiry or what changed since the deploy.',
      'Every command is shown to you first, with where it runs, and runs only after you approve it.',
    ].join(' '),
    toolCalls: [],
  };
}
