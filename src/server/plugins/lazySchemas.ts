import AjvCompiler from '@fastify/ajv-compiler';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type Factories = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type ValidatorFactory = NonNullable<Factories['buildValidator']>;
type SerializerFactory = NonNullable<Factories['buildSerializer']>;
type Validate = ReturnType<ReturnType<ValidatorFactory>>;

/**
 * A route's validator, compiled on its first call: Fastify's own (Ajv, with the app's options), only
 * later. It reads as the compiled one does: `errors` after a failed check, and `schemaEnv` (Fastify then
 * gives the request as parent, so that Ajv may change the root).
 */
function lazyValidator(compile: () => Validate): Validate {
  let compiled: Validate | null = null;
  const get = (): Validate => (compiled ??= compile());
  const validate = (data: unknown, context?: object): unknown => {
    const fn = get() as (data: unknown, context?: object) => unknown;
    const result = context === undefined ? fn(data) : fn(data, context);
    (validate as { errors?: unknown }).errors = (get() as { errors?: unknown }).errors;
    return result;
  };
  Object.defineProperty(validate, 'schemaEnv', { get: () => (get() as { schemaEnv?: unknown }).schemaEnv });
  return validate as unknown as Validate;
}

/**
 * Fastify's compilers, compiling each route's schemas when the route is first called rather than when
 * it is registered: about a hundred routes' validators and serializers took a tenth of a start (the
 * cold-start budget of issue 12). A schema a compiler refuses then fails that route's first call
 * with a 500 instead of the start; every route's schemas are exercised by its tests.
 */
export function lazySchemaCompilers() {
  // One of each per app, as Fastify makes them (each keeps its compilers by their schemas and options).
  const validators = AjvCompiler();
  const serializers = SerializerSelector();
  return {
    compilersFactory: {
      buildValidator: ((externalSchemas: unknown, ajvOptions: unknown) => {
        const compiler = validators(externalSchemas as never, ajvOptions as never);
        return (route: Parameters<typeof compiler>[0]) => lazyValidator(() => compiler(route));
      }) as ValidatorFactory,
      buildSerializer: ((externalSchemas, options) => {
        const compiler = serializers(externalSchemas, options as never);
        return (route: Parameters<typeof compiler>[0]) => {
          let serialize: ((doc: unknown) => string) | null = null;
          return (doc: unknown) => (serialize ??= compiler(route))(doc);
        };
      }) as SerializerFactory,
    },
  } satisfies FastifyServerOptions['schemaController'];
}
