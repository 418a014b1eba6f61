/**
 * Reads the read-back check's output (readbackCommand.ts) into the server's facts and the files as
 * deployed. Pure: what the server printed, nothing assumed; a section it did not print stays absent.
 */

export interface ListeningPort {
  protocol: 'tcp' | 'udp';
  address: string;
  port: number;
  /** The process holding it, when the server let us see it. */
  process?: string;
}

export interface Certificate {
  /** Where it was found: a file on the server, or `served on port 443`. */
  source: string;
  subject?: string;
  issuer?: string;
  notAfter?: string;
}

export interface ComposeProject {
  name: string;
  workingDir: string;
  configFiles: string[];
}

export interface DeployedFile {
  /** The compose project whose folder holds it. */
  project: string;
  path: string;
  content: string;
}

export interface DeployedFacts {
  os?: string;
  kernel?: string;
  dockerVersion?: string;
  /** The version, and which Compose: `1.29.2 (docker-compose)`, `2.29.7 (docker compose)`. */
  compose?: string;
  composeVersion?: string;
  cpus?: number;
  memoryGb?: number;
  diskTotalGb?: number;
  diskFreeGb?: number;
  /** `sshd -T`'s settings that harden SSH (lower-case keys as sshd prints them); absent when unreadable. */
  sshd?: Record<string, string>;
  /** What each firewall said: `ufw: active`, `iptables input policy: ACCEPT`. */
  firewall: Record<string, string>;
  /** Whether any firewall filters incoming traffic; undefined when none could be read. */
  firewallActive?: boolean;
  listening?: ListeningPort[];
  certificates: Certificate[];
  composeProjects: ComposeProject[];
}

export interface ServerReadback {
  /** The `Host` of the SSH configuration it read. */
  server: string;
  facts: DeployedFacts;
  files: DeployedFile[];
  /** Files left out, with why (`skipped /opt/stack/.env: it may hold secrets`). */
  skipped: string[];
}

const HEADER = /^== da-readback (.+) ==$/;
const gb = (bytes: number): number => Math.round((bytes / 1024 ** 3) * 10) / 10;
const positive = (text: string | undefined): number | undefined => {
  const n = Number(text);
  return text !== undefined && text !== '' && Number.isFinite(n) && n > 0 ? n : undefined;
};

/** `tcp LISTEN 0 128 0.0.0.0:2222 0.0.0.0:* users:(("sshd",pid=1,fd=3))` → tcp, 0.0.0.0, 2222, sshd. */
export function parseSsLine(line: string): ListeningPort | undefined {
  const cols = line.trim().split(/\s+/);
  const protocol = cols[0];
  const local = cols[4];
  if ((protocol !== 'tcp' && protocol !== 'udp') || !local) return undefined;
  const at = local.lastIndexOf(':');
  const port = Number(local.slice(at + 1));
  if (at < 0 || !Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  const process = /users:\(\("([^"]+)"/.exec(line)?.[1];
  return { protocol, address: local.slice(0, at).replace(/^\[|\]$/g, ''), port, ...(process ? { process } : {}) };
}

/** Whether a firewall's answer means it filters incoming traffic. */
function filters(name: string, answer: string): boolean {
  if (name === 'ufw') return answer.toLowerCase() === 'active';
  if (name === 'firewalld') return answer === 'running';
  return /^(drop|reject)$/i.test(answer);
}

/**
 * The record the check printed after its text (base64 of the same text, which redaction of the step's
 * output cannot blank words of); null when there is none or a line of it is not base64 (blanked after all).
 */
export function readbackRecord(output: string): string | null {
  const lines = output.replace(/\r\n/g, '\n').split('\n');
  const start = lines.lastIndexOf('== da-readback record ==');
  const end = lines.indexOf('== da-readback end ==', start);
  if (start < 0 || end < 0) return null;
  const body = lines.slice(start + 1, end);
  if (!body.every((l) => /^[A-Za-z0-9+/]*={0,2}$/.test(l))) return null;
  return Buffer.from(body.join(''), 'base64').toString('utf8');
}

/** The text a check printed: its record when whole, else what was shown before it (possibly blanked in places). */
export const readbackText = (output: string): string => readbackRecord(output) ?? output.split('\n== da-readback record ==')[0]!;

/** The facts and files of a read-back check's output: from its record when whole, else from its text. */
export function parseReadback(server: string, output: string): ServerReadback {
  const lines = readbackText(output).replace(/\r\n/g, '\n').split('\n');
  const facts: DeployedFacts = { firewall: {}, certificates: [], composeProjects: [] };
  const files: DeployedFile[] = [];
  const skipped: string[] = [];
  const plain: Record<string, string> = {};
  let section = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const header = HEADER.exec(line);
    if (header) {
      const words = header[1]!.split(' ');
      if (words[0] === 'file') {
        // `file <project> <lines> <path>`: the next <lines> lines are the file, whatever they say.
        const count = Number(words[2]);
        const path = words.slice(3).join(' ');
        if (!Number.isInteger(count) || count < 0 || !path) continue;
        files.push({ project: words[1]!, path, content: lines.slice(i + 1, i + 1 + count).join('\n') });
        i += count;
        continue;
      }
      section = words[0]!;
      if (section === 'sshd') facts.sshd = {};
      if (section === 'listening') facts.listening = [];
      continue;
    }
    if (!line.trim()) continue;
    if (section === 'facts') {
      const at = line.indexOf(': ');
      if (at > 0) plain[line.slice(0, at)] = line.slice(at + 2).trim();
    } else if (section === 'sshd') {
      const [key, ...value] = line.trim().split(/\s+/);
      if (key && value.length && /^[a-z0-9]+$/.test(key)) facts.sshd![key] = value.join(' ');
    } else if (section === 'firewall') {
      const at = line.indexOf(': ');
      const name = line.slice(0, at).split(' ')[0]!;
      const answer = line.slice(at + 2).trim();
      if (at > 0 && answer) facts.firewall[line.slice(0, at)] = answer;
      if (at > 0 && answer) facts.firewallActive = (facts.firewallActive ?? false) || filters(name, answer);
    } else if (section === 'listening') {
      const port = parseSsLine(line);
      if (port && !facts.listening!.some((p) => p.protocol === port.protocol && p.address === port.address && p.port === port.port)) facts.listening!.push(port);
    } else if (section === 'tls') {
      const m = /^certificate (.+?) \| (.*)$/.exec(line);
      if (!m) continue;
      const fields = Object.fromEntries(m[2]!.split('|').map((f) => [f.slice(0, f.indexOf('=')).trim(), f.slice(f.indexOf('=') + 1).trim()]));
      // A source that answered nothing (no certificate on 443) is not a certificate.
      if (!fields.subject && !fields.notAfter) continue;
      facts.certificates.push({ source: m[1]!, ...(fields.subject ? { subject: fields.subject } : {}), ...(fields.issuer ? { issuer: fields.issuer } : {}), ...(fields.notAfter ? { notAfter: fields.notAfter } : {}) });
    } else if (section === 'compose') {
      const project = /^project (.*?) \| (.*?) \| (.*)$/.exec(line);
      if (project) facts.composeProjects.push({ name: project[1]!, workingDir: project[2]!, configFiles: project[3]!.split(',').filter(Boolean) });
      else if (line.startsWith('skipped ')) skipped.push(line);
    }
  }
  const memoryKb = positive(plain.memory_kb);
  const total = positive(plain.disk_total_bytes);
  const free = Number(plain.disk_free_bytes);
  const cpus = positive(plain.cpus);
  if (plain.os) facts.os = plain.os;
  if (plain.kernel) facts.kernel = plain.kernel;
  if (plain.docker) facts.dockerVersion = plain.docker;
  if (plain.compose) {
    facts.compose = plain.compose;
    const version = /^v?(\d+\.\d+[\w.+-]*)/.exec(plain.compose)?.[1];
    if (version) facts.composeVersion = version;
  }
  if (cpus !== undefined && Number.isInteger(cpus)) facts.cpus = cpus;
  if (memoryKb !== undefined) facts.memoryGb = gb(memoryKb * 1024);
  if (total !== undefined) facts.diskTotalGb = gb(total);
  if (plain.disk_free_bytes !== undefined && Number.isFinite(free) && free >= 0) facts.diskFreeGb = gb(free);
  // `sshd -T` read nothing (no root): its settings are not known, not empty.
  if (facts.sshd && !Object.keys(facts.sshd).length) delete facts.sshd;
  return { server, facts, files, skipped };
}
