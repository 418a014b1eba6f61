import type { Stack } from './composer';
import type { PlanStep } from './plannerTypes';
import { dockerUserAllowlist, moveSshStep, movesSsh, sshPorts, sshSources, ufwAllow, webIsPublic, webSources } from './accessRules';
import { mountVolumeStep, storageChecks } from './dataVolume';
import { LOCAL_BUNDLE } from '../../../shared/repositoryLayout';
import { hostOnlySteps } from './hostOnlySteps';
import { backupSources, type BackupSource } from './backupScripts';
import { backupStep } from './backupSteps';
import { emptyStackModel, type Backup } from '../../../shared/stackModel';
import { gatedUp } from './releaseGate';
import { oneShotServices } from './oneShot';
import { provisionSteps, webPortsOf } from './provisionSteps';
import { ownFile } from './stackPlace';
import { DETECT_DOCKER, remote, SERVER_ADDRESS, SSH, SSH_CONFIG, waitHealthy } from './remoteShell';
import { loopbackChecks, serverSiteStep } from './serverProxySteps';

/**
 * The offline planner's deploy steps: reach the server (provisionSteps), make sure it has Docker and
 * Compose (found out, installed only when missing), open its firewall for the published ports, copy the
 * stack, pull and start it and wait until every container is healthy. Every step's result is its exit
 * status: the step runner adds `set -euo pipefail`, remote scripts have it too.
 */

/**
 * Remote: every host port the stack publishes is free, or held by this stack itself (a re-deploy); else
 * the step stops here naming what holds it (a container and its compose project, or a process), instead
 * of the start step failing with "port is already allocated".
 */
export function portsFree(stack: Stack): string[] {
  const ports = [...new Set(stack.published.map((p) => p.port.split(':').slice(-2)[0]!))].sort((a, b) => Number(a) - Number(b));
  if (!ports.length) return [];
  const project = stack.place.project;
  return [
    `for p in ${ports.join(' ')}; do`,
    `  held=$(docker ps --filter "publish=$p" --format '{{.Names}} (compose project {{.Label "com.docker.compose.project"}})' | grep -v '(compose project ${project})$' | head -n 1 || true)`,
    `  ours=$(docker ps --filter "publish=$p" --filter "label=com.docker.compose.project=${project}" -q | head -n 1)`,
    '  if [ -z "$held" ] && [ -z "$ours" ] && command -v ss >/dev/null 2>&1 && [ -n "$(ss -Hltn "( sport = :$p )")" ]; then',
    '    held=$( (sudo -n ss -Hltnp "( sport = :$p )" 2>/dev/null || ss -Hltnp "( sport = :$p )") | grep -o \'users:(("[^"]*"\' | head -n 1 | cut -d\'"\' -f2)',
    '    held="process ${held:-unknown (not visible to this user)}"',
    '  fi',
    '  if [ -n "$held" ]; then echo "port $p is already in use on the server by $held: stop it, or change the port this plan publishes, then re-execute this step" >&2; exit 1; fi',
    '  echo "port $p: free${ours:+ (held by this stack: a re-deploy)}"',
    'done',
  ];
}

/** The services whose data is backed up: all but those of the components the person said not to back up. */
function backedUpServices(stack: Stack, skip: string[]): Stack['services'] {
  const skipped = new Set(skip.flatMap((name) => stack.components.find((c) => c.id === name)?.services.map((x) => x.name) ?? [name]));
  return stack.services.filter((x) => !skipped.has(x.name));
}

/** The stack's backup settings and what they cover (none when backups are off or nothing holds data). */
export function stackBackup(stack: Stack): { backup: Backup; sources: BackupSource[] } {
  const backup = stack.facts.backup ?? emptyStackModel().backup;
  return { backup, sources: backup.enabled ? backupSources(backedUpServices(stack, backup.skip)) : [] };
}

/** A single-quoted shell word. */
const shellQuote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

const heredoc = (path: string, content: string): string => {
  let tag = 'EOF';
  while (content.includes(tag)) tag += '_';
  return `cat > stack/${path} <<'${tag}'\n${content.trimEnd()}\n${tag}`;
};

/** Remote: installs Docker Engine and Compose with the server's own package manager when they are missing. */
const ENSURE_DOCKER = [
  '. /etc/os-release 2>/dev/null && echo "system: ${PRETTY_NAME:-unknown}" || echo "system: $(uname -sr)"',
  'pm=; for c in apt-get dnf yum zypper apk pacman; do if command -v "$c" >/dev/null 2>&1; then pm=$c; break; fi; done',
  'echo "package manager: ${pm:-none found}"',
  'if [ "$(id -u)" = 0 ]; then as_root() { "$@"; }; elif sudo -n true 2>/dev/null; then as_root() { sudo "$@"; }; else as_root() { echo "this user has no password-less sudo: $*" >&2; return 1; }; fi',
  'install_pkgs() {',
  '  case "$pm" in',
  '    apt-get) as_root apt-get update -q && for p in "$@"; do as_root env DEBIAN_FRONTEND=noninteractive apt-get install -yq "$p" && return 0; done ;;',
  '    dnf|yum) for p in "$@"; do as_root "$pm" install -y "$p" && return 0; done ;;',
  '    zypper) for p in "$@"; do as_root zypper -n install "$p" && return 0; done ;;',
  '    apk) for p in "$@"; do as_root apk add "$p" && return 0; done ;;',
  '    pacman) for p in "$@"; do as_root pacman -S --noconfirm "$p" && return 0; done ;;',
  '  esac',
  '  echo "cannot install any of: $* (package manager: ${pm:-none})" >&2; return 1',
  '}',
  'if command -v docker >/dev/null 2>&1; then echo "Docker Engine: found ($(docker --version))"; else',
  '  echo "Docker Engine: missing, installing it"',
  '  install_pkgs docker.io docker moby-engine',
  '  as_root systemctl enable --now docker 2>/dev/null || as_root service docker start',
  'fi',
  'if docker compose version >/dev/null 2>&1 || sudo -n docker compose version >/dev/null 2>&1; then echo "Compose: v2 plugin (docker compose)"',
  'elif command -v docker-compose >/dev/null 2>&1; then echo "Compose: v1 (docker-compose $(docker-compose version --short 2>/dev/null))"',
  'else',
  '  echo "Compose: missing, installing it"',
  '  install_pkgs docker-compose-v2 docker-compose-plugin docker-cli-compose docker-compose',
  'fi',
  DETECT_DOCKER,
  'echo "using: ${SUDO:+sudo }$COMPOSE"',
  'docker info --format "engine {{.ServerVersion}}, {{.NCPU}} CPU, $(( $(docker info --format "{{.MemTotal}}") / 1048576 )) MB memory"',
].join('\n');

/**
 * Remote firewall for the person's own server: opens the SSH ports and the published ports (to the
 * allowlist, when it covers every port) in the firewall that is active (ufw or firewalld), and never
 * enables a firewall, denies or closes anything: services this plan does not know about keep working.
 * Docker-published ports bypass ufw, so an allowlist is also enforced in DOCKER-USER.
 */
const openPorts = (stack: Stack, ports: string[]): string => {
  const allowlisted = !webIsPublic(stack);
  return [
    `ports="${ports.join(' ')}"`,
    'if command -v ufw >/dev/null 2>&1 && sudo -n ufw status 2>/dev/null | grep -q "^Status: active"; then',
    ...sshPorts(stack).map((p) => `  sudo ufw allow ${p}/tcp`),
    ...(allowlisted ? ufwAllow(ports, webSources(stack)).map((r) => `  ${r}`) : ['  for p in $ports; do sudo ufw allow "$p/tcp"; done']),
    '  sudo ufw status',
    'elif command -v firewall-cmd >/dev/null 2>&1 && sudo -n firewall-cmd --state >/dev/null 2>&1; then',
    ...sshPorts(stack).map((p) => `  sudo firewall-cmd --permanent --add-port=${p}/tcp`),
    ...(allowlisted
      ? ports.flatMap((p) => webSources(stack).map((src) => `  sudo firewall-cmd --permanent --add-rich-rule='rule family="ipv4" source address="${src}" port port="${p}" protocol="tcp" accept'`))
      : ['  for p in $ports; do sudo firewall-cmd --permanent --add-port="$p/tcp"; done']),
    '  sudo firewall-cmd --reload && sudo firewall-cmd --list-all',
    'else',
    '  echo "no active host firewall (ufw or firewalld): nothing to open; none is turned on, so nothing else is closed"',
    'fi',
    ...(allowlisted ? dockerUserAllowlist(ports, webSources(stack)) : []),
  ].join('\n');
};

/**
 * Remote firewall for a server the plan created: ufw denies what is not planned; SSH stays open to this
 * sandbox, ADMIN_CIDR and the allowlist (on the port it moves to as well), the published ports to
 * anyone or to the allowlist.
 */
const newServerFirewall = (stack: Stack, ports: string[]): string =>
  [
    'command -v ufw >/dev/null 2>&1 || { sudo apt-get update -q && sudo DEBIAN_FRONTEND=noninteractive apt-get install -yq ufw; }',
    'SANDBOX_IP=${SSH_CLIENT%% *}',
    '[ -n "$SANDBOX_IP" ] || { echo "cannot tell the sandbox\'s address: not turning the firewall on" >&2; exit 1; }',
    ...ufwAllow(sshPorts(stack), ['$SANDBOX_IP', ...sshSources(stack)]),
    ...(webIsPublic(stack) ? ports.map((p) => `sudo ufw allow ${p}/tcp`) : ufwAllow(ports, webSources(stack))),
    'sudo ufw default deny incoming',
    'sudo ufw default allow outgoing',
    'sudo ufw --force enable',
    'sudo ufw status verbose',
    "sudo sed -i -E 's/^#?PasswordAuthentication .*/PasswordAuthentication no/' /etc/ssh/sshd_config",
    'sudo systemctl reload ssh || sudo systemctl reload sshd',
  ].join('\n');

/**
 * The application's source in `stack/app`, at the analysed branch: cloned from GitHub with the
 * repository-scoped token, or, for a local repository, from the git bundle the server put in the
 * workspace (never a URL that does not exist); then every Dockerfile a service builds is checked.
 */
function sourceStep(stack: Stack): PlanStep {
  const r = stack.repository;
  const branch = r?.branch ? ` --branch ${r.branch}` : '';
  const fetch = !r
    ? ['git clone --depth 1 "$APP_REPOSITORY_URL" stack/app']
    : r.local
      ? [
          `test -f ${LOCAL_BUNDLE} || { echo "${LOCAL_BUNDLE} is missing: analyse the repository again so the server puts it in the workspace" >&2; exit 1; }`,
          `git bundle verify ${LOCAL_BUNDLE}`,
          `git clone${branch} ${LOCAL_BUNDLE} stack/app`,
        ]
      : // The token from the environment through a credential helper: in the URL it would sit on git's command line (ps).
        [`git -c credential.helper='!f() { echo username=x-access-token; echo "password=$GITHUB_TOKEN"; }; f' clone --depth 1${branch} https://github.com/${r.fullName}.git stack/app`];
  const builds = stack.builds.map((name) => {
    const build = ((stack.compose.services as Record<string, { build?: { context?: string; dockerfile?: string } }>)[name]?.build) ?? {};
    const context = `stack/${String(build.context ?? `./${name}`).replace(/^\.\//, '')}`;
    const file = build.dockerfile ? `${context}/${build.dockerfile}` : `${context}/Dockerfile`;
    return `test -f ${file} || { echo "${name} builds from ${file}, which the checkout does not have" >&2; exit 1; }`;
  });
  return {
    title: 'Fetch the application source',
    description: `${r ? `${r.fullName}${r.branch ? ` at branch ${r.branch}` : ''}` : 'The application'} into \`stack/app\`${r?.local ? ' from the git bundle of the local repository' : ''}${stack.builds.length ? `, where Compose builds ${stack.builds.join(', ')}` : ', for the files the compose file mounts (nothing is built)'}.`,
    commands: ['rm -rf stack/app', ...fetch, 'git -C stack/app log -1 --format="checked out %h %s"', ...builds],
  };
}

/** The ordered steps that deploy a stack, each with the exact commands the execution stage runs. */
export function planSteps(stack: Stack): PlanStep[] {
  const steps: PlanStep[] = [...provisionSteps(stack)];
  if (stack.hostOnly) return [...steps, ...hostOnlySteps(stack)];
  const volume = mountVolumeStep(stack, `da-${stack.name}`);
  if (volume) steps.push(volume);
  const sysctl = Object.entries(Object.assign({}, ...stack.services.map((s) => s.hostSysctl ?? {})) as Record<string, string>);
  const sysctlSays = stack.services.filter((s) => s.hostSysctl).map((s) => `${s.name} needs ${Object.entries(s.hostSysctl!).map(([k, v]) => `${k}=${v}`).join(', ')}.`).join(' ');
  const webPorts = webPortsOf(stack);
  const existing = stack.machine.existing;
  steps.push({
    title: 'Check what the server has: Docker Engine and Compose',
    description: 'Find out the system, its package manager, Docker Engine and Compose (v2 plugin or v1); install only what is missing, with the server\'s own package manager.' +
      (sysctlSays ? ` ${sysctlSays[0]!.toUpperCase()}${sysctlSays.slice(1)}` : ''),
    commands: [
      remote(
        [
          ENSURE_DOCKER,
          ...storageChecks(stack),
          ...portsFree(stack),
          ...(sysctl.length ? [`printf '%s\\n' ${sysctl.map(([k, v]) => `'${k}=${v}'`).join(' ')} | sudo tee ${ownFile(stack.place, '/etc/sysctl.d/99-stack.conf')}`, ...sysctl.map(([k, v]) => `sudo sysctl -w ${k}=${v}`)] : []),
        ].join('\n'),
      ),
    ],
  });
  const sources = webIsPublic(stack) ? 'from anywhere' : `from ${webSources(stack).join(', ')} only`;
  steps.push(
    existing
      ? {
          title: 'Open the published ports in the server\'s firewall',
          description: `Where a host firewall is active (ufw or firewalld), allow ${webPorts.length ? `${webPorts.map((p) => `${p}/tcp`).join(', ')} ${sources}` : 'no web port'} and keep SSH (${sshPorts(stack).join(', ')}) open.${webIsPublic(stack) ? '' : ' Docker-published ports bypass ufw, so the same allowlist is set in the DOCKER-USER chain.'} Nothing is denied or closed, and no firewall is turned on: the server's other services keep working.`,
          commands: [remote(openPorts(stack, webPorts))],
        }
      : {
          title: 'Turn on the server\'s firewall and SSH hardening',
          description: `ufw denies incoming traffic except SSH (${sshPorts(stack).join(', ')}) from ${[...sshSources(stack).map((x) => x.replace(/^\$/, '')), 'this sandbox'].join(', ')}, and ${webPorts.length ? `${webPorts.join(', ')} ${sources}` : 'no other port'}; SSH password logins are turned off. Can lock out anyone outside ADMIN_CIDR.`,
          commands: [remote(newServerFirewall(stack, webPorts), ['ADMIN_CIDR'])],
        },
  );
  if (movesSsh(stack)) steps.push(moveSshStep(stack));
  const dirs = [...new Set(stack.files.map((f) => f.path.split('/').slice(0, -1).join('/')).filter(Boolean))];
  steps.push({
    title: 'Write the stack files',
    description: 'The docker-compose.yml and the configuration files of the architecture plan, exactly as planned, in the workspace folder `stack/`.',
    commands: [`mkdir -p stack${dirs.map((d) => ` stack/${d}`).join('')}`, heredoc('docker-compose.yml', stack.composeYaml), ...stack.files.map((f) => heredoc(f.path, f.content))],
  });
  const fromRepository = stack.builds.length > 0 || Boolean(stack.repository?.layout?.compose);
  if (fromRepository) steps.push(sourceStep(stack));
  const envVars = stack.envFile;
  steps.push({
    title: 'Write the environment file from User Secrets',
    description: `\`stack/.env\` (mode 600) holds ${envVars.length ? envVars.join(', ') : 'no secret'}; values come from User Secrets and are never printed.`,
    commands: [
      // A required secret that is not set fails the step, naming it: the stack would not start without it.
      ...envVars
        .filter((v) => stack.secrets.some((s) => s.name === v && s.required))
        .map((v) => `[ -n "\${${v}:-}" ] || { echo "User Secret ${v} is not set: add it under User Secrets, then re-execute this step" >&2; exit 1; }`),
      `umask 077 && : > stack/.env${envVars.map((v) => ` && printf '%s=%s\\n' ${v} "\${${v}:-}" >> stack/.env`).join('')}`,
    ],
  });
  const dir = stack.place.dir;
  steps.push({
    title: 'Copy the stack to the server',
    description: `Create ${dir} on the server and copy the files into it (rsync when the server has it, else tar), keeping the .env permissions.`,
    commands: [
      // Created by the user where it may, else by sudo and handed to the user: the parent may be root's (another project's deploy made it).
      `${SSH} 'mkdir -p ${dir} 2>/dev/null || { sudo mkdir -p ${dir} && sudo chown "$(id -u):$(id -g)" ${dir}; }'`,
      `if ${SSH} 'command -v rsync' >/dev/null; then rsync -a --exclude .git -e "ssh -F ${SSH_CONFIG}" stack/ da-server:${dir}/; else tar -C stack --exclude .git -czf - . | ${SSH} 'tar -C ${dir} -xzf -'; fi`,
      `${SSH} 'ls -la ${dir}'`,
    ],
  });
  if (stack.domain) {
    const hosts = stack.routes.map((r) => r.host).filter((h) => h !== ':80');
    steps.push({
      title: 'Point DNS at the server',
      description: `Create A records for ${hosts.join(', ')} pointing to the server's public IP at your DNS provider; this step waits (up to 15 minutes) until they resolve to it.`,
      commands: [
        SERVER_ADDRESS,
        `echo "Create A records: ${hosts.join(', ')} -> $IP"`,
        'resolved() { local a; a=$(getent ahostsv4 "$1" | awk \'NR==1{print $1}\'); [ -n "$a" ] && [ "$a" = "$IP" ]; }',
        `for i in $(seq 1 90); do ok=1; for h in ${hosts.join(' ')}; do resolved "$h" || ok=0; done; if [ $ok = 1 ]; then break; fi; if [ "$i" = 90 ]; then echo "DNS does not point at $IP yet" >&2; exit 1; fi; sleep 10; done`,
        `echo "${hosts.join(', ')} resolve to $IP"`,
      ],
    });
  }
  const nginxTls = stack.tls && stack.components.some((c) => c.proxy?.config === 'nginx');
  if (nginxTls) {
    const hosts = stack.routes.map((r) => `-d ${r.host}`).join(' ');
    steps.push({
      title: "Obtain the Let's Encrypt certificate",
      description: 'Certbot answers the HTTP challenge itself before Nginx starts; the certbot service renews it afterwards.',
      commands: [remote(`${DETECT_DOCKER}\ncd ${dir}\ncompose run --rm -p 80:80 --entrypoint certbot certbot certonly --standalone ${hosts} --cert-name ${stack.domain} --email "$ACME_EMAIL" --agree-tos --non-interactive --keep-until-expiring`, ['ACME_EMAIL'])],
    });
  }
  // Only images are pulled; what the repository builds is built (pulling it would look for it in a registry).
  const pulled = stack.services.filter((x) => x.image !== 'build').map((x) => x.name);
  const start: string[] = [DETECT_DOCKER, `cd ${dir}`];
  // A GPU reservation without the NVIDIA runtime fails at "compose up" with a driver error: said first, in words.
  const gpus = stack.services.filter((x) => x.gpu).map((x) => x.name);
  if (gpus.length) start.push(`if ! docker info --format '{{json .Runtimes}}' | grep -q nvidia; then echo "${gpus.join(', ')} need the server's GPUs, but Docker has no nvidia runtime: install the NVIDIA driver and the NVIDIA Container Toolkit (nvidia-ctk runtime configure --runtime=docker), restart Docker, then run this step again" >&2; exit 1; fi`);
  if (pulled.length) start.push(stack.builds.length ? `compose pull --quiet ${pulled.join(' ')}` : 'compose pull --quiet');
  if (stack.builds.length) start.push(`compose build --pull ${stack.builds.join(' ')}`);
  // A product's first start (the catalogue's `bootstrap`): its service up and answering, then its commands, inside it.
  const bootstraps = stack.components.flatMap((c) => (c.bootstrap ? [c.bootstrap] : []));
  for (const b of bootstraps) {
    start.push(
      `compose up -d ${b.service}`,
      `for i in $(seq 1 60); do if compose exec -T ${b.service} sh -c ${shellQuote(b.ready)} >/dev/null 2>&1; then break; fi; if [ "$i" = 60 ]; then echo "${b.service} did not answer" >&2; exit 1; fi; sleep 5; done`,
      ...b.commands.map((c) => `compose exec -T ${b.service} sh -c ${shellQuote(c)}`),
    );
  }
  start.push(...gatedUp({ files: ['.env', ...stack.files.map((f) => f.path)], oneShot: oneShotServices(stack.compose), seconds: 600, restoreSeconds: 300 }));
  steps.push({
    title: 'Start the stack',
    description: 'Pull the pinned images' + (stack.builds.length ? `, build ${stack.builds.join(', ')} from the checkout` : '') + bootstraps.map((b) => `, ${b.says}`).join('') + ', start everything and wait (up to 10 minutes) until every container runs and its healthcheck passes. A change is applied as a release: what differs from the last healthy release is shown, and when a container does not become healthy that release\'s files are put back and brought up again (the step still fails, saying so).',
    commands: [remote(start.join('\n'))],
  });
  // The site on the proxy the server already runs, when the person asked us to add it there.
  const site = serverSiteStep(stack);
  if (site) steps.push(site);
  // Backups: restic, off the server to the model's destination (backupSteps.ts), of what the catalogue's data marks.
  const { backup, sources: backedUp } = stackBackup(stack);
  if (backedUp.length) steps.push(backupStep(backedUp, stack.place, backup));
  if (nginxTls) {
    const maintenance = ownFile(stack.place, '/etc/cron.d/stack-maintenance');
    const nginx = stack.services.find((x) => stack.components.some((c) => c.proxy?.config === 'nginx' && c.services[0]!.name === x.name))!.name;
    steps.push({
      title: 'Schedule maintenance',
      description: `A cron file on the server (${maintenance}), using the Compose the server has: a weekly Nginx reload to pick up renewed certificates.`,
      commands: [
        remote(
          [
            DETECT_DOCKER,
            'cron=; for c in /usr/sbin/cron /usr/sbin/crond /sbin/crond /usr/bin/crond; do if [ -x "$c" ]; then cron=$c; fi; done',
            '[ -n "$cron" ] || { echo "the server has no cron daemon: install cron, then re-execute this step" >&2; exit 1; }',
            'bin=$(command -v docker-compose || true); if [ "$COMPOSE" = "docker compose" ]; then bin="$(command -v docker) compose"; fi',
            `sudo tee ${maintenance} > /dev/null <<CRON`,
            `30 4 * * 1 root cd ${dir} && $bin exec -T ${nginx} nginx -s reload`,
            'CRON',
            `cat ${maintenance}`,
          ].join('\n'),
        ),
      ],
    });
  }
  // Behind the server's own proxy the domains answer once it has the site: what the deploy knows is its loopback ports.
  const checks: string[] = stack.frontedBy ? loopbackChecks(stack) : [SERVER_ADDRESS];
  for (const r of stack.frontedBy ? [] : stack.routes) {
    // An endpoint that answers its root with an error (an S3 API without credentials) is asked at its health path.
    const path = stack.services.find((x) => x.name === r.service)?.endpoints?.find((e) => e.name === r.endpoint)?.check ?? '/';
    checks.push(r.host === ':80' ? `curl -fsS -o /dev/null -w "http://$IP${path} answers %{http_code}\\n" "http://$IP${path}"` : `curl -fsS -o /dev/null -w "${stack.tls ? 'https' : 'http'}://${r.host}${path} answers %{http_code}\\n" ${stack.tls ? 'https' : 'http'}://${r.host}${path}`);
  }
  if (!stack.routes.length) {
    const notHttp = new Set(stack.services.filter((x) => x.http === false).map((x) => x.name));
    for (const p of stack.published.filter((x) => !x.port.startsWith('127.0.0.1') && !notHttp.has(x.service))) {
      checks.push(`curl -sS -o /dev/null -w "port ${p.port.split(':')[0]} answers %{http_code}\\n" "http://$IP:${p.port.split(':')[0]}/"`);
    }
  }
  checks.push(remote([DETECT_DOCKER, `cd ${dir}`, waitHealthy(60, oneShotServices(stack.compose))].join('\n')));
  const answers = stack.frontedBy ? "each service the server's proxy forwards to answers on its loopback port (the domains answer once that proxy has the site)" : 'each public address answers';
  steps.push({ title: 'Verify the deployment', description: `Every container runs and is healthy, and ${answers}.`, commands: checks });
  return steps;
}
