import type { PortInUse, ServerFacts } from '../../../shared/stackModel';
import { parseReadback, readbackText, type ListeningPort } from './parseReadback';

/**
 * Reads the inspection's output (inspectionCommand.ts) into the stack model's ServerFacts. Pure, and honest
 * about what it could not read: a fact the server did not print stays absent, and `notRead` names each
 * part that was missing (no Docker for this user, no Compose, no socket table), so nobody reads an empty
 * list as "nothing there".
 */

export interface Inspection {
  facts: ServerFacts;
  /** What the server did not let us read, in words (`Docker: not installed, or this user may not use it`). */
  notRead: string[];
}

/** One container as `docker ps --format '{{json .}}'` prints it (the fields read here). */
interface PsLine {
  Names?: unknown;
  Image?: unknown;
  Labels?: unknown;
  Ports?: unknown;
}

const HEADER = /^== da-readback (\S+) ==$/;

/** The lines of each section of the text, by section name. */
function sections(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of text.replace(/\r\n/g, '\n').split('\n')) {
    const header = HEADER.exec(line);
    if (header) {
      current = [];
      out.set(header[1]!, current);
    } else if (current && line.trim()) current.push(line);
  }
  return out;
}

/**
 * Docker's `Labels` column: `k=v,k=v`. A value may itself hold commas (compose's `config_files` lists
 * files), so a piece that does not start a new `key=` belongs to the value before it.
 */
export function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let last: string | undefined;
  for (const piece of text.split(',')) {
    const m = /^([A-Za-z0-9_.\-/]+)=(.*)$/s.exec(piece);
    if (m) labels[(last = m[1]!)] = m[2]!;
    else if (last !== undefined) labels[last] += `,${piece}`;
  }
  return labels;
}

/**
 * Docker's `Ports` column: `0.0.0.0:80->80/tcp, :::80->80/tcp, 5432/tcp, 0.0.0.0:8000-8001->8000-8001/tcp`.
 * Only published ports (with `->`) hold a port of the host; a range is every port in it.
 */
export function parsePublished(text: string): Array<{ address: string; port: number; protocol: 'tcp' | 'udp' }> {
  const out: Array<{ address: string; port: number; protocol: 'tcp' | 'udp' }> = [];
  for (const part of text.split(',').map((p) => p.trim())) {
    const arrow = part.indexOf('->');
    const slash = part.lastIndexOf('/');
    if (arrow < 0 || slash < arrow) continue;
    const protocol = part.slice(slash + 1);
    if (protocol !== 'tcp' && protocol !== 'udp') continue;
    const host = part.slice(0, arrow);
    const colon = host.lastIndexOf(':');
    if (colon < 0) continue;
    const [from, to = from] = host.slice(colon + 1).split('-').map(Number);
    if (!Number.isInteger(from) || !Number.isInteger(to) || from! < 1 || to! > 65535 || to! < from! || to! - from! > 1000) continue;
    for (let port = from!; port <= to!; port++) out.push({ address: host.slice(0, colon) || '0.0.0.0', port, protocol });
  }
  return out;
}

/** `0100007F` (a little-endian IPv4 word of /proc/net/tcp) → `127.0.0.1`; IPv6 as four such words. */
function procAddress(hex: string): string | undefined {
  if (!/^[0-9A-Fa-f]+$/.test(hex)) return undefined;
  const words = hex.match(/.{8}/g) ?? [];
  if (hex.length === 8) return words[0]!.match(/../g)!.reverse().map((b) => parseInt(b, 16)).join('.');
  if (hex.length !== 32) return undefined;
  const bytes = words.flatMap((w) => w.match(/../g)!.reverse());
  const groups = Array.from({ length: 8 }, (_, i) => parseInt(bytes[2 * i]! + bytes[2 * i + 1]!, 16).toString(16));
  return groups.join(':').replace(/(^|:)0(:0)+(:|$)/, '::');
}

/**
 * A line of /proc/net/{tcp,tcp6,udp,udp6} prefixed with its table's name: `tcp 0: 00000000:0050 00000000:0000 0A …`.
 * A TCP socket listens in state 0A; a UDP one is bound in state 07.
 */
export function parseProcNetLine(line: string): ListeningPort | undefined {
  const [table, , local, , state] = line.trim().split(/\s+/);
  const protocol = table?.startsWith('tcp') ? 'tcp' : table?.startsWith('udp') ? 'udp' : undefined;
  if (!protocol || !local || state !== (protocol === 'tcp' ? '0A' : '07')) return undefined;
  const [addressHex, portHex] = local.split(':');
  const port = parseInt(portHex ?? '', 16);
  const address = procAddress(addressHex ?? '');
  if (!address || !Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  return { protocol, address, port };
}

/** The `== da-hostkey <now|earlier> ==` header the command prints in the sandbox, after the server's output. */
const HOSTKEY_HEADER = /^== da-hostkey (now|earlier) ==$/;
/** A line of `ssh-keygen -l -F <name>`: `[203.0.113.7]:2222 ED25519 SHA256:…`. */
const FINGERPRINT = /^\S+ ([A-Z0-9-]{2,20}) (SHA256:[A-Za-z0-9+/]{43})$/;

/** The host key the inspection met and what is pinned for it now, from the last host key section. */
export function parseHostKey(output: string): ServerFacts['hostKey'] {
  const lines = output.replace(/\r\n/g, '\n').split('\n').map((l) => l.trim());
  const at = lines.findLastIndex((l) => HOSTKEY_HEADER.test(l));
  if (at < 0) return undefined;
  const firstContact = HOSTKEY_HEADER.exec(lines[at]!)![1] === 'now';
  for (const line of lines.slice(at + 1)) {
    if (line.startsWith('== ')) break;
    const m = FINGERPRINT.exec(line);
    if (m) return { algorithm: m[1]!, fingerprint: m[2]!, firstContact };
  }
  return undefined;
}

const text200 = (s: string): string => (s.length > 200 ? `${s.slice(0, 199)}…` : s);

/** Who holds a container's published port, as the facts say it (othersOnServer.ts reads it back). */
export const containerHolder = (name: string, project: string | undefined): string => text200(`container ${name}${project ? ` (compose project ${project})` : ''}`);

/** The server's facts from the inspection's output, read at `at`. */
export function parseInspection(output: string, at: Date): Inspection {
  const text = readbackText(output);
  const { facts: read } = parseReadback('inspected', output);
  const parts = sections(text);
  const notRead: string[] = [];

  const containers: ServerFacts['containers'] = [];
  const published = new Map<string, { holder: string; address: string }>();
  const projects = new Set<string>();
  const containerLines = parts.get('containers');
  if (!containerLines || containerLines.some((l) => l.startsWith('unreadable: docker'))) notRead.push('Docker: not installed, or this user may not use it (containers and compose projects unknown)');
  for (const line of containerLines ?? []) {
    let row: PsLine;
    try {
      row = JSON.parse(line) as PsLine;
    } catch {
      continue;
    }
    if (typeof row !== 'object' || row === null || typeof row.Names !== 'string' || typeof row.Image !== 'string') continue;
    const labels = typeof row.Labels === 'string' ? parseLabels(row.Labels) : {};
    const project = labels['com.docker.compose.project'];
    if (project) projects.add(project);
    const name = row.Names.split(',')[0]!;
    containers.push({ name: text200(name), image: row.Image.slice(0, 300), ...(project ? { project: text200(project) } : {}) });
    const holder = containerHolder(name, project);
    for (const p of typeof row.Ports === 'string' ? parsePublished(row.Ports) : []) {
      if (!published.has(`${p.port}/${p.protocol}`)) published.set(`${p.port}/${p.protocol}`, { holder, address: p.address });
    }
  }

  for (const line of parts.get('compose-ls') ?? []) {
    try {
      const list: unknown = JSON.parse(line);
      if (Array.isArray(list)) for (const p of list) if (typeof p === 'object' && p && typeof (p as { Name?: unknown }).Name === 'string') projects.add((p as { Name: string }).Name);
    } catch {
      // Not Compose's JSON (an error it printed): the containers' labels still name the projects.
    }
  }

  const listening: ListeningPort[] = read.listening ?? (parts.get('proc-net') ?? []).map(parseProcNetLine).filter((p): p is ListeningPort => p !== undefined);
  if (!read.listening && !parts.get('proc-net')?.length) notRead.push('listening ports: neither ss nor /proc/net could be read');
  const ports = new Map<string, PortInUse>();
  for (const p of listening) {
    const key = `${p.port}/${p.protocol}`;
    if (ports.has(key)) continue;
    // A published container port is held by docker-proxy (or by nobody ss will name): say which container.
    const holder = published.get(key)?.holder ?? p.process;
    ports.set(key, { port: p.port, protocol: p.protocol, address: p.address.slice(0, 64), ...(holder ? { holder: text200(holder) } : {}) });
  }
  // Published ports ss did not list (no socket table read, or a rootless Docker's own proxy) are in use all the same.
  for (const [key, p] of published) {
    if (ports.has(key)) continue;
    const [port, protocol] = key.split('/') as [string, 'tcp' | 'udp'];
    ports.set(key, { port: Number(port), protocol, address: p.address.slice(0, 64), holder: p.holder });
  }

  const hostKey = parseHostKey(output);
  if (!hostKey) notRead.push('SSH host key: none pinned in ssh-keys/known_hosts after the inspection');
  if (!read.dockerVersion) notRead.push('Docker version');
  if (!read.compose) notRead.push('Compose: neither `docker compose` nor `docker-compose` answered');
  const facts: ServerFacts = {
    inspectedAt: at.toISOString(),
    ...(read.os ? { os: read.os.slice(0, 200) } : {}),
    ...(read.dockerVersion ? { dockerVersion: read.dockerVersion.slice(0, 64) } : {}),
    ...(read.compose ? { composeVersion: read.compose.slice(0, 64) } : {}),
    ...(read.diskFreeGb !== undefined ? { freeDiskGb: read.diskFreeGb } : {}),
    ...(read.memoryGb !== undefined ? { memoryGb: read.memoryGb } : {}),
    ...(read.cpus !== undefined ? { cpus: read.cpus } : {}),
    portsInUse: [...ports.values()].sort((a, b) => a.port - b.port || a.protocol.localeCompare(b.protocol)).slice(0, 1000),
    containers: containers.slice(0, 1000),
    composeProjects: [...projects].sort().slice(0, 200).map(text200),
    ...(hostKey ? { hostKey } : {}),
  };
  return { facts, notRead };
}
