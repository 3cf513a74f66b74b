import { Type } from 'typebox';
import { envelope, Envelope, envelopeExample, listExample } from '../../platform/http/envelope.js';
import { unwrap } from '../../platform/http/problems.js';
import { companyOf, defineRoute } from '../../platform/http/route.js';
import { ref } from '../../platform/http/schema-ref.js';
import { ListRangesQuery, RangeView, RegisterRange } from './sequences.schema.js';
import type { SequencesService } from './sequences.service.js';

const rangeExample = {
  id: 'rng_6KE2G2LgtV4myyto87qT',
  ecfType: '31',
  from: 'E310000000001',
  to: 'E310000001000',
  next: 'E310000000001',
  expiresOn: '31-12-2027',
  status: 'active',
  availability: { total: 1000, used: 0, reserved: 0, burned: 0, annulled: 0, withdrawn: 0, remaining: 1000 },
  createdAt: '2026-11-27T14:30:00.000Z',
};

const RangeParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export function sequenceRoutes(sequences: SequencesService) {
  return [
    defineRoute({
      method: 'POST',
      url: '/api/v1/secuencias/rangos',
      alias: '/api/v1/sequences/ranges',
      auth: { kind: 'apiKey', scope: 'sequences:manage' },
      docs: {
        operationId: 'registerRange',
        summary: 'Register an e-NCF range DGII authorised',
        tags: ['Sequences'],
        examples: {
          request: { ecfType: '31', from: 'E310000000001', to: 'E310000001000', expiresOn: '31-12-2027' },
          response: envelopeExample(rangeExample),
        },
      },
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
        examples: {
          response: listExample([
            {
              ...rangeExample,
              next: 'E310000000043',
              availability: { ...rangeExample.availability, used: 42, remaining: 958 },
            },
          ]),
        },
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
        examples: { response: envelopeExample(rangeExample) },
      },
      schema: { params: RangeParams, response: { 200: Envelope(ref(RangeView)) } },
      handler: async (request) =>
        envelope(request, unwrap(await sequences.getRange(companyOf(request.principal), request.params.id))),
    }),
  ];
}
