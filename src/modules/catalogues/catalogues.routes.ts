// SPEC §4.5: the official catalogues and the JSON Schema of each e-CF type. Reference data changes only with a
// release, so every answer carries an ETag and Cache-Control and a matching If-None-Match gets a 304.
import { Type } from 'typebox';
import {
  Envelope,
  envelope,
  envelopeExample,
  ListEnvelope,
  listEnvelope,
  listExample,
} from '../../platform/http/envelope.js';
import { unwrap } from '../../platform/http/problems.js';
import { companyOf, defineRoute } from '../../platform/http/route.js';
import {
  CatalogueItem,
  CatalogueParams,
  CatalogueQuery,
  CatalogueSummary,
  EcfJsonSchema,
  SchemaParams,
} from './catalogues.schema.js';
import type { CataloguesService } from './catalogues.service.js';
import { notModified, releaseCacheControl } from '../../platform/http/conditional-get.js';

const notModifiedResponse = { 304: Type.Null({ description: 'Not modified: the If-None-Match ETag is current.' }) };

export function catalogueRoutes(catalogues: CataloguesService) {
  return [
    defineRoute({
      method: 'GET',
      url: '/api/v1/catalogos',
      alias: '/api/v1/catalogs',
      auth: { kind: 'apiKey', scope: 'documents:read' },
      docs: {
        operationId: 'listCatalogues',
        summary: 'Every official catalogue: key, title (es/en), number of entries and the DGII material it comes from',
        description: 'ETag and Cache-Control; send If-None-Match to get 304 when nothing changed.',
        tags: ['Catalogues'],
        examples: {
          response: envelopeExample([
            {
              key: 'provincias',
              title: { es: 'Provincias', en: 'Provinces' },
              count: 32,
              source: 'Formato Comprobante Fiscal Electrónico (e-CF) y XSD e-CF',
              version: '1.0',
            },
          ]),
        },
      },
      schema: { response: { 200: Envelope(Type.Array(CatalogueSummary)), ...notModifiedResponse } },
      handler: async (request, reply) => {
        const { catalogues: list, etag } = catalogues.list();
        if (notModified(request, reply, etag, releaseCacheControl)) return reply;
        return reply.send(envelope(request, list));
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/api/v1/catalogos/:catalog',
      alias: '/api/v1/catalogs/:catalog',
      auth: { kind: 'apiKey', scope: 'documents:read' },
      docs: {
        operationId: 'listCatalogueEntries',
        summary:
          'The entries of a catalogue in official order, paged (limit, cursor) and searchable by code or name (q, accents ignored)',
        description: 'An unknown catalogue answers 404 naming the valid keys. ETag and Cache-Control as for the list.',
        tags: ['Catalogues'],
        examples: {
          response: listExample([
            { code: '010000', name: 'DISTRITO NACIONAL' },
            { code: '020000', name: 'PROVINCIA AZUA' },
          ]),
        },
      },
      schema: {
        params: CatalogueParams,
        querystring: CatalogueQuery,
        response: { 200: ListEnvelope(CatalogueItem), ...notModifiedResponse },
      },
      handler: async (request, reply) => {
        const page = unwrap(catalogues.entries(request.params.catalog, request.query));
        if (notModified(request, reply, page.etag, releaseCacheControl)) return reply;
        return reply.send(listEnvelope(request, page.items, page.nextCursor));
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/api/v1/esquemas/ecf/:type',
      alias: '/api/v1/schemas/ecf/:type',
      auth: { kind: 'apiKey', scope: 'documents:read' },
      docs: {
        operationId: 'getEcfJsonSchema',
        summary:
          'The JSON Schema (2020-12) of the document-creation body of an e-CF type, generated from the e-CF model',
        description:
          'Obligations of the type, lengths, patterns and catalogue codes, as the API checks them; DireccionEmisor is optional when the company profile has an address. ' +
          'An unknown type answers 404 naming the ten types. ETag and Cache-Control; send If-None-Match to get 304.',
        tags: ['Catalogues'],
        examples: {
          response: envelopeExample({
            $schema: 'https://json-schema.org/draft/2020-12/schema',
            title: 'e-CF 31: Factura de Crédito Fiscal Electrónica',
            type: 'object',
            properties: { Encabezado: { type: 'object' }, DetallesItems: { type: 'object' } },
            required: ['Encabezado', 'DetallesItems'],
          }),
        },
      },
      schema: { params: SchemaParams, response: { 200: Envelope(EcfJsonSchema), ...notModifiedResponse } },
      handler: async (request, reply) => {
        const { schema, etag } = unwrap(await catalogues.schema(companyOf(request.principal), request.params.type));
        if (notModified(request, reply, etag, releaseCacheControl)) return reply;
        return reply.send(envelope(request, schema));
      },
    }),
  ];
}
