import YAML from 'yaml';
import type { RunsOn } from '../../../shared/events';

/**
 * The servers a project's steps reach: the `Host` entries of the SSH configuration the steps wrote in the
 * workspace (`ssh-keys/config`), and the services of the stack they deployed (`stack/docker-compose.yml`).
 * The DevOps Helper works on them, and every approval says where its command runs.
 */

/** Where the steps keep the SSH configuration (relative to the workspace; `ssh -F ssh-keys/config <name>`). */
export const SSH_CONFIG_FILE = 'ssh-keys/config';
/** The stack as the steps wrote it in the workspace (and copied to the server). */
export const STACK_COMPOSE_FILE = 'stack/docker-compose.yml';

export interface ProjectServer {
  /** The `Host` name the configuration gives it: what `ssh -F ssh-keys/config <name>` reaches. */
  name: string;
  host: string;
  user: string | null;
  port: number;
}

export interface ProjectServers {
  servers: ProjectServer[];
  /** The services of the deployed stack, by compose name. */
  services: string[];
  /** Where the project's stack lives on the server (stackPlace.ts); absent: the legacy `/opt/stack`. */
  stackDirectory?: string;
}

/** Splits an ssh_config line into words as ssh does: whitespace or one `=` after the keyword, double quotes group. */
function words(line: string): string[] {
  const out: string[] = [];
  let current = '';
  let quoted = false;
  let started = false;
  for (const ch of line) {
    if (ch === '"') {
      quoted = !quoted;
      started = true;
    } else if (!quoted && (/\s/.test(ch) || (ch === '=' && out.length === 0))) {
      if (started) out.push(current);
      current = '';
      started = false;
    } else {
      current += ch;
      started = true;
    }
  }
  if (started) out.push(current);
  return out;
}

/**
 * The concrete hosts of an ssh_config text: each `Host` block's names without wildcards or negation, with
 * its HostName (else the name), User and Port (22 when unset). `Match` blocks and `Include` are not followed.
 *
 * @example parseSshConfig('Host da-server\n  HostName 203.0.113.7\n  Port 2222\n  User deploy')
 *   // [{ name: 'da-server', host: '203.0.113.7', user: 'deploy', port: 2222 }]
 */
export function parseSshConfig(text: string): ProjectServer[] {
  const servers: ProjectServer[] = [];
  let block: { names: string[]; options: Map<string, string> } | null = null;
  const close = (): void => {
    if (!block) return;
    for (const name of block.names) {
      const port = Number(block.options.get('port') ?? 22);
      servers.push({ name, host: block.options.get('hostname') ?? name, user: block.options.get('user') ?? null, port: Number.isInteger(port) && port > 0 && port < 65536 ? port : 22 });
    }
  };
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const [keyword, ...args] = words(line);
    if (!keyword) continue;
    const key = keyword.toLowerCase();
    if (key === 'host' || key === 'match') {
      close();
      block = key === 'host' ? { names: args.filter((n) => !/[*?!]/.test(n)), options: new Map() } : null;
    } else if (block && args[0] !== undefined && !block.options.has(key)) {
      // ssh uses the first value given for an option.
      block.options.set(key, args[0]);
    }
  }
  close();
  return servers;
}

/** The service names of a compose file's text; none when it does not parse. */
export function composeServices(text: string): string[] {
  try {
    const parsed = YAML.parse(text) as { services?: Record<string, unknown> } | null;
    return Object.keys(parsed?.services ?? {});
  } catch {
    return [];
  }
}

/** Options of ssh(1) that take a value (the next word is not the destination). */
const SSH_VALUE_OPTIONS = new Set('BbcDEeFIiJLlmOopQRSWw'.split(''));

/** The words of a shell command line outside quotes, split into simple commands at ; | & && || and newlines. */
function simpleCommands(command: string): string[][] {
  const commands: string[][] = [[]];
  let word = '';
  let quote: '"' | "'" | null = null;
  let inWord = false;
  const end = (): void => {
    if (inWord) commands.at(-1)!.push(word);
    word = '';
    inWord = false;
  };
  for (let i = 0; i < command.length; i++) {
    const ch = command[i]!;
    if (quote) {
      if (ch === quote) quote = null;
      else if (ch === '\\' && quote === '"') word += command[++i] ?? '';
      else word += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
    } else if (ch === '\\') {
      word += command[++i] ?? '';
      inWord = true;
    } else if (/[;|&\n()]/.test(ch)) {
      end();
      commands.push([]);
    } else if (/\s/.test(ch)) {
      end();
    } else {
      word += ch;
      inWord = true;
    }
  }
  end();
  return commands.filter((c) => c.length);
}

/** Keywords after which a simple command's own name follows (`then ssh …`, `do ssh …`, `sudo ssh …`). */
const PREFIXES = new Set(['then', 'do', 'else', 'elif', 'if', 'while', 'until', '!', 'time', 'sudo', 'exec', 'command', 'env', 'nice', 'timeout']);

/**
 * Where a command runs: on one of the project's servers when it calls `ssh` with one of their names (or
 * addresses) as destination, else in the project sandbox. Quoted text (what runs remotely) is not read.
 */
export function runsOn(command: string, servers: ProjectServer[]): RunsOn {
  for (const words of simpleCommands(command)) {
    let i = 0;
    while (i < words.length && (PREFIXES.has(words[i]!) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!) || /^\d+[smh]?$/.test(words[i]!))) i++;
    if (words[i] !== 'ssh' && !words[i]?.endsWith('/ssh')) continue;
    for (let j = i + 1; j < words.length; j++) {
      const w = words[j]!;
      if (w === '--') continue;
      if (w.startsWith('-')) {
        const letters = w.slice(1);
        // `-p 22`: the value is the next word; `-p22`: it is glued on.
        if (letters.length === 1 && SSH_VALUE_OPTIONS.has(letters)) j++;
        continue;
      }
      const destination = w.replace(/^ssh:\/\//, '').replace(/^[^@]*@/, '').replace(/:\d+$/, '');
      const server = servers.find((s) => s.name === destination || s.host === destination);
      if (server) return { kind: 'server', name: server.name, address: `${server.user ? `${server.user}@` : ''}${server.host}:${server.port}` };
      // A host the project's configuration does not name: still not the sandbox, and said so.
      return { kind: 'server', name: w, address: `${w} (not in ${SSH_CONFIG_FILE})` };
    }
  }
  return { kind: 'sandbox' };
}

/** Separates the two files in one read. */
const FILE_BREAK = '--- da-helper-file-break ---';

/**
 * Reads the project's servers from its workspace (one read-only `cat` of the two files the steps wrote; no
 * approval: nothing the person runs). A sandbox that is not running, or a workspace without them, has none.
 */
export async function loadProjectServers(exec: (command: string) => Promise<{ output: string }>): Promise<ProjectServers> {
  try {
    const { output } = await exec(`cat -- ${SSH_CONFIG_FILE} 2>/dev/null; echo '${FILE_BREAK}'; cat -- ${STACK_COMPOSE_FILE} 2>/dev/null; true`);
    const [config = '', compose = ''] = output.split(`${FILE_BREAK}\n`);
    return { servers: parseSshConfig(config), services: composeServices(compose) };
  } catch {
    return { servers: [], services: [] };
  }
}
