// Fastify's request validators (Ajv, through @fastify/ajv-compiler), pooled by what they are built from.
// @fastify/ajv-compiler pools its compilers under a key made by JSON.stringify of every shared schema, on every app
// it builds: with this service's components that key is megabytes, made and hashed twice per app (a CPU profile of a
// test app's start: ~0.6 s of it). The components are module constants, so here they are pooled by identity, and a
// process that builds many apps (the test suite builds hundreds) builds each compiler once. Each compiled validator
// is kept by its schema's text and the part it checks: route definitions make their schemas afresh for each app,
// and Ajv's own cache knows a schema only by the object.
import { AjvCompiler, type ValidatorFactory } from '@fastify/ajv-compiler';
import type { AnySchema } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';

// @fastify/ajv-compiler's declared types lag its runtime: its compilers take Fastify's route definition.
type RouteCompiler = FastifySchemaCompiler<AnySchema>;
type Route = Parameters<RouteCompiler>[0];

const ajvOptions = { allErrors: true, removeAdditional: false, useDefaults: true, discriminator: true } as const;
const buildAjvValidator = AjvCompiler();

interface Pooled {
  components: unknown[];
  options: string;
  compile: (route: Route) => ReturnType<RouteCompiler>;
}
const pool: Pooled[] = [];

function compilerFor(externalSchemas: Record<string, AnySchema>, serverOptions: object): Pooled['compile'] {
  // Bodies are taken as sent: a number where the schema says string is an error, not quietly converted.
  // Query strings and path parameters arrive as text, so they alone are coerced.
  const strict = buildAjvValidator(externalSchemas, {
    ...serverOptions,
    customOptions: { ...ajvOptions, coerceTypes: false },
  }) as unknown as RouteCompiler;
  const coercing = buildAjvValidator(externalSchemas, {
    ...serverOptions,
    customOptions: { ...ajvOptions, coerceTypes: 'array' },
  }) as unknown as RouteCompiler;
  const compiled = new Map<string, ReturnType<RouteCompiler>>();
  return (route) => {
    const coerced = route.httpPart !== 'body';
    const key = `${coerced ? 'coerced' : 'strict'} ${JSON.stringify(route.schema)}`;
    let validate = compiled.get(key);
    if (validate === undefined) {
      validate = coerced ? coercing(route) : strict(route);
      compiled.set(key, validate);
    }
    return validate;
  };
}

/** Fastify's `compilersFactory.buildValidator`. */
export const buildRequestValidators = ((
  externalSchemas: Record<string, AnySchema> = {},
  serverOptions: object = {},
) => {
  const components = Object.values(externalSchemas);
  const options = JSON.stringify(serverOptions);
  const known = pool.find(
    (entry) =>
      entry.options === options &&
      entry.components.length === components.length &&
      entry.components.every((component, i) => component === components[i]),
  );
  if (known !== undefined) return known.compile;
  const compile = compilerFor(externalSchemas, serverOptions);
  pool.push({ components, options, compile });
  return compile;
}) as unknown as ValidatorFactory;
