import { Type, type TProperties } from 'typebox';
import { pageLimits } from '../paging.js';

/** The query of every list: its own filters, then `limit` and the opaque `cursor` (DESIGN §4, platform/paging.ts). */
export function ListQuery<Filters extends TProperties>(filters: Filters) {
  return Type.Object(
    {
      ...filters,
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: pageLimits.max, default: pageLimits.default })),
      cursor: Type.Optional(Type.String({ maxLength: 200 })),
    },
    { additionalProperties: false },
  );
}
