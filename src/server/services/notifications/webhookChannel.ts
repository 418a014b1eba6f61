import { BlockList, isIP } from 'node:net';
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';

/**
 * A JSON POST to a project's webhook, in the shape Slack (`text`) and Discord (`content`) incoming
 * webhooks both read. The server makes the request, so the address is checked where the connection is
 * made (every address the name resolves to, at connect time: no DNS rebinding around the check): never
 * link-local (the cloud metadata service), multicast or unspecified; loopback and private networks only
 * when the operator allows them (NOTIFY_PRIVATE_ADDRESSES). No redirects are followed.
 */

/** A block list from `address/prefix` ranges (a bare address is its own range). */
function blockList(ranges: string[]): BlockList {
  const list = new BlockList();
  for (const range of ranges) {
    const [address, prefix] = range.split('/') as [string, string | undefined];
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return list;
}

/** Link-local (the cloud metadata service among them), unspecified and multicast: never reached. */
const NEVER = blockList(['169.254.0.0/16', '0.0.0.0/8', '224.0.0.0/3', 'fe80::/10', 'ff00::/8', '::', 'fd00:ec2::254']);
/** Loopback, private and carrier-grade NAT ranges: reached only when the operator allows it. */
const PRIVATE = blockList(['127.0.0.0/8', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '::1', 'fc00::/7']);

/** Why an address may not be reached, or undefined when it may. */
export function refusedAddress(address: string, allowPrivate: boolean): string | undefined {
  const mapped = address.match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/)?.[1];
  const ip = mapped ?? address;
  const family = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
  if (NEVER.check(ip, family)) return `${ip} is a link-local, multicast or unspecified address`;
  if (!allowPrivate && PRIVATE.check(ip, family)) return `${ip} is a loopback or private address (set NOTIFY_PRIVATE_ADDRESSES=true to allow it)`;
  return undefined;
}

const TIMEOUT_MS = 10_000;

export interface WebhookMessage {
  title: string;
  text: string;
}

/** Posts the message; resolves when the receiver answered 2xx, rejects with what went wrong otherwise. */
export function postWebhook(url: string, message: WebhookMessage, allowPrivate: boolean): Promise<void> {
  const target = new URL(url);
  const body = JSON.stringify({ text: `*${message.title}*\n${message.text}`, content: `**${message.title}**\n${message.text}` });
  const lookup: typeof dns.lookup = ((hostname: string, options: dns.LookupOptions, callback: (err: Error | null, address: string | dns.LookupAddress[], family?: number) => void) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as dns.LookupAddress[];
      const refused = list.map((a) => refusedAddress(a.address, allowPrivate)).find(Boolean);
      if (refused) return callback(new Error(`The webhook's address is refused: ${refused}`), '', 0);
      if (options.all) return callback(null, list);
      return callback(null, list[0]!.address, list[0]!.family);
    });
  }) as typeof dns.lookup;
  const literal = isIP(target.hostname.replace(/^\[|\]$/g, '')) ? refusedAddress(target.hostname.replace(/^\[|\]$/g, ''), allowPrivate) : undefined;
  if (literal) return Promise.reject(new Error(`The webhook's address is refused: ${literal}`));
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(
      target,
      { method: 'POST', lookup, timeout: TIMEOUT_MS, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'devops-agents-notifications' } },
      (res) => {
        res.resume();
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) resolve();
        else reject(new Error(`The webhook answered ${status}${status >= 300 && status < 400 ? ' (a redirect, not followed)' : ''}`));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`The webhook did not answer within ${TIMEOUT_MS / 1000} s`)));
    req.on('error', reject);
    req.end(body);
  });
}
