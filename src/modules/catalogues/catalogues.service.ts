// The reference data of SPEC §4.5: the official catalogues, paged and searchable, and the JSON Schema of each
// e-CF type's creation body. All of it is derived from the e-CF model at start; only a schema depends on the
// caller's company (whether its profile supplies DireccionEmisor).
import { catalogueListing, type Catalogue, type CatalogueItem } from '../../fiscal/model/catalogues-listing.js';
import { ecfTypes, type EcfType } from '../../fiscal/model/ecf-model-types.js';
import { ecfModel, isEcfType } from '../../fiscal/model/ecf-model.js';
import { ecfJsonSchema, type JsonSchema } from '../../fiscal/model/json-schema.js';
import { decodeCursor, encodeCursor, pageLimits } from '../../platform/paging.js';
import { fail, ok, type Result } from '../../platform/result.js';
import type { CatalogueQuery, CatalogueSummary } from './catalogues.schema.js';
import { ecfExample } from './ecf-examples.js';
import { etagOf } from '../../platform/http/conditional-get.js';

export const cataloguesUrl = '/api/v1/catalogos';

export interface CataloguePage {
  items: CatalogueItem[];
  nextCursor: string | null;
  etag: string;
}

export interface CataloguesService {
  list(): { catalogues: CatalogueSummary[]; etag: string };
  entries(key: string, query: CatalogueQuery): Result<CataloguePage>;
  schema(companyId: string, type: string): Promise<Result<{ schema: JsonSchema; etag: string }>>;
}

/** What compose-document.ts fills in when the client leaves it out: Version, the Emisor from the company profile
 * and today's FechaEmision, Totales and the OtraMoneda totals computed from the lines (withDefaults is shallow: a
 * group sent in part keeps its own mandatory children). DireccionEmisor only when the profile has an address. */
const alwaysDefaulted = [
  'Encabezado/Version',
  'Encabezado/Emisor/RNCEmisor',
  'Encabezado/Emisor/RazonSocialEmisor',
  'Encabezado/Emisor/FechaEmision',
  'Encabezado/Totales',
];

function defaultedPaths(type: EcfType, hasAddress: boolean): Set<string> {
  const paths = new Set(alwaysDefaulted);
  // The Emisor may be left out whole only when everything mandatory in it has a default.
  if (hasAddress) paths.add('Encabezado/Emisor/DireccionEmisor').add('Encabezado/Emisor');
  for (const totals of ['Totales', 'OtraMoneda']) {
    for (const element of ecfModelChildren(type, `Encabezado/${totals}`)) {
      if (element !== 'Encabezado/OtraMoneda/TipoMoneda' && element !== 'Encabezado/OtraMoneda/TipoCambio')
        paths.add(element);
    }
  }
  return paths;
}

/** The JSON Schema of a type's creation body for a company with or without an address in its profile. */
export function ecfCreationSchema(type: EcfType, hasAddress: boolean): JsonSchema {
  return ecfJsonSchema(type, {
    defaulted: defaultedPaths(type, hasAddress),
    cataloguesUrl,
    examples: [ecfExample(type)],
  });
}

function ecfModelChildren(type: EcfType, path: string): string[] {
  const [first, second] = path.split('/');
  const group = ecfModel(type)
    .children.find((e) => e.name === first)
    ?.children?.find((e) => e.name === second);
  return (group?.children ?? []).map((e) => e.path);
}

/** Lower case without accents: "Peravía" and "peravia" are the same query. */
function folded(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

// Cursors are the shared format (platform/paging.ts): the position is the last code served; the time is the listing's
// version date, the same for every cursor of this listing.
const listingDate = new Date('2025-10-01T00:00:00.000Z');

export function createCataloguesService(deps: {
  companies: { get(companyId: string): Promise<{ address: string | null } | undefined> };
}): CataloguesService {
  const byKey = new Map(catalogueListing.map((catalogue) => [catalogue.key, catalogue]));
  const summaries: CatalogueSummary[] = catalogueListing.map((c) => ({
    key: c.key,
    title: { ...c.title },
    count: c.entries.length,
    source: c.source,
    version: c.version,
  }));
  const listEtag = etagOf(summaries);
  const searchable = new Map(
    catalogueListing.map((c) => [c.key, c.entries.map((entry) => folded(`${entry.name} ${entry.abbreviation ?? ''}`))]),
  );
  const schemas = new Map<string, { schema: JsonSchema; etag: string }>();

  function unknownCatalogue(key: string) {
    const keys = [...byKey.keys()].join(', ');
    return fail('route_not_found', `No catalogue ${key}. The catalogues are: ${keys}.`, [
      { pointer: '/catalog', in: 'params', code: 'unknown_catalogue', detail: `one of ${keys}` },
    ]);
  }

  function page(catalogue: Catalogue, query: CatalogueQuery): Result<CataloguePage> {
    const texts = searchable.get(catalogue.key) ?? [];
    const needle = query.q === undefined ? undefined : folded(query.q.trim());
    // A code is matched from its start (0201: the districts of Azua's first municipality), a name anywhere.
    const matching = catalogue.entries.filter(
      (entry, index) =>
        needle === undefined || folded(entry.code).startsWith(needle) || (texts[index] ?? '').includes(needle),
    );
    let start = 0;
    if (query.cursor !== undefined) {
      const position = decodeCursor(query.cursor);
      const index = position === undefined ? -1 : matching.findIndex((entry) => entry.code === position.id);
      if (index < 0)
        return fail('validation_failed', 'The cursor was not given for this catalogue and query.', [
          {
            pointer: '/cursor',
            in: 'query',
            code: 'invalid_cursor',
            detail: 'pass meta.nextCursor of the previous page, with the same q',
          },
        ]);
      start = index + 1;
    }
    const limit = query.limit ?? pageLimits.default;
    const items = matching.slice(start, start + limit).map((entry) => ({ ...entry }));
    const last = items[items.length - 1];
    const nextCursor =
      start + limit < matching.length && last !== undefined
        ? encodeCursor({ createdAt: listingDate, id: last.code })
        : null;
    return ok({ items, nextCursor, etag: etagOf([catalogue.key, catalogue.version, items, nextCursor]) });
  }

  return {
    list: () => ({ catalogues: summaries, etag: listEtag }),

    entries(key, query) {
      const catalogue = byKey.get(key);
      return catalogue === undefined ? unknownCatalogue(key) : page(catalogue, query);
    },

    async schema(companyId, type) {
      if (!isEcfType(type)) {
        return fail('route_not_found', `No e-CF type ${type}. The types are: ${ecfTypes.join(', ')}.`, [
          { pointer: '/type', in: 'params', code: 'unknown_ecf_type', detail: `one of ${ecfTypes.join(', ')}` },
        ]);
      }
      const company = await deps.companies.get(companyId);
      const hasAddress = company?.address !== null && company?.address !== undefined && company.address !== '';
      const cacheKey = `${type}:${String(hasAddress)}`;
      let entry = schemas.get(cacheKey);
      if (entry === undefined) {
        const schema = ecfCreationSchema(type, hasAddress);
        entry = { schema, etag: etagOf(schema) };
        schemas.set(cacheKey, entry);
      }
      return ok(entry);
    },
  };
}
