import { Type } from 'typebox';
import { Envelope, envelope } from '../../platform/http/envelope.js';
import { unwrap } from '../../platform/http/problems.js';
import { companyOf, defineRoute } from '../../platform/http/route.js';
import { ref } from '../../platform/http/schema-ref.js';
import { ListRangesQuery, RangeView, RegisterRange } from './sequences.schema.js';
import type { SequencesService } from './sequences.service.js';

const RangeParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export function sequenceRoutes(sequences: SequencesService) {
  return [
    defineRoute({
      method: 'POST',
      url: '/api/v1/secuencias/rangos',
      alias: '/api/v1/sequences/ranges',
      auth: { kind: 'apiKey', scope: 'sequences:manage' },
      docs: { operationId: 'registerRange', summary: 'Register an e-NCF range DGII authorised', tags: ['Sequences'] },
      schema: { body: ref(RegisterRange), response: { 201: Envelope(ref(RangeView)) } },
      handler: async (request, reply) => {
        const range = unwrap(await sequences.registerRange(companyOf(request.principal), request.body));
        return reply.code(201).send(envelope(request, range));
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/api/v1/secuencias/rangos',
      alias: '/api/v1/sequences/ranges',
      auth: { kind: 'apiKey', scope: 'sequences:read' },
      docs: {
        operationId: 'listRanges',
        summary: 'List the registered ranges, with their availability',
        tags: ['Sequences'],
      },
      schema: { querystring: ListRangesQuery, response: { 200: Envelope(Type.Array(ref(RangeView))) } },
      handler: async (request) =>
        envelope(request, await sequences.listRanges(companyOf(request.principal), request.query.ecfType)),
    }),
    defineRoute({
      method: 'GET',
      url: '/api/v1/secuencias/rangos/:id',
      alias: '/api/v1/sequences/ranges/:id',
      auth: { kind: 'apiKey', scope: 'sequences:read' },
      docs: {
        operationId: 'getRange',
        summary: 'A range and its availability (total, used, burned, remaining, expiry)',
        tags: ['Sequences'],
      },
      schema: { params: RangeParams, response: { 200: Envelope(ref(RangeView)) } },
      handler: async (request) =>
        envelope(request, unwrap(await sequences.getRange(companyOf(request.principal), request.params.id))),
    }),
  ];
}
