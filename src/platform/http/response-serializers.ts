// Fastify's response serializers, built as its default compiler builds them (fast-json-stringify), but cheaper:
// - fast-json-stringify checks every shared schema it is given again for each serializer it builds, and Fastify
//   gives it all of them for every route and status, so a start checked the components routes × components times
//   (a CPU profile of a test app's start: three quarters of it). Here a serializer gets only the components its
//   schema reaches through $ref.
// - a schema's serializer depends only on that schema's text and those components, which are module constants: it is
//   built once per process and shared by every app the process builds (the test suite builds hundreds). Keyed by the
//   text, not the object: route definitions make their response schemas afresh for each app (~120 per app).
import fastJsonStringify from 'fast-json-stringify';

type Schema = Record<string, unknown>;
type Serialize = (value: unknown) => string;
// fast-json-stringify's types want each schema narrowed to its kind; these are Fastify's, taken as they come.
const build = fastJsonStringify as unknown as (schema: Schema, options: object) => Serialize;

interface Built {
  options: string;
  components: Schema[];
  serialize: Serialize;
}

const builtBySchema = new Map<string, Built[]>();

/** The `$ref` targets in a schema (the part before any `#`), at any depth. */
function refsIn(value: unknown, found: Set<string>): Set<string> {
  if (Array.isArray(value)) for (const item of value) refsIn(item, found);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string') found.add(inner.split('#')[0] ?? '');
      else refsIn(inner, found);
    }
  }
  return found;
}

/** The components a schema reaches, or undefined when one of its references names none of them. */
function reachedComponents(schema: Schema, components: Record<string, Schema>): Schema[] | undefined {
  const reached = new Map<string, Schema>();
  const pending = [...refsIn(schema, new Set())];
  for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
    if (id === '' || reached.has(id)) continue; // '': a reference inside the schema itself
    const component = components[id];
    if (component === undefined) return undefined;
    reached.set(id, component);
    pending.push(...refsIn(component, new Set()));
  }
  return [...reached.values()];
}

function sameSchemas(a: readonly Schema[], b: readonly Schema[]): boolean {
  return a.length === b.length && a.every((schema, i) => schema === b[i]);
}

/** Fastify's `compilersFactory.buildSerializer`. */
export function buildResponseSerializers(externalSchemas: unknown = {}, serializerOptions: object = {}) {
  const components = externalSchemas as Record<string, Schema>;
  const options = JSON.stringify(serializerOptions);
  return ({ schema: routeSchema }: { schema?: unknown }): Serialize => {
    const schema = (routeSchema ?? {}) as Schema;
    const reached = reachedComponents(schema, components);
    // A reference this walk cannot follow: build as Fastify would, with every component.
    if (reached === undefined) {
      return build(schema, { ...serializerOptions, schema: components });
    }
    const text = JSON.stringify(schema);
    const built = builtBySchema.get(text) ?? [];
    const known = built.find((entry) => entry.options === options && sameSchemas(entry.components, reached));
    if (known !== undefined) return known.serialize;
    const byId = Object.fromEntries(reached.map((component) => [component['$id'] as string, component]));
    const serialize = build(schema, { ...serializerOptions, schema: byId });
    builtBySchema.set(text, [...built, { options, components: reached, serialize }]);
    return serialize;
  };
}
