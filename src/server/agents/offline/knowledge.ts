import { loadCatalogue } from '../catalogue/catalogue';
import type { Product, SecretSpec } from '../catalogue/product';
import { loadProviders, type Provider } from '../catalogue/providers';
import type { Place } from '../catalogue/providerSchema';

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

/** Every provider a server can run at (catalogue/providers/*.yaml) and the places people name, read once at start. */
const PROVIDER_CATALOGUE = loadProviders();
export const PROVIDERS: Record<string, Provider> = PROVIDER_CATALOGUE.providers;
export const PLACES: Place[] = PROVIDER_CATALOGUE.places;

/** The person's own server (the provider file with `existing: true`): where a plan runs when no provider is named. */
export const EXISTING_SERVER: Provider = Object.values(PROVIDERS).find((p) => p.existing)!;

/** The provider of an id; none named (or one no file holds) is the person's own server. */
export const providerOf = (id: string | undefined): Provider => (id !== undefined ? PROVIDERS[id] : undefined) ?? EXISTING_SERVER;

/** Secrets a provider needs to create the machine (or, for the person's own server, to reach it). */
export const providerSecrets = (p: Provider): SecretSpec[] => p.secrets.map((s) => ({ name: s.name, description: s.description, required: true, secret_type: s.secret_type }));

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
