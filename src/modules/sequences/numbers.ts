// e-NCF numbers and the dates of their ranges, one way for the whole module: an e-NCF is E, the type, ten digits;
// a range's expiry is kept as a calendar date (yyyy-mm-dd) and shown as DGII writes it (dd-MM-yyyy).
import { isoDateOf } from '../../fiscal/dates.js';
import type { Clock } from '../../platform/clock.js';

export { encfOf } from '../../fiscal/encf.js';

export function sequenceOf(encf: string): number {
  return Number(encf.slice(3));
}

/** Today in Santo Domingo (GMT-4), yyyy-mm-dd. */
export function isoToday(clock: Clock): string {
  return isoDateOf(clock.now());
}

/** dd-MM-yyyy, DGII's form, of a yyyy-mm-dd date. */
export function dgiiDate(iso: string): string {
  const [year, month, day] = iso.split('-');
  return `${day ?? ''}-${month ?? ''}-${year ?? ''}`;
}
