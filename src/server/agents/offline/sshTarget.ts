/**
 * The person's own server as a deploy target: "my existing server deploy@203.0.113.7, SSH port 2222",
 * "ssh -p 2222 root@vps.example.com", "root@10.0.0.5:2200". Read from the person's words (and back from
 * the documents the planner writes, which spell the target the same way).
 */

export interface SshTarget {
  user: string;
  host: string;
  port: number;
}

const USER = '[a-z_][a-z0-9_.-]{0,31}';
const IPV4 = '(?:\\d{1,3}\\.){3}\\d{1,3}';
const HOSTNAME = '(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z]{2,24}';
const TARGET = new RegExp(`(?<![\\w.@-])(${USER})@(${IPV4}|${HOSTNAME}|\\[[0-9a-f:]+\\])(?::(\\d{1,5}))?(?![\\w@-]|\\.\\w)`, 'gi');
/** Words that make `user@host` a server rather than an email address. */
const SERVER_WORDS = /\b(server|ssh|host|vps|machine|box|instance|droplet|deploy(ing)? (to|on)|log ?in)\b/i;
/** Words that may stand between an address and its SSH port. */
const ADDRESS_WORDS = new Set(['ssh', 'sshd', 'on', 'at', 'with', 'using', 'via', 'over', 'its', 'the', 'and', 'is', 'listening', 'listens', 'runs', 'running', 'which', 'that', 'server', 'vps', 'box', 'host']);
const PORT = /(?:\bssh\s+port|\bport|\s-p)\s*(?:is\s+|=\s*|:\s*)?(\d{1,5})\b/i;

const validPort = (n: number): boolean => Number.isInteger(n) && n >= 1 && n <= 65535;
const validIpv4 = (host: string): boolean => !/^(?:\d{1,3}\.){3}\d{1,3}$/.test(host) || host.split('.').every((o) => Number(o) <= 255);

/** The last SSH target a text names, or undefined. An address in an email-like sentence is not one. */
export function readSshTarget(text: string): SshTarget | undefined {
  let found: SshTarget | undefined;
  for (const m of text.matchAll(TARGET)) {
    const host = m[2]!.replace(/^\[|\]$/g, '').toLowerCase();
    if (!validIpv4(host)) continue;
    const isIp = /^[\d.]+$|:/.test(host);
    // user@example.com is an email address unless the sentence speaks of a server.
    const sentence = text.slice(Math.max(0, text.lastIndexOf('\n', m.index) + 1), text.indexOf('\n', m.index) < 0 ? undefined : text.indexOf('\n', m.index));
    if (!isIp && !SERVER_WORDS.test(sentence)) continue;
    const after = text.slice(m.index! + m[0].length, m.index! + m[0].length + 40);
    const before = text.slice(Math.max(0, m.index! - 20), m.index);
    const portAfter = after.match(PORT);
    // "root@host, move SSH to port 2222" names the port SSH moves to, not the one it listens on now.
    // Only words that go on describing the address may part it from the port ("deploy@host (ssh on port 2222)");
    // any other ("root@host, move SSH to port 2222", "deploy@host, systemd-resolved holds port 53") names
    // another port: where SSH moves to, what the server runs.
    const between = portAfter ? after.slice(0, portAfter.index).split(/[^\w-]+/).filter(Boolean) : [];
    const ofTheAddress = between.every((w) => ADDRESS_WORDS.has(w.toLowerCase()));
    const portText = m[3] ?? (ofTheAddress ? portAfter?.[1] : undefined) ?? before.match(/\s-p\s*(\d{1,5})\s+\S*$/)?.[1];
    const port = portText ? Number(portText) : 22;
    if (!validPort(port)) continue;
    found = { user: m[1]!, host, port };
  }
  return found;
}

const SPOKEN_HOST = new RegExp(`\\b(?:at|on|ip|address|host|is)\\s+(${IPV4}|${HOSTNAME})\\b`, 'i');
const SPOKEN_USER = new RegExp(`\\b(?:user(?:name)?|login|benutzer)\\s*(?:is\\s+|=\\s*|:\\s*)?(${USER})\\b`, 'i');

/**
 * A server described in words: "my home server, Ubuntu at 192.168.1.50, user pi", "my VPS is 203.0.113.9,
 * login deploy, port 2222": a sentence that speaks of a server, names its address and its user.
 */
export function readSpokenTarget(text: string): SshTarget | undefined {
  let found: SshTarget | undefined;
  for (const sentence of text.split(/[\n;]|[.!?](?=\s|$)/)) {
    if (!SERVER_WORDS.test(sentence)) continue;
    const host = sentence.match(SPOKEN_HOST)?.[1]?.toLowerCase();
    const user = sentence.match(SPOKEN_USER)?.[1];
    if (!host || !user || !validIpv4(host) || user.toLowerCase() === 'is') continue;
    const port = Number(sentence.match(PORT)?.[1] ?? 22);
    if (validPort(port)) found = { user, host, port };
  }
  return found;
}

/** How documents spell a target: `deploy@203.0.113.7, SSH port 2222` (read back by readSshTarget). */
export const sshTargetLabel = (t: SshTarget): string => `${t.user}@${t.host}, SSH port ${t.port}`;

/** A host name for `Host` lines of an ssh config: every plan reaches its server under this alias. */
export const SSH_ALIAS = 'da-server';
