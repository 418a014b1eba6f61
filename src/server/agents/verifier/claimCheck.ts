import { caddySites, nginxServers, parseCaddyfile, parseNginx } from './blockConfig';
import type { Finding, PlanArtifacts, TargetFacts } from './types';
import { PROVIDERS } from '../offline/knowledge';

/**
 * Claims: what the documents say about the server (SSH hardening, firewall, TLS, operating system and
 * Compose versions, sizes) is backed by a step that does it or by a fact read from the server; a claim
 * nothing backs is a finding. Claims are read from the prose (code blocks left out); each kind says which
 * sentences make it and what backs it.
 */

interface Evidence {
  steps: string;
  artifacts: PlanArtifacts;
  /**
   * After the deploy, what the server says wins: a claim whose fact was read stands or falls by it, whatever
   * a step did (a step set PasswordAuthentication no, but `sshd -T` reads yes). Before it, a step backs a claim.
   */
  afterDeploy?: boolean;
}

interface Claim {
  code: string;
  severity: 'error' | 'warning';
  /** Sentences that make the claim; the first match is quoted in the finding. */
  says: RegExp;
  backed(match: RegExpMatchArray, e: Evidence): boolean;
  /** The server's own answer, when it was read: true backs the claim, false refutes it, undefined says nothing. */
  fact?(match: RegExpMatchArray, target: TargetFacts): boolean | undefined;
  /** What would back it, for the message. */
  needs: string;
}

/** Whether the claim stands: after the deploy by the server's fact when there is one, else by its evidence. */
function stands(claim: Claim, match: RegExpMatchArray, e: Evidence): boolean {
  const fact = e.afterDeploy && e.artifacts.target && claim.fact ? claim.fact(match, e.artifacts.target) : undefined;
  return fact ?? claim.backed(match, e);
}

const tlsConfigured = (e: Evidence): boolean => {
  for (const f of e.artifacts.files) {
    const name = f.path.split('/').pop()!;
    if (name === 'Caddyfile' && caddySites(parseCaddyfile(f.content)).some((s) => s.addresses.some((a) => /^(https:\/\/)?[a-z0-9-]+(\.[a-z0-9-]+)+(:443)?$/i.test(a) && !/^\d+(\.\d+){3}/.test(a)))) return true;
    if (name.endsWith('.conf') && nginxServers(parseNginx(f.content)).some((s) => s.ssl) && /\bcertbot\b|\bacme\.sh\b/.test(e.steps)) return true;
  }
  return /certresolver|acme/i.test(e.artifacts.composeYaml ?? '');
};

/** The commands of the providers' CLIs that create a server (each provider file's `provision.creates`). */
const CREATES_SERVER = Object.values(PROVIDERS).flatMap((p) => (p.provision.creates ? [p.provision.creates] : []));
/** The commands of the providers' CLIs that set a cloud firewall (each provider file's `provision.firewall`). */
const SETS_FIREWALL = Object.values(PROVIDERS).flatMap((p) => (p.provision.firewall ? [p.provision.firewall] : []));

/** A step that creates the server (a provider's CLI creating an instance). */
const createsServer = (e: Evidence): boolean => CREATES_SERVER.some((c) => e.steps.includes(c));

const CLAIMS: Claim[] = [
  {
    code: 'claim-ssh-password-auth',
    severity: 'error',
    says: /password authentication (over|for) SSH is (disabled|off|turned off)|SSH password log ?ins? (are|is) (disabled|turned off)|only (SSH )?keys (can )?log in/i,
    backed: (_m, e) => /PasswordAuthentication\s+no/.test(e.steps) || e.artifacts.target?.sshPasswordAuthentication === false,
    fact: (_m, t) => (t.sshPasswordAuthentication === undefined ? undefined : !t.sshPasswordAuthentication),
    needs: 'a step that sets PasswordAuthentication no and reloads sshd, or the server inspection reading it',
  },
  {
    code: 'claim-firewall',
    severity: 'error',
    says: /everything else (is )?closed|(ufw|the firewall) denies incoming|(default|deny) incoming|firewall (blocks|closes) /i,
    backed: (_m, e) =>
      /\bufw\b[^\n]*\b(enable|default deny)\b|firewall-cmd\b/.test(e.steps) ||
      SETS_FIREWALL.some((c) => e.steps.includes(c)) ||
      e.artifacts.target?.firewallActive === true,
    fact: (_m, t) => t.firewallActive,
    needs: 'a step that turns the firewall on (ufw, firewalld or the provider\'s firewall)',
  },
  {
    code: 'claim-tls',
    severity: 'error',
    // Affirmative sentences only: a note that TLS needs a domain mentions Let's Encrypt without claiming it.
    says: /served over HTTPS|Certificates: Let's Encrypt|Let's Encrypt certificates? (is |are )?(issued|obtained|renewed)|^- https:\/\/(?!<)[a-z0-9-]+(\.[a-z0-9-]+)+/im,
    backed: (_m, e) => tlsConfigured(e),
    fact: (_m, t) => (t.tlsCertificates === undefined ? undefined : t.tlsCertificates > 0),
    needs: 'a proxy configuration that serves the domain with a certificate (a Caddy site named by its domain, nginx with ssl and a certbot step, or Traefik with a certificate resolver)',
  },
  {
    code: 'claim-os-version',
    severity: 'warning',
    says: /Ubuntu (\d\d)\.(\d\d)/,
    backed: (m, e) => {
      const version = `${m[1]}.${m[2]}`;
      if (e.artifacts.target?.os) return e.artifacts.target.os.includes(version);
      return createsServer(e) && new RegExp(`ubuntu[-/_ ]?(server/)?${m[1]}[.-]?${m[2]}`, 'i').test(e.steps);
    },
    fact: (m, t) => (t.os === undefined ? undefined : t.os.includes(`${m[1]}.${m[2]}`)),
    needs: 'a step that creates the server with that image, or the server inspection reading /etc/os-release',
  },
  {
    code: 'claim-compose-version',
    severity: 'warning',
    says: /Compose v2( plugin)?/,
    backed: (_m, e) => (e.artifacts.target?.composeVersion ? /^v?2\./.test(e.artifacts.target.composeVersion) : /docker-compose-plugin|docker-compose-v2|docker-cli-compose/.test(e.steps)),
    fact: (_m, t) => (t.composeVersion === undefined ? undefined : /^v?2\./.test(t.composeVersion)),
    needs: 'a step that installs the Compose v2 plugin when it is missing, or the server inspection reading `docker compose version`',
  },
  {
    code: 'claim-size',
    severity: 'warning',
    says: /\(([\w.-]+), (\d+) vCPU, (\d+) GB RAM/,
    backed: (m, e) => {
      if (createsServer(e)) return e.steps.includes(m[1]!);
      return e.artifacts.target?.freeDiskGb !== undefined || /\bdf\b/.test(e.steps);
    },
    fact: (m, t) => sizeFits(t, Number(m[2]), Number(m[3])),
    needs: 'a step that creates a machine of that type, or a check of the existing server\'s size',
  },
];

/** A size stated in CPUs and GB of memory matches what the server reads (memory within 15%: the kernel keeps some). */
function sizeFits(t: TargetFacts, cpus: number, memoryGb: number): boolean | undefined {
  if (t.cpus === undefined || t.memoryGb === undefined) return undefined;
  return t.cpus === cpus && Math.abs(t.memoryGb - memoryGb) <= memoryGb * 0.15;
}

/**
 * Claims only the deployed server can back, read in the documentation after the deploy (a plan states a
 * size to order or a port left closed as an intention; once deployed they are facts or they are not written).
 */
const AFTER_DEPLOY_CLAIMS: Claim[] = [
  {
    code: 'claim-size',
    severity: 'warning',
    says: /(\d+) vCPUs? \/ (\d+) GB RAM/,
    backed: () => false,
    fact: (m, t) => sizeFits(t, Number(m[1]), Number(m[2])),
    needs: 'the server inspection reading its CPUs and memory',
  },
  {
    code: 'claim-port-closed',
    severity: 'warning',
    says: /\bport (\d+)\b[^.]*\b(?:keeps it closed|is closed|stays closed|blocked)\b/i,
    backed: () => false,
    fact: (m, t) => (t.portsInUse === undefined || t.firewallActive === undefined ? undefined : t.firewallActive && !t.portsInUse.some((p) => p.port === Number(m[1]))),
    needs: 'an active firewall and nothing listening on that port, read from the server',
  },
];

/**
 * Prose of a markdown document: fenced blocks, tables (a product's purpose, not what this plan does) and
 * the stack definition left out.
 */
function prose(text: string): string {
  return text
    .replace(/^```[\s\S]*?^```/gm, '')
    .replace(/^## Stack definition[\s\S]*?(?=^#|$(?![\s\S]))/m, '')
    .replace(/^\|.*$/gm, '');
}

export function claimFindings(artifacts: PlanArtifacts): Finding[] {
  if (!artifacts.steps.length) return [];
  const evidence: Evidence = { steps: artifacts.steps.map((s) => s.script).join('\n'), artifacts };
  const findings: Finding[] = [];
  for (const claim of CLAIMS) {
    for (const doc of artifacts.documents) {
      const match = prose(doc.text).match(claim.says);
      if (!match || stands(claim, match, evidence)) continue;
      const sentence = sentenceAround(prose(doc.text), match.index ?? 0);
      findings.push({
        severity: claim.severity,
        code: claim.code,
        message: `The ${doc.name} says "${sentence}", but nothing backs it: it needs ${claim.needs}. Do it in a step or leave the sentence out`,
        where: doc.name,
      });
      break;
    }
  }
  return findings;
}

/**
 * The documentation after the deploy, with every sentence that makes a claim nothing backs left out: the
 * server's facts (`artifacts.target`, read back) decide where they were read, else a step that ran did it,
 * else the sentence is not written. Code blocks and tables are kept as they are; a line left empty goes.
 */
export function withoutUnbackedClaims(text: string, artifacts: PlanArtifacts): { text: string; removed: Array<{ code: string; sentence: string }> } {
  const evidence: Evidence = { steps: artifacts.steps.map((s) => s.script).join('\n'), artifacts, afterDeploy: true };
  const claims = [...CLAIMS, ...AFTER_DEPLOY_CLAIMS];
  const removed: Array<{ code: string; sentence: string }> = [];
  let fenced = false;
  const lines: string[] = [];
  for (const line of text.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced || /^\s*```/.test(line) || /^\s*\|/.test(line)) {
      lines.push(line);
      continue;
    }
    const [, lead = '', body = ''] = /^(\s*(?:[-*+>]\s+|\d+\.\s+)?)(.*)$/.exec(line) ?? [];
    // Sentences end at a full stop, question or exclamation mark followed by a space.
    const sentences = body.split(/(?<=[.!?])\s+/);
    const kept = sentences.filter((sentence) => {
      const claim = claims.find((c) => {
        const m = sentence.match(c.says);
        return m !== null && !stands(c, m, evidence);
      });
      if (claim) removed.push({ code: claim.code, sentence: sentence.trim() });
      return !claim;
    });
    if (kept.length === sentences.length) lines.push(line);
    else if (kept.join('').trim()) lines.push(`${lead}${kept.join(' ')}`);
  }
  return { text: lines.join('\n'), removed };
}

function sentenceAround(text: string, at: number): string {
  const start = Math.max(text.lastIndexOf('\n', at), text.lastIndexOf('. ', at) + 1, 0);
  const endNl = text.indexOf('\n', at);
  const end = endNl < 0 ? text.length : endNl;
  return text.slice(start, end).replace(/^[\s\-*]+/, '').trim().slice(0, 160);
}
