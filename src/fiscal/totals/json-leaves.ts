// Reading the leaves of DGII-shaped JSON, which may come from a client or from an XML parser.
import type { Repeated } from './totals-types.js';

export function asList<T>(value: Repeated<T> | undefined): readonly T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? (value as readonly T[]) : [value as T];
}

export function leafText(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/**
 * The client's JSON with `null` read as absent, as the rest of the build reads it (an e-CF has no null): a member
 * that is null is left out, and a null entry of a list becomes an empty group, so the list keeps its indexes and
 * the entry's findings their pointers. The readers below test for `undefined` only.
 */
export function nullsAsAbsent(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((entry: unknown) => (entry === null ? {} : nullsAsAbsent(entry)));
  if (typeof value !== 'object' || value === null) return value;
  const present: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) if (member !== null) present[key] = nullsAsAbsent(member);
  return present;
}
