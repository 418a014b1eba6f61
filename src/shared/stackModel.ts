import { Type, type Static } from 'typebox';

/**
 * The stack model: the one typed description of what a project deploys. The requirements conversation
 * edits it only through the named operations of stackOps.ts (the offline planner calls them from what it
 * understood, a real model calls them as tools, the Collected Requirements panel from its controls), and
 * every document is rendered from it plus facts (see ARCHITECTURE.md, "The stack model").
 *
 * What it holds, and what it leaves to the catalogue: a component names a catalogue product (image, ports,
 * volumes, healthcheck, the settings per dependency, what to back up all come from that product's file) or
 * a custom image with the ports it listens on. The model holds only the person's decisions: which
 * components, who reaches whom, what is public and how, where it runs, what that server already runs,
 * sizing asked for, and the names it could not place.
 */

/** A TCP/UDP port number. */
export const Port = Type.Integer({ minimum: 1, maximum: 65535 });

/** A component's name in the stack: its compose service name (its product's id by default). */
export const ComponentName = Type.String({ pattern: '^[a-z][a-zA-Z0-9-]{0,62}$' });

/** A domain name (no scheme, no path). */
export const DomainName = Type.String({ pattern: '^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z]{2,63}$' });

/** A pinned image reference (`repo/name:tag` or `@sha256:`), never `latest`, never untagged. */
export const ImageRef = Type.String({ pattern: '^[a-z0-9][a-z0-9._/:-]*(:(?!latest$)[A-Za-z0-9_][A-Za-z0-9_.-]*|@sha256:[a-f0-9]{64})$', maxLength: 255 });

/** A product of the catalogue (`src/server/agents/catalogue/products/<id>.yaml`). */
export const CatalogueSource = Type.Object(
  {
    kind: Type.Literal('catalogue'),
    /** The product's id in the catalogue, e.g. `postgres`, `nextcloud`. */
    id: Type.String({ pattern: '^[a-z][a-zA-Z0-9-]*$' }),
    /** The person's own image of that product (same repository, another tag), when they named one. */
    image: Type.Optional(ImageRef),
  },
  { additionalProperties: false },
);

/** A container from an image the catalogue does not know, run as given. */
export const ImageSource = Type.Object(
  {
    kind: Type.Literal('image'),
    image: ImageRef,
    /** Ports the container listens on (the first is its web port when it is exposed through a proxy). */
    ports: Type.Array(Port, { maxItems: 16 }),
    /** Container paths that hold data worth keeping (each gets a named volume, backed up as files). */
    dataPaths: Type.Optional(Type.Array(Type.String({ pattern: '^/[^:\\s]*$' }), { maxItems: 16 })),
    /** Plain settings; a value `${NAME}` is read from a User Secret. */
    environment: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }), Type.String({ maxLength: 4096 }))),
    /** A GET the renderer turns into its healthcheck, when the person knows one (`/healthz`). */
    healthPath: Type.Optional(Type.String({ pattern: '^/[^\\s]*$' })),
  },
  { additionalProperties: false },
);

export const Component = Type.Object(
  {
    name: ComponentName,
    source: Type.Union([CatalogueSource, ImageSource]),
    /**
     * The person said it must stay private ("keep Postgres private"): no operation publishes it, and the
     * verifier rejects a plan that does. Absent: private unless an exposure says otherwise.
     */
    keepPrivate: Type.Optional(Type.Boolean()),
    /** The language of an application built from the person's repository (its port and runtime follow it). */
    language: Type.Optional(Type.String({ maxLength: 40 })),
    /** Run with the host's GPUs (Ollama "on my GPU server"); the catalogue says whether the image can. */
    gpu: Type.Optional(Type.Boolean()),
    /**
     * Added because another component needs it (Nextcloud's database), not named by the person: removed
     * with the last component that links to it. Adding it by name clears the mark.
     */
    auto: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type Component = Static<typeof Component>;

/**
 * Who reaches whom: `from` uses `to` (Nextcloud its MariaDB). For a catalogue component the catalogue's
 * environment template for `to`'s product is what wires it; `setting` names the variable a custom image
 * reads the address from (`DATABASE_URL`).
 */
export const Link = Type.Object(
  {
    from: ComponentName,
    to: ComponentName,
    setting: Type.Optional(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' })),
  },
  { additionalProperties: false },
);
export type Link = Static<typeof Link>;

/** Served to people through a reverse proxy component of the stack (Caddy, Nginx, Traefik). */
export const ProxiedExposure = Type.Object(
  {
    component: ComponentName,
    via: Type.Literal('proxy'),
    /** The proxy component's name. */
    proxy: ComponentName,
    /** The domain it answers on; absent: the server's address on port 80 (one such route per stack). */
    domain: Type.Optional(DomainName),
    /** HTTPS with a certificate the proxy obtains (needs a domain). */
    tls: Type.Boolean(),
    /** Which of the product's endpoints (the catalogue's upstream names: MinIO's `api` or `console`); absent: its default. */
    upstream: Type.Optional(Type.String({ pattern: '^[a-z][a-z0-9-]*$' })),
    /** The person said in words that plain HTTP is fine for this sensitive app (a lab, a LAN). */
    plainHttpAccepted: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

/** Published on a host port directly (Git over SSH, MQTT, a database on loopback for an SSH tunnel). */
export const PortExposure = Type.Object(
  {
    component: ComponentName,
    via: Type.Literal('port'),
    hostPort: Port,
    /** The container port; absent: the component's first (or its catalogue upstream's) port. */
    containerPort: Type.Optional(Port),
    protocol: Type.Optional(Type.Union([Type.Literal('tcp'), Type.Literal('udp')])),
    /** `loopback`: 127.0.0.1 only, reached through an SSH tunnel. */
    bind: Type.Union([Type.Literal('all'), Type.Literal('loopback')]),
    plainHttpAccepted: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const Exposure = Type.Union([ProxiedExposure, PortExposure]);
export type Exposure = Static<typeof Exposure>;

/** The id of one of the server's provider files (`catalogue/providers/<id>.yaml`); the server checks it is one. */
export const ProviderId = Type.String({ pattern: '^[a-z][a-z0-9-]*$', maxLength: 40 });
export type ProviderId = Static<typeof ProviderId>;

/** A port something on the server already listens on (`ss -ltnup`). */
export const PortInUse = Type.Object(
  {
    port: Port,
    protocol: Type.Union([Type.Literal('tcp'), Type.Literal('udp')]),
    /** The address it is bound to (`0.0.0.0`, `127.0.0.1`, `::`). */
    address: Type.Optional(Type.String({ maxLength: 64 })),
    /** Who holds it: a process name, or `container <name>` / `compose project <name>`. */
    holder: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);
export type PortInUse = Static<typeof PortInUse>;

/** What an inspection of the target server found. Absent fields were not read. */
export const ServerFacts = Type.Object(
  {
    /** ISO-8601 time of the inspection. */
    inspectedAt: Type.String({ format: 'date-time' }),
    /** `PRETTY_NAME` of /etc/os-release. */
    os: Type.Optional(Type.String({ maxLength: 200 })),
    dockerVersion: Type.Optional(Type.String({ maxLength: 64 })),
    composeVersion: Type.Optional(Type.String({ maxLength: 64 })),
    freeDiskGb: Type.Optional(Type.Number({ minimum: 0 })),
    memoryGb: Type.Optional(Type.Number({ minimum: 0 })),
    cpus: Type.Optional(Type.Integer({ minimum: 1 })),
    portsInUse: Type.Array(PortInUse, { maxItems: 1000 }),
    containers: Type.Array(
      Type.Object(
        {
          name: Type.String({ maxLength: 200 }),
          image: Type.String({ maxLength: 300 }),
          /** Its compose project (`com.docker.compose.project` label), when it has one. */
          project: Type.Optional(Type.String({ maxLength: 200 })),
        },
        { additionalProperties: false },
      ),
      { maxItems: 1000 },
    ),
    composeProjects: Type.Array(Type.String({ maxLength: 200 }), { maxItems: 200 }),
    /**
     * The server's SSH host key as pinned in the project's workspace (ssh-keys/known_hosts): the deploy's
     * steps refuse any other. `firstContact`: this inspection met the server first and pinned it.
     */
    hostKey: Type.Optional(
      Type.Object(
        {
          algorithm: Type.String({ pattern: '^[A-Z0-9-]{2,20}$' }),
          fingerprint: Type.String({ pattern: '^SHA256:[A-Za-z0-9+/]{43}$' }),
          firstContact: Type.Boolean(),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type ServerFacts = Static<typeof ServerFacts>;

/** The person's own server, reached over SSH. */
export const ExistingTarget = Type.Object(
  {
    kind: Type.Literal('existing'),
    host: Type.String({ minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9.:\\[\\]-]+$' }),
    user: Type.String({ pattern: '^[a-z_][a-z0-9_.-]{0,31}$' }),
    port: Port,
    /** Where the person said it is hosted ("my Hetzner server"), for the documents. */
    provider: Type.Optional(ProviderId),
  },
  { additionalProperties: false },
);

/** A machine the plan creates at a provider. */
export const NewTarget = Type.Object(
  {
    kind: Type.Literal('new'),
    provider: ProviderId,
    /** The provider's region id (`fsn1`, `eu-central-1`); absent: the provider's default. */
    region: Type.Optional(Type.String({ maxLength: 64 })),
    /** The provider's machine type (`cx22`, `t3.small`); absent: sized from the stack. */
    size: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);

export const Target = Type.Union([ExistingTarget, NewTarget]);
export type Target = Static<typeof Target>;

/** What the person asked for about the machine; the renderer sizes from the components where absent. */
export const Sizing = Type.Object(
  {
    memoryGb: Type.Optional(Type.Integer({ minimum: 1, maximum: 1024 })),
    cpus: Type.Optional(Type.Integer({ minimum: 1, maximum: 256 })),
    /** Data the person wants room for, beyond the system. */
    storageGb: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
    /** Expected load as the person said it ("500 users", "light traffic"). */
    load: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);
export type Sizing = Static<typeof Sizing>;

/**
 * Backups: every stateful volume of the stack (the catalogue says which and how: a dump command or the
 * files) is backed up unless its component is listed in `skip` (the person said so).
 */
/** A restic repository URL: no spaces, quotes or shell characters (it is written into a script, quoted too). */
export const BackupDestination = Type.String({ maxLength: 500, pattern: '^(sftp:[A-Za-z0-9_.@:/~+-]+|s3:https?://[A-Za-z0-9_.:/~+-]+)$' });

export const Backup = Type.Object(
  {
    enabled: Type.Boolean(),
    /** Cron schedule of the nightly run. */
    schedule: Type.String({ pattern: '^[0-9*/,-]+( [0-9*/,-]+){4}$' }),
    keepDays: Type.Integer({ minimum: 1, maximum: 3650 }),
    /** Components whose data the person said not to back up. */
    skip: Type.Array(ComponentName, { maxItems: 100 }),
    /**
     * Where the backups go, a restic repository off the server: `sftp:user@host:/path`,
     * `sftp://user@host:port//path` or `s3:https://host/bucket/path`. Its password and credentials are User
     * Secrets. Absent: none chosen yet, and the plan says the backups stay on the server.
     */
    destination: Type.Optional(BackupDestination),
  },
  { additionalProperties: false },
);
export type Backup = Static<typeof Backup>;

/** Host-level work asked for beside the containers. */
export const HostSettings = Type.Object(
  {
    /** The person asked for a host firewall (ufw); plans open what they publish either way. */
    firewall: Type.Boolean(),
    fail2ban: Type.Boolean(),
    automaticUpdates: Type.Boolean(),
    /** The host's SSH port when the person moves it. */
    sshPort: Type.Optional(Port),
    /** Sources allowed in (CIDRs); empty: anywhere. `ssh`: only SSH is limited to them. */
    allowlist: Type.Array(Type.String({ pattern: '^[0-9a-fA-F.:]+/\\d{1,3}$' }), { maxItems: 50 }),
    allowScope: Type.Union([Type.Literal('ssh'), Type.Literal('all')]),
  },
  { additionalProperties: false },
);
export type HostSettings = Static<typeof HostSettings>;

/** A name the person used that the catalogue does not hold: asked about once, then skipped or answered. */
export const UnknownName = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    status: Type.Union([Type.Literal('asked'), Type.Literal('skipped'), Type.Literal('answered')]),
    /** The component that answers for it (a catalogue alternative, or the person's image). */
    answeredBy: Type.Optional(ComponentName),
  },
  { additionalProperties: false },
);
export type UnknownName = Static<typeof UnknownName>;

/** Something asked for and left out of the plan, with why: the documents say it. */
export const LeftOut = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    reason: Type.String({ minLength: 1, maxLength: 500 }),
  },
  { additionalProperties: false },
);
export type LeftOut = Static<typeof LeftOut>;

/** The whole model. `version` changes only with an incompatible shape. */
export const StackModel = Type.Object(
  {
    version: Type.Literal(1),
    components: Type.Array(Component, { maxItems: 100 }),
    links: Type.Array(Link, { maxItems: 500 }),
    exposures: Type.Array(Exposure, { maxItems: 200 }),
    /** Absent: not decided yet (the requirements are not complete without one). */
    target: Type.Optional(Target),
    /** What the last inspection of the target found; cleared when the target changes. */
    serverFacts: Type.Optional(ServerFacts),
    sizing: Sizing,
    backup: Backup,
    host: HostSettings,
    unknowns: Type.Array(UnknownName, { maxItems: 100 }),
    leftOut: Type.Array(LeftOut, { maxItems: 100 }),
    /** Names the person ruled out ("not MySQL"): no operation's default adds them back. */
    excluded: Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100 }),
  },
  { additionalProperties: false },
);
export type StackModel = Static<typeof StackModel>;

/** A model with nothing decided yet. */
export const emptyStackModel = (): StackModel => ({
  version: 1,
  components: [],
  links: [],
  exposures: [],
  sizing: {},
  backup: { enabled: true, schedule: '30 3 * * *', keepDays: 14, skip: [] },
  host: { firewall: false, fail2ban: false, automaticUpdates: false, allowlist: [], allowScope: 'all' },
  unknowns: [],
  leftOut: [],
  excluded: [],
});
