import { loadCatalogue } from '../catalogue/catalogue';
import type { Product, SecretSpec } from '../catalogue/product';

// The shapes live beside the catalogue that reads them (no import circle); the planner's modules take them from here.
export type { Product, ProductCategory, ConfigFile, Healthcheck, SecretSpec, ServiceSpec } from '../catalogue/product';

/**
 * The offline planner's knowledge base: the catalogue's products (each with its images pinned to a tag,
 * ports, volumes, environment, healthcheck and the secrets it needs) and the secrets a provider or the
 * proxy needs. The composer (composer.ts) assembles products into a stack's components; facts.ts decides
 * which ones a conversation asks for.
 */

/** Certbot renews the certificates of the Nginx proxy; it is part of that proxy, not a product. */
export const CERTBOT_IMAGE = 'certbot/certbot:v2.11.0';

/** Every product of the catalogue (catalogue/products/*.yaml), read once at start. */
export const PRODUCTS: Record<string, Product> = loadCatalogue();

/** The product built from the person's own repository (a service whose image is `build`): a repository's own compose file takes its place. */
export const BUILT_PRODUCT: Product | undefined = Object.values(PRODUCTS).find((p) => p.services.some((s) => s.image === 'build'));

/**
 * The products filling a kind of workload asked for without a name (the catalogue's `defaultFor`): those
 * of the most preferred rank not ruled out (monitoring is Prometheus and Grafana together); none when
 * every one is ruled out.
 */
export function defaultProducts(kind: keyof Product['defaultFor'], excluded: ReadonlySet<string>): Product[] {
  const open = Object.values(PRODUCTS).filter((p) => p.defaultFor[kind] !== undefined && !excluded.has(p.id));
  const best = Math.min(...open.map((p) => p.defaultFor[kind]!));
  return open.filter((p) => p.defaultFor[kind] === best);
}

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
