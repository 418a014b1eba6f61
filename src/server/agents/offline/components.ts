/**
 * The offline planner's knowledge base: the building blocks of docker-compose stacks, each with an
 * image pinned to a tag, its ports, volumes, environment, healthcheck and the secrets it needs.
 * The composer (composer.ts) assembles them; facts.ts decides which ones a conversation asks for.
 */

export type ComponentCategory =
  | 'web'
  | 'app'
  | 'automation'
  | 'database'
  | 'cache'
  | 'queue'
  | 'proxy'
  | 'monitoring'
  | 'logging'
  | 'access';

export interface Healthcheck {
  test: string[];
  interval: string;
  timeout: string;
  retries: number;
  start_period: string;
}

export interface SecretSpec {
  name: string;
  description: string;
  required: boolean;
  secret_type: 'password' | 'text' | 'ssh_private_key';
}

/** One container of a component. `${VAR}` values are filled from the `.env` file the plan writes. */
export interface ServiceSpec {
  name: string;
  image: string;
  command?: string[];
  environment?: Record<string, string>;
  /** `named:/path` for volumes, `./file:/path:ro` for config files the plan writes. */
  volumes?: string[];
  /** Port the service listens on inside the network (for the proxy and the diagram). */
  internalPort?: number;
  /** Published when no reverse proxy fronts the service (`host:container`). */
  publish?: string[];
  /** Always published, proxy or not (the proxy's own 80/443). */
  alwaysPublish?: string[];
  healthcheck?: Healthcheck;
  /** Why there is no healthcheck, when the image offers no way to check itself. */
  noHealthcheck?: string;
  dependsOn?: string[];
  /** `backend` for data services; `edge` when a proxy talks to it; both for apps. */
  networks: Array<'edge' | 'backend'>;
  /** Served to people through the reverse proxy (or published) as this sub-domain label; '' = the apex. */
  webLabel?: string;
  /** Rough resident memory, in MB, for sizing the machine. */
  memoryMb: number;
  ulimits?: Record<string, { soft: number; hard: number }>;
}

export interface ConfigFile {
  path: string;
  content: string;
}

export interface Component {
  id: string;
  label: string;
  category: ComponentCategory;
  /** What it is for, in the requirements document. */
  purpose: string;
  services: ServiceSpec[];
  secrets: SecretSpec[];
  /** Disk it needs, in GB, beyond the operating system. */
  diskGb: number;
}

const hc = (test: string[], startPeriod = '20s'): Healthcheck => ({
  test,
  interval: '15s',
  timeout: '5s',
  retries: 5,
  start_period: startPeriod,
});

export const IMAGES = {
  postgres: 'postgres:16.4-alpine',
  mysql: 'mysql:8.4.2',
  mongo: 'mongo:7.0.14',
  redis: 'redis:7.4.1-alpine',
  rabbitmq: 'rabbitmq:3.13.7-management-alpine',
  kafka: 'apache/kafka:3.8.0',
  nginx: 'nginx:1.27.2-alpine',
  caddy: 'caddy:2.8.4-alpine',
  traefik: 'traefik:v3.1.6',
  certbot: 'certbot/certbot:v2.11.0',
  prometheus: 'prom/prometheus:v2.54.1',
  nodeExporter: 'prom/node-exporter:v1.8.2',
  grafana: 'grafana/grafana:11.2.2',
  elasticsearch: 'docker.elastic.co/elasticsearch/elasticsearch:8.15.2',
  logstash: 'docker.elastic.co/logstash/logstash:8.15.2',
  kibana: 'docker.elastic.co/kibana/kibana:8.15.2',
  n8n: 'n8nio/n8n:1.64.3',
} as const;

export const COMPONENTS: Record<string, Component> = {
  web: {
    id: 'web',
    label: 'Nginx web server',
    category: 'web',
    purpose: 'serves the site from ./site',
    diskGb: 1,
    secrets: [],
    services: [
      {
        name: 'web',
        image: IMAGES.nginx,
        volumes: ['./site:/usr/share/nginx/html:ro'],
        internalPort: 80,
        publish: ['80:80'],
        healthcheck: hc(['CMD', 'wget', '-q', '--spider', 'http://127.0.0.1/'], '5s'),
        networks: ['edge'],
        webLabel: '',
        memoryMb: 32,
      },
    ],
  },
  app: {
    id: 'app',
    label: 'Application (built from its repository)',
    category: 'app',
    purpose: 'the application itself, built from its Dockerfile',
    diskGb: 5,
    secrets: [],
    services: [
      {
        name: 'app',
        image: 'build',
        environment: { NODE_ENV: 'production' },
        internalPort: 3000,
        publish: ['80:3000'],
        noHealthcheck: 'the application defines its own health endpoint; add one to its Dockerfile with HEALTHCHECK',
        networks: ['edge', 'backend'],
        webLabel: '',
        memoryMb: 512,
      },
    ],
  },
  n8n: {
    id: 'n8n',
    label: 'n8n workflow automation',
    category: 'automation',
    purpose: 'workflow automation with its editor and webhooks',
    diskGb: 5,
    secrets: [
      { name: 'N8N_ENCRYPTION_KEY', description: 'Key n8n uses to encrypt stored credentials (32+ random characters)', required: true, secret_type: 'password' },
    ],
    services: [
      {
        name: 'n8n',
        image: IMAGES.n8n,
        environment: {
          N8N_ENCRYPTION_KEY: '${N8N_ENCRYPTION_KEY}',
          GENERIC_TIMEZONE: 'UTC',
          N8N_DIAGNOSTICS_ENABLED: 'false',
        },
        volumes: ['n8n_data:/home/node/.n8n'],
        internalPort: 5678,
        publish: ['5678:5678'],
        healthcheck: hc(['CMD-SHELL', 'wget -q --spider http://127.0.0.1:5678/healthz || exit 1'], '30s'),
        networks: ['edge', 'backend'],
        webLabel: '',
        memoryMb: 512,
      },
    ],
  },
  postgres: {
    id: 'postgres',
    label: 'PostgreSQL 16',
    category: 'database',
    purpose: 'relational database',
    diskGb: 20,
    secrets: [{ name: 'POSTGRES_PASSWORD', description: 'Password of the PostgreSQL application user', required: true, secret_type: 'password' }],
    services: [
      {
        name: 'postgres',
        image: IMAGES.postgres,
        environment: { POSTGRES_USER: 'app', POSTGRES_PASSWORD: '${POSTGRES_PASSWORD}', POSTGRES_DB: 'app' },
        volumes: ['pgdata:/var/lib/postgresql/data'],
        internalPort: 5432,
        healthcheck: hc(['CMD-SHELL', 'pg_isready -U "$${POSTGRES_USER}" -d "$${POSTGRES_DB}"']),
        networks: ['backend'],
        memoryMb: 256,
      },
    ],
  },
  mysql: {
    id: 'mysql',
    label: 'MySQL 8.4',
    category: 'database',
    purpose: 'relational database',
    diskGb: 20,
    secrets: [
      { name: 'MYSQL_ROOT_PASSWORD', description: 'Password of the MySQL root user', required: true, secret_type: 'password' },
      { name: 'MYSQL_PASSWORD', description: 'Password of the MySQL application user', required: true, secret_type: 'password' },
    ],
    services: [
      {
        name: 'mysql',
        image: IMAGES.mysql,
        environment: {
          MYSQL_ROOT_PASSWORD: '${MYSQL_ROOT_PASSWORD}',
          MYSQL_DATABASE: 'app',
          MYSQL_USER: 'app',
          MYSQL_PASSWORD: '${MYSQL_PASSWORD}',
        },
        volumes: ['mysqldata:/var/lib/mysql'],
        internalPort: 3306,
        healthcheck: hc(['CMD-SHELL', 'mysqladmin ping -h 127.0.0.1 -u root -p"$${MYSQL_ROOT_PASSWORD}" --silent'], '30s'),
        networks: ['backend'],
        memoryMb: 512,
      },
    ],
  },
  mongo: {
    id: 'mongo',
    label: 'MongoDB 7',
    category: 'database',
    purpose: 'document database',
    diskGb: 20,
    secrets: [{ name: 'MONGO_ROOT_PASSWORD', description: 'Password of the MongoDB root user', required: true, secret_type: 'password' }],
    services: [
      {
        name: 'mongo',
        image: IMAGES.mongo,
        environment: { MONGO_INITDB_ROOT_USERNAME: 'root', MONGO_INITDB_ROOT_PASSWORD: '${MONGO_ROOT_PASSWORD}' },
        volumes: ['mongodata:/data/db'],
        internalPort: 27017,
        healthcheck: hc(['CMD', 'mongosh', '--quiet', '--eval', "db.adminCommand('ping').ok"], '30s'),
        networks: ['backend'],
        memoryMb: 512,
      },
    ],
  },
  redis: {
    id: 'redis',
    label: 'Redis 7.4',
    category: 'cache',
    purpose: 'in-memory cache and session store',
    diskGb: 1,
    secrets: [{ name: 'REDIS_PASSWORD', description: 'Password clients use to authenticate to Redis', required: true, secret_type: 'password' }],
    services: [
      {
        name: 'redis',
        image: IMAGES.redis,
        command: ['redis-server', '--appendonly', 'yes', '--requirepass', '${REDIS_PASSWORD}'],
        environment: { REDIS_PASSWORD: '${REDIS_PASSWORD}' },
        volumes: ['redisdata:/data'],
        internalPort: 6379,
        healthcheck: hc(['CMD-SHELL', 'redis-cli -a "$${REDIS_PASSWORD}" --no-auth-warning ping | grep -q PONG'], '5s'),
        networks: ['backend'],
        memoryMb: 128,
      },
    ],
  },
  rabbitmq: {
    id: 'rabbitmq',
    label: 'RabbitMQ 3.13',
    category: 'queue',
    purpose: 'message broker (AMQP) with its management UI',
    diskGb: 5,
    secrets: [{ name: 'RABBITMQ_PASSWORD', description: 'Password of the RabbitMQ application user', required: true, secret_type: 'password' }],
    services: [
      {
        name: 'rabbitmq',
        image: IMAGES.rabbitmq,
        environment: { RABBITMQ_DEFAULT_USER: 'app', RABBITMQ_DEFAULT_PASS: '${RABBITMQ_PASSWORD}' },
        volumes: ['rabbitmqdata:/var/lib/rabbitmq'],
        internalPort: 5672,
        healthcheck: hc(['CMD', 'rabbitmq-diagnostics', '-q', 'ping'], '30s'),
        networks: ['backend'],
        memoryMb: 256,
      },
    ],
  },
  kafka: {
    id: 'kafka',
    label: 'Apache Kafka 3.8 (KRaft, single broker)',
    category: 'queue',
    purpose: 'event streaming',
    diskGb: 20,
    secrets: [],
    services: [
      {
        name: 'kafka',
        image: IMAGES.kafka,
        environment: {
          KAFKA_NODE_ID: '1',
          KAFKA_PROCESS_ROLES: 'broker,controller',
          KAFKA_LISTENERS: 'PLAINTEXT://:9092,CONTROLLER://:9093',
          KAFKA_ADVERTISED_LISTENERS: 'PLAINTEXT://kafka:9092',
          KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
          KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
          KAFKA_CONTROLLER_QUORUM_VOTERS: '1@kafka:9093',
          KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
          KAFKA_LOG_DIRS: '/var/lib/kafka/data',
        },
        volumes: ['kafkadata:/var/lib/kafka/data'],
        internalPort: 9092,
        healthcheck: hc(['CMD-SHELL', '/opt/kafka/bin/kafka-broker-api-versions.sh --bootstrap-server localhost:9092 >/dev/null 2>&1'], '40s'),
        networks: ['backend'],
        memoryMb: 1024,
      },
    ],
  },
  caddy: {
    id: 'caddy',
    label: 'Caddy 2.8 reverse proxy',
    category: 'proxy',
    purpose: 'reverse proxy that obtains and renews Let\'s Encrypt certificates by itself',
    diskGb: 1,
    secrets: [],
    services: [
      {
        name: 'caddy',
        image: IMAGES.caddy,
        volumes: ['./Caddyfile:/etc/caddy/Caddyfile:ro', 'caddy_data:/data', 'caddy_config:/config'],
        alwaysPublish: ['80:80', '443:443'],
        healthcheck: hc(['CMD', 'wget', '-q', '--spider', 'http://127.0.0.1:2019/config/'], '5s'),
        networks: ['edge'],
        memoryMb: 64,
      },
    ],
  },
  nginxProxy: {
    id: 'nginxProxy',
    label: 'Nginx 1.27 reverse proxy (certificates by Certbot)',
    category: 'proxy',
    purpose: 'reverse proxy; Certbot issues and renews the Let\'s Encrypt certificates',
    diskGb: 1,
    secrets: [],
    services: [
      {
        name: 'proxy',
        image: IMAGES.nginx,
        volumes: ['./nginx/conf.d:/etc/nginx/conf.d:ro', 'certbot_www:/var/www/certbot:ro', 'letsencrypt:/etc/letsencrypt:ro'],
        alwaysPublish: ['80:80', '443:443'],
        healthcheck: hc(['CMD', 'wget', '-q', '-O', '/dev/null', 'http://127.0.0.1/healthz'], '5s'),
        networks: ['edge'],
        memoryMb: 32,
      },
    ],
  },
  traefik: {
    id: 'traefik',
    label: 'Traefik 3.1 reverse proxy',
    category: 'proxy',
    purpose: 'reverse proxy configured from container labels, with Let\'s Encrypt (TLS-ALPN challenge)',
    diskGb: 1,
    secrets: [],
    services: [
      {
        name: 'traefik',
        image: IMAGES.traefik,
        volumes: ['/var/run/docker.sock:/var/run/docker.sock:ro', 'letsencrypt:/letsencrypt'],
        alwaysPublish: ['80:80', '443:443'],
        healthcheck: hc(['CMD', 'traefik', 'healthcheck', '--ping'], '5s'),
        networks: ['edge'],
        memoryMb: 64,
      },
    ],
  },
  prometheus: {
    id: 'prometheus',
    label: 'Prometheus 2.54 with node-exporter',
    category: 'monitoring',
    purpose: 'metrics collection (host metrics from node-exporter)',
    diskGb: 20,
    secrets: [],
    services: [
      {
        name: 'prometheus',
        image: IMAGES.prometheus,
        command: ['--config.file=/etc/prometheus/prometheus.yml', '--storage.tsdb.path=/prometheus', '--storage.tsdb.retention.time=15d'],
        volumes: ['./prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro', 'prometheus_data:/prometheus'],
        internalPort: 9090,
        healthcheck: hc(['CMD', 'wget', '-q', '--spider', 'http://127.0.0.1:9090/-/healthy'], '10s'),
        dependsOn: ['node-exporter'],
        networks: ['backend'],
        memoryMb: 512,
      },
      {
        name: 'node-exporter',
        image: IMAGES.nodeExporter,
        command: ['--path.rootfs=/host'],
        volumes: ['/:/host:ro,rslave'],
        internalPort: 9100,
        healthcheck: hc(['CMD', 'wget', '-q', '--spider', 'http://127.0.0.1:9100/metrics'], '5s'),
        networks: ['backend'],
        memoryMb: 32,
      },
    ],
  },
  grafana: {
    id: 'grafana',
    label: 'Grafana 11.2',
    category: 'monitoring',
    purpose: 'dashboards over Prometheus (datasource provisioned)',
    diskGb: 2,
    secrets: [{ name: 'GRAFANA_ADMIN_PASSWORD', description: 'Password of the Grafana admin user', required: true, secret_type: 'password' }],
    services: [
      {
        name: 'grafana',
        image: IMAGES.grafana,
        environment: {
          GF_SECURITY_ADMIN_USER: 'admin',
          GF_SECURITY_ADMIN_PASSWORD: '${GRAFANA_ADMIN_PASSWORD}',
          GF_USERS_ALLOW_SIGN_UP: 'false',
        },
        volumes: ['grafana_data:/var/lib/grafana', './grafana/provisioning:/etc/grafana/provisioning:ro'],
        internalPort: 3000,
        publish: ['3000:3000'],
        healthcheck: hc(['CMD-SHELL', 'wget -q --spider http://127.0.0.1:3000/api/health || exit 1'], '20s'),
        dependsOn: ['prometheus'],
        networks: ['edge', 'backend'],
        webLabel: 'grafana',
        memoryMb: 256,
      },
    ],
  },
  elk: {
    id: 'elk',
    label: 'Elastic stack 8.15 (Elasticsearch, Logstash, Kibana)',
    category: 'logging',
    purpose: 'log ingestion (Logstash on 5044 beats / 5000 TCP JSON), search (Elasticsearch) and dashboards (Kibana)',
    diskGb: 50,
    secrets: [
      { name: 'ELASTIC_PASSWORD', description: 'Password of the Elasticsearch `elastic` superuser', required: true, secret_type: 'password' },
      { name: 'KIBANA_SYSTEM_PASSWORD', description: 'Password Kibana uses to connect to Elasticsearch (`kibana_system` user)', required: true, secret_type: 'password' },
    ],
    services: [
      {
        name: 'elasticsearch',
        image: IMAGES.elasticsearch,
        environment: {
          'discovery.type': 'single-node',
          ELASTIC_PASSWORD: '${ELASTIC_PASSWORD}',
          'xpack.security.enabled': 'true',
          'xpack.security.http.ssl.enabled': 'false',
          ES_JAVA_OPTS: '-Xms1g -Xmx1g',
        },
        volumes: ['esdata:/usr/share/elasticsearch/data'],
        internalPort: 9200,
        healthcheck: hc(
          ['CMD-SHELL', 'curl -s -u "elastic:$${ELASTIC_PASSWORD}" http://127.0.0.1:9200/_cluster/health | grep -qE \'"status":"(green|yellow)"\''],
          '60s',
        ),
        networks: ['backend'],
        memoryMb: 2048,
        ulimits: { memlock: { soft: -1, hard: -1 }, nofile: { soft: 65536, hard: 65536 } },
      },
      {
        name: 'logstash',
        image: IMAGES.logstash,
        environment: { ELASTIC_PASSWORD: '${ELASTIC_PASSWORD}', LS_JAVA_OPTS: '-Xms512m -Xmx512m' },
        volumes: ['./logstash/pipeline:/usr/share/logstash/pipeline:ro'],
        internalPort: 5044,
        alwaysPublish: ['5044:5044', '5000:5000'],
        healthcheck: hc(['CMD-SHELL', 'curl -s http://127.0.0.1:9600/ >/dev/null || exit 1'], '60s'),
        dependsOn: ['elasticsearch'],
        networks: ['backend'],
        memoryMb: 1024,
      },
      {
        name: 'kibana',
        image: IMAGES.kibana,
        environment: {
          ELASTICSEARCH_HOSTS: 'http://elasticsearch:9200',
          ELASTICSEARCH_USERNAME: 'kibana_system',
          ELASTICSEARCH_PASSWORD: '${KIBANA_SYSTEM_PASSWORD}',
        },
        internalPort: 5601,
        publish: ['5601:5601'],
        healthcheck: hc(['CMD-SHELL', "curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:5601/api/status | grep -qE '^(200|401)$'"], '60s'),
        dependsOn: ['elasticsearch'],
        networks: ['edge', 'backend'],
        webLabel: 'kibana',
        memoryMb: 1024,
      },
    ],
  },
};

/** Secrets the cloud provider needs to provision or reach the machine. */
export const PROVIDER_SECRETS: Record<string, SecretSpec[]> = {
  aws: [
    { name: 'AWS_ACCESS_KEY_ID', description: 'AWS access key id of an IAM user allowed to manage EC2', required: true, secret_type: 'text' },
    { name: 'AWS_SECRET_ACCESS_KEY', description: 'AWS secret access key of that IAM user', required: true, secret_type: 'password' },
  ],
  digitalocean: [{ name: 'DIGITALOCEAN_TOKEN', description: 'DigitalOcean API token with write scope', required: true, secret_type: 'password' }],
  hetzner: [{ name: 'HCLOUD_TOKEN', description: 'Hetzner Cloud API token (read & write)', required: true, secret_type: 'password' }],
  gcp: [{ name: 'GCP_SERVICE_ACCOUNT_KEY', description: 'JSON key of a GCP service account with Compute Admin', required: true, secret_type: 'password' }],
  azure: [
    { name: 'AZURE_CLIENT_ID', description: 'Azure service principal application id', required: true, secret_type: 'text' },
    { name: 'AZURE_CLIENT_SECRET', description: 'Azure service principal secret', required: true, secret_type: 'password' },
    { name: 'AZURE_TENANT_ID', description: 'Azure tenant id', required: true, secret_type: 'text' },
    { name: 'AZURE_SUBSCRIPTION_ID', description: 'Azure subscription id', required: true, secret_type: 'text' },
  ],
  vps: [
    { name: 'SERVER_HOST', description: 'Public IP address or host name of the server', required: true, secret_type: 'text' },
    { name: 'SERVER_USER', description: 'SSH user with sudo rights on the server', required: true, secret_type: 'text' },
    { name: 'SSH_PRIVATE_KEY', description: 'Private SSH key that can log in as that user (OpenSSH format, no passphrase)', required: true, secret_type: 'ssh_private_key' },
  ],
};

export const ACME_EMAIL_SECRET: SecretSpec = {
  name: 'ACME_EMAIL',
  description: "Email address Let's Encrypt sends certificate expiry notices to",
  required: true,
  secret_type: 'text',
};

export const ADMIN_CIDR_SECRET: SecretSpec = {
  name: 'ADMIN_CIDR',
  description: 'IP range allowed to reach SSH, e.g. 203.0.113.7/32 (your public IP)',
  required: true,
  secret_type: 'text',
};

export const SSH_PUBLIC_KEY_SECRET: SecretSpec = {
  name: 'SSH_PUBLIC_KEY',
  description: 'Your public SSH key (ssh-ed25519 ...) installed for the admin user',
  required: true,
  secret_type: 'text',
};

export const APP_REPOSITORY_SECRET: SecretSpec = {
  name: 'APP_REPOSITORY_URL',
  description: 'Git URL of the application to build (it must contain a Dockerfile)',
  required: true,
  secret_type: 'text',
};
