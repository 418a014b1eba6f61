/**
 * User Secret names that would change how steps run rather than what they deploy. A provided secret is
 * an environment variable of every step in the sandbox (over the sandbox's own, workspaceLayout.ts
 * `baseEnv`), travels ahead of remote scripts as an `export` (remoteShell.ts `sendEnvAhead`) and is
 * written to the stack's `.env`, which Docker Compose reads for its own settings. So a secret named
 * `PATH`, `BASH_ENV` or `LD_PRELOAD` runs other programs, `COMPOSE_PROJECT_NAME` or `COMPOSE_FILE` has
 * `up --remove-orphans` and `down` act on another stack, and `DOCKER_HOST` sends every docker command to
 * another engine. The list is what the programs the steps run really read: bash, the dynamic loader, ssh,
 * git, docker, compose, terraform, ansible, the locale; a name is matched exactly (environment names are
 * case-sensitive), a whole namespace where its program owns every name in it.
 */

interface Reserved {
  /** The exact names. */
  names?: string[];
  /** Every name starting so: a namespace its program reads all of (and adds to between versions). */
  prefix?: string;
  /** Why, said to the person. */
  why: string;
}

const RESERVED: Reserved[] = [
  {
    names: ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'PWD', 'OLDPWD', 'TMPDIR', 'TERM', 'LANG', 'LANGUAGE', 'LC_ALL'],
    why: 'the sandbox sets it for every step: which programs run, where files go',
  },
  { prefix: 'LC_', why: 'it is a locale setting the sandbox fixes for every step (output the steps parse would change)' },
  {
    names: ['BASH_ENV', 'ENV', 'IFS', 'SHELLOPTS', 'BASHOPTS', 'CDPATH', 'GLOBIGNORE', 'PROMPT_COMMAND', 'PS1', 'PS2', 'PS4', 'POSIXLY_CORRECT', 'HISTFILE', 'INPUTRC', 'TMOUT', 'FUNCNEST', 'EXECIGNORE'],
    why: 'bash reads it when a step starts or runs: it would run other code or split words differently',
  },
  { prefix: 'BASH_', why: 'bash reads it when a step starts or runs (BASH_ENV, BASH_FUNC_* run code)' },
  {
    names: [
      'LD_PRELOAD',
      'LD_LIBRARY_PATH',
      'LD_AUDIT',
      'LD_BIND_NOW',
      'LD_BIND_NOT',
      'LD_DEBUG',
      'LD_DEBUG_OUTPUT',
      'LD_DYNAMIC_WEAK',
      'LD_HWCAP_MASK',
      'LD_ORIGIN_PATH',
      'LD_POINTER_GUARD',
      'LD_PROFILE',
      'LD_PROFILE_OUTPUT',
      'LD_SHOW_AUXV',
      'LD_USE_LOAD_BIAS',
      'LD_VERBOSE',
      'LD_WARN',
      'LD_TRACE_LOADED_OBJECTS',
      'LD_ASSUME_KERNEL',
      'LD_LIBRARY_VERSION',
      'GCONV_PATH',
      'MALLOC_CHECK_',
      'HOSTALIASES',
      'RESOLV_HOST_CONF',
      'LOCALDOMAIN',
      'RES_OPTIONS',
    ],
    why: "the dynamic loader or the C library reads it in every program a step runs: it would load other code or resolve names elsewhere",
  },
  { names: ['SSH_AUTH_SOCK', 'SSH_ASKPASS', 'SSH_ASKPASS_REQUIRE', 'DISPLAY'], why: 'ssh reads it when a step reaches the server' },
  {
    names: ['DOCKER_HOST', 'DOCKER_CONTEXT', 'DOCKER_CONFIG', 'DOCKER_CERT_PATH', 'DOCKER_TLS', 'DOCKER_TLS_VERIFY', 'DOCKER_API_VERSION', 'DOCKER_BUILDKIT', 'DOCKER_DEFAULT_PLATFORM', 'DOCKER_CONTENT_TRUST', 'DOCKER_CONTENT_TRUST_SERVER', 'DOCKER_CLI_EXPERIMENTAL', 'DOCKER_CUSTOM_HEADERS', 'DOCKER_TMPDIR', 'DOCKER_RAMDISK'],
    why: 'docker reads it: its commands would go to another engine or run differently',
  },
  { prefix: 'COMPOSE_', why: "Docker Compose reads it (also from the stack's .env): it would act on another project's containers or files" },
  { prefix: 'BUILDX_', why: 'docker buildx reads it when a step builds images' },
  { prefix: 'GIT_CONFIG', why: 'git reads it: it would change how the workspace and checkouts behave' },
  { prefix: 'GIT_TRACE', why: 'git reads it: it would write what git does, credentials included, to the step output' },
  {
    names: ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES', 'GIT_SSH', 'GIT_SSH_COMMAND', 'GIT_SSH_VARIANT', 'GIT_ASKPASS', 'GIT_EXEC_PATH', 'GIT_TEMPLATE_DIR', 'GIT_PROXY_COMMAND', 'GIT_CEILING_DIRECTORIES', 'GIT_DISCOVERY_ACROSS_FILESYSTEM', 'GIT_NAMESPACE', 'GIT_EDITOR', 'GIT_PAGER', 'GIT_EXTERNAL_DIFF', 'GIT_TERMINAL_PROMPT', 'GIT_SSL_NO_VERIFY', 'GIT_SSL_CAINFO', 'GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_AUTHOR_DATE', 'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL', 'GIT_COMMITTER_DATE'],
    why: 'git reads it: it would change how the workspace records each step, or run other code',
  },
  { prefix: 'TF_CLI_', why: 'terraform reads it: it would add arguments to every terraform command or use another configuration' },
  { names: ['TF_DATA_DIR', 'TF_PLUGIN_CACHE_DIR', 'TF_LOG', 'TF_LOG_PATH', 'TF_LOG_CORE', 'TF_LOG_PROVIDER', 'TF_IN_AUTOMATION', 'TF_INPUT', 'TF_WORKSPACE'], why: 'terraform reads it: it would keep its state elsewhere or log what it does' },
  { names: ['ANSIBLE_CONFIG', 'ANSIBLE_SSH_ARGS', 'ANSIBLE_SSH_EXECUTABLE', 'ANSIBLE_BECOME_EXE', 'ANSIBLE_LIBRARY', 'ANSIBLE_MODULE_UTILS', 'ANSIBLE_ROLES_PATH', 'ANSIBLE_COLLECTIONS_PATH', 'ANSIBLE_STRATEGY_PLUGINS', 'ANSIBLE_CALLBACK_PLUGINS', 'ANSIBLE_PRIVATE_KEY_FILE', 'ANSIBLE_REMOTE_USER', 'ANSIBLE_HOST_KEY_CHECKING'], why: 'ansible reads it: it would load other code or reach servers another way' },
  { names: ['PYTHONPATH', 'PYTHONHOME', 'PYTHONSTARTUP', 'PYTHONINSPECT', 'NODE_OPTIONS', 'NODE_PATH', 'PERL5LIB', 'PERL5OPT', 'PERLLIB', 'RUBYOPT', 'RUBYLIB'], why: 'the language runtime reads it in every program of its language a step runs: it would load other code' },
];

const BY_NAME = new Map(RESERVED.flatMap((r) => (r.names ?? []).map((n) => [n, r.why] as const)));
const BY_PREFIX = RESERVED.filter((r) => r.prefix).map((r) => [r.prefix!, r.why] as const);

/** Why `name` may not be a User Secret's, or nothing when it may. */
export function reservedSecretName(name: string): string | undefined {
  return BY_NAME.get(name) ?? BY_PREFIX.find(([prefix]) => name.startsWith(prefix))?.[1];
}

/** The answer to a person or agent naming a secret so: what it would do, and what to name it instead. */
export function reservedNameProblem(name: string): string | undefined {
  const why = reservedSecretName(name);
  return why ? `${name} cannot be a User Secret: ${why}. Give the value a name of its own (e.g. APP_${name.replace(/^_+/, '')}) and use that name in the stack.` : undefined;
}

/** Every exact name and namespace (for tests and documentation). */
export const RESERVED_SECRET_NAMES: ReadonlyArray<{ names?: readonly string[]; prefix?: string }> = RESERVED;

/**
 * The environment a step or an inspection runs with: the User Secrets' values without a name that would
 * change how it runs. The routes refuse such names now; a value stored under one before that is not injected.
 */
export function stepEnvironment(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).filter(([name]) => reservedSecretName(name) === undefined));
}
