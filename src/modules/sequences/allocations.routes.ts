// Offline blocks of e-NCF (/api/v1/secuencias/asignaciones): reserve, list, read and cancel.
import {
  envelope,
  Envelope,
  envelopeExample,
  listEnvelope,
  ListEnvelope,
  listExample,
} from '../../platform/http/envelope.js';
import { unwrap } from '../../platform/http/problems.js';
import { companyOf, defineRoute } from '../../platform/http/route.js';
import { ref } from '../../platform/http/schema-ref.js';
import { AllocationParams, AllocationView, ListAllocationsQuery, ReserveAllocation } from './allocations.schema.js';
import type { SequencesService } from './sequences.service.js';

const allocationExample = {
  id: 'alc_IJfpiUehnPLfkkyCRy2u',
  status: 'active',
  ecfType: '32',
  deviceId: 'caja-01',
  rangeId: 'rng_VtpBuZ8PUiuu2hnnv5mF',
  from: 'E320000000002',
  to: 'E320000000501',
  count: 500,
  used: 0,
  remaining: 500,
  burned: 0,
  expiresAt: '2028-01-01T03:59:59.000Z',
  createdAt: '2026-11-27T14:30:00.000Z',
  endedAt: null,
};

export function allocationRoutes(sequences: SequencesService) {
  const { allocations } = sequences;
  return [
    defineRoute({
      method: 'POST',
      url: '/api/v1/secuencias/asignaciones',
      alias: '/api/v1/sequences/allocations',
      auth: { kind: 'apiKey', scope: 'sequences:allocate' },
      docs: {
        operationId: 'reserveAllocation',
        summary: 'Reserve a block of consecutive e-NCF for a device that issues offline',
        description:
          'The block comes from the first usable range of the type, in order, and from that range only: when it has fewer numbers left than `count`, the answer is 409 `allocation_exceeds_range` saying how many are left. Nobody else gets the numbers; those the device has not reported when the block is cancelled or expires become burned (awaiting annulment).',
        tags: ['Sequences'],
        examples: {
          request: { ecfType: '32', deviceId: 'caja-01', count: 500, expiresAt: '2027-12-31T23:59:59-04:00' },
          response: envelopeExample(allocationExample),
        },
      },
      schema: { body: ref(ReserveAllocation), response: { 201: Envelope(ref(AllocationView)) } },
      handler: async (request, reply) => {
        const block = unwrap(await allocations.reserve(companyOf(request.principal), request.body));
        return reply.code(201).send(envelope(request, block));
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/api/v1/secuencias/asignaciones',
      alias: '/api/v1/sequences/allocations',
      auth: { kind: 'apiKey', scope: 'sequences:read' },
      docs: {
        operationId: 'listAllocations',
        summary: 'List the offline blocks, newest first (filters status, deviceId)',
        tags: ['Sequences'],
        examples: { response: listExample([{ ...allocationExample, used: 37, remaining: 463 }]) },
      },
      schema: { querystring: ListAllocationsQuery, response: { 200: ListEnvelope(ref(AllocationView)) } },
      handler: async (request) => {
        const page = unwrap(await allocations.list(companyOf(request.principal), request.query));
        return listEnvelope(request, page.items, page.nextCursor);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/api/v1/secuencias/asignaciones/:id',
      alias: '/api/v1/sequences/allocations/:id',
      auth: { kind: 'apiKey', scope: 'sequences:read' },
      docs: {
        operationId: 'getAllocation',
        summary: 'An offline block: its numbers, how many were used, how many are left',
        tags: ['Sequences'],
        examples: { response: envelopeExample({ ...allocationExample, used: 37, remaining: 463 }) },
      },
      schema: { params: AllocationParams, response: { 200: Envelope(ref(AllocationView)) } },
      handler: async (request) =>
        envelope(request, unwrap(await allocations.get(companyOf(request.principal), request.params.id))),
    }),
    defineRoute({
      method: 'POST',
      url: '/api/v1/secuencias/asignaciones/:id/cancelar',
      alias: '/api/v1/sequences/allocations/:id/cancel',
      auth: { kind: 'apiKey', scope: 'sequences:manage' },
      docs: {
        operationId: 'cancelAllocation',
        summary: 'Cancel an offline block: its unused numbers become burned',
        description:
          'Only an active block can be cancelled; a block that has already ended (cancelled, expired or used up) answers 409 `allocation_not_active` and changes nothing.',
        tags: ['Sequences'],
        examples: {
          response: envelopeExample({
            ...allocationExample,
            status: 'cancelled',
            used: 37,
            remaining: 0,
            burned: 463,
            endedAt: '2026-11-28T22:00:00.000Z',
          }),
        },
      },
      schema: { params: AllocationParams, response: { 200: Envelope(ref(AllocationView)) } },
      handler: async (request) =>
        envelope(request, unwrap(await allocations.cancel(companyOf(request.principal), request.params.id))),
    }),
  ];
}
