/**
 * Commands a person must approve explicitly, even with Auto-Approve on: the client never auto-approves a
 * step that carries a `dangerous_reason`, and the step card shows the reason. The rules look for what
 * destroys a machine or its data, can lock the person or the sandbox out of a server (firewalls, sshd),
 * creates or deletes paid cloud resources, runs code nobody has read, or prints a secret; ordinary
 * deployment commands (`rm -rf ./build`, `docker compose down`, `curl -fsS https://…`) pass.
 */

import { PROVIDERS } from '../../agents/offline/knowledge';

/** Top-level system folders whose recursive deletion or opening-up ruins a machine. */
const SYSTEM_PATH =
  /^(\/+\*?|~\/?\*?|\$HOME\/?\*?|\$\{HOME\}\/?\*?|\/+(etc|usr|var|bin|sbin|boot|lib|lib32|lib64|home|root|opt|srv|sys|proc|dev|run|mnt|media|snap)\/*\*?)$/;

/** Templates and public keys are safe to print. */
const HARMLESS_FILE = /(\.env\.(example|sample|template|dist)|\.pub)$/;
const SECRET_FILE = /(^|\/)(\.env(\.[\w-]+)?|id_(rsa|dsa|ecdsa|ed25519)(_sk)?|[\w.-]+\.pem|[\w.-]+\.key|shadow|gshadow|credentials|\.pgpass|\.netrc)$/;

interface Invocation {
  /** Which of the names was invoked. */
  name: string;
  /** The arguments up to the end of the simple command. */
  args: string[];
  /** What ends it: '|' (piped into another command), ';', '&', a newline or the end of the text. */
  terminator: string;
}

const unquote = (word: string): string => word.replace(/^['"`(]+|['"`);]+$/g, '');

/** Every invocation of one of `names` in the text, also inside `ssh host '…'` or `sh -c "…"`. */
function invocations(command: string, names: string): Invocation[] {
  const re = new RegExp(`(?:^|[\\s;&|('"\`])(?:sudo\\s+(?:-\\S+\\s+)*)?(${names})(?=[\\s;&|)'"\`]|$)([^;&|\\n]*)([;&|\\n]|$)`, 'g');
  return [...command.matchAll(re)].map((m) => ({
    name: m[1]!,
    args: m[2]!.trim().split(/\s+/).filter(Boolean).map(unquote).filter(Boolean),
    terminator: m[3] ?? '',
  }));
}

/** Arguments before any redirection: what a command reads or acts on, not where its output goes. */
const beforeRedirect = (args: string[]): string[] => {
  const i = args.findIndex((a) => /^\d*[<>]/.test(a));
  return i < 0 ? args : args.slice(0, i);
};
const flagsOf = (args: string[]): string[] => args.filter((a) => a.startsWith('-'));
const operandsOf = (args: string[]): string[] => args.filter((a) => !a.startsWith('-'));
const redirects = (args: string[]): boolean => args.some((a) => /^\d*>/.test(a) || a.includes('>'));

type Rule = (command: string, secretNames: readonly string[]) => string | undefined;

const LOCKOUT = 'can lock you, or the sandbox’s later SSH steps, out of the server';
const COSTS = 'it costs money, and running it again may create a second one';

/** Calls of the providers' CLIs of one kind (each provider file's `guards`), with what a person is told. */
const providerGuards = (kind: 'lockout' | 'costs' | 'deletes', then: (says: string) => string): Array<[RegExp, string]> =>
  Object.values(PROVIDERS).flatMap((p) => (p.guards ?? []).filter((g) => g.kind === kind).map((g): [RegExp, string] => [new RegExp(g.pattern), then(g.says)]));

/** Cloud calls, matched on the whole text (also inside `ssh host '…'`): firewalls first, then paid resources, then deletions. */
const CLOUD_RULES: Array<[RegExp, string]> = [
  ...providerGuards('lockout', (says) => `${says}: ${LOCKOUT}`),
  ...providerGuards('costs', (says) => `${says}: ${COSTS}`),
  [/\b(terraform|tofu)\s+(-chdir=\S+\s+)?apply\b/, `Applies infrastructure changes (terraform apply): it may create paid resources or replace running ones`],
  [/\bpulumi\s+up\b/, 'Applies infrastructure changes (pulumi up): it may create paid resources or replace running ones'],
  ...providerGuards('deletes', (says) => says),
  [/\b(terraform|tofu)\s+(-chdir=\S+\s+)?destroy\b|\bpulumi\s+destroy\b/, 'Destroys the infrastructure it manages'],
  [/\bkubectl\s+delete\s+(ns|namespace|namespaces|pvc|pv|persistentvolumeclaims?|persistentvolumes?)\b/, 'Deletes Kubernetes namespaces or volumes and their data'],
];

/** What sshd reads: editing it (or restarting sshd after) can close the only way in. */
const SSHD_CONFIG = /\/etc\/ssh\/sshd_config/;

const RULES: Rule[] = [
  // Recursive delete of the root, a system folder or the home folder.
  (command) => {
    for (const { args } of invocations(command, 'rm')) {
      const a = beforeRedirect(args);
      if (a.includes('--no-preserve-root')) return 'Deletes the whole file system (rm --no-preserve-root)';
      const recursive = flagsOf(a).some((f) => f === '--recursive' || /^-[a-zA-Z]*[rR]/.test(f));
      const target = operandsOf(a).find((p) => SYSTEM_PATH.test(p));
      if (recursive && target) return `Recursively deletes a system path (${target})`;
    }
    return undefined;
  },
  // Opening up or handing over the whole system.
  (command) => {
    for (const { args } of invocations(command, 'chmod|chown|chgrp')) {
      const a = beforeRedirect(args);
      const recursive = flagsOf(a).some((f) => f === '--recursive' || /^-[a-zA-Z]*R/.test(f));
      const target = operandsOf(a).find((p) => SYSTEM_PATH.test(p));
      if (target && (recursive || target.replace(/\/+$/, '') === '')) return `Changes permissions or ownership of a system path (${target})`;
    }
    return undefined;
  },
  // Dropping databases and wiping data stores.
  (command) => (/\bdrop\s+(database|schema|table)\b/i.test(command) ? 'Drops a database, schema or table (DROP …)' : undefined),
  (command) => (invocations(command, 'dropdb|dropuser').length ? 'Drops a PostgreSQL database (dropdb)' : undefined),
  (command) => (/\bflush(all|db)\b/i.test(command) ? 'Erases a Redis data store (FLUSHALL/FLUSHDB)' : undefined),
  (command) => (/\.drop(Database|Collection)?\s*\(/.test(command) ? 'Drops a MongoDB database or collection' : undefined),
  (command) => {
    for (const { args } of invocations(command, 'docker-compose|docker\\s+compose')) {
      if (args.includes('down') && args.some((a) => a === '-v' || a === '--volumes' || /^-[a-zA-Z]*v[a-zA-Z]*$/.test(a))) {
        return 'Deletes the stack’s data volumes (docker compose down -v)';
      }
    }
    for (const { args } of invocations(command, 'docker')) {
      if (args[0] === 'volume' && (args[1] === 'rm' || args[1] === 'prune')) return 'Deletes Docker volumes and their data';
      if (args[0] === 'system' && args[1] === 'prune' && args.includes('--volumes')) return 'Deletes Docker volumes and their data';
    }
    return undefined;
  },
  // Formatting, partitioning or overwriting disks.
  (command) => (invocations(command, 'mkfs(?:\\.\\w+)?|mke2fs|mkswap').length ? 'Formats a disk (mkfs)' : undefined),
  (command) => (invocations(command, 'wipefs|fdisk|sfdisk|parted|sgdisk').length ? 'Wipes or repartitions a disk' : undefined),
  (command) => {
    for (const { args } of invocations(command, 'dd')) if (args.some((a) => /^of=\/dev\/(?!null$|zero$|stdout$|stderr$)/.test(a))) return 'Overwrites a device (dd of=/dev/…)';
    for (const { args } of invocations(command, 'shred')) if (args.some((a) => a.startsWith('/dev/'))) return 'Shreds a device';
    if (/>\s*\/dev\/(sd[a-z]|nvme\d|hd[a-z]|vd[a-z]|xvd[a-z]|disk\d|mmcblk\d)/.test(command)) return 'Overwrites a disk device';
    return undefined;
  },
  // Running code straight from the network.
  (command) => {
    for (const { terminator } of invocations(command, 'curl|wget|fetch')) {
      if (terminator !== '|') continue;
      // The command the download is piped into.
      const after = command.slice(command.search(/\b(curl|wget|fetch)\b/));
      if (/\|\s*(sudo\s+(-\S+\s+)*)?(env\s+\S+=\S+\s+)*(ba|z|k|da|fi)?sh\b|\|\s*(sudo\s+)?(python3?|perl|ruby|node)\b(?!\s+-m\s+json)/.test(after)) {
        return 'Pipes a download straight into a shell or interpreter';
      }
    }
    if (/\b(ba|z|k|da)?sh\s+(-c\s+)?["']?(<\(|\$\()\s*(curl|wget)\b/.test(command)) return 'Runs a download as a script without saving it';
    return undefined;
  },
  // Printing secrets.
  (command) => {
    for (const { name, args, terminator } of invocations(command, 'env|printenv|export|set|declare')) {
      if (name === 'printenv') return 'Prints environment variables, which hold the User Secrets';
      if (args.length === 0 || (name !== 'env' && args.length === 1 && args[0] === '-p')) {
        if (terminator === '|' && /\|\s*(wc|true)\b/.test(command)) continue;
        return 'Prints environment variables, which hold the User Secrets';
      }
    }
    return undefined;
  },
  (command) => {
    for (const { args } of invocations(command, 'cat|less|more|head|tail|bat|batcat|xxd|hexdump|od|strings|base64|nl|tac')) {
      const file = operandsOf(beforeRedirect(args)).find((p) => SECRET_FILE.test(p) && !HARMLESS_FILE.test(p));
      if (file) return `Prints a file that holds secrets (${file})`;
    }
    return undefined;
  },
  (command, secretNames) => {
    if (!secretNames.length) return undefined;
    for (const { args, terminator } of invocations(command, 'echo|printf|print')) {
      if (terminator === '|' || redirects(args)) continue;
      const joined = args.join(' ');
      const shown = secretNames.find((n) => new RegExp(`\\$(\\{${n}[}:]|${n}\\b)`).test(joined));
      if (shown) return `Prints the secret ${shown}`;
    }
    return undefined;
  },
  // Firewalls on the machine: a default deny or a flush can cut the SSH connection the steps rely on.
  (command) => {
    for (const { args } of invocations(command, 'ufw')) {
      const verb = operandsOf(args)[0];
      if (verb && ['enable', 'default', 'deny', 'reject', 'reset', 'delete', 'limit', 'insert', 'route'].includes(verb)) return `Changes the server’s firewall (ufw ${verb}): ${LOCKOUT}`;
    }
    for (const { name, args } of invocations(command, 'iptables|ip6tables|iptables-restore|ip6tables-restore|iptables-legacy|nft|firewall-cmd')) {
      const text = args.join(' ');
      if (/restore/.test(name) || (name === 'nft' && /\b(flush|delete|drop|reject|policy|-f)\b/.test(text))) return `Changes the server’s firewall (${name}): ${LOCKOUT}`;
      if (/(^|\s)(-P|--policy|-F|--flush|-X|-D|--delete)\b|-j\s+(DROP|REJECT)\b/.test(text)) return `Changes the server’s firewall (${name}): ${LOCKOUT}`;
      if (name === 'firewall-cmd' && /--(remove-|set-default-zone|panic-on|add-rich-rule|change-interface)/.test(text)) return `Changes the server’s firewall (firewall-cmd): ${LOCKOUT}`;
    }
    return undefined;
  },
  // The SSH daemon's configuration and the keys it lets in.
  (command) => {
    if (SSHD_CONFIG.test(command)) {
      for (const { args } of invocations(command, 'sed|perl')) if (flagsOf(args).some((f) => /^-[a-zA-Z]*i/.test(f)) && args.some((a) => SSHD_CONFIG.test(a))) return `Edits the SSH server’s configuration: ${LOCKOUT}`;
      for (const { args } of invocations(command, 'tee|cp|mv|install|ln|rm|truncate')) if (args.some((a) => SSHD_CONFIG.test(a))) return `Edits the SSH server’s configuration: ${LOCKOUT}`;
      if (/>\s*\S*\/etc\/ssh\/sshd_config/.test(command)) return `Edits the SSH server’s configuration: ${LOCKOUT}`;
    }
    if (/\b(systemctl\s+(restart|reload|stop|disable|mask)\s+(ssh|sshd)(\.service|\.socket)?\b|service\s+(ssh|sshd)\s+(restart|reload|stop))/.test(command)) return `Restarts or stops the SSH server: ${LOCKOUT}`;
    if (/(^|[^>])>\s*\S*\.ssh\/authorized_keys\b/.test(command)) return `Replaces the keys allowed to log in (authorized_keys): ${LOCKOUT}`;
    for (const { args } of invocations(command, 'passwd|usermod')) if (args.some((a) => a === '-l' || a === '-L' || a === '--lock')) return `Locks a user account: ${LOCKOUT}`;
    return undefined;
  },
  // Paid cloud resources created or deleted, cloud firewalls changed.
  (command) => CLOUD_RULES.find(([re]) => re.test(command))?.[1],
  // Exhausting or stopping the machine.
  (command) => (/(\w+|:)\s*\(\)\s*\{[^}]*\1\s*\|\s*\1\s*&[^}]*\}\s*;?\s*\1/.test(command) ? 'Fork bomb: starts processes until the machine stops' : undefined),
  (command) => {
    for (const { args } of invocations(command, 'kill|pkill')) if (args.includes('-1') && args.length <= 2) return 'Kills every process';
    return invocations(command, 'shutdown|poweroff|halt|reboot|init\\s+[06]').length ? 'Shuts down or reboots the machine' : undefined;
  },
];

/**
 * Why a command needs a person's explicit approval, or undefined when it does not. `secretNames` are the
 * project's declared User Secrets (printing one of them is dangerous; using it is not).
 *
 * @example dangerousReason('curl -fsSL https://get.example.sh | sh') === 'Pipes a download straight into a shell or interpreter'
 */
export function dangerousReason(command: string | null, secretNames: readonly string[] = []): string | undefined {
  if (!command) return undefined;
  for (const rule of RULES) {
    const reason = rule(command, secretNames);
    if (reason) return reason;
  }
  return undefined;
}
