// The cursor of a list sorted newest first: where the previous page ended (its last row's time and id), opaque to
// clients. One format for every list.
import { fail, ok, type Result } from './result.js';

/** How many rows a page holds (DESIGN §4): `limit`, 50 when not given, at most 200. */
export const pageLimits = { default: 50, max: 200 } as const;

export interface CursorPosition {
  createdAt: Date;
  id: string;
}

export function encodeCursor(position: CursorPosition): string {
  return Buffer.from(JSON.stringify([position.createdAt.toISOString(), position.id])).toString('base64url');
}

/** The position a cursor names; undefined for anything this service did not give out. */
export function decodeCursor(cursor: string): CursorPosition | undefined {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as [unknown, unknown];
    if (typeof createdAt !== 'string' || typeof id !== 'string' || Number.isNaN(Date.parse(createdAt)))
      return undefined;
    return { createdAt: new Date(createdAt), id };
  } catch {
    return undefined;
  }
}

/** Where a list's page starts: the first page without a cursor, or a 400 naming a cursor this service did not give. */
export function startOf(cursor: string | undefined): Result<CursorPosition | undefined> {
  if (cursor === undefined) return ok(undefined);
  const position = decodeCursor(cursor);
  if (position === undefined)
    return fail('validation_failed', 'The cursor is not one this service gave.', [
      { pointer: '/cursor', in: 'query', code: 'invalid_cursor', detail: 'Pass the nextCursor of the previous page.' },
    ]);
  return ok(position);
}

/**
 * A page from rows read with one more than `limit` (the extra row only says there is a next page): the rows to show,
 * and the cursor of the next page, null at the end.
 */
export function pageOf<T extends { id: string }>(
  rows: readonly T[],
  limit: number,
  timeOf: (row: T) => Date,
): { rows: T[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    rows: page,
    nextCursor:
      rows.length > limit && last !== undefined ? encodeCursor({ createdAt: timeOf(last), id: last.id }) : null,
  };
}
