/**
 * The evaluation set: requests written the way people ask in forum threads and issue trackers (informal,
 * several products at once, an existing server or a new one, constraints such as "not X", "X or Y",
 * "keep Y private"), each with what the plan must contain. Nobody tuned the planner to them; run.ts plays
 * each through the offline planner's agents and the plan verifier.
 *
 * Service names are compose service names as the catalogue names them (nginxProxy runs `proxy`, the ELK
 * product runs `elasticsearch`, `logstash` and `kibana`).
 */

export interface EvalRequest {
  id: string;
  /** What the person writes, one message per turn; run.ts adds "go with sensible defaults" at the end. */
  says: string[];
  /** The person's own server (named or "my VPS") or one the plan creates at a provider. */
  server: 'existing' | 'new';
  /** Services the plan must run; an inner list is "one of these" ("X or Y"). */
  must: Array<string | string[]>;
  /** Services that must not be in the plan (ruled out, or a stand-in for an unknown product). */
  never?: string[];
  /** Software the catalogue does not hold: the planner names it back once, and goes on without it (no stand-in) after a plain answer. */
  unknown?: string[];
  /** Services that must not be published beyond the server's loopback. */
  private?: string[];
  /** The plan serves the domain over HTTPS. */
  tls?: boolean;
  /** Ports already taken on the existing server (what an inspection would find): the plan must not publish them. */
  portsInUse?: number[];
}

const S1 = 'deploy@203.0.113.10';
const S2 = 'admin@198.51.100.23 port 2222';
const S3 = 'ubuntu@203.0.113.45';

export const EVAL_REQUESTS: EvalRequest[] = [
  // --- one catalogued product, new servers ---
  { id: 'n8n-hetzner', says: ['hey, I want to self host n8n for my small team, with https on flows.acme-tools.io. Hetzner is fine, Falkenstein'], server: 'new', must: ['n8n'], tls: true },
  { id: 'vaultwarden-do', says: ['Trying to move my family off LastPass. Vaultwarden on a DigitalOcean droplet, domain vault.millerfamily.net, must be https obviously'], server: 'new', must: ['vaultwarden'], tls: true },
  { id: 'uptime-kuma-aws', says: ['need uptime kuma on aws (eu-central-1) to watch ~30 endpoints, status page at status.quickparcel.de'], server: 'new', must: ['uptime-kuma'], tls: true },
  { id: 'gitea-gcp', says: ['Set up Gitea for ~15 devs on Google Cloud europe-west1 at git.oakridge.dev, with a Postgres db'], server: 'new', must: ['gitea', 'postgres'], private: ['postgres'], tls: true },
  { id: 'ghost-azure', says: ['ghost blog on azure westeurope, blog.northwind-coffee.com'], server: 'new', must: ['ghost', 'mysql'], private: ['mysql'], tls: true },
  { id: 'plausible-hetzner', says: ['Looking to ditch google analytics. Plausible on a hetzner box (nbg1), stats.tinyshop.eu'], server: 'new', must: ['plausible', 'clickhouse', 'postgres'], private: ['postgres', 'clickhouse'], tls: true },
  { id: 'keycloak-aws', says: ['We need SSO for internal tools: keycloak on AWS us-east-1, auth.finlytics.io, roughly 200 users'], server: 'new', must: ['keycloak', 'postgres'], private: ['postgres'], tls: true },
  { id: 'matrix-hetzner', says: ['matrix homeserver (synapse) for our community, ~500 members, matrix.openbirds.org, hetzner helsinki please'], server: 'new', must: ['synapse', 'postgres'], private: ['postgres'], tls: true },
  { id: 'mastodon-do', says: ['Small mastodon instance for a hobby community on digitalocean fra1, domain social.knitters.club'], server: 'new', must: ['mastodon', 'mastodon-sidekiq', 'postgres', 'redis'], private: ['postgres', 'redis'], tls: true },
  { id: 'wikijs-gcp', says: ['wiki.js for company docs, gcp us-central1, docs.brightpath.co'], server: 'new', must: ['wikijs', 'postgres'], private: ['postgres'], tls: true },
  { id: 'metabase-aws', says: ['Metabase for our BI dashboards on AWS eu-west-2, bi.harbourline.co.uk, 40 analysts'], server: 'new', must: ['metabase', 'postgres'], private: ['postgres'], tls: true },
  { id: 'mattermost-azure', says: ['mattermost as a slack replacement, azure northeurope, chat.veltro.eu, ~80 people'], server: 'new', must: ['mattermost', 'postgres'], private: ['postgres'], tls: true },
  { id: 'nextcloud-hetzner', says: ['Nextcloud for 10 users with about 500GB of files, cloud.bergmann-familie.de, hetzner falkenstein'], server: 'new', must: ['nextcloud', ['postgres', 'mariadb', 'mysql'], 'redis'], private: ['postgres', 'mariadb', 'mysql', 'redis'], tls: true },
  { id: 'paperless-do', says: ['paperless-ngx to scan all our letters and invoices. digitalocean ams3, docs.vandijk.nl'], server: 'new', must: ['paperless', 'postgres', 'redis'], private: ['postgres', 'redis'], tls: true },
  { id: 'hedgedoc-hetzner', says: ['hedgedoc for collaborative meeting notes, notes.lab42.space on hetzner'], server: 'new', must: ['hedgedoc', 'postgres'], private: ['postgres'], tls: true },
  { id: 'listmonk-aws', says: ['self-hosted newsletter: listmonk on aws, news.greenleaf.org, around 20k subscribers'], server: 'new', must: ['listmonk', 'postgres'], private: ['postgres'], tls: true },
  { id: 'umami-do', says: ['umami analytics for 3 sites, digital ocean nyc3, analytics.pixelcrate.com'], server: 'new', must: ['umami', 'postgres'], private: ['postgres'], tls: true },
  { id: 'vikunja-hetzner', says: ['vikunja todo app for me and my partner, tasks.hollow.cafe, cheapest hetzner'], server: 'new', must: ['vikunja', 'postgres'], private: ['postgres'], tls: true },
  { id: 'directus-gcp', says: ['Directus as a headless CMS for our marketing site. gcp europe-west3, cms.velocity-bikes.de'], server: 'new', must: ['directus', 'postgres'], private: ['postgres'], tls: true },
  { id: 'forgejo-postgres', says: ['forgejo with postgres please, code.quietfox.dev, hetzner cx22'], server: 'new', must: ['forgejo', 'postgres'], private: ['postgres'], tls: true },
  { id: 'rocketchat-aws', says: ['rocket.chat for customer support team on aws, support-chat.lumen.io'], server: 'new', must: ['rocketchat', 'mongo'], private: ['mongo'], tls: true },
  { id: 'matomo-hetzner', says: ['matomo instead of GA4 on hetzner, web-stats.kaiser-moebel.de'], server: 'new', must: ['matomo', 'mariadb'], private: ['mariadb'], tls: true },
  { id: 'wordpress-do', says: ['Plain WordPress site for a bakery, digitalocean lon1, www.rosebakery.co.uk'], server: 'new', must: ['wordpress', 'mariadb'], private: ['mariadb'], tls: true },

  // --- one catalogued product, existing servers ---
  { id: 'jellyfin-home', says: [`jellyfin on my home server ${S1}, no domain, just LAN use`], server: 'existing', must: ['jellyfin'] },
  { id: 'pihole-existing', says: [`pi-hole for my network, it's a small debian box at ${S3}`], server: 'existing', must: ['pihole'] },
  { id: 'adguard-existing', says: [`AdGuard Home on my VPS ${S1}, I want DNS filtering for my phone too`], server: 'existing', must: ['adguard'] },
  { id: 'homeassistant-existing', says: [`home assistant on my little server ${S3}, no domain for now`], server: 'existing', must: ['home-assistant'] },
  { id: 'syncthing-existing', says: [`syncthing relay-ish setup, just syncthing on my vps ${S2}`], server: 'existing', must: ['syncthing'] },
  { id: 'filebrowser-existing', says: [`filebrowser to share files from my server ${S1} at files.carlsen.me`], server: 'existing', must: ['filebrowser'], tls: true },
  { id: 'navidrome-existing', says: [`navidrome for my music collection, server ${S3}, music.ramirez.family`], server: 'existing', must: ['navidrome'], tls: true },
  { id: 'freshrss-existing', says: [`freshrss on my vps ${S2}, rss.solenne.fr`], server: 'existing', must: ['freshrss'], tls: true },
  { id: 'stirling-existing', says: [`Stirling PDF for the office, on our server ${S1}, only reachable from 192.0.2.0/24`], server: 'existing', must: ['stirling-pdf'] },
  { id: 'gatus-existing', says: [`gatus health dashboard on ${S3}, status.brightwire.net`], server: 'existing', must: ['gatus'], tls: true },
  { id: 'ntfy-existing', says: [`ntfy server for push notifications from my scripts, vps ${S1}, ntfy.kowalski.dev`], server: 'existing', must: ['ntfy'], tls: true },
  { id: 'code-server-existing', says: [`code-server so I can code from my ipad, on ${S2}, code.devnomad.io`], server: 'existing', must: ['code-server'], tls: true },
  { id: 'portainer-existing', says: [`portainer to manage the containers on my server ${S1}`], server: 'existing', must: ['portainer'] },
  { id: 'mailpit-existing', says: [`mailpit as a fake smtp for our staging env, server ${S3}`], server: 'existing', must: ['mailpit'] },
  { id: 'homepage-existing', says: [`a homepage dashboard (gethomepage) on ${S1}, home.lindqvist.se`], server: 'existing', must: ['homepage'], tls: true },
  { id: 'netdata-existing', says: [`netdata to monitor my vps ${S2}`], server: 'existing', must: ['netdata'] },
  { id: 'minio-existing', says: [`MinIO as S3 storage for backups, on my server ${S1}, s3.archivium.io, about 2TB`], server: 'existing', must: ['minio'], tls: true },
  { id: 'ollama-existing', says: [`ollama with open webui on my GPU server ${S3}, chat.hiddenlab.ai`], server: 'existing', must: ['ollama', 'open-webui'], private: ['ollama'], tls: true },
  { id: 'nodered-existing', says: [`node-red on my raspberry-pi-ish server ${S3}`], server: 'existing', must: ['node-red'] },
  { id: 'gotify-existing', says: [`gotify for notifications, vps ${S1}, push.tanaka.jp`], server: 'existing', must: ['gotify'], tls: true },

  // --- several products at once ---
  { id: 'pg-redis-caddy-http', says: [`PostgreSQL and a Redis cache, with Caddy in front serving plain HTTP, on my server ${S1}`], server: 'existing', must: ['postgres', 'redis', 'caddy'], private: ['postgres', 'redis'] },
  { id: 'pg-redis-nginx-http', says: [`PostgreSQL and Redis with nginx in front, on my existing server ${S2}, plain HTTP, no domain`], server: 'existing', must: ['postgres', 'redis', 'proxy'], private: ['postgres', 'redis'] },
  { id: 'prom-grafana', says: ['prometheus + grafana to monitor a few servers, hetzner, monitor.stackhut.io'], server: 'new', must: ['prometheus', 'grafana'], tls: true },
  { id: 'prom-grafana-alertmanager', says: [`Prometheus, Grafana and Alertmanager sending alerts by email, on my VPS ${S1}, grafana at grafana.opsly.dev`], server: 'existing', must: ['prometheus', 'grafana', 'alertmanager'], tls: true },
  { id: 'loki-grafana', says: ['Loki and Promtail for logs with Grafana on top, aws eu-north-1, logs.arcticfox.se'], server: 'new', must: ['loki', 'promtail', 'grafana'], tls: true },
  { id: 'elk', says: [`ELK stack for our app logs on my vps ${S2}, kibana at kibana.mercury-labs.io`], server: 'existing', must: ['elasticsearch', 'logstash', 'kibana'], private: ['elasticsearch'], tls: true },
  { id: 'nextcloud-mariadb-redis', says: ['Nextcloud with MariaDB and Redis on hetzner, cloud.oakhaven.org'], server: 'new', must: ['nextcloud', 'mariadb', 'redis'], never: ['postgres'], private: ['mariadb', 'redis'], tls: true },
  { id: 'homeassistant-mosquitto', says: [`Home Assistant with a Mosquitto broker for my zigbee2mqtt stuff, on ${S3}`], server: 'existing', must: ['home-assistant', 'mosquitto'] },
  { id: 'nodered-mosquitto-influx-grafana', says: [`node-red + mosquitto + influxdb + grafana for my greenhouse sensors, on ${S1}`], server: 'existing', must: ['node-red', 'mosquitto', 'influxdb', 'grafana'], private: ['influxdb'] },
  { id: 'n8n-pg-redis', says: ['n8n with postgres and redis for queue mode, automations.brewhaus.co, digitalocean'], server: 'new', must: ['n8n', 'postgres', 'redis'], never: ['rabbitmq'], private: ['postgres', 'redis'], tls: true },
  { id: 'wordpress-mysql-adminer', says: [`wordpress + mysql + adminer on my server ${S2}, site is www.lakeside-yoga.com`], server: 'existing', must: ['wordpress', 'mysql', 'adminer'], never: ['mariadb'], private: ['mysql'], tls: true },
  { id: 'pg-pgadmin', says: [`postgres with pgadmin to manage it, on ${S1}, keep the database private`], server: 'existing', must: ['postgres', 'pgadmin'], private: ['postgres'] },
  { id: 'rabbit-redis-app', says: ['my node.js app with rabbitmq and redis, on aws, api.shipfast.dev'], server: 'new', must: ['app', 'rabbitmq', 'redis'], private: ['rabbitmq', 'redis'], tls: true },
  { id: 'python-app-pg', says: ['a python (django) app with postgres, hetzner, app.tallyho.de'], server: 'new', must: ['app', 'postgres'], private: ['postgres'], tls: true },
  { id: 'go-app-mongo', says: [`Go API with MongoDB on my server ${S3}, api.gopherhub.io`], server: 'existing', must: ['app', 'mongo'], private: ['mongo'], tls: true },
  { id: 'kafka-app', says: ['Java service that consumes from kafka, plus kafka itself, on gcp'], server: 'new', must: ['app', 'kafka'], private: ['kafka'] },
  { id: 'meili-app', says: [`node app with meilisearch for search, server ${S1}, shop.kittlewares.com`], server: 'existing', must: ['app', 'meilisearch'], private: ['meilisearch'], tls: true },
  { id: 'typesense-app', says: ['Typesense plus our Ruby app on digitalocean, search.booknook.io'], server: 'new', must: ['app', 'typesense'], private: ['typesense'], tls: true },
  { id: 'qdrant-ollama-webui', says: [`ollama, open-webui and qdrant for a RAG playground on my GPU box ${S3}`], server: 'existing', must: ['ollama', 'open-webui', 'qdrant'], private: ['qdrant', 'ollama'] },
  { id: 'uptime-ntfy', says: [`uptime kuma and ntfy together so kuma can push alerts, vps ${S1}, status.hearthstone.dev and ntfy.hearthstone.dev`], server: 'existing', must: ['uptime-kuma', 'ntfy'], tls: true },
  { id: 'gitea-drone-like', says: ['gitea with mariadb on hetzner, git.pinewood.dev'], server: 'new', must: ['gitea', 'mariadb'], private: ['mariadb'], tls: true },
  { id: 'cadvisor-prom', says: [`cadvisor + prometheus + grafana to watch my docker containers on ${S2}`], server: 'existing', must: ['cadvisor', 'prometheus', 'grafana'] },
  { id: 'jellyfin-filebrowser', says: [`jellyfin and filebrowser on my home server ${S3}, media.okafor.home`], server: 'existing', must: ['jellyfin', 'filebrowser'] },
  { id: 'vaultwarden-uptime', says: ['vaultwarden and uptime kuma on one small hetzner box, vault.tiny.ops and status.tiny.ops'], server: 'new', must: ['vaultwarden', 'uptime-kuma'], tls: true },
  { id: 'nats-app', says: ['our go app with nats as message bus on aws, events.tidal.systems'], server: 'new', must: ['app', 'nats'], private: ['nats'], tls: true },
  { id: 'valkey-app', says: [`php app with valkey as the session store on ${S1}, portal.ashgrove.school`], server: 'existing', must: ['app', 'valkey'], private: ['valkey'], tls: true },
  { id: 'memcached-wordpress', says: ['wordpress with memcached and mariadb, digitalocean, www.ferncliff-inn.com'], server: 'new', must: ['wordpress', 'mariadb', 'memcached'], private: ['mariadb', 'memcached'], tls: true },
  { id: 'clickhouse-grafana', says: [`clickhouse with grafana for event analytics, on ${S2}`], server: 'existing', must: ['clickhouse', 'grafana'], private: ['clickhouse'] },

  // --- constraints: not X, X or Y, keep Y private ---
  { id: 'loki-not-prometheus', says: [`Loki and Promtail with Grafana to read them, but NOT prometheus, on my own server ${S1}`], server: 'existing', must: ['loki', 'promtail', 'grafana'], never: ['prometheus'] },
  { id: 'wordpress-not-mysql', says: ['WordPress with MariaDB, not MySQL, blog.example-travel.com on hetzner'], server: 'new', must: ['wordpress', 'mariadb'], never: ['mysql'], private: ['mariadb'], tls: true },
  { id: 'pg-or-mariadb-nextcloud', says: ['nextcloud with postgres or mariadb, whatever works better, on my vps', `it's ${S3}, domain files.hartmann.io`], server: 'existing', must: ['nextcloud', ['postgres', 'mariadb']], private: ['postgres', 'mariadb'], tls: true },
  { id: 'caddy-or-traefik', says: ['n8n behind caddy or traefik, I dont mind which, automate.quillpress.com on hetzner'], server: 'new', must: ['n8n', ['caddy', 'traefik']], tls: true },
  { id: 'not-nginx-proxy', says: ['uptime kuma behind traefik, not nginx, status.marlowe.dev, digitalocean'], server: 'new', must: ['uptime-kuma', 'traefik'], never: ['proxy'], tls: true },
  { id: 'keep-redis-private', says: [`Redis for my app's sessions and my node app, on ${S1}. keep redis private, nothing from outside`], server: 'existing', must: ['app', 'redis'], private: ['redis'] },
  { id: 'keep-grafana-private', says: [`prometheus and grafana on ${S2} but keep grafana private, I'll use an ssh tunnel`], server: 'existing', must: ['prometheus', 'grafana'], private: ['grafana'] },
  { id: 'keep-pg-private-metabase', says: ['metabase + postgres on hetzner, keep postgres private please, bi.stonebridge.io'], server: 'new', must: ['metabase', 'postgres'], private: ['postgres'], tls: true },
  { id: 'no-domain-vaultwarden', says: [`vaultwarden on my server ${S1}, no domain, just the IP`], server: 'existing', must: ['vaultwarden'] },
  { id: 'no-domain-openwebui', says: [`open webui with ollama on ${S3}, no domain, I'll reach it by IP`], server: 'existing', must: ['ollama', 'open-webui'], private: ['ollama'] },
  { id: 'plain-http-ok-lab', says: [`it's a lab on my LAN: ntfy on ${S3}, plain http is fine, no domain`], server: 'existing', must: ['ntfy'] },
  { id: 'mysql-not-mariadb', says: ['MySQL 8, not MariaDB, with adminer, on aws'], server: 'new', must: ['mysql', 'adminer'], never: ['mariadb'], private: ['mysql'] },
  { id: 'no-containers-harden', says: [`harden my vps ${S1}: ufw, fail2ban and unattended upgrades. no docker please`], server: 'existing', must: [] },
  { id: 'allowlist-office', says: [`paperless-ngx on ${S2}, only reachable from our office 198.51.100.0/24`], server: 'existing', must: ['paperless', 'postgres', 'redis'], private: ['postgres', 'redis'] },
  { id: 'gitea-ssh-port', says: ['gitea with git over ssh on port 2222, git.thornbury.dev, hetzner'], server: 'new', must: ['gitea', 'postgres'], private: ['postgres'], tls: true },

  // --- existing servers with ports already taken (the planner gets them as the inspection's facts) ---
  // Where another proxy holds 80 and 443, HTTPS is that proxy's: the plan hands it the route, it cannot get a certificate itself.
  { id: 'port80-taken-n8n', says: [`n8n on my server ${S1}. heads up: nginx already runs on that box on 80 and 443 for other sites`], server: 'existing', must: ['n8n'], never: ['proxy'], portsInUse: [22, 80, 443] },
  { id: 'port80-taken-uptime', says: [`uptime kuma on ${S2}, port 80 is already used by an old apache`], server: 'existing', must: ['uptime-kuma'], portsInUse: [2222, 80] },
  { id: 'port5432-taken', says: [`postgres + adminer on ${S3}; there's already a postgres on the host listening on 5432`], server: 'existing', must: ['postgres', 'adminer'], private: ['postgres'], portsInUse: [22, 5432] },
  { id: 'port3000-taken-grafana', says: [`grafana and prometheus on ${S1}, grafana's usual 3000 is taken by another app`], server: 'existing', must: ['grafana', 'prometheus'], portsInUse: [22, 3000] },
  { id: 'port8080-taken', says: [`jellyfin on ${S3}, 8080 and 8096 are in use already by another container`], server: 'existing', must: ['jellyfin'], portsInUse: [22, 8080, 8096] },
  { id: 'port443-taken-vault', says: [`vaultwarden at vault.pemberton.co on ${S1}, but traefik from another project already holds 80 and 443`], server: 'existing', must: ['vaultwarden'], never: ['traefik'], portsInUse: [22, 80, 443] },

  // --- products the catalogue does not know ---
  { id: 'plex', says: ['Set up Plex for my movies on a VPS'], server: 'existing', must: [], unknown: ['Plex'], never: ['jellyfin'] },
  { id: 'arr-stack', says: ['install sonarr and radarr on my vps'], server: 'existing', must: [], unknown: ['Sonarr', 'Radarr'] },
  { id: 'immich', says: ['immich for family photos on hetzner, photos.weber.family'], server: 'new', must: [], unknown: ['Immich'] },
  { id: 'outline', says: ['outline wiki with postgres and redis on digitalocean'], server: 'new', must: [], unknown: ['Outline'] },
  { id: 'authentik', says: [`authentik as identity provider on ${S1}`], server: 'existing', must: [], unknown: ['Authentik'], never: ['keycloak'] },
  { id: 'bookstack', says: ['bookstack for our documentation on aws'], server: 'new', must: [], unknown: ['BookStack'], never: ['wikijs'] },
  { id: 'gitlab', says: ['self-hosted gitlab CE on gcp for 30 devs'], server: 'new', must: [], unknown: ['GitLab'], never: ['gitea', 'forgejo'] },
  { id: 'zabbix', says: [`zabbix server to monitor 20 hosts, on ${S2}`], server: 'existing', must: [], unknown: ['Zabbix'] },
  { id: 'sentry', says: ['self hosted sentry for error tracking on hetzner'], server: 'new', must: [], unknown: ['Sentry'] },
  { id: 'mealie', says: [`mealie recipe manager on ${S3}`], server: 'existing', must: [], unknown: ['Mealie'] },
  { id: 'wgeasy', says: [`wg-easy (wireguard vpn) on my vps ${S1}`], server: 'existing', must: [], unknown: ['wg-easy'] },
  { id: 'firefly', says: ['firefly iii for personal finance on digitalocean'], server: 'new', must: [], unknown: ['Firefly III'] },
  { id: 'calcom', says: ['cal.com scheduling on aws, book.northstar.legal'], server: 'new', must: [], unknown: ['Cal.com'] },
  { id: 'nocodb', says: [`nocodb on ${S2} with postgres`], server: 'existing', must: [], unknown: ['NocoDB'] },
  { id: 'jenkins', says: ['jenkins for our CI on hetzner, ci.gearshift.dev'], server: 'new', must: [], unknown: ['Jenkins'] },
  { id: 'discourse', says: ['a discourse forum for our open source project, digitalocean'], server: 'new', must: [], unknown: ['Discourse'] },
  { id: 'audiobookshelf', says: [`audiobookshelf on my home server ${S3}`], server: 'existing', must: [], unknown: ['Audiobookshelf'], never: ['navidrome'] },
  { id: 'heimdall', says: [`heimdall dashboard on ${S1}`], server: 'existing', must: [], unknown: ['Heimdall'] },

  // --- known and unknown in one request ---
  { id: 'jellyfin-plus-jellyseerr', says: [`jellyfin plus jellyseerr on ${S3}`], server: 'existing', must: ['jellyfin'], unknown: ['Jellyseerr'] },
  { id: 'grafana-plus-zabbix', says: ['grafana with zabbix as datasource, hetzner'], server: 'new', must: ['grafana'], unknown: ['Zabbix'] },
  { id: 'nextcloud-plus-collabora', says: ['nextcloud + collabora online on hetzner, cloud.amberfield.de'], server: 'new', must: ['nextcloud'], unknown: ['Collabora'] },
  { id: 'n8n-plus-baserow', says: [`n8n and baserow on ${S1}`], server: 'existing', must: ['n8n'], unknown: ['Baserow'] },
  { id: 'prom-plus-blackbox', says: ['prometheus with blackbox exporter and grafana on aws'], server: 'new', must: ['prometheus', 'grafana'], unknown: ['Blackbox exporter'] },

  // --- own images ---
  { id: 'own-image', says: ['Run ghcr.io/acme/inventory:2.3.1 on port 8080 with data in /var/lib/inventory on DigitalOcean'], server: 'new', must: ['inventory'], never: ['app', 'web'] },
  { id: 'own-image-pg', says: [`run my image registry.gitlab.com/tenpin/booking-api:4.1.0 on port 3000, with a postgres next to it, on ${S2}`], server: 'existing', must: ['booking-api', 'postgres'], private: ['postgres'] },

  // --- multi-turn: the person answers the planner's questions ---
  { id: 'turns-n8n', says: ['I want n8n', 'on hetzner please', 'Falkenstein', 'domain is flows.bakerstreet.io'], server: 'new', must: ['n8n'], tls: true },
  { id: 'turns-monitoring', says: ['monitoring for my servers', 'prometheus and grafana', `my existing server ${S1}`, 'no domain'], server: 'existing', must: ['prometheus', 'grafana'] },
  { id: 'turns-blog', says: ['I need a blog', 'ghost', 'digitalocean, amsterdam', 'blog.quietharbor.nl'], server: 'new', must: ['ghost'], tls: true },
  { id: 'turns-db', says: ['just a database server', 'postgres 16', `on ${S3}`], server: 'existing', must: ['postgres'] },
  { id: 'turns-vault', says: ['password manager for 5 people', 'vaultwarden', 'hetzner', 'vault.grayson.house'], server: 'new', must: ['vaultwarden'], tls: true },

  // --- wordings of new users ---
  { id: 'newbie-website', says: ['I have a VPS and want to put a simple website on it'], server: 'existing', must: [['web', 'wordpress']] },
  { id: 'newbie-analytics', says: ['whats the easiest way to get privacy friendly analytics on my own server? maybe umami?'], server: 'existing', must: ['umami', 'postgres'], private: ['postgres'] },
  { id: 'newbie-chatgpt', says: ['i want my own chatgpt at home, i have a pc with an rtx 3090 running ubuntu at ubuntu@192.0.2.50'], server: 'existing', must: ['ollama', 'open-webui'], private: ['ollama'] },
  { id: 'newbie-status', says: ['how do i get a status page for my saas? something like uptime kuma on a cheap cloud server'], server: 'new', must: ['uptime-kuma'] },
  { id: 'newbie-docs', says: ['we keep losing docs in google drive, want a self hosted wiki, wiki.js looked nice, aws'], server: 'new', must: ['wikijs', 'postgres'], private: ['postgres'] },
  { id: 'newbie-files', says: ['need a dropbox replacement for the family (nextcloud?) on hetzner'], server: 'new', must: ['nextcloud'] },
  { id: 'newbie-email-test', says: ['need somewhere to catch test emails from our staging app, mailpit maybe, on gcp'], server: 'new', must: ['mailpit'] },

  // --- redteam set: phrased as operators write tickets (typos, abbreviations, versions, constraints, corrections) ---
  { id: 'rt-pg15-typo', says: [`need postgress 15 on ${S1} for a legacy app, must stay on 15, keep it off the internet`], server: 'existing', must: ['postgres'], private: ['postgres'] },
  { id: 'rt-pg-port-taken-app', says: [`our node 18 app from github.com/acme/orders-api plus postgres on ${S3}; 5432 is already taken by a host postgres we can't touch`], server: 'existing', must: ['app', 'postgres'], private: ['postgres'], portsInUse: [22, 5432] },
  { id: 'rt-grafana-prom-3000-9090', says: [`grafana + prometheus on ${S2}. 3000 and 9090 are both in use already`], server: 'existing', must: ['grafana', 'prometheus'], portsInUse: [2222, 3000, 9090] },
  { id: 'rt-k8s-unknown', says: ['k3s cluster with argo cd on hetzner'], server: 'new', must: [], unknown: ['k3s', 'Argo CD'] },
  { id: 'rt-harbor-unknown', says: [`harbor registry on ${S1} since we can't pull from docker hub anymore`], server: 'existing', must: [], unknown: ['Harbor'] },
  { id: 'rt-vault-hashicorp', says: ['hashicorp vault for secrets on aws eu-west-1, vault.corp-tools.net'], server: 'new', must: [], unknown: ['HashiCorp Vault'], never: ['vaultwarden'] },
  { id: 'rt-pgbouncer-pg', says: [`postgres with pgbouncer in front on ${S3}`], server: 'existing', must: ['postgres'], unknown: ['PgBouncer'], private: ['postgres'] },
  { id: 'rt-redis-cluster-sentinel', says: ['redis with sentinel on digitalocean'], server: 'new', must: ['redis'], unknown: ['Redis Sentinel'] },
  { id: 'rt-opensearch', says: [`opensearch + opensearch dashboards on ${S2} for logs`], server: 'existing', must: [], unknown: ['OpenSearch'], never: ['elasticsearch', 'kibana'] },
  { id: 'rt-pg-mongo-redis-app', says: ['python fastapi service that uses postgres for users, mongo for events and redis for caching. aws us-west-2, api.datagrove.io, tls please'], server: 'new', must: ['app', 'postgres', 'mongo', 'redis'], private: ['postgres', 'mongo', 'redis'], tls: true },
  { id: 'rt-two-apps-one-db', says: [`wikijs and gitea sharing one postgres on ${S1}, wiki.hollis.dev and git.hollis.dev`], server: 'existing', must: ['wikijs', 'gitea', 'postgres'], private: ['postgres'], tls: true },
  { id: 'rt-grafana-loki-prom-all', says: [`full observability: prometheus, grafana, loki, promtail, alertmanager and cadvisor on ${S3}, grafana at obs.kestrel.io`], server: 'existing', must: ['prometheus', 'grafana', 'loki', 'promtail', 'alertmanager', 'cadvisor'], tls: true },
  { id: 'rt-n8n-mysql', says: ['n8n but with mysql instead of postgres (company policy), hetzner, wf.lindberg.se'], server: 'new', must: ['n8n'], never: ['postgres'], tls: true },
  { id: 'rt-remove-redis', says: [`nextcloud with postgres and redis on ${S2}, cloud.aurora-kita.de`, 'actually drop redis, we dont need it'], server: 'existing', must: ['nextcloud', 'postgres'], never: ['redis'], private: ['postgres'], tls: true },
  { id: 'rt-replace-domain', says: ['vaultwarden on hetzner at pw.oldname.io', 'sorry, domain changed: use vault.newname.io instead'], server: 'new', must: ['vaultwarden'], tls: true },
  { id: 'rt-replace-mysql-mariadb', says: [`wordpress with mysql on ${S1}, www.pinecrest-dental.com`, 'replace mysql with mariadb please'], server: 'existing', must: ['wordpress', 'mariadb'], never: ['mysql'], private: ['mariadb'], tls: true },
  { id: 'rt-change-port', says: [`uptime kuma on ${S3}, no domain`, 'put it on port 8081 instead of the default'], server: 'existing', must: ['uptime-kuma'] },
  { id: 'rt-no-traefik', says: ['grafana behind a reverse proxy, but not traefik, hetzner, dash.riverbend.io'], server: 'new', must: ['grafana'], never: ['traefik'], tls: true },
  { id: 'rt-mem-limit', says: [`metabase and postgres on ${S1}, the box only has 1GB RAM, bi.smallco.io`], server: 'existing', must: ['metabase', 'postgres'], private: ['postgres'], tls: true },
  { id: 'rt-abbrev-ha', says: [`HA + mqtt broker + nodered on ${S3}`], server: 'existing', must: ['home-assistant', 'mosquitto', 'node-red'] },
  { id: 'rt-abbrev-pg-es', says: [`pg and es for my search service on ${S2}`], server: 'existing', must: ['postgres', 'elasticsearch'], private: ['postgres', 'elasticsearch'] },
  { id: 'rt-abbrev-mongodb-express', says: [`mongodb with mongo-express on ${S1}`], server: 'existing', must: ['mongo'], unknown: ['mongo-express'], private: ['mongo'] },
  { id: 'rt-minio-plus-app', says: ['our go service that stores uploads in minio (s3), with postgres, on gcp, files.lattice.dev'], server: 'new', must: ['app', 'minio', 'postgres'], private: ['postgres'], tls: true },
  { id: 'rt-keycloak-grafana-sso', says: [`keycloak + grafana with SSO via keycloak on ${S2}, auth.tern.io and grafana.tern.io`], server: 'existing', must: ['keycloak', 'grafana', 'postgres'], private: ['postgres'], tls: true },
  { id: 'rt-mattermost-minio', says: ['mattermost with minio for file storage on aws, chat.brisk.team'], server: 'new', must: ['mattermost', 'minio', 'postgres'], private: ['postgres'], tls: true },
  { id: 'rt-typos-multi', says: [`pls install grafan, promethues and uptime-kuma on ${S1} thx`], server: 'existing', must: ['grafana', 'prometheus', 'uptime-kuma'] },
  { id: 'rt-terse', says: [`redis ${S3}`], server: 'existing', must: ['redis'], private: ['redis'] },
  { id: 'rt-long-ticket', says: [`Hi team, ticket OPS-4412. We're migrating our internal tooling off a dying VM. Target box is ${S2} (Ubuntu 22.04, Docker 24 already installed, 4 vCPU/8GB). We need: Gitea for source (Postgres backend), a Woodpecker CI runner (if you support it), and Uptime Kuma for monitoring. Gitea should be at git.internal-tools.example.org with TLS. Postgres must NOT be exposed. Port 8080 is used by a legacy java thing, leave it alone.`], server: 'existing', must: ['gitea', 'postgres', 'uptime-kuma'], never: ['app'], unknown: ['Woodpecker'], private: ['postgres'], portsInUse: [2222, 8080], tls: true },
  { id: 'rt-clickhouse-plausible-port', says: [`plausible on ${S1}, stats.quillfeather.com. 8123 and 8000 are taken`], server: 'existing', must: ['plausible', 'clickhouse', 'postgres'], private: ['clickhouse', 'postgres'], portsInUse: [22, 8000, 8123], tls: true },
  { id: 'rt-mastodon-existing-80', says: [`mastodon on ${S3}, social.dunewalk.org, caddy already runs there on 80/443 for other stuff`], server: 'existing', must: ['mastodon', 'postgres', 'redis'], private: ['postgres', 'redis'], portsInUse: [22, 80, 443] },
  { id: 'rt-rabbit-mgmt-private', says: [`rabbitmq for our workers on ${S1}, management UI only via ssh tunnel`], server: 'existing', must: ['rabbitmq'], private: ['rabbitmq'] },
  { id: 'rt-influx-telegraf', says: [`influxdb + telegraf + grafana on ${S2}`], server: 'existing', must: ['influxdb', 'grafana'], unknown: ['Telegraf'], private: ['influxdb'] },
  { id: 'rt-ollama-webui-qdrant-n8n', says: ['ollama, open webui, qdrant and n8n for an AI agents lab on hetzner, ai.tinkerlab.dev'], server: 'new', must: ['ollama', 'open-webui', 'qdrant', 'n8n'], private: ['ollama', 'qdrant'], tls: true },
  { id: 'rt-synapse-element', says: ['synapse + element web on hetzner, matrix.quietpine.org'], server: 'new', must: ['synapse', 'postgres'], unknown: ['Element'], private: ['postgres'], tls: true },
  { id: 'rt-pihole-adguard-dns-53', says: [`pi-hole on ${S3}, systemd-resolved holds port 53 on that box`], server: 'existing', must: ['pihole'], portsInUse: [22, 53] },
  { id: 'rt-php-laravel-mysql-redis', says: ['Laravel app + MySQL 8 + Redis queue, DigitalOcean fra1, shop.kitefield.de, ssl'], server: 'new', must: ['app', 'mysql', 'redis'], never: ['rabbitmq'], private: ['mysql', 'redis'], tls: true },
  { id: 'rt-strapi-unknown', says: [`strapi cms with postgres on ${S1}`], server: 'existing', must: [], unknown: ['Strapi'], never: ['directus'] },
  { id: 'rt-nginx-static-plus-api', says: [`static site served by nginx at www.fernhill.io and my node api at api.fernhill.io, both on ${S2}`], server: 'existing', must: ['app'], tls: true },
  { id: 'rt-grafana-influx-mosquitto-nodered-typo', says: [`moskitto + node red + influx + grafana on ${S1}`], server: 'existing', must: ['mosquitto', 'node-red', 'influxdb', 'grafana'] },
  { id: 'rt-metabase-mysql', says: ['metabase reading from our mysql, store metabase own data in postgres, aws, bi.quarry.io'], server: 'new', must: ['metabase', 'postgres', 'mysql'], private: ['postgres', 'mysql'], tls: true },
  { id: 'rt-umami-mysql', says: [`umami with mysql on ${S3}`], server: 'existing', must: ['umami'], private: ['mysql', 'postgres'] },
  { id: 'rt-kafka-ui-unknown', says: ['kafka + kafka-ui + our java consumer on gcp'], server: 'new', must: ['kafka', 'app'], unknown: ['kafka-ui'], private: ['kafka'] },
  { id: 'rt-listmonk-mailpit', says: [`listmonk with mailpit as the smtp for testing on ${S1}, news.brightmail.dev`], server: 'existing', must: ['listmonk', 'postgres', 'mailpit'], private: ['postgres'], tls: true },
  { id: 'rt-remove-then-add', says: [`grafana and prometheus on ${S2}`, 'remove prometheus, add loki and promtail instead'], server: 'existing', must: ['grafana', 'loki', 'promtail'], never: ['prometheus'] },
  { id: 'rt-valkey-not-redis', says: ['paperless ngx on hetzner, but use valkey not redis (licensing), docs.kremer.nl'], server: 'new', must: ['paperless', 'postgres', 'valkey'], never: ['redis'], private: ['postgres', 'valkey'], tls: true },
  { id: 'rt-or-chain', says: [`gitea with mysql/mariadb/postgres, any is fine, on ${S1}`], server: 'existing', must: ['gitea', 'mysql'], never: ['mariadb', 'postgres'], private: ['mysql'] },
  { id: 'rt-forgejo-mariadb', says: [`forgejo on ${S3} with mariadb, git.birchwood.dev`], server: 'existing', must: ['forgejo', 'mariadb'], never: ['postgres'], private: ['mariadb'], tls: true },
  // The words the planner itself asks an image to be described with ("image X port 8080") are no software to name back.
  { id: 'lead-image-port', says: [`ghost blog behind nginx on ${S1}, no domain, light load`, 'also run my image ghcr.io/acme/api:1.2 port 8080'], server: 'existing', must: ['ghost', 'mysql', 'proxy', 'api'], private: ['mysql'] },
  // A catalogued name as a host name's label is where the stack is served, not a product asked for.
  { id: 'lead-outline-at-wiki-host', says: [`Deploy Outline wiki on ${S2} at wiki.example.com`], server: 'existing', must: [], unknown: ['Outline'], never: ['wikijs'] },
  { id: 'lead-gitea-at-n8n-host', says: [`Deploy Gitea at n8n.birchwood.dev on ${S3}, light load`], server: 'existing', must: ['gitea', 'caddy'], never: ['n8n'], tls: true },
  { id: 'lead-own-redis-port', says: [`ghost blog behind nginx on ${S1}, no domain, light load`, 'also run my own image redis:7.4.1-alpine port 6380'], server: 'existing', must: ['ghost', 'mysql', 'proxy', 'redis'], private: ['mysql', 'redis'] },
];
