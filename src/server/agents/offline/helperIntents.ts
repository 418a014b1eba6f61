import { DETECT_DOCKER, hereScript } from './remoteShell';

/**
 * What the offline DevOps Helper understands of a question in words, as data: each intent names the word
 * groups a question must contain (a word matches a group when it starts with one of the group's stems),
 * where its command runs and the command itself. The most specific intent wins (most groups matched; on a
 * tie, the earlier one). Adding a question the helper understands is adding a row.
 */

export interface IntentContext {
  /** The service of the stack the question names, if any. */
  service?: string;
  /** Every service of the deployed stack. */
  services: string[];
  /** How the server is reached from the sandbox: `ssh -F ssh-keys/config da-server`. */
  ssh: string;
  /** Where the project's stack lives on the server (a checked stack directory, stackPlace.ts). */
  dir: string;
}

export interface Intent {
  id: string;
  /** Every group must be matched by a word of the question. */
  needs: string[][];
  /**
   * `server`: on the project's server (a project without one is told so); `either`: on the server when the
   * project has one and the question does not say sandbox or workspace; `sandbox`: in the sandbox.
   */
  where: 'server' | 'either' | 'sandbox';
  /** The script, run on the server (through one `bash -s`) or in the sandbox. */
  script: (c: IntentContext) => string;
  /** A script that runs in the sandbox and reaches the server itself (its own ssh calls). */
  fromSandbox?: boolean;
  /** The server script needs `docker` and `compose` (sudo or not, Compose v1 or v2). */
  docker?: boolean;
  /** What the command shows or does, for the reply. */
  why: (c: IntentContext) => string;
}

const inStack = (c: IntentContext): string => `cd ${c.dir}`;
const psFormat = "'table {{.Names}}\\t{{.Image}}\\t{{.Status}}\\t{{.Ports}}'";

export const INTENTS: readonly Intent[] = [
  {
    id: 'restart',
    needs: [['restart']],
    where: 'server',
    docker: true,
    script: (c) => `${inStack(c)}\ncompose restart${c.service ? ` ${c.service}` : ''}\ncompose ps`,
    why: (c) => `restarts ${c.service ? `the ${c.service} service` : 'every service of the stack'} and shows their state`,
  },
  {
    id: 'update-images',
    needs: [['update', 'upgrade', 'pull', 'refresh'], ['image', 'container', 'service', 'stack', 'version']],
    where: 'server',
    docker: true,
    script: (c) => `${inStack(c)}\ncompose pull${c.service ? ` ${c.service}` : ''}\ncompose up -d${c.service ? ` ${c.service}` : ''}\ncompose ps`,
    why: (c) => `pulls newer images${c.service ? ` for ${c.service}` : ''} and recreates the containers whose image changed`,
  },
  {
    id: 'logs',
    needs: [['log']],
    where: 'server',
    docker: true,
    script: (c) => `${inStack(c)}\ncompose logs --no-color --timestamps --tail 100${c.service ? ` ${c.service}` : ''}`,
    why: (c) => `shows the last 100 log lines of ${c.service ? `the ${c.service} service` : 'every service of the stack'}`,
  },
  {
    id: 'certificates',
    needs: [['certificate', 'cert', 'tls', 'ssl', 'https', 'expir']],
    where: 'server',
    script: () =>
      [
        'if ! command -v openssl >/dev/null 2>&1; then echo "openssl is not installed on the server"; exit 0; fi',
        'cert=$(echo | timeout 10 openssl s_client -connect 127.0.0.1:443 -servername "$(hostname -f 2>/dev/null || hostname)" 2>/dev/null | openssl x509 -noout -subject -issuer -enddate 2>/dev/null || true)',
        'if [ -n "$cert" ]; then echo "$cert"; else echo "nothing answers TLS on port 443 of this server: no certificate to expire"; fi',
      ].join('\n'),
    why: () => 'shows the certificate served on port 443 and when it expires',
  },
  {
    id: 'changes-since-deploy',
    needs: [['chang', 'drift', 'differ', 'modif']],
    where: 'server',
    fromSandbox: true,
    script: (c) =>
      [
        '# The stack files as the steps deployed them (workspace) against what the server has now.',
        'for f in $(cd stack && find . -type f ! -name .env | sort); do',
        `  ${c.ssh} "cat ${c.dir}/$f" 2>/dev/null | diff -u --label "deployed: $f" --label "server now: $f" "stack/$f" - && echo "unchanged: $f" || true`,
        'done',
        `${c.ssh} 'docker ps -a --format "{{.Names}}\\t{{.Image}}\\t{{.CreatedAt}}\\t{{.Status}}" 2>/dev/null || sudo -n docker ps -a --format "{{.Names}}\\t{{.Image}}\\t{{.CreatedAt}}\\t{{.Status}}"'`,
      ].join('\n'),
    why: () => "compares the stack's files as deployed with the server's, and lists when each container was created",
  },
  {
    id: 'container-disk',
    needs: [['container', 'docker'], ['disk', 'size', 'space', 'storage']],
    where: 'server',
    docker: true,
    script: () => "docker ps -a --size --format 'table {{.Names}}\\t{{.Status}}\\t{{.Size}}'\ndocker system df",
    why: () => 'lists the containers with the disk each one uses, and what images, containers and volumes take in all',
  },
  {
    id: 'containers',
    needs: [['container', 'docker', 'running']],
    where: 'server',
    docker: true,
    script: () => `docker ps -a --format ${psFormat}`,
    why: () => 'lists the containers, their images, state and ports',
  },
  {
    id: 'disk-memory',
    needs: [['disk', 'space', 'storage'], ['memory', 'ram', 'swap']],
    where: 'either',
    script: () => 'df -h -x tmpfs -x devtmpfs -x overlay -x squashfs\nfree -m',
    why: () => 'shows how full each filesystem is and memory and swap use in MB',
  },
  {
    id: 'disk',
    needs: [['disk', 'space', 'storage', 'full']],
    where: 'either',
    script: () => 'df -h -x tmpfs -x devtmpfs -x overlay -x squashfs',
    why: () => 'shows how full each filesystem is',
  },
  {
    id: 'memory',
    needs: [['memory', 'ram', 'swap']],
    where: 'either',
    script: () => 'free -m',
    why: () => 'shows memory and swap use in MB',
  },
  {
    id: 'processes',
    needs: [['process', 'cpu', 'load']],
    where: 'either',
    script: () => 'uptime\nps aux --sort=-%cpu | head -15',
    why: () => 'shows the load and the busiest processes',
  },
  {
    id: 'files',
    needs: [['file', 'workspace', 'folder', 'director']],
    where: 'sandbox',
    script: () => 'ls -la',
    why: () => 'lists the workspace',
  },
];

/** The lower-case words of a question. */
export const wordsOf = (text: string): string[] => text.toLowerCase().match(/[a-z0-9][a-z0-9._-]*/g) ?? [];

/** The most specific intent whose every group the question matches, or undefined. */
export function intentOf(question: string): Intent | undefined {
  const words = wordsOf(question);
  const matches = (group: string[]): boolean => words.some((w) => group.some((stem) => w.startsWith(stem)));
  let best: Intent | undefined;
  for (const intent of INTENTS) if (intent.needs.every(matches) && (!best || intent.needs.length > best.needs.length)) best = intent;
  return best;
}

/** The stack service a question names (a word equal to a service name, or naming it with a suffix: "redis's"). */
export function serviceOf(question: string, services: string[]): string | undefined {
  const words = wordsOf(question);
  return services.find((s) => words.some((w) => w === s.toLowerCase() || w.replace(/'s$|s$/, '') === s.toLowerCase()));
}

/** A server script as one `bash -s` over SSH (strict, stdin closed once read; docker helpers when it needs them). */
export function onServer(ssh: string, intent: Intent, context: IntentContext): string {
  const script = `${intent.docker ? `${DETECT_DOCKER}\n` : ''}${intent.script(context)}`;
  const doc = hereScript('REMOTE', script, { strict: true });
  return [`${ssh} 'bash -s' <<'${doc.tag}'`, ...doc.lines].join('\n');
}
