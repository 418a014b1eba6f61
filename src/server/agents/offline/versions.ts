import type { Product } from './knowledge';

/**
 * Versions asked for by number ("postgres 15", "Redis 6.2", "mariadb v10.11"): the product's catalogued
 * `versions` say which image tag runs it and how it is shown. What runs is what the documents name: a
 * component running another image than its pinned one is labelled by that image's version.
 */

/** A version written right after a product's name, unless the number is a size, a count or an address. */
const VERSION_AFTER = /^\s*(?:v|version\s*)?(\d{1,2}(?:\.\d{1,3}){0,2})(?![\w.:/-]*\d)(?!\s*(?:%|gb|gib|mb|mib|tb|g|m|k|x|users?|people|devs?|hosts?|nodes?|replicas?|instances?|cores?|vcpus?|cpus?|rps|req|requests|ms|s|seconds?|minutes?|hours?|days?|months?|years?)\b)/i;

/** The version written right after a name ending at `end` of `text`, if any. */
export function versionAfter(text: string, end: number): string | undefined {
  return VERSION_AFTER.exec(text.slice(end))?.[1];
}

/** The image running `version` of the product, when its catalogue entry says how. */
export function imageOfVersion(product: Product, version: string): string | undefined {
  return product.versions?.image.replace('{version}', version);
}

/** The version an image's tag carries ("15.8-alpine" → 15.8), to as many parts as the catalogue label shows. */
function tagVersion(product: Product, image: string): string | undefined {
  const tag = image.slice(image.lastIndexOf(':') + 1);
  const parts = /^v?(\d+(?:\.\d+)*)/.exec(tag)?.[1]?.split('.');
  if (!parts) return undefined;
  const shown = /\d+(?:\.\d+)*/.exec(product.label)?.[0].split('.').length ?? 1;
  return parts.slice(0, shown).join('.');
}

/** How a component is shown when it runs `image` (undefined: its pinned one). */
export function labelOf(product: Product, image: string | undefined): string {
  if (!image || !product.versions) return product.label;
  const version = tagVersion(product, image);
  return version ? product.versions.label.replace('{version}', version) : `${product.label} (${image})`;
}

/** Whether a label is one of the product's, for any version (documents read back name it so). */
export function isLabelOf(product: Product, label: string): boolean {
  if (product.label === label) return true;
  if (!product.versions) return false;
  const [before, after] = product.versions.label.split('{version}') as [string, string];
  return label.startsWith(before) && label.endsWith(after) && /^\d+(?:\.\d+)*$/.test(label.slice(before.length, label.length - after.length));
}
