import { BACKUP_SECRETS } from '../offline/backupSteps';
import { ACME_EMAIL_SECRET, ADMIN_CIDR_SECRET, APP_REPOSITORY_SECRET, PRODUCTS, PROVIDERS, SSH_PUBLIC_KEY_SECRET } from '../offline/knowledge';
import { webPortsOf, type Product } from '../catalogue/product';
import { imageRepository, type ComposeService } from './composeModel';

/**
 * What the catalogue says about a compose service, found by its image (a real model names services as
 * it likes): whether it holds data that must stay private, and whether it must not be served to the
 * public over plain HTTP.
 */

/** Categories whose services are reached by other services only: publishing them is an error. */
const PRIVATE_CATEGORIES = new Set(['database', 'cache', 'queue', 'search']);

const byRepository = new Map<string, Product>();
const byServiceName = new Map<string, Product>();
for (const c of Object.values(PRODUCTS)) {
  for (const s of c.services) {
    if (s.image !== 'build') byRepository.set(imageRepository(s.image), c);
    byServiceName.set(s.name, c);
  }
}

/** The product whose image (any tag) a container runs. */
export function productOfImage(image: string): Product | undefined {
  return byRepository.get(imageRepository(image));
}

export function productOf(service: ComposeService): Product | undefined {
  return (service.image ? productOfImage(service.image) : undefined) ?? byServiceName.get(service.name);
}

/** A database, cache, queue or search engine: only other services talk to it. */
export const productMustStayPrivate = (c: Product | undefined): boolean => Boolean(c && PRIVATE_CATEGORIES.has(c.category));

/** A password manager, identity provider, admin or personal-data app: never public over plain HTTP. */
export const productIsSensitive = (c: Product | undefined): boolean => Boolean(c?.sensitive);

export const mustStayPrivate = (service: ComposeService): boolean => productMustStayPrivate(productOf(service));

export const isSensitive = (service: ComposeService): boolean => productIsSensitive(productOf(service));

export function isProxy(service: ComposeService): boolean {
  return productOf(service)?.category === 'proxy';
}

/**
 * The container ports of a compose service that serve web pages, by the catalogue (its endpoints or its
 * web port); undefined for a service the catalogue does not know, whose every port may be HTTP.
 */
export function webPorts(service: ComposeService): number[] | undefined {
  const c = productOf(service);
  if (!c) return undefined;
  const repo = service.image ? imageRepository(service.image) : undefined;
  const spec = c.services.find((s) => s.name === service.name) ?? c.services.find((s) => s.image !== 'build' && imageRepository(s.image) === repo) ?? (c.services.length === 1 ? c.services[0] : undefined);
  return spec ? webPortsOf(spec) : undefined;
}

/**
 * User Secrets the product and provider catalogues and the planner's own declare `secret_type: text`: identifiers and addresses
 * (a cloud project, tenant or subscription id, an administrator's email), kept with the secrets but not
 * secret values, so an argument may carry them. A name nothing declares is taken for a secret value.
 */
export const TEXT_SECRETS: ReadonlySet<string> = new Set(
  [...Object.values(PRODUCTS), ...Object.values(PROVIDERS), { secrets: [ACME_EMAIL_SECRET, ADMIN_CIDR_SECRET, SSH_PUBLIC_KEY_SECRET, APP_REPOSITORY_SECRET, ...BACKUP_SECRETS] }]
    .flatMap((c) => c.secrets.filter((s) => s.secret_type === 'text').map((s) => s.name)),
);
