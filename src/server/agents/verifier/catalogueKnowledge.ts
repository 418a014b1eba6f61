import { COMPONENTS } from '../offline/components';
import { webPortsOf, type Component } from '../catalogue/component';
import { imageRepository, type ComposeService } from './composeModel';

/**
 * What the catalogue says about a compose service, found by its image (a real model names services as
 * it likes): whether it holds data that must stay private, and whether it must not be served to the
 * public over plain HTTP.
 */

/** Categories whose services are reached by other services only: publishing them is an error. */
const PRIVATE_CATEGORIES = new Set(['database', 'cache', 'queue', 'search']);

const byRepository = new Map<string, Component>();
const byServiceName = new Map<string, Component>();
for (const c of Object.values(COMPONENTS)) {
  for (const s of c.services) {
    if (s.image !== 'build') byRepository.set(imageRepository(s.image), c);
    byServiceName.set(s.name, c);
  }
}

/** The catalogue entry whose image (any tag) a container runs. */
export function componentOfImage(image: string): Component | undefined {
  return byRepository.get(imageRepository(image));
}

export function componentOf(service: ComposeService): Component | undefined {
  return (service.image ? componentOfImage(service.image) : undefined) ?? byServiceName.get(service.name);
}

/** A database, cache, queue or search engine: only other services talk to it. */
export const entryMustStayPrivate = (c: Component | undefined): boolean => Boolean(c && PRIVATE_CATEGORIES.has(c.category));

/** A password manager, identity provider, admin or personal-data app: never public over plain HTTP. */
export const entryIsSensitive = (c: Component | undefined): boolean => Boolean(c?.sensitive);

export const mustStayPrivate = (service: ComposeService): boolean => entryMustStayPrivate(componentOf(service));

export const isSensitive = (service: ComposeService): boolean => entryIsSensitive(componentOf(service));

export function isProxy(service: ComposeService): boolean {
  return componentOf(service)?.category === 'proxy';
}

/**
 * The container ports of a compose service that serve web pages, by the catalogue (its endpoints or its
 * web port); undefined for a service the catalogue does not know, whose every port may be HTTP.
 */
export function webPorts(service: ComposeService): number[] | undefined {
  const c = componentOf(service);
  if (!c) return undefined;
  const repo = service.image ? imageRepository(service.image) : undefined;
  const spec = c.services.find((s) => s.name === service.name) ?? c.services.find((s) => s.image !== 'build' && imageRepository(s.image) === repo) ?? (c.services.length === 1 ? c.services[0] : undefined);
  return spec ? webPortsOf(spec) : undefined;
}
