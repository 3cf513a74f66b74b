// One reading of PostgreSQL values for both back ends: PGlite and `pg` disagree on int8 and numeric
// (research/stack.md, pitfall 17). Money stays a decimal string; counts become numbers.
export const INT8_OID = 20;
export const NUMERIC_OID = 1700;
export const DATE_OID = 1082;

export function parseInt8(value: string): number {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed)) throw new RangeError(`int8 value ${value} does not fit a JavaScript number`);
  return parsed;
}

export function parseNumeric(value: string): string {
  return value;
}

/** A calendar date stays `yyyy-mm-dd`: it has no time zone, and a JS Date made of it would move it to one. */
export function parseDate(value: string): string {
  return value;
}
