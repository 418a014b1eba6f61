import { COMPONENTS } from '../offline/components';
import type { Component } from '../catalogue/component';
import { imageRepository, type ComposeService } from './composeModel';

/**
 * What the catalogue says about a compose service, found by its image (a real model names services as
 * it likes): whether it holds data that must stay private, and whether it must not be served to the
 * public over plain HTTP.
 */

/** Categories whose services are reached by other services only: publishing them is an error. */
const PRIVATE_CATEGORIES = new Set(['database', 'cache', 'queue', 'search']);

/**
 * Categories whose products hold credentials or personal data behind a login; beside them, every product
 * the catalogue marks `tls: required`.
 */
const SENSITIVE_CATEGORIES = new Set(['security', 'auth', 'ai', 'storage', 'productivity', 'communication']);

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
export const entryIsSensitive = (c: Component | undefined): boolean => Boolean(c && (c.tls === 'required' || SENSITIVE_CATEGORIES.has(c.category)));

export const mustStayPrivate = (service: ComposeService): boolean => entryMustStayPrivate(componentOf(service));

export const isSensitive = (service: ComposeService): boolean => entryIsSensitive(componentOf(service));

export function isProxy(service: ComposeService): boolean {
  return componentOf(service)?.category === 'proxy';
}
