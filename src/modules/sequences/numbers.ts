// e-NCF numbers and the dates of their ranges, one way for the whole module: an e-NCF is E, the type, ten digits;
// a range's expiry is kept as a calendar date (yyyy-mm-dd) and shown as DGII writes it (dd-MM-yyyy).
import { calendarDateOf } from '../../fiscal/dates.js';
import type { CalendarDate } from '../../fiscal/dates.js';
import type { Clock } from '../../platform/clock.js';

export { encfOf } from '../../fiscal/encf.js';


export function sequenceOf(encf: string): number {
  return Number(encf.slice(3));
}

/** yyyy-mm-dd, the database's form of a calendar date. */
export function isoDate(date: CalendarDate): string {
  return `${String(date.year).padStart(4, '0')}-${String(date.month).padStart(2, '0')}-${String(date.day).padStart(2, '0')}`;
}

/** Today in Santo Domingo (GMT-4), yyyy-mm-dd. */
export function isoToday(clock: Clock): string {
  return isoDate(calendarDateOf(clock.now()));
}

/** dd-MM-yyyy, DGII's form, of a yyyy-mm-dd date. */
export function dgiiDate(iso: string): string {
  const [year, month, day] = iso.split('-');
  return `${day ?? ''}-${month ?? ''}-${year ?? ''}`;
}
