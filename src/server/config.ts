import net from 'node:net';
import path from 'node:path';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import type { ModelConfig } from './agents/models';
import { TOKEN_PRICES } from '../shared/constants/costs';

/**
 * Every setting comes from the environment, with embedded defaults so that `npm start` needs no
 * configuration. `.env.example` lists them all. A bad value stops the start with a message that
 * names the variable.
 */
const Port = Type.Integer({ minimum: 0, maximum: 65535 });
const Bool = Type.Union([Type.Literal('true'), Type.Literal('false'), Type.Literal('1'), Type.Literal('0')]);
/** Kubernetes object names: a namespace is a DNS label, a runtime or storage class a DNS subdomain. */
const DNS_LABEL = '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$';
const DNS_SUBDOMAIN = '^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$';
/** The sandbox toolbox image `npm run sandbox:image` builds (src/server/sandbox/toolbox/packages.txt): the docker and kubernetes default. */
export const TOOLBOX_IMAGE = 'devops-agents-toolbox:bookworm';
/** A per-agent model: `provider:model`, `provider:` or a bare model name. */
const AGENT_MODEL_PATTERN = '^((openai|anthropic|offline):)?[A-Za-z0-9._:/@-]*$';

const EnvSchema = Type.Object({
  HOST: Type.String({ minLength: 1, default: '127.0.0.1' }),
  PORT: Port,
  DATA_DIR: Type.String({ minLength: 1, default: './data' }),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://' })),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info' },
  ),
  PUBLIC_URL: Type.Optional(Type.String({ pattern: '^https?://[^/]+$' })),
  /** `false`, or the reverse proxies' addresses/CIDRs, comma-separated (`true` is refused below). */
  TRUST_PROXY: Type.String({ minLength: 1 }),
  STATIC_DIR: Type.String({ minLength: 1, default: 'dist/public' }),
  MIGRATIONS_DIR: Type.String({ minLength: 1, default: 'migrations' }),
  BODY_LIMIT_BYTES: Type.Integer({ minimum: 1024, maximum: 50 * 1024 * 1024 }),
  SESSION_IDLE_HOURS: Type.Number({ exclusiveMinimum: 0, maximum: 24 * 365 }),
  SESSION_ABSOLUTE_HOURS: Type.Number({ exclusiveMinimum: 0, maximum: 24 * 365 }),
  LOGIN_RATE_LIMIT_PER_MINUTE: Type.Integer({ minimum: 1, maximum: 100_000 }),
  AGENT_RATE_LIMIT_PER_MINUTE: Type.Integer({ minimum: 1, maximum: 100_000 }),
  SHUTDOWN_TIMEOUT_SECONDS: Type.Number({ exclusiveMinimum: 0, maximum: 3_600 }),
  GITHUB_APP_ID: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
  GITHUB_APP_PRIVATE_KEY: Type.Optional(Type.String({ minLength: 1 })),
  GITHUB_CLIENT_ID: Type.Optional(Type.String({ minLength: 1 })),
  GITHUB_CLIENT_SECRET: Type.Optional(Type.String({ minLength: 1 })),
  GITHUB_APP_SLUG: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9-]+$' })),
  GITHUB_API_URL: Type.String({ pattern: '^https?://', default: 'https://api.github.com' }),
  GITHUB_WEB_URL: Type.String({ pattern: '^https?://', default: 'https://github.com' }),
  MODEL_PROVIDER: Type.Union(['auto', 'openai', 'anthropic', 'offline'].map((p) => Type.Literal(p)), { default: 'auto' }),
  OPENAI_API_KEY: Type.Optional(Type.String({ minLength: 1 })),
  OPENAI_BASE_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  OPENAI_MODEL: Type.String({ minLength: 1, default: 'gpt-4o-mini' }),
  ANTHROPIC_API_KEY: Type.Optional(Type.String({ minLength: 1 })),
  ANTHROPIC_BASE_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  ANTHROPIC_MODEL: Type.String({ minLength: 1, default: 'claude-sonnet-4-5' }),
  REQUIREMENTS_MODEL: Type.Optional(Type.String({ pattern: AGENT_MODEL_PATTERN })),
  ANALYZER_MODEL: Type.Optional(Type.String({ pattern: AGENT_MODEL_PATTERN })),
  ARCHITECT_MODEL: Type.Optional(Type.String({ pattern: AGENT_MODEL_PATTERN })),
  IMPLEMENTATION_MODEL: Type.Optional(Type.String({ pattern: AGENT_MODEL_PATTERN })),
  MODEL_TIMEOUT_SECONDS: Type.String({ pattern: '^[1-9][0-9]{0,4}$', default: '120' }),
  OFFLINE_TOKEN_DELAY_MS: Type.String({ pattern: '^[0-9]{1,4}$', default: '0' }),
  ENCRYPTION_KEY: Type.Optional(Type.String({ pattern: '^([A-Fa-f0-9]{64}|[A-Za-z0-9+/]{43}=)$' })),
  LOCAL_REPOS_DIR: Type.Optional(Type.String({ minLength: 1 })),
  SANDBOX_DRIVER: Type.Union([Type.Literal('local'), Type.Literal('docker'), Type.Literal('kubernetes')], { default: 'local' }),
  SANDBOX_DOCKER_HOST: Type.Optional(Type.String({ pattern: '^(unix://|tcp://|https?://|npipe://)' })),
  SANDBOX_DOCKER_IMAGE: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._/:@-]*$', default: TOOLBOX_IMAGE }),
  SANDBOX_DOCKER_RUNTIME: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9._-]+$' })),
  SANDBOX_DOCKER_CPUS: Type.Number({ minimum: 0, maximum: 1_024 }),
  SANDBOX_KUBECONFIG: Type.Optional(Type.String({ minLength: 1 })),
  SANDBOX_KUBERNETES_NAMESPACE: Type.String({ pattern: DNS_LABEL, default: 'devops-agents' }),
  SANDBOX_KUBERNETES_IMAGE: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._/:@-]*$', default: TOOLBOX_IMAGE }),
  SANDBOX_KUBERNETES_RUNTIME_CLASS: Type.Optional(Type.String({ pattern: DNS_SUBDOMAIN })),
  SANDBOX_KUBERNETES_STORAGE_CLASS: Type.Optional(Type.String({ pattern: DNS_SUBDOMAIN })),
  SANDBOX_KUBERNETES_STORAGE_SIZE: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,5}(Mi|Gi|Ti)$' })),
  SANDBOX_KUBERNETES_CPUS: Type.Number({ minimum: 0, maximum: 1_024 }),
  SANDBOX_NETWORK: Bool,
  SANDBOX_MEMORY_MB: Type.Integer({ minimum: 0, maximum: 1_048_576 }),
  SANDBOX_MAX_PROCESSES: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
  SANDBOX_CPU_SECONDS: Type.Integer({ minimum: 0, maximum: 10_000_000 }),
  SANDBOX_UID_BASE: Type.Integer({ minimum: 1_000, maximum: 2_000_000_000 }),
  SANDBOX_DISK_MB: Type.Integer({ minimum: 0, maximum: 16_777_216 }),
  SANDBOX_EXEC_TIMEOUT_SECONDS: Type.Integer({ minimum: 1, maximum: 86_400 }),
  /** Addresses or CIDRs, comma-separated, a sandbox may not reach besides the host's own and link-local ones. */
  SANDBOX_DENY_CIDRS: Type.String({ default: '' }),
  TERMINAL_RECONNECT_GRACE_SECONDS: Type.Number({ minimum: 0, maximum: 3_600 }),
  /** Below this much free space on DATA_DIR's disk the server answers not ready (/api/ready). */
  DISK_MIN_FREE_MB: Type.Integer({ minimum: 0, maximum: 1_048_576 }),
  /** Minutes between scheduled drift checks of each deployed project; 0 turns the schedule off. */
  DRIFT_CHECK_MINUTES: Type.Integer({ minimum: 0, maximum: 10_080 }),
  /** Minutes between reads of the last backup result each deployed server keeps (a failed nightly backup is recorded and notified within one); 0 turns them off. */
  BACKUP_WATCH_MINUTES: Type.Integer({ minimum: 0, maximum: 10_080 }),
  /** Minutes after the schedule's due time before a nightly backup that reported nothing is called missed (a run reports when it ends). */
  BACKUP_GRACE_MINUTES: Type.Integer({ minimum: 1, maximum: 1_440 }),
  ALLOWED_ORIGINS: Type.Optional(Type.String({ pattern: '^\\s*https?://[^/,\\s]+/?\\s*(,\\s*https?://[^/,\\s]+/?\\s*)*$' })),
  SIGNUP_CREDIT_USD: Type.Number({ minimum: 0, maximum: 10_000 }),
  PRICING_MODE: Type.Union([Type.Literal('research_preview'), Type.Literal('regular')], { default: 'research_preview' }),
  PRICE_INPUT_PER_MILLION_USD: Type.Number({ minimum: 0, maximum: 10_000 }),
  PRICE_OUTPUT_PER_MILLION_USD: Type.Number({ minimum: 0, maximum: 10_000 }),
  PRICE_REGULAR_PER_MILLION_USD: Type.Number({ minimum: 0, maximum: 10_000 }),
  PAYMENT_RATE_LIMIT_PER_MINUTE: Type.Integer({ minimum: 1, maximum: 100_000 }),
  DODO_PAYMENTS_API_KEY: Type.Optional(Type.String({ minLength: 1 })),
  DODO_PRODUCT_ID: Type.Optional(Type.String({ minLength: 1 })),
  DODO_PAYMENTS_ENVIRONMENT: Type.Union([Type.Literal('test_mode'), Type.Literal('live_mode')], { default: 'test_mode' }),
  DODO_PAYMENTS_BASE_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  DODO_PAYMENTS_WEBHOOK_KEY: Type.Optional(Type.String({ minLength: 1 })),
  /** The local test checkout on a server reached from other machines (HOST not a loopback address). */
  LOCAL_TEST_CHECKOUT: Type.Optional(Bool),
  SUPPORT_EMAIL: Type.String({ pattern: '^[^\\s@]+@[^\\s@]+$' }),
  /** Where notification mail is sent from: `smtp://user:pass@host:587` or `smtps://…:465`; unset: no email. */
  SMTP_URL: Type.Optional(Type.String({ pattern: '^smtps?://[^\\s]+$' })),
  SMTP_FROM: Type.Optional(Type.String({ pattern: '^[^\\s@]+@[^\\s@]+$' })),
  /** Lets notification webhooks reach loopback and private addresses (a chat server on your own network). */
  NOTIFY_PRIVATE_ADDRESSES: Bool,
});

type Env = Static<typeof EnvSchema>;

/** Whether a listening address is reached from this machine only (127.0.0.0/8, ::1, localhost). */
function isLoopbackHost(host: string): boolean {
  if (host === 'localhost') return true;
  if (net.isIPv4(host)) return host.startsWith('127.');
  return host === '::1';
}

const DEFAULTS: Record<string, string> = {
  PORT: '8080',
  TRUST_PROXY: 'false',
  BODY_LIMIT_BYTES: String(1024 * 1024),
  SESSION_IDLE_HOURS: '72',
  SESSION_ABSOLUTE_HOURS: '720',
  LOGIN_RATE_LIMIT_PER_MINUTE: '20',
  AGENT_RATE_LIMIT_PER_MINUTE: '60',
  SHUTDOWN_TIMEOUT_SECONDS: '10',
  SANDBOX_NETWORK: 'true',
  SANDBOX_MEMORY_MB: '8192',
  SANDBOX_MAX_PROCESSES: '512',
  SANDBOX_CPU_SECONDS: '3600',
  SANDBOX_UID_BASE: '200000',
  SANDBOX_DISK_MB: '4096',
  SANDBOX_EXEC_TIMEOUT_SECONDS: '900',
  SANDBOX_DOCKER_CPUS: '2',
  SANDBOX_KUBERNETES_CPUS: '2',
  TERMINAL_RECONNECT_GRACE_SECONDS: '30',
  DISK_MIN_FREE_MB: '64',
  DRIFT_CHECK_MINUTES: '360',
  BACKUP_WATCH_MINUTES: '60',
  BACKUP_GRACE_MINUTES: '120',
  SIGNUP_CREDIT_USD: '5',
  PRICE_INPUT_PER_MILLION_USD: String(TOKEN_PRICES.researchPreview.inputPerMillion),
  PRICE_OUTPUT_PER_MILLION_USD: String(TOKEN_PRICES.researchPreview.outputPerMillion),
  PRICE_REGULAR_PER_MILLION_USD: String(TOKEN_PRICES.regular.perMillion),
  PAYMENT_RATE_LIMIT_PER_MINUTE: '10',
  SUPPORT_EMAIL: 'support@localhost',
  NOTIFY_PRIVATE_ADDRESSES: 'false',
};

const NUMERIC = new Set([
  'PORT',
  'BODY_LIMIT_BYTES',
  'SESSION_IDLE_HOURS',
  'SESSION_ABSOLUTE_HOURS',
  'LOGIN_RATE_LIMIT_PER_MINUTE',
  'AGENT_RATE_LIMIT_PER_MINUTE',
  'SHUTDOWN_TIMEOUT_SECONDS',
  'DRIFT_CHECK_MINUTES',
  'BACKUP_WATCH_MINUTES',
  'BACKUP_GRACE_MINUTES',
  'SIGNUP_CREDIT_USD',
  'PRICE_INPUT_PER_MILLION_USD',
  'PRICE_OUTPUT_PER_MILLION_USD',
  'PRICE_REGULAR_PER_MILLION_USD',
  'PAYMENT_RATE_LIMIT_PER_MINUTE',
  'DISK_MIN_FREE_MB',
]);
const SANDBOX_NUMERIC = [
  'SANDBOX_MEMORY_MB',
  'SANDBOX_MAX_PROCESSES',
  'SANDBOX_CPU_SECONDS',
  'SANDBOX_UID_BASE',
  'SANDBOX_DISK_MB',
  'SANDBOX_EXEC_TIMEOUT_SECONDS',
  'SANDBOX_DOCKER_CPUS',
  'SANDBOX_KUBERNETES_CPUS',
  'TERMINAL_RECONNECT_GRACE_SECONDS',
];
for (const key of SANDBOX_NUMERIC) NUMERIC.add(key);
const GITHUB_VARS = ['GITHUB_APP_ID', 'GITHUB_APP_PRIVATE_KEY', 'GITHUB_CLIENT_ID', 'GITHUB_CLIENT_SECRET', 'GITHUB_APP_SLUG'] as const;

export interface GithubAppConfig {
  appId: string;
  privateKey: string;
  clientId: string;
  clientSecret: string;
  slug: string;
  apiUrl: string;
  webUrl: string;
}

/** A claim of SANDBOX_DISK_MB as a Kubernetes quantity (`10Gi`, `1536Mi`); 10Gi when the quota is off. */
const claimSize = (diskMb: number): string => (diskMb === 0 ? '10Gi' : diskMb % 1024 === 0 ? `${diskMb / 1024}Gi` : `${diskMb}Mi`);

/** The docker driver's engine and container settings (SANDBOX_DRIVER=docker). */
export interface DockerSandboxConfig {
  /** DOCKER_HOST form: `unix:///var/run/docker.sock`, `tcp://host:2375`, `https://host:2376`. */
  host: string;
  image: string;
  /** OCI runtime such as `runsc` (gVisor); the engine's default when absent. */
  runtime?: string;
  /** CPUs per sandbox; 0 for no limit. */
  cpus: number;
}

/** The kubernetes driver's cluster and pod settings (SANDBOX_DRIVER=kubernetes). */
export interface KubernetesSandboxConfig {
  /** Kubeconfig file; when absent, KUBECONFIG, then ~/.kube/config, then the pod's service account. */
  kubeconfig?: string;
  /** Where every sandbox pod and volume claim lives. */
  namespace: string;
  image: string;
  /** RuntimeClass of the pods, such as `gvisor` or `kata`; the cluster's default when absent. */
  runtimeClass?: string;
  /** StorageClass of the workspace claims; the cluster's default when absent. */
  storageClass?: string;
  /** Size of each workspace claim, a Kubernetes quantity (`10Gi`). */
  storageSize: string;
  /** CPU limit per sandbox pod; 0 for none. */
  cpus: number;
}

/** The per-project sandbox (`local`: bubblewrap, `docker`: a hardened container, `kubernetes`: a pod) and its terminal. */
export interface SandboxConfig {
  driver: 'local' | 'docker' | 'kubernetes';
  /** DATA_DIR/sandboxes: workspaces and backups, one folder per project. */
  root: string;
  network: boolean;
  /** Address space per process in MiB; 0 for no limit. */
  memoryMb: number;
  /** Processes per sandbox (enforced when the server runs as root, with a host uid per project). */
  maxProcesses: number;
  /** CPU seconds per process; 0 for no limit. */
  cpuSeconds: number;
  /** Host uid of project N's sandbox user is uidBase + this instance's uid slot * 1,000,000 + N (root only). */
  uidBase: number;
  /** Size of each workspace in MiB (a bounded filesystem; the kubernetes driver's claim size unless set apart); 0 for none. */
  diskMb: number;
  execTimeoutMs: number;
  /** Extra addresses/CIDRs the sandbox may not reach (the host's own and link-local ones always). */
  denyCidrs: string[];
  /** How long a terminal whose socket dropped keeps its shell for a reconnect. */
  terminalGraceMs: number;
  /** Present when the driver is `docker`; memoryMb and maxProcesses are its container's limits. */
  docker?: DockerSandboxConfig;
  /** Present when the driver is `kubernetes`; memoryMb is its pod's memory limit. */
  kubernetes?: KubernetesSandboxConfig;
}

/**
 * What a model call costs, in dollars per million tokens. Research preview prices input and output
 * apart; regular pricing charges one rate for any token (part 2 section 9).
 */
export type PricingConfig =
  | { mode: 'research_preview'; inputPerMillionUsd: number; outputPerMillionUsd: number }
  | { mode: 'regular'; perMillionUsd: number };

/** Dodo Payments checkout; absent means the local test checkout. */
export interface DodoConfig {
  apiKey: string;
  productId: string;
  environment: 'test_mode' | 'live_mode';
  /** Overrides the environment's API host (a recorded fake in tests). */
  baseUrl: string | undefined;
}

export interface PaymentsConfig {
  /** Credits every new installation starts with, in dollars. */
  signupCreditUsd: number;
  rateLimitPerMinute: number;
  dodo: DodoConfig | undefined;
  /** Standard Webhooks secret (`whsec_…`); the webhook route exists only when it is set. */
  webhookKey: string | undefined;
  /**
   * Whether the local test checkout (no payment provider) may add credits: on a server only this machine
   * reaches (HOST on loopback), unless LOCAL_TEST_CHECKOUT says otherwise; off on one others reach, where
   * anyone signed in would otherwise give themselves spendable credits.
   */
  localTestCheckout: boolean;
}

export interface AppConfig {
  host: string;
  port: number;
  dataDir: string;
  /** Free bytes DATA_DIR's disk must keep for the server to answer ready. */
  diskMinFreeBytes: number;
  databaseUrl: string | undefined;
  /** Redis for the event bus across replicas (invalidations, sign-outs, approvals, terminal commands); none: in-process. */
  redisUrl: string | undefined;
  logLevel: string;
  /** The origin browsers use (`http://127.0.0.1:8080` by default); WebSockets must come from it. */
  publicUrl: string;
  secureCookies: boolean;
  /** The reverse proxies whose X-Forwarded-For is believed (addresses or CIDRs); false for none. */
  trustProxy: false | string[];
  staticDir: string;
  migrationsDir: string;
  bodyLimit: number;
  sessionIdleMs: number;
  sessionAbsoluteMs: number;
  loginRateLimitPerMinute: number;
  /** Agent turns a person may start per minute, over every agent route together. */
  agentRateLimitPerMinute: number;
  /** Longest a shutdown may take after SIGTERM/SIGINT before the process ends its sandboxes and exits. */
  shutdownTimeoutMs: number;
  github: GithubAppConfig | undefined;
  /** Planning agents: language models, user-secret encryption, local repositories. */
  planning: PlanningConfig;
  pricing: PricingConfig;
  payments: PaymentsConfig;
  /** Origins besides publicUrl allowed to open WebSockets (e.g. the dev server). */
  allowedOrigins: string[];
  sandbox: SandboxConfig;
  /** The contact address the public pages show (SUPPORT_EMAIL). */
  supportEmail: string;
  notifications: NotificationsConfig;
  /** Minutes between scheduled drift checks of each deployed project (0: none). */
  driftCheckMinutes: number;
  /** Minutes between reads of each server's last backup result (0: none). */
  backupWatchMinutes: number;
  /** Minutes after a due time before a nightly backup that reported nothing is missed. */
  backupGraceMinutes: number;
}

export interface NotificationsConfig {
  /** SMTP server for notification mail; undefined: projects can set only webhooks. */
  smtpUrl: string | undefined;
  /** The sender address (SMTP_FROM, else SUPPORT_EMAIL). */
  from: string;
  /** Whether webhooks may reach loopback and private addresses (never link-local or the metadata service). */
  allowPrivateAddresses: boolean;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Reads and validates the environment. Throws ConfigError naming the first bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(EnvSchema.properties)) {
    const value = env[key] === '' ? undefined : (env[key] ?? DEFAULTS[key]);
    if (value === undefined) continue;
    raw[key] = NUMERIC.has(key) && /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value;
  }
  const withDefaults = Value.Default(EnvSchema, raw) as Record<string, unknown>;
  const first = Value.Errors(EnvSchema, withDefaults)[0];
  if (first) {
    const name = first.instancePath.replace(/^\//, '') || missingName(first.params);
    throw new ConfigError(`Invalid environment variable ${name}=${JSON.stringify(env[name] ?? '')}: ${first.message}`);
  }
  const e = withDefaults as Env;
  const githubSet = GITHUB_VARS.filter((k) => e[k] !== undefined);
  if (githubSet.length > 0 && githubSet.length < GITHUB_VARS.length) {
    const missing = GITHUB_VARS.filter((k) => e[k] === undefined);
    throw new ConfigError(`Invalid environment variable ${missing[0]}: the GitHub App provider needs ${GITHUB_VARS.join(', ')} (missing: ${missing.join(', ')})`);
  }
  if ((e.DODO_PAYMENTS_API_KEY === undefined) !== (e.DODO_PRODUCT_ID === undefined)) {
    const missing = e.DODO_PAYMENTS_API_KEY === undefined ? 'DODO_PAYMENTS_API_KEY' : 'DODO_PRODUCT_ID';
    throw new ConfigError(`Invalid environment variable ${missing}: Dodo Payments needs both DODO_PAYMENTS_API_KEY and DODO_PRODUCT_ID`);
  }
  const publicUrl = e.PUBLIC_URL ?? `http://${e.HOST.includes(':') ? `[${e.HOST}]` : e.HOST}:${e.PORT}`;
  return {
    host: e.HOST,
    port: e.PORT,
    dataDir: path.resolve(e.DATA_DIR),
    diskMinFreeBytes: e.DISK_MIN_FREE_MB * 1024 * 1024,
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    logLevel: e.LOG_LEVEL,
    publicUrl,
    supportEmail: e.SUPPORT_EMAIL,
    notifications: {
      smtpUrl: e.SMTP_URL,
      from: e.SMTP_FROM ?? e.SUPPORT_EMAIL,
      allowPrivateAddresses: e.NOTIFY_PRIVATE_ADDRESSES === 'true' || e.NOTIFY_PRIVATE_ADDRESSES === '1',
    },
    driftCheckMinutes: e.DRIFT_CHECK_MINUTES,
    backupWatchMinutes: e.BACKUP_WATCH_MINUTES,
    backupGraceMinutes: e.BACKUP_GRACE_MINUTES,
    secureCookies: publicUrl.startsWith('https://'),
    trustProxy: trustedProxies(e.TRUST_PROXY),
    staticDir: path.resolve(e.STATIC_DIR),
    migrationsDir: path.resolve(e.MIGRATIONS_DIR),
    bodyLimit: e.BODY_LIMIT_BYTES,
    sessionIdleMs: e.SESSION_IDLE_HOURS * 3_600_000,
    sessionAbsoluteMs: e.SESSION_ABSOLUTE_HOURS * 3_600_000,
    loginRateLimitPerMinute: e.LOGIN_RATE_LIMIT_PER_MINUTE,
    agentRateLimitPerMinute: e.AGENT_RATE_LIMIT_PER_MINUTE,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_SECONDS * 1000,
    planning: planningConfig(e),
    allowedOrigins: (e.ALLOWED_ORIGINS ?? '')
      .split(',')
      .map((o) => o.trim().replace(/\/$/, ''))
      .filter(Boolean),
    sandbox: {
      driver: e.SANDBOX_DRIVER,
      root: path.join(path.resolve(e.DATA_DIR), 'sandboxes'),
      network: e.SANDBOX_NETWORK === 'true' || e.SANDBOX_NETWORK === '1',
      memoryMb: e.SANDBOX_MEMORY_MB,
      maxProcesses: e.SANDBOX_MAX_PROCESSES,
      cpuSeconds: e.SANDBOX_CPU_SECONDS,
      uidBase: e.SANDBOX_UID_BASE,
      diskMb: e.SANDBOX_DISK_MB,
      execTimeoutMs: e.SANDBOX_EXEC_TIMEOUT_SECONDS * 1000,
      denyCidrs: denyCidrs(e.SANDBOX_DENY_CIDRS),
      terminalGraceMs: e.TERMINAL_RECONNECT_GRACE_SECONDS * 1000,
      ...(e.SANDBOX_DRIVER === 'docker'
        ? {
            docker: {
              host: e.SANDBOX_DOCKER_HOST ?? env.DOCKER_HOST ?? 'unix:///var/run/docker.sock',
              image: e.SANDBOX_DOCKER_IMAGE,
              runtime: e.SANDBOX_DOCKER_RUNTIME,
              cpus: e.SANDBOX_DOCKER_CPUS,
            },
          }
        : {}),
      ...(e.SANDBOX_DRIVER === 'kubernetes'
        ? {
            kubernetes: {
              kubeconfig: e.SANDBOX_KUBECONFIG ? path.resolve(e.SANDBOX_KUBECONFIG) : undefined,
              namespace: e.SANDBOX_KUBERNETES_NAMESPACE,
              image: e.SANDBOX_KUBERNETES_IMAGE,
              runtimeClass: e.SANDBOX_KUBERNETES_RUNTIME_CLASS,
              storageClass: e.SANDBOX_KUBERNETES_STORAGE_CLASS,
              // The workspace quota is the claim's size, unless set apart.
              storageSize: e.SANDBOX_KUBERNETES_STORAGE_SIZE ?? claimSize(e.SANDBOX_DISK_MB),
              cpus: e.SANDBOX_KUBERNETES_CPUS,
            },
          }
        : {}),
    },
    github:
      githubSet.length === GITHUB_VARS.length
        ? {
            appId: e.GITHUB_APP_ID!,
            privateKey: e.GITHUB_APP_PRIVATE_KEY!.replace(/\\n/g, '\n'),
            clientId: e.GITHUB_CLIENT_ID!,
            clientSecret: e.GITHUB_CLIENT_SECRET!,
            slug: e.GITHUB_APP_SLUG!,
            apiUrl: e.GITHUB_API_URL.replace(/\/$/, ''),
            webUrl: e.GITHUB_WEB_URL.replace(/\/$/, ''),
          }
        : undefined,
    pricing:
      e.PRICING_MODE === 'regular'
        ? { mode: 'regular', perMillionUsd: e.PRICE_REGULAR_PER_MILLION_USD }
        : { mode: 'research_preview', inputPerMillionUsd: e.PRICE_INPUT_PER_MILLION_USD, outputPerMillionUsd: e.PRICE_OUTPUT_PER_MILLION_USD },
    payments: {
      signupCreditUsd: e.SIGNUP_CREDIT_USD,
      rateLimitPerMinute: e.PAYMENT_RATE_LIMIT_PER_MINUTE,
      dodo:
        e.DODO_PAYMENTS_API_KEY && e.DODO_PRODUCT_ID
          ? { apiKey: e.DODO_PAYMENTS_API_KEY, productId: e.DODO_PRODUCT_ID, environment: e.DODO_PAYMENTS_ENVIRONMENT, baseUrl: e.DODO_PAYMENTS_BASE_URL }
          : undefined,
      webhookKey: e.DODO_PAYMENTS_WEBHOOK_KEY,
      localTestCheckout: e.LOCAL_TEST_CHECKOUT !== undefined ? e.LOCAL_TEST_CHECKOUT === 'true' || e.LOCAL_TEST_CHECKOUT === '1' : isLoopbackHost(e.HOST),
    },
  };
}

/**
 * TRUST_PROXY as Fastify's `trustProxy`: a list of proxy addresses, never `true`. Trusting every hop
 * lets any client write its own X-Forwarded-For and so pick the address the login limit counts.
 */
function trustedProxies(value: string): false | string[] {
  const v = value.trim();
  if (v === 'false' || v === '0') return false;
  if (v === 'true' || v === '1') {
    throw new ConfigError(
      `Invalid environment variable TRUST_PROXY=${JSON.stringify(value)}: trusting every proxy lets any client choose its address; list your reverse proxies' addresses instead (e.g. TRUST_PROXY=127.0.0.1,10.0.0.0/8)`,
    );
  }
  const proxies = v.split(',').map((a) => a.trim());
  for (const proxy of proxies) {
    if (!PROXY_KEYWORDS.has(proxy) && !isAddressOrCidr(proxy)) {
      throw new ConfigError(
        `Invalid environment variable TRUST_PROXY=${JSON.stringify(value)}: ${JSON.stringify(proxy)} is not an IP address or CIDR (or loopback, linklocal, uniquelocal)`,
      );
    }
  }
  return proxies;
}

/** `10.0.0.5`, `10.0.0.0/8`, `fd00::/8`: an IP address with an optional prefix length of its family. */
function isAddressOrCidr(value: string): boolean {
  const [address = '', prefix, ...rest] = value.split('/');
  const family = net.isIP(address);
  return family !== 0 && rest.length === 0 && (prefix === undefined || (/^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= (family === 6 ? 128 : 32)));
}

/** SANDBOX_DENY_CIDRS: empty for none, else addresses or CIDRs, comma-separated. */
function denyCidrs(value: string): string[] {
  const entries = value.split(',').map((a) => a.trim()).filter(Boolean);
  const bad = entries.find((entry) => !isAddressOrCidr(entry));
  if (bad !== undefined) {
    throw new ConfigError(`Invalid environment variable SANDBOX_DENY_CIDRS=${JSON.stringify(value)}: ${JSON.stringify(bad)} is not an IP address or CIDR (e.g. SANDBOX_DENY_CIDRS=10.0.0.0/8,192.168.1.1)`);
  }
  return entries;
}

/** proxy-addr's names for address ranges, which Fastify accepts in `trustProxy`. */
const PROXY_KEYWORDS = new Set(['loopback', 'linklocal', 'uniquelocal']);

function missingName(params: unknown): string {
  const p = params as { requiredProperties?: string[]; missingProperty?: string };
  return p.requiredProperties?.[0] ?? p.missingProperty ?? 'unknown';
}

export interface PlanningConfig {
  models: ModelConfig;
  /** 32-byte key (hex or base64) for user secrets; unset: a key file generated once in DATA_DIR. */
  encryptionKey: string | undefined;
  /** Folder whose git repositories the local repository provider lists; unset: none. */
  localReposDir: string | undefined;
}

function planningConfig(e: Env): PlanningConfig {
  return {
    models: {
      provider: e.MODEL_PROVIDER as ModelConfig['provider'],
      openai: { apiKey: e.OPENAI_API_KEY, baseUrl: e.OPENAI_BASE_URL?.replace(/\/$/, ''), model: e.OPENAI_MODEL },
      anthropic: { apiKey: e.ANTHROPIC_API_KEY, baseUrl: e.ANTHROPIC_BASE_URL?.replace(/\/$/, ''), model: e.ANTHROPIC_MODEL },
      perAgent: {
        requirements: e.REQUIREMENTS_MODEL,
        analyzer: e.ANALYZER_MODEL,
        architect: e.ARCHITECT_MODEL,
        implementation: e.IMPLEMENTATION_MODEL,
      },
      offlineTokenDelayMs: Number(e.OFFLINE_TOKEN_DELAY_MS),
      timeoutMs: Number(e.MODEL_TIMEOUT_SECONDS) * 1000,
    },
    encryptionKey: e.ENCRYPTION_KEY,
    localReposDir: e.LOCAL_REPOS_DIR ? path.resolve(e.LOCAL_REPOS_DIR) : undefined,
  };
}
