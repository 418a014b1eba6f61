/**
 * Reverse proxies a server may already run on 80/443, as data: how people name them, how an inspection
 * recognises them (the process `ss` names, the image of a container), the site a stack adds to each for
 * its web services, and how that site is checked and loaded when the plan is allowed to manage it.
 * Adding a proxy kind is adding an entry; the planner has no branch per proxy.
 *
 * A site is rendered route by route: each section is its `head` (once) and its `each` text per route,
 * with `{{host}}` (the route's domain), `{{upstream}}` (`address:port` the proxy forwards to) and
 * `{{id}}` (a name unique to the stack and service) filled in. `{{name}}` is the stack's name.
 */

export interface SiteSection {
  head?: string;
  each: string;
}

export interface HostProxyKind {
  id: string;
  label: string;
  /** Words people call it by, as regular expression sources matched whole-word, case-insensitively. */
  words: string[];
  /** Process names `ss -p` reports for it. */
  processes: string[];
  /** Image repositories a container of it runs. */
  images: string[];
  /** The code-fence language its configuration is shown in. */
  fence: string;
  /** The site, section by section. */
  sections: SiteSection[];
  /** Where the site goes: a file of its own the proxy reads, or (no `file`) lines to add to its one configuration file. */
  site: { file?: string; into?: string; says: string };
  /** Lines that make the proxy read the site file and what it needs (modules, an import), run once as root; `{{name}}` filled in. */
  enable: string[];
  /** Undoes `enable`'s site part when the test fails ({{name}} filled in). */
  disable?: string;
  /** The configuration test, run as root before any reload. */
  test?: string;
  /** How it loads the new site without dropping connections: the service manager's way, then its own (a server without systemd). */
  reload?: string[];
  /** How the domains get their certificates with this proxy. */
  certificates: string;
  /** Whether a plan may write the site, test and reload it (its layout is standard); otherwise only instructions. */
  manageable: boolean;
  /** Why a plan does not write its site even when asked (a kind that is not manageable). */
  notManagedWhy?: string;
}

const NGINX_LOCATION = [
  '    location / {',
  '        proxy_pass http://{{upstream}};',
  '        proxy_http_version 1.1;',
  '        proxy_set_header Host $host;',
  '        proxy_set_header X-Real-IP $remote_addr;',
  '        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
  '        proxy_set_header X-Forwarded-Proto $scheme;',
  '        proxy_set_header Upgrade $http_upgrade;',
  '        proxy_set_header Connection "upgrade";',
  '    }',
  // nginx alone refuses bodies over 1 MB (uploads to Nextcloud, Gitea, Paperless…); the other proxies set no limit.
  '    client_max_body_size 0;',
].join('\n');

export const HOST_PROXIES: HostProxyKind[] = [
  {
    id: 'nginx',
    fence: 'nginx',
    label: 'Nginx',
    words: ['nginx', 'openresty'],
    processes: ['nginx', 'openresty'],
    images: ['nginx', 'openresty/openresty', 'nginxinc/nginx-unprivileged'],
    sections: [{ each: `server {\n    listen 80;\n    listen [::]:80;\n    server_name {{host}};\n${NGINX_LOCATION}\n}\n` }],
    site: { file: '/etc/nginx/conf.d/{{name}}.conf', says: 'a file of its own in /etc/nginx/conf.d/, which nginx includes' },
    enable: [],
    test: 'nginx -t',
    reload: ['systemctl reload nginx', 'nginx -s reload'],
    certificates: "certbot's nginx plugin adds HTTPS to these sites: `sudo certbot --nginx -d {{hosts}}`",
    manageable: true,
  },
  {
    id: 'caddy',
    fence: 'caddyfile',
    label: 'Caddy',
    words: ['caddy'],
    processes: ['caddy'],
    images: ['caddy', 'lucaslorentz/caddy-docker-proxy'],
    sections: [{ each: '{{host}} {\n\tencode gzip\n\treverse_proxy {{upstream}}\n}\n' }],
    site: { file: '/etc/caddy/sites/{{name}}.caddy', says: 'a file of its own in /etc/caddy/sites/, imported by /etc/caddy/Caddyfile' },
    // The packaged Caddyfile imports nothing: the import line is added once, at its end.
    enable: ['mkdir -p /etc/caddy/sites', "grep -qxF 'import /etc/caddy/sites/*.caddy' /etc/caddy/Caddyfile || printf '\\nimport /etc/caddy/sites/*.caddy\\n' >> /etc/caddy/Caddyfile"],
    test: 'caddy validate --config /etc/caddy/Caddyfile --adapter caddyfile',
    reload: ['systemctl reload caddy', 'caddy reload --config /etc/caddy/Caddyfile --adapter caddyfile'],
    certificates: "Caddy obtains and renews a Let's Encrypt certificate for each site by itself once its domain points at the server",
    manageable: true,
  },
  {
    id: 'traefik',
    fence: 'yaml',
    label: 'Traefik',
    words: ['traefik'],
    processes: ['traefik'],
    images: ['traefik'],
    sections: [
      { head: 'http:\n  routers:\n', each: '    {{id}}:\n      rule: "Host(`{{host}}`)"\n      service: {{id}}\n' },
      { head: '  services:\n', each: '    {{id}}:\n      loadBalancer:\n        servers:\n          - url: "http://{{upstream}}"\n' },
    ],
    site: { file: '/etc/traefik/dynamic/{{name}}.yml', says: "a file in the directory of Traefik's file provider (providers.file.directory, watched), which Traefik loads by itself" },
    enable: [],
    certificates: "each router gets `tls: { certResolver: <your resolver> }` and your HTTPS entrypoint, with the certificate resolver your Traefik already has",
    manageable: false,
    notManagedWhy: "whether Traefik has a file provider, and which directory it watches, is its own configuration's choice",
  },
  {
    id: 'apache',
    fence: 'apache',
    label: 'Apache',
    words: ['apache2?', 'httpd'],
    processes: ['apache2', 'httpd'],
    images: ['httpd'],
    sections: [
      {
        each: [
          '<VirtualHost *:80>',
          '    ServerName {{host}}',
          '    ProxyPreserveHost On',
          '    ProxyRequests Off',
          '    ProxyPass / http://{{upstream}}/ upgrade=websocket',
          '    ProxyPassReverse / http://{{upstream}}/',
          '</VirtualHost>',
          '',
        ].join('\n'),
      },
    ],
    site: { file: '/etc/apache2/sites-available/{{name}}.conf', says: 'a site of its own in /etc/apache2/sites-available/, enabled with a2ensite' },
    enable: ['a2enmod proxy proxy_http proxy_wstunnel headers', 'a2ensite {{name}}'],
    disable: 'a2dissite {{name}}',
    test: 'apache2ctl configtest',
    reload: ['systemctl reload apache2', 'apache2ctl graceful'],
    certificates: "certbot's apache plugin adds HTTPS to these sites: `sudo certbot --apache -d {{hosts}}`",
    manageable: true,
  },
  {
    id: 'haproxy',
    fence: 'haproxy',
    label: 'HAProxy',
    words: ['haproxy'],
    processes: ['haproxy'],
    images: ['haproxy', 'haproxytech/haproxy-alpine', 'haproxytech/haproxy-debian'],
    sections: [
      { head: '# in the frontend that binds :80 (and :443)\n', each: '    use_backend {{id}} if { hdr(host) -i {{host}} }\n' },
      { head: '\n', each: 'backend {{id}}\n    mode http\n    option forwardfor\n    server {{id}} {{upstream}} check\n\n' },
    ],
    site: { into: '/etc/haproxy/haproxy.cfg', says: 'lines in its one configuration file, /etc/haproxy/haproxy.cfg: the use_backend rules in the frontend that binds :80 and :443, the backends after it' },
    enable: [],
    test: 'haproxy -c -f /etc/haproxy/haproxy.cfg',
    reload: ['systemctl reload haproxy'],
    certificates: "HAProxy serves HTTPS with a PEM file per domain on its `bind :443 ssl crt …` line; get them with certbot (or acme.sh) and add them there",
    manageable: false,
    notManagedWhy: "HAProxy keeps every site in one file, and its frontend is yours to edit",
  },
];

const pattern = (k: HostProxyKind): RegExp => new RegExp(`\\b(?:${k.words.join('|')})\\b`, 'i');

/** The kind a word names (`nginx`, `Apache`, `httpd`). */
export const hostProxyNamed = (word: string): HostProxyKind | undefined => HOST_PROXIES.find((k) => new RegExp(`^(?:${k.words.join('|')})$`, 'i').test(word));

/** Every kind's words, for finding them in text. */
export const HOST_PROXY_WORDS = new RegExp(`\\b(?:${HOST_PROXIES.flatMap((k) => k.words).join('|')})\\b`, 'gi');

export const hostProxyById = (id: string): HostProxyKind | undefined => HOST_PROXIES.find((k) => k.id === id);

/** The kind of a holder an inspection reported: a process name, or a container whose image is known. */
export function hostProxyOfHolder(holder: string, image?: string): HostProxyKind | undefined {
  const repo = image ? image.replace(/@.*$/, '').replace(/:[^/:]*$/, '').replace(/^(docker\.io\/)?(library\/)?/, '') : undefined;
  if (repo) return HOST_PROXIES.find((k) => k.images.includes(repo));
  return HOST_PROXIES.find((k) => k.processes.includes(holder.trim().toLowerCase())) ?? HOST_PROXIES.find((k) => pattern(k).test(holder));
}

/** The site text for routes, section by section. */
export function renderSite(kind: HostProxyKind, routes: Array<{ host: string; upstream: string; id: string }>): string {
  return kind.sections.map((s) => `${s.head ?? ''}${routes.map((r) => s.each.replaceAll('{{host}}', r.host).replaceAll('{{upstream}}', r.upstream).replaceAll('{{id}}', r.id)).join('')}`).join('');
}
