import YAML from 'yaml';
import { composeSpecErrors, dockerComposeAvailable, dockerComposeConfig } from '../helpers/composeChecks';
import { converse, plans, servicesOf } from '../helpers/plannerConversation';
import { validateCompose } from '../../../src/server/agents/offline/composer';

/**
 * Requests nobody tuned the planner for, each with the product asked for, played through the offline
 * planner's three agents. The table says what each plan holds, whether it holds what was asked,
 * and whether the compose file passes the Compose schema and `docker-compose config`.
 * `npx tsx test/server/planning/printRequestTable.ts` prints it; requestTable.test.ts asserts it.
 */

export interface Request {
  text: string;
  /** Compose services the plan must hold (the asked-for products). */
  wants: string[];
  /** Services that must not appear (what the person ruled out, or a stand-in). */
  never?: string[];
  /** Software the catalogue does not hold: the planner must name it and stay incomplete. */
  unknown?: string[];
  hostOnly?: boolean;
}

export const REQUESTS: Request[] = [
  { text: 'Uptime monitoring for my websites with Uptime Kuma on Hetzner in Falkenstein, status page at status.mysite.net', wants: ['uptime-kuma'], never: ['prometheus', 'grafana'] },
  { text: 'Self-host Vaultwarden for my family at vault.familie-schmidt.de on my VPS', wants: ['vaultwarden'], never: ['web'] },
  { text: 'I need S3-compatible storage with MinIO, 500 GB of data, on Hetzner in Nuremberg', wants: ['minio'], never: ['web'] },
  { text: 'Gitea with Git over SSH on port 2222 at git.example.org on DigitalOcean ams3', wants: ['gitea', 'postgres'] },
  { text: 'Keycloak for single sign-on at sso.acme.io on AWS eu-west-1', wants: ['keycloak', 'postgres'] },
  { text: 'A Mastodon server for our community at social.example.social on Hetzner', wants: ['mastodon', 'mastodon-sidekiq', 'postgres', 'redis'] },
  { text: 'WordPress blog with MariaDB, not MySQL, at blog.example.com on my VPS', wants: ['wordpress', 'mariadb'], never: ['mysql', 'app'] },
  { text: 'Loki and Promtail for my logs, with Grafana to read them, but not Prometheus, on my own server', wants: ['loki', 'promtail', 'grafana'], never: ['prometheus', 'elasticsearch'] },
  { text: 'Harden my VPS: ufw, fail2ban and unattended-upgrades, no containers', wants: [], hostOnly: true },
  { text: 'Nextcloud for 10 people with 1 TB of files at cloud.example.eu on Hetzner in Helsinki', wants: ['nextcloud', 'postgres', 'redis'] },
  { text: 'Plausible analytics for stats.shop.example on a VPS', wants: ['plausible', 'clickhouse', 'postgres'] },
  { text: 'Jellyfin media server on my own server, no domain', wants: ['jellyfin'] },
  { text: 'Paperless-ngx for scanned letters, reachable only from our office 198.51.100.0/24, on my VPS', wants: ['paperless', 'postgres', 'redis'] },
  { text: 'Run ghcr.io/acme/inventory:2.3.1 on port 8080 with data in /var/lib/inventory on DigitalOcean', wants: ['inventory'], never: ['app', 'web'] },
  { text: 'Ich brauche einen Matrix Server mit Synapse auf matrix.beispiel.de bei Hetzner in Falkenstein', wants: ['synapse', 'postgres'] },
  { text: 'Ollama with Open WebUI as a private ChatGPT-like interface at ai.example.dev on AWS', wants: ['ollama', 'open-webui'] },
  { text: 'Set up Plex for my movies on a VPS', wants: [], unknown: ['Plex'], never: ['jellyfin'] },
  { text: 'Metabase dashboards for the business at bi.company.io on GCP europe-west4', wants: ['metabase', 'postgres'] },
  { text: 'Mattermost for the team at chat.team.example on Azure in westeurope', wants: ['mattermost', 'postgres'] },
  { text: 'Node-RED and a Mosquitto MQTT broker for my sensors on my VPS', wants: ['node-red', 'mosquitto'] },
  { text: 'Pi-hole DNS ad blocking on my own server', wants: ['pihole'] },
  { text: 'Directus headless CMS with redis:7.2.5-alpine as its cache at cms.example.net on Hetzner', wants: ['directus', 'redis', 'postgres'] },
  { text: 'n8n plus Uptime Kuma and Redis, domain automations.example.co.uk, Hetzner cx32', wants: ['n8n', 'uptime-kuma', 'redis'] },
  { text: 'Install Sonarr and Radarr on my VPS', wants: [], unknown: ['Sonarr', 'Radarr'] },
];

export interface Row {
  request: Request;
  ready: boolean;
  services: string[];
  /** Every wanted service is in the plan, nothing ruled out is, every unknown name was said back. */
  gotProduct: boolean;
  unknownNamed: boolean;
  /** Problems of the planner's own validator, the Compose schema and `docker-compose config` ('' = accepted). */
  ownValidator: string[];
  schemaErrors: string[];
  composeConfig: string | undefined;
  images: Record<string, string>;
  notes: string;
}

export function runRequest(request: Request, withDockerCompose = dockerComposeAvailable()): Row {
  const c = converse([request.text, 'Go with sensible defaults for everything else.']);
  const p = c.ready ? plans(c.document) : undefined;
  const services = p ? servicesOf(p.compose) : [];
  const doc = p?.compose ? (YAML.parse(p.compose) as { services: Record<string, { image?: string }> }) : undefined;
  const unknownNamed = (request.unknown ?? []).every((u) => c.replies.some((r) => r.includes(`I don't know ${u}`)));
  // Unknown software: named back, nothing stands in for it, and a plan that goes on says it was left out.
  const gotProduct = request.unknown?.length
    ? unknownNamed && !(request.never ?? []).some((n) => services.includes(n)) && (!c.ready || request.unknown.every((u) => c.document.includes(`left out as you said: `) && c.document.includes(u)))
    : request.hostOnly
      ? Boolean(p && !p.compose && /ufw/.test(p.implementation) && !/docker\.io/.test(p.implementation))
      : request.wants.every((w) => services.includes(w)) && !(request.never ?? []).some((n) => services.includes(n));
  return {
    request,
    ready: c.ready,
    services,
    gotProduct,
    unknownNamed,
    ownValidator: p?.compose ? validateCompose(p.compose, c.secrets.map((s) => s.name)) : [],
    schemaErrors: doc ? composeSpecErrors(doc) : [],
    composeConfig: p?.compose && withDockerCompose ? dockerComposeConfig(p.compose, p.files) : undefined,
    images: Object.fromEntries(Object.entries(doc?.services ?? {}).map(([k, v]) => [k, v.image ?? 'build'])),
    notes: c.replies[c.replies.length - 1]!.split('\n')[0]!,
  };
}

export function renderTable(rows: Row[]): string {
  const withCompose = rows.filter((r) => r.composeConfig !== undefined);
  const catalogued = rows.filter((r) => !r.request.unknown?.length);
  const lines = [
    '| # | Request | Ready | Plan holds | Asked-for product | Compose schema | docker-compose config |',
    '|---|---|---|---|---|---|---|',
    ...rows.map((r, i) => `| ${i + 1} | ${r.request.text} | ${r.ready ? 'yes' : 'no'} | ${r.request.hostOnly ? 'host only (ufw, fail2ban, unattended-upgrades)' : r.services.join(', ') || `— (${r.request.unknown?.join(', ')} named as unknown)`} | ${r.gotProduct ? 'yes' : 'NO'} | ${r.services.length ? (r.schemaErrors.length ? r.schemaErrors.join('; ') : 'valid') : '—'} | ${r.composeConfig === undefined ? '—' : r.composeConfig ? r.composeConfig.split('\n')[0] : 'accepted'} |`),
    '',
    `Asked-for product in the plan: ${catalogued.filter((r) => r.gotProduct).length} of ${catalogued.length} requests for catalogued software; unknown software named back, with nothing swapped in: ${rows.filter((r) => r.request.unknown?.length && r.gotProduct).length} of ${rows.filter((r) => r.request.unknown?.length).length}.`,
    `Compose files docker-compose config accepts: ${withCompose.filter((r) => !r.composeConfig).length} of ${withCompose.length}; Compose schema: ${rows.filter((r) => r.services.length && !r.schemaErrors.length).length} of ${rows.filter((r) => r.services.length).length}.`,
  ];
  return lines.join('\n');
}
