// The contract as the reference at /docs shows it (issue 47): the same operations and schemas as /docs-json (which
// stays whole, for generators), in a newcomer's order, and light enough for Swagger UI to draw in a few seconds.
// - Sections: the business tags in the order of the README's quick start (create, send, read, deliver, download),
//   then the API guide's; the English aliases (deprecated) together after them; operations and control plane last.
// - The large component schemas (the ten per-type e-CF bodies, 30 to 70 KB each: most of the 950 KB contract) are
//   served apart at /docs/schemas/<name>; the reference points at them by URL, and Swagger UI fetches one only when
//   an operation that uses it is opened.

type Operation = Record<string, unknown> & { tags?: string[]; deprecated?: boolean };
type PathItem = Record<string, unknown>;
interface Contract {
  paths?: Record<string, PathItem>;
  components?: { schemas?: Record<string, unknown> };
  tags?: { name: string; description?: string }[];
}

export const aliasTag = 'English aliases (deprecated)';

/** The tags of the sections, in the order shown; a tag not listed comes after the listed business tags. */
const businessTags = [
  'Documents',
  'Sending',
  'Sequences',
  'Received documents',
  'Webhooks',
  'Certification',
  'Company',
  'DGII',
  'Catalogues',
  'Taxpayers',
  'Receiver (DGII standard)',
];
const opsTags = ['Operations', 'Control plane'];

/** The quick start's calls, first in their sections (`METHOD path`), in the README's order. */
const quickStart = [
  'post /api/v1/documentos',
  'post /api/v1/documentos/{id}/enviar',
  'get /api/v1/documentos/{id}',
  'post /api/v1/documentos/{id}/entregar',
  'get /api/v1/documentos/{id}/artefactos/{type}',
  'get /api/v1/documentos/{id}/impresion',
];

/** A component schema at least this large (as JSON) is served apart from the reference. */
const largeSchemaChars = 20_000;

const httpMethods = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

export const schemaRoutePrefix = '/docs/schemas/';

/** The reference's document and the large schemas it points at, each as a document of its own. */
export interface ApiReference {
  document: Contract;
  schemas: Map<string, object>;
}

export function buildApiReference(contract: Contract): ApiReference {
  const allSchemas = contract.components?.schemas ?? {};
  const large = new Set(
    Object.entries(allSchemas)
      .filter(([, schema]) => JSON.stringify(schema).length >= largeSchemaChars)
      .map(([name]) => name),
  );
  const schemas = new Map<string, object>();
  for (const name of large) schemas.set(name, { components: { schemas: withDependencies(name, allSchemas) } });
  const referenceSchemas = Object.fromEntries(
    Object.entries(allSchemas).map(([name, schema]) =>
      large.has(name) ? [name, { $ref: `${schemaRoutePrefix}${name}#/components/schemas/${name}` }] : [name, schema],
    ),
  );
  const tags = [...businessTags, aliasTag, ...opsTags];
  return {
    document: {
      ...contract,
      tags: tags.map((name) => ({ name })),
      paths: orderedPaths(contract.paths ?? {}, tags),
      components: { ...contract.components, schemas: referenceSchemas },
    },
    schemas,
  };
}

/** `name` and every component schema it reaches through `#/components/schemas/` references. */
function withDependencies(name: string, all: Record<string, unknown>): Record<string, unknown> {
  const found: Record<string, unknown> = {};
  const pending = [name];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (next in found || !(next in all)) continue;
    found[next] = all[next];
    for (const match of JSON.stringify(all[next]).matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      if (match[1] !== undefined) pending.push(match[1]);
    }
  }
  return found;
}

/** Each operation once, in its section's order: the quick start's calls first, then as the contract lists them. */
function orderedPaths(paths: Record<string, PathItem>, tags: string[]): Record<string, PathItem> {
  const operations = Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => httpMethods.has(method))
      .map(([method, operation]) => {
        const shown = operation as Operation;
        const tag = shown.deprecated === true ? aliasTag : (shown.tags?.[0] ?? '');
        const known = tags.indexOf(tag);
        const section = known >= 0 ? known : tags.indexOf(aliasTag) - 0.5;
        const step = quickStart.indexOf(`${method} ${path}`);
        return { path, method, operation: { ...shown, tags: [tag] }, section, step };
      }),
  );
  const rank = (step: number) => (step >= 0 ? step : quickStart.length);
  const sorted = operations
    .map((operation, order) => ({ ...operation, order }))
    .sort((a, b) => a.section - b.section || rank(a.step) - rank(b.step) || a.order - b.order);
  const ordered: Record<string, PathItem> = {};
  for (const { path, method, operation } of sorted) {
    // A path item's other keys (parameters, summary) come along with its first operation.
    const item = (ordered[path] ??= Object.fromEntries(
      Object.entries(paths[path] ?? {}).filter(([key]) => !httpMethods.has(key)),
    ));
    item[method] = operation;
  }
  return ordered;
}
