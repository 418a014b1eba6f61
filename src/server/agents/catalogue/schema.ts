import { Type, type Static } from 'typebox';

/**
 * The schema of one catalogue file (`products/<id>.yaml`): everything the offline planner needs to
 * run a product with Docker Compose. A file that does not match stops the server at start, naming
 * the file and the field, so a broken product never reaches a plan.
 */

const Duration = Type.String({ pattern: '^\\d+(ms|s|m|h)$' });
const Id = Type.String({ pattern: '^[a-z][a-zA-Z0-9-]*$' });
const Env = Type.Record(Type.String(), Type.String());

export const HealthcheckSchema = Type.Object(
  {
    test: Type.Array(Type.String(), { minItems: 2 }),
    interval: Type.Optional(Duration),
    timeout: Type.Optional(Duration),
    retries: Type.Optional(Type.Integer({ minimum: 1 })),
    start_period: Type.Optional(Duration),
  },
  { additionalProperties: false },
);

export const SecretSchema = Type.Object(
  {
    name: Type.String({ pattern: '^[A-Z][A-Z0-9_]*$' }),
    description: Type.String({ minLength: 1 }),
    required: Type.Optional(Type.Boolean()),
    secret_type: Type.Optional(Type.Union([Type.Literal('password'), Type.Literal('text')])),
  },
  { additionalProperties: false },
);

export const ServiceSchema = Type.Object(
  {
    name: Type.String({ pattern: '^[a-z][a-z0-9-]*$' }),
    /** `repository/name:tag`, pinned: never `latest`, never untagged. `build` for the person's own app. */
    image: Type.String({ pattern: '^(build|[a-z0-9][a-z0-9._/-]*:(?!latest$)[A-Za-z0-9_][A-Za-z0-9_.-]*)$' }),
    /** The image's own GPU build, run instead when the host's GPUs are given to it (Open WebUI's `-cuda` tag). */
    gpuImage: Type.Optional(Type.String({ pattern: '^[a-z0-9][a-z0-9._/-]*:(?!latest$)[A-Za-z0-9_][A-Za-z0-9_.-]*$' })),
    command: Type.Optional(Type.Array(Type.String())),
    environment: Type.Optional(Type.Record(Type.String(), Type.String())),
    volumes: Type.Optional(Type.Array(Type.String({ pattern: '^[^:]+:/[^:]*(:(ro|rw|ro,rslave))?$' }))),
    internalPort: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
    publish: Type.Optional(Type.Array(Type.String({ pattern: '^\\d{1,5}:\\d{1,5}(/(tcp|udp))?$' }))),
    alwaysPublish: Type.Optional(Type.Array(Type.String({ pattern: '^\\d{1,5}:\\d{1,5}(/(tcp|udp))?$' }))),
    healthcheck: Type.Optional(HealthcheckSchema),
    noHealthcheck: Type.Optional(Type.String({ minLength: 10 })),
    dependsOn: Type.Optional(Type.Array(Type.String())),
    networks: Type.Array(Type.Union([Type.Literal('edge'), Type.Literal('backend')]), { minItems: 1 }),
    webLabel: Type.Optional(Type.String({ pattern: '^[a-z0-9-]*$' })),
    memoryMb: Type.Integer({ minimum: 8 }),
    ulimits: Type.Optional(Type.Record(Type.String(), Type.Object({ soft: Type.Integer(), hard: Type.Integer() }))),
    /**
     * How it reaches each product it can use, by catalogue id: the environment set when that product is
     * in the stack (it then also waits for it). Nextcloud with `postgres` or `mariadb`, an app with `redis`.
     */
    uses: Type.Optional(Type.Record(Id, Env)),
    /** Environment only when it is served at a domain (`domain`), or only over plain HTTP (`plainHttp`). */
    environmentWhen: Type.Optional(Type.Object({ domain: Type.Optional(Env), plainHttp: Type.Optional(Env) }, { additionalProperties: false })),
    /** A consistent copy of its data written to stdout (`pg_dump …`); without one its named volumes are backed up as files. */
    backup: Type.Optional(
      Type.Object(
        {
          dump: Type.String({ minLength: 5 }),
          extension: Type.String({ pattern: '^[a-z0-9.]+$' }),
          /** Prints one line per table, `<name> <rows>` (run beside each dump, and again in the restore drill). */
          tables: Type.Optional(Type.String({ minLength: 5 })),
          /**
           * How the restore drill loads the dump into a throwaway container of the same image: its environment
           * (a fresh instance without the live secrets), the command that succeeds once it answers, and the
           * command that reads the dump on stdin.
           */
          restore: Type.Optional(
            Type.Object({ env: Type.Record(Type.String({ pattern: '^[A-Z_][A-Z0-9_]*$' }), Type.String()), ready: Type.String({ minLength: 5 }), load: Type.String({ minLength: 5 }) }, { additionalProperties: false }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    /** Kernel settings the host needs for it (Elasticsearch's vm.max_map_count). */
    hostSysctl: Type.Optional(Type.Record(Type.String({ pattern: '^[a-z0-9_.]+$' }), Type.String({ pattern: '^[0-9]+$' }))),
    /** Prometheus scrapes it: job name, port, and the host when it is not the service's own name. */
    metrics: Type.Optional(Type.Object({ job: Type.String({ pattern: '^[a-z0-9_-]+$' }), port: Type.Integer({ minimum: 1, maximum: 65535 }), host: Type.Optional(Type.String()) }, { additionalProperties: false })),
    /**
     * Grafana reads it as a data source of this kind: Grafana's plugin `type`, the `url` it connects to
     * (`http://<service>:<internalPort>` when absent; `{{service}}` and `{{port}}` fill in), the user and
     * the plugin's settings (`jsonData`), and its credentials (`secureJsonData`), each `${SECRET}` a secret of
     * its product: the composer hands those secrets to Grafana's environment and the provisioning file reads
     * them from there, so no password is written into a file.
     */
    datasource: Type.Optional(
      Type.Object(
        {
          name: Type.String({ minLength: 2 }),
          type: Type.String({ pattern: '^[a-z-]+$' }),
          url: Type.Optional(Type.String({ minLength: 3 })),
          user: Type.Optional(Type.String({ minLength: 1 })),
          basicAuthUser: Type.Optional(Type.String({ minLength: 1 })),
          jsonData: Type.Optional(Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]))),
          secureJsonData: Type.Optional(Type.Record(Type.String(), Type.String({ pattern: '^\\$\\{[A-Z][A-Z0-9_]*\\}$' }))),
        },
        { additionalProperties: false },
      ),
    ),
    /** A config file generated from the stack: Prometheus' scrape jobs, Grafana's datasources. */
    generates: Type.Optional(Type.Object({ path: Type.String({ pattern: '^[a-z][\\w./-]*$' }), kind: Type.Union([Type.Literal('prometheus-scrape'), Type.Literal('grafana-datasources')]) }, { additionalProperties: false })),
    /**
     * Its web endpoints when it has more than one (MinIO's S3 API and its console): each a name and the
     * container port; the first is what a proxy sends the service's domain to, the others get sub-domains
     * (`<label>.<domain>`). Absent: one endpoint, `internalPort`.
     */
    endpoints: Type.Optional(
      Type.Array(
        Type.Object(
          {
            name: Type.String({ pattern: '^[a-z][a-z0-9-]*$' }),
            port: Type.Integer({ minimum: 1, maximum: 65535 }),
            label: Type.String({ pattern: '^[a-z0-9-]+$' }),
            /** The path the deploy's last step asks through the proxy when `/` answers an error by design (an S3 API). */
            check: Type.Optional(Type.String({ pattern: '^/[^\\s]*$' })),
          },
          { additionalProperties: false },
        ),
        { minItems: 2 },
      ),
    ),
    /** Its published ports speak HTTP (false for brokers and log inputs: no HTTP check is made of them). */
    http: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const CATEGORIES = [
  'web', 'app', 'automation', 'database', 'cache', 'queue', 'proxy', 'monitoring', 'logging', 'access',
  'storage', 'git', 'ci', 'auth', 'communication', 'media', 'productivity', 'analytics', 'search', 'cms', 'security', 'dashboard', 'ai',
] as const;

export const ProductSchema = Type.Object(
  {
    id: Id,
    label: Type.String({ minLength: 2 }),
    category: Type.Union(CATEGORIES.map((c) => Type.Literal(c))),
    /** What it is for, in the requirements document. */
    purpose: Type.String({ minLength: 5 }),
    /** Upstream documentation of the image and its settings. */
    docs: Type.String({ pattern: '^https://' }),
    /** Names people use for it, matched as whole words, case-insensitive (regular expression sources). */
    aliases: Type.Array(Type.String({ minLength: 2 }), { minItems: 1 }),
    /**
     * What people ask for when they describe it instead of naming it ("my own ChatGPT", "an AI chat"): regular
     * expression sources matched as whole words, like aliases. A description is no name of software: it is
     * never said back as unknown.
     */
    describedAs: Type.Optional(Type.Array(Type.String({ minLength: 2 }))),
    /**
     * Its aliases are ordinary words for a kind of workload rather than a name ("a website", "my API", a
     * programming language): they ask for it only in a clause naming no product but ones such a workload
     * uses (its services' `uses`): "a WordPress website" is WordPress, "our Ruby app with Typesense" an app
     * and Typesense.
     */
    kindWords: Type.Optional(Type.Boolean()),
    /** Its settings want the address it is reached at (n8n's webhook URL, an app's own links): a domain is asked for when it is in the stack. */
    asksDomain: Type.Optional(Type.Boolean()),
    /**
     * A version asked for by number ("postgres 15", "redis 6.2") runs from `image` with `{version}` filled in
     * (a tag its maintainers publish for every supported version: see its docs), shown as `label` with the
     * same. An image the person names is shown by its tag the same way.
     */
    versions: Type.Optional(
      Type.Object(
        {
          image: Type.String({ pattern: '^[a-z0-9./-]+:[^\\s]*\\{version\\}[^\\s]*$' }),
          label: Type.String({ pattern: '\\{version\\}' }),
        },
        { additionalProperties: false },
      ),
    ),
    /** Catalogue ids of products that do a similar job: offered as alternatives, never swapped in. */
    similar: Type.Optional(Type.Array(Id)),
    /** Names of products not in the catalogue that this one can stand in for, when the person agrees. */
    alternativeTo: Type.Optional(Type.Array(Type.String({ minLength: 2 }))),
    /**
     * What it needs in the same stack (its database, its cache): each entry a catalogue id, or a list of
     * ids any one of which will do, preferred first (`[postgres, mariadb]`).
     */
    requires: Type.Optional(Type.Array(Type.Union([Id, Type.Array(Id, { minItems: 1 })]))),
    /** A product it cannot use although people pair them, with the one it uses instead and why (n8n and MySQL). */
    unsupported: Type.Optional(Type.Record(Id, Type.Object({ use: Id, why: Type.String({ minLength: 10 }) }, { additionalProperties: false }))),
    /** Config files it mounts, written as given (`{{name}}` is the stack's name). */
    files: Type.Optional(Type.Array(Type.Object({ path: Type.String({ pattern: '^[a-z][\\w./-]*$' }), content: Type.String() }, { additionalProperties: false }))),
    /**
     * Commands run once its `service` answers `ready`, before the rest of the stack starts (Elasticsearch's
     * kibana_system password); `says` is the start step's description of it.
     */
    bootstrap: Type.Optional(Type.Object({ service: Type.String(), ready: Type.String(), commands: Type.Array(Type.String(), { minItems: 1 }), says: Type.String() }, { additionalProperties: false })),
    /** A reverse proxy, and the kind of configuration it reads. */
    proxy: Type.Optional(Type.Object({ config: Type.Union([Type.Literal('caddyfile'), Type.Literal('nginx'), Type.Literal('traefik-labels')]) }, { additionalProperties: false })),
    /**
     * The kinds of workload it fills when one is asked for without a product name ("a cache", "monitoring",
     * "a reverse proxy"), each with its preference: the lowest not ruled out is chosen (ELK 1, Loki 2 for logging).
     */
    defaultFor: Type.Optional(
      Type.Object(
        Object.fromEntries(['monitoring', 'metrics', 'logging', 'cache', 'queue', 'proxy'].map((k) => [k, Type.Optional(Type.Integer({ minimum: 1 }))])),
        { additionalProperties: false },
      ),
    ),
    /** Which web product gets the bare domain when several are served: the lowest rank (0 when absent); generic ones (an app, a site, dashboards) rank higher. */
    apexRank: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
    /** Its image can use the host's NVIDIA GPUs (given to it when the person asks for a GPU). */
    gpu: Type.Optional(Type.Boolean()),
    /**
     * It holds logins, credentials or personal data (a password manager, an admin UI, a broker of
     * messages): never served to the public over plain HTTP unless the person says so in words. Absent:
     * true for products that need TLS and for the security, auth, ai, storage, productivity and
     * communication categories.
     */
    sensitive: Type.Optional(Type.Boolean()),
    /** 'required': it refuses to work over plain HTTP (browsers' crypto, federation); 'recommended' otherwise. */
    tls: Type.Union([Type.Literal('required'), Type.Literal('recommended'), Type.Literal('none')]),
    /** Minimum resources: memory is the sum of its services' memoryMb; disk in GB beyond the system. */
    diskGb: Type.Integer({ minimum: 0 }),
    /** Minimum vCPUs the product needs to run usefully (its documentation's requirement); 1 when absent. */
    minCpus: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
    secrets: Type.Optional(Type.Array(SecretSchema)),
    services: Type.Array(ServiceSchema, { minItems: 1 }),
  },
  { additionalProperties: false },
);

export type ProductFile = Static<typeof ProductSchema>;
