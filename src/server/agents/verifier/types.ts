import type { PlanFinding } from '../../../shared/api/planning';

/**
 * What the verifier reads: the rendered artifacts of a plan (never the composer's internals), so the
 * offline planner's plans and a real model's plans pass the same checks.
 */

export type Finding = PlanFinding;

export interface PlanFile {
  path: string;
  content: string;
}

export interface PlanStepScript {
  /** 1-based, as the plan numbers it. */
  number: number;
  title: string;
  /** The step's shell, as the execution stage runs it (its ```bash blocks joined). */
  script: string;
}

/** What an inspection of the target server found; every field is optional (not inspected yet). */
export interface TargetFacts {
  /** Ports something on the server already listens on, and what holds each when known. */
  portsInUse?: Array<{ port: number; protocol: 'tcp' | 'udp'; holder?: string }>;
  os?: string;
  dockerVersion?: string;
  composeVersion?: string;
  freeDiskGb?: number;
  /** `sshd -T`'s passwordauthentication, when read. */
  sshPasswordAuthentication?: boolean;
  firewallActive?: boolean;
  cpus?: number;
  memoryGb?: number;
  /** How many TLS certificates the server holds or serves (read after the deploy). */
  tlsCertificates?: number;
}

/** What the person said in words that the checks must respect. */
export interface PersonIntent {
  /** Services (compose names) the person said must stay private. */
  keepPrivate?: string[];
  /** Services the person said in words may be served over plain HTTP (a lab, a LAN). */
  plainHttpAccepted?: string[];
  /** Services whose data the person said not to back up. */
  backupSkip?: string[];
  /** Sources (CIDRs) the person limited every inbound port to: what is published is reached from them only, not the public. */
  onlyFrom?: string[];
}

export interface PlanArtifacts {
  /** The docker-compose.yml text; undefined for a host-only plan. */
  composeYaml?: string;
  /** Configuration files by path relative to the stack folder (Caddyfile, nginx/nginx.conf, prometheus.yml…). */
  files: PlanFile[];
  /** The implementation steps; empty while only the architecture exists. */
  steps: PlanStepScript[];
  /** Names of the User Secrets the plan declares (they are environment variables in the workspace and `.env`). */
  secrets: string[];
  /** The documents' prose, where claims are read (architecture overview, networking and security…). */
  documents: Array<{ name: string; text: string }>;
  /** Whether the plan deploys to a server it creates (true) or the person's existing one (false); unknown when absent. */
  newServer?: boolean;
  /** The project's stack folder on its server (stackPlace.ts); unknown for a plan verified on its own. */
  stackDirectory?: string;
  target?: TargetFacts;
  intent?: PersonIntent;
}
