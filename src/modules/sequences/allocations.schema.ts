// Offline blocks of e-NCF: the request that reserves one, and how a block reads back.
import { Type, type Static } from 'typebox';
import { ecfTypes } from '../../fiscal/model/ecf-model-types.js';
import { ListQuery } from '../../platform/http/list-query.js';

export const maxBlockSize = 10_000;

const statuses = ['active', 'exhausted', 'cancelled', 'expired'];

export const ReserveAllocation = Type.Object(
  {
    ecfType: Type.String({ enum: [...ecfTypes], description: 'The e-CF type of the numbers.' }),
    deviceId: Type.String({
      minLength: 1,
      maxLength: 100,
      pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]*$',
      description:
        'The device (point of sale) that will issue these numbers while offline; letters, digits, `.`, `_`, `:`, `-`.',
    }),
    count: Type.Integer({
      minimum: 1,
      maximum: maxBlockSize,
      description:
        'How many consecutive numbers. A block comes from one range: when the range in use has fewer numbers left, the request is refused (409 allocation_exceeds_range, saying how many are left) rather than split.',
    }),
    expiresAt: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          'When the block lapses (ISO-8601). After it, the numbers the device did not report become burned (awaiting annulment). Omitted: the block lasts until cancelled or used up.',
      }),
    ),
  },
  {
    $id: 'ReserveAllocation',
    additionalProperties: false,
  },
);
export type ReserveAllocation = Static<typeof ReserveAllocation>;

export const AllocationView = Type.Object(
  {
    id: Type.String(),
    status: Type.Union(
      [Type.Literal('active'), Type.Literal('exhausted'), Type.Literal('cancelled'), Type.Literal('expired')],
      {
        description:
          'active: the device may issue them; exhausted: every number reported used; cancelled / expired: the unused numbers were burned.',
      },
    ),
    ecfType: Type.String(),
    deviceId: Type.String(),
    rangeId: Type.String({ description: 'The range the numbers come from.' }),
    from: Type.String({ description: 'First e-NCF of the block.' }),
    to: Type.String({ description: 'Last e-NCF of the block (inclusive).' }),
    count: Type.Integer({ description: 'Numbers in the block.' }),
    used: Type.Integer({ description: 'Numbers the device reported issued (signed XML submitted).' }),
    remaining: Type.Integer({ description: 'Numbers the device may still issue; 0 once the block has ended.' }),
    burned: Type.Integer({ description: 'Numbers burned when the block was cancelled or expired.' }),
    expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    createdAt: Type.String({ format: 'date-time' }),
    endedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When the block was cancelled, expired or used up.',
    }),
  },
  { $id: 'AllocationView' },
);
export type AllocationView = Static<typeof AllocationView>;

export const ListAllocationsQuery = ListQuery({
  status: Type.Optional(Type.String({ enum: statuses })),
  deviceId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
});
export type ListAllocationsQuery = Static<typeof ListAllocationsQuery>;

export const AllocationParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const allocationSchemas = [ReserveAllocation, AllocationView];
