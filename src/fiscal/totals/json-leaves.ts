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
