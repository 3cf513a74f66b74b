import { Type, type Static } from 'typebox';
import { allocationSchemas } from './allocations.schema.js';

const ecfTypes = ['31', '32', '33', '34', '41', '43', '44', '45', '46', '47'];

export const RegisterRange = Type.Object(
  {
    ecfType: Type.String({ enum: ecfTypes, description: 'The e-CF type the range is authorised for.' }),
    from: Type.String({
      pattern: '^E\\d{12}$',
      description: 'First e-NCF of the range, as DGII authorised it (e.g. E310000000001).',
    }),
    to: Type.String({ pattern: '^E\\d{12}$', description: 'Last e-NCF of the range (inclusive).' }),
    expiresOn: Type.Optional(
      Type.String({
        pattern: '^\\d{2}-\\d{2}-\\d{4}$',
        description:
          'FechaVencimientoSecuencia, dd-MM-yyyy, as DGII gives it. Required for every type except 32 and 34, which have none.',
      }),
    ),
  },
  {
    $id: 'RegisterRange',
    additionalProperties: false,
  },
);
export type RegisterRange = Static<typeof RegisterRange>;

export const RangeAvailability = Type.Object(
  {
    total: Type.Integer({ description: 'Numbers in the range.' }),
    used: Type.Integer({
      description: 'Numbers handed to documents (including those devices reported from their offline blocks).',
    }),
    reserved: Type.Integer({
      description: 'Numbers held by active offline blocks and not yet reported used; nobody else gets them.',
    }),
    burned: Type.Integer({ description: 'Numbers consumed by failures; they await annulment.' }),
    annulled: Type.Integer({ description: 'Numbers DGII annulled (accepted ANECF).' }),
    withdrawn: Type.Integer({
      description: 'Numbers never handed out, held by an annulment request that DGII has not answered yet.',
    }),
    remaining: Type.Integer({
      description: 'Numbers never handed out. total = used + reserved + burned + annulled + withdrawn + remaining.',
    }),
  },
  { $id: 'RangeAvailability' },
);

export const RangeView = Type.Object(
  {
    id: Type.String(),
    ecfType: Type.String(),
    from: Type.String({ description: 'First e-NCF.' }),
    to: Type.String({ description: 'Last e-NCF.' }),
    next: Type.Union([Type.String(), Type.Null()], {
      description: 'The e-NCF the next document of this range gets; null when exhausted.',
    }),
    expiresOn: Type.Union([Type.String(), Type.Null()], {
      description: 'FechaVencimientoSecuencia, dd-MM-yyyy; null for types 32 and 34.',
    }),
    status: Type.Union([Type.Literal('active'), Type.Literal('exhausted'), Type.Literal('expired')]),
    availability: RangeAvailability,
    createdAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'RangeView' },
);
export type RangeView = Static<typeof RangeView>;

export const ListRangesQuery = Type.Object(
  { ecfType: Type.Optional(Type.String({ enum: ecfTypes })) },
  { additionalProperties: false },
);

export const sequenceSchemas = [RegisterRange, RangeAvailability, RangeView, ...allocationSchemas];
