import type { SandboxCommit } from '../../shared/api/sandbox';

/**
 * What every driver's sandbox looks like from inside, whoever runs it (bubblewrap, a container, a pod):
 * the home and workspace paths, the folders and ignore rules of a new workspace, the environment a
 * program starts with, and the shape of the git history that records each executed step.
 */

export const homeOf = (username: string): string => `/home/${username}`;
export const workspaceOf = (username: string): string => `/home/${username}/workspace`;

/** Where private keys live in the workspace (out of the git history). */
export const SSH_KEYS_FOLDER = 'ssh-keys';
export const WORKSPACE_FOLDERS = [SSH_KEYS_FOLDER, 'terraform', 'ansible'];
export const GITIGNORE = '# Private keys stay out of the history; provider plugins are re-downloaded.\nssh-keys/\n.terraform/\n';

/**
 * Files that hold secret values, as ignore rules (gitignore syntax, basename patterns and `folder/`):
 * written to the workspace's `.git/info/exclude` before every step commit, so they never enter the step
 * history (also when a step wrote them, or an older commit tracked them), and left out of downloads
 * unless the person asks for them. Templates (`.env.example`) are not secrets.
 */
export const SECRET_FILE_RULES = [
  '.env',
  '.env.*',
  '!.env.example',
  '!.env.sample',
  '!.env.template',
  '!.env.dist',
  '*.pem',
  '*.key',
  '*.p12',
  '*.pfx',
  'id_rsa',
  'id_dsa',
  'id_ecdsa',
  'id_ed25519',
  '*.tfstate',
  '*.tfstate.*',
  '*.tfvars',
  '.pgpass',
  '.netrc',
  'credentials',
  `${SSH_KEYS_FOLDER}/`,
  '.terraform/',
];

const ruleRegExp = (glob: string): RegExp => new RegExp(`^${glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]')}$`);
const SECRET_MATCHERS = SECRET_FILE_RULES.map((rule) => {
  const negated = rule.startsWith('!');
  const body = negated ? rule.slice(1) : rule;
  return { negated, folder: body.endsWith('/'), re: ruleRegExp(body.replace(/\/$/, '')) };
});

/**
 * True when a workspace path (relative, `/`-separated) is a file the secret rules leave out: its name
 * matches a file rule (the last matching rule decides, as in gitignore), or a folder on its way does.
 */
export function isSecretPath(relativePath: string): boolean {
  const parts = relativePath.split('/').filter(Boolean);
  if (parts.slice(0, -1).some((part) => SECRET_MATCHERS.some((m) => m.folder && !m.negated && m.re.test(part)))) return true;
  const name = parts[parts.length - 1] ?? '';
  let secret = false;
  for (const m of SECRET_MATCHERS) if (!m.folder && m.re.test(name)) secret = !m.negated;
  return secret;
}

/**
 * What a zip of the workspace folder `relativeFolder` ('' for the whole workspace) leaves out: the entries
 * (paths relative to that folder) that are secret as workspace paths; nothing when secrets are asked for.
 */
export function secretFilter(relativeFolder: string, includeSecrets = false): ((name: string) => boolean) | undefined {
  if (includeSecrets) return undefined;
  return (name) => isSecretPath(relativeFolder ? `${relativeFolder}/${name}` : name);
}

/**
 * What the project folder download leaves out: the secret files (as `secretFilter`) and the workspace's
 * step history (its `.git`), which only the working directory download carries; so the two buttons give
 * the project's files as they are now, and the whole working directory with its history.
 */
export function projectFolderFilter(relativeFolder: string, includeSecrets = false): (name: string) => boolean | 'skip' {
  const secret = secretFilter(relativeFolder, includeSecrets);
  return (name) => {
    const path = relativeFolder ? `${relativeFolder}/${name}` : name;
    if (path.split('/')[0] === '.git') return 'skip';
    return secret?.(name) ?? false;
  };
}

/** The file a download holds in place of the secret files it left out, listing them. */
export const LEFT_OUT_NOTE_NAME = 'SECRET-FILES-LEFT-OUT.txt';
export const leftOutNote = (paths: readonly string[], holding: readonly string[] = []): string =>
  [
    ...(paths.length
      ? [
          'This download leaves out the files below because they hold secret values (environment files, private keys,',
          'Terraform state). Download again with "Include secret files" to get them.',
          '',
          ...paths,
          '',
        ]
      : []),
    ...(holding.length
      ? [
          "This download leaves out the files below because a step wrote one of the project's secret values into them",
          '(a password in a configuration file). They stay in the workspace; download again with "Include secret files"',
          'to get them.',
          '',
          ...holding,
          '',
        ]
      : []),
  ].join('\n');

/** The environment every sandbox program starts with (plus the caller's extras). */
export function baseEnv(username: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    HOME: homeOf(username),
    USER: username,
    LOGNAME: username,
    SHELL: '/bin/bash',
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    ...extra,
  };
}

const STEP_TRAILER = 'Step-Number';
/** Field and record separators of the history format. */
const FS = '\x1f';
const RS = '\x1e';

/** `git log --format=` value that `parseHistory` reads. */
export const HISTORY_FORMAT = `%H${FS}%cI${FS}%s${FS}%b${RS}`;

/** The commit trailer naming a file left out of a step's commit because it holds a secret value. */
export const LEFT_OUT_TRAILER = 'Left-Out-Holds-Secret';

/**
 * Commits a step's changes: $1 the message, $2 the workspace, $3 the ignore rules of secret files, and
 * SECRET_FORMS in the environment the secret values' forms, one a line (secretSearchStrings). Files
 * matching the ignore rules (the workspace's own and SECRET_FILE_RULES), files holding a private key and
 * files holding a secret value (`password: …` in an app.conf) are taken out of the index, so they never
 * enter the history; the latter are named in the commit's LEFT_OUT_TRAILER lines. Prints the commit's sha.
 */
export const STEP_COMMIT_SCRIPT = [
  'set -e',
  'cd -- "$2"',
  'exclude=$(git rev-parse --git-path info/exclude)',
  'mkdir -p -- "$(dirname -- "$exclude")"',
  'printf \'%s\\n\' "$3" > "$exclude"',
  'git add -A',
  'git ls-files -z --cached --ignored --exclude-standard | xargs -0 -r git rm -q --cached --',
  "{ git grep -z -l -I --cached -e '-----BEGIN [A-Z ]*PRIVATE KEY-----' || true; } | xargs -0 -r git rm -q --cached --",
  'note=',
  'if [ -n "${SECRET_FORMS:-}" ]; then',
  '  held=$(git rev-parse --git-path info/holds-secret)',
  '  { printf \'%s\\n\' "$SECRET_FORMS" | git grep -z -l -I --cached -F -f - || true; } > "$held"',
  '  xargs -0 -r git rm -q --cached -- < "$held"',
  `  note=$(tr '\\0' '\\n' < "$held" | sed 's/^/${LEFT_OUT_TRAILER}: /')`,
  'fi',
  'git commit -q --allow-empty --no-verify -F - <<<"$1$note"',
  'git rev-parse HEAD',
].join('\n');

/** The commit message of an executed step: subject, the whole command, and a Step-Number trailer. */
export function stepCommitMessage(stepNumber: number, command: string): string {
  const subject = `Step ${stepNumber}: ${command.split('\n')[0]!.slice(0, 72)}`;
  return `${subject}\n\n${command}\n\n${STEP_TRAILER}: ${stepNumber}\n`;
}

/** Reads `git log --format=${HISTORY_FORMAT}` output into the history the API answers. */
export function parseHistory(stdout: string): SandboxCommit[] {
  return stdout
    .split(RS)
    .map((r) => r.replace(/^\n/, ''))
    .filter(Boolean)
    .map((record) => {
      const [sha, date, subject, body = ''] = record.split(FS);
      const trailer = new RegExp(`^${STEP_TRAILER}: (\\d+)\\s*$`, 'm').exec(body);
      const step = trailer ? Number(trailer[1]) : null;
      const command = step !== null ? body.slice(0, trailer!.index).trim() : null;
      return { sha: sha!, message: subject!, step_number: step, command, created_at: new Date(date!).toISOString() };
    });
}
