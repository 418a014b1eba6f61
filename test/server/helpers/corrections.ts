import YAML from 'yaml';

/**
 * Typical corrections said after a first request, each with what the architecture plan must then show:
 * one list, run through the offline planner and through an OpenAI-compatible model calling stack operations.
 */

export interface Published {
  services: string[];
  /** Host ports published on every address, by service. */
  open: Record<string, string[]>;
  /** Upstreams the proxy forwards to (`service:port`). */
  proxied: string[];
  architecture: string;
}

/** What an architecture plan runs and publishes. */
export function publishedBy(architecture: string): Published {
  const compose = YAML.parse(architecture.match(/## docker-compose.yml\n\n```yaml\n([\s\S]*?)\n```/)?.[1] ?? 'services: {}') as { services: Record<string, { ports?: string[] }> };
  const open = Object.fromEntries(Object.entries(compose.services).map(([name, s]) => [name, (s.ports ?? []).filter((x) => !x.startsWith('127.0.0.1:'))]));
  const proxied = [...architecture.matchAll(/(?:reverse_proxy|proxy_pass\s+https?:\/\/)\s*([\w-]+:\d+)/g)].map((m) => m[1]!);
  return { services: Object.keys(compose.services).sort(), open, proxied, architecture };
}

export const BASE_REQUEST = 'Nextcloud with MariaDB, Redis and Adminer behind Caddy at cloud.example.org on my VPS, light load';

export const CORRECTIONS: Array<[name: string, said: string, check: (p: Published) => void]> = [
  ['remove', 'Please remove Redis', (p) => expect(p.services).not.toContain('redis')],
  ['rule out', 'I do NOT want Adminer', (p) => expect(p.services).not.toContain('adminer')],
  ['replace', 'PostgreSQL instead of MariaDB', (p) => {
    expect(p.services).toEqual(expect.arrayContaining(['postgres']));
    expect(p.services).not.toContain('mariadb');
  }],
  ['add', 'also add Uptime Kuma', (p) => expect(p.services.some((s) => s.startsWith('uptime'))).toBe(true)],
  ['domain', 'use files.example.net as the domain instead', (p) => {
    expect(p.architecture).toContain('files.example.net');
    expect(p.architecture).not.toContain('cloud.example.org');
    expect(p.proxied.length).toBeGreaterThan(0);
  }],
  ['port', 'publish Adminer on port 8090', (p) => expect(p.open.adminer).toEqual(['8090:8080'])],
  ['private', 'keep Adminer private', (p) => {
    expect(p.services).toContain('adminer');
    expect(p.proxied.filter((u) => u.startsWith('adminer:'))).toEqual([]);
    expect(p.open.adminer).toEqual([]);
  }],
  ['public again', 'keep Adminer private. Actually, make Adminer public', (p) => expect(p.proxied.some((u) => u.startsWith('adminer:'))).toBe(true)],
];
