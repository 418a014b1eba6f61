import Ajv, { type ErrorObject } from 'ajv';
import composeSpec from './schema/compose-spec.json';
import type { Finding } from './types';

/**
 * The compose file against the Compose Specification's own JSON schema (vendored in ./schema with its
 * licence): what `docker compose config` would refuse as a shape.
 */

// The schema names draft-07 by an https URL ajv does not hold under that key; it is draft-07, which ajv speaks.
const ajv = new Ajv({ allErrors: true, strict: false, validateSchema: false });
const validate = ajv.compile(composeSpec);

const describe = (e: ErrorObject): string => {
  const extra = e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : '';
  return `${e.message ?? 'is not valid'}${extra}`;
};

/** Schema errors of a parsed compose document, one finding per place (the schema's oneOf branches say little more). */
export function composeSchemaFindings(doc: unknown): Finding[] {
  if (validate(doc)) return [];
  const byPlace = new Map<string, ErrorObject>();
  for (const e of validate.errors ?? []) {
    // oneOf/anyOf report every branch that failed; the first error of a place says the most.
    if (!byPlace.has(e.instancePath)) byPlace.set(e.instancePath, e);
  }
  return [...byPlace.entries()].map(([place, e]) => ({
    severity: 'error',
    code: 'compose-schema',
    message: `does not follow the Compose Specification: ${describe(e)}`,
    where: `docker-compose.yml ${place || '/'}`,
  }));
}
