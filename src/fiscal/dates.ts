// DGII dates are Dominican local time, GMT-4 all year (no daylight saving): `dd-MM-yyyy` for dates and
// `dd-MM-yyyy HH:mm:ss` (24-hour) for FechaHoraFirma and the other timestamps (research/ecf-format.md §5).
const offsetMs = -4 * 3_600_000;

function two(value: number): string {
  return String(value).padStart(2, '0');
}

function shifted(instant: Date): Date {
  if (Number.isNaN(instant.getTime())) throw new RangeError('invalid date');
  return new Date(instant.getTime() + offsetMs);
}

/** `dd-MM-yyyy` in GMT-4. */
export function formatDgiiDate(instant: Date): string {
  const local = shifted(instant);
  return `${two(local.getUTCDate())}-${two(local.getUTCMonth() + 1)}-${local.getUTCFullYear()}`;
}

/** `dd-MM-yyyy HH:mm:ss` in GMT-4. */
export function formatDgiiTimestamp(instant: Date): string {
  const local = shifted(instant);
  return `${formatDgiiDate(instant)} ${two(local.getUTCHours())}:${two(local.getUTCMinutes())}:${two(local.getUTCSeconds())}`;
}

export interface CalendarDate {
  day: number;
  month: number;
  year: number;
}

/** A real calendar date written `dd-MM-yyyy` (the XSD also admits one-digit day and month), or undefined. */
export function parseDgiiDate(text: string): CalendarDate | undefined {
  const match = /^(\d{1,2})-(\d{1,2})-(\d{4})$/.exec(text);
  if (match === null) return undefined;
  const [day, month, year] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const probe = new Date(Date.UTC(year, month - 1, day));
  const real = probe.getUTCFullYear() === year && probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day;
  return real ? { day, month, year } : undefined;
}

/** The instant a `dd-MM-yyyy HH:mm:ss` GMT-4 timestamp names, or undefined when it is not a real time. */
export function parseDgiiTimestamp(text: string): Date | undefined {
  const match = /^(\d{1,2}-\d{1,2}-\d{4}) (\d{2}):(\d{2}):(\d{2})$/.exec(text);
  if (match === null) return undefined;
  const date = parseDgiiDate(match[1] ?? '');
  const [hours, minutes, seconds] = [Number(match[2]), Number(match[3]), Number(match[4])];
  if (date === undefined || hours > 23 || minutes > 59 || seconds > 59) return undefined;
  return new Date(Date.UTC(date.year, date.month - 1, date.day, hours, minutes, seconds) - offsetMs);
}

/** Compares calendar dates as DGII does: by the day in GMT-4. Negative when a is earlier. */
export function compareCalendarDates(a: CalendarDate, b: CalendarDate): number {
  return a.year - b.year || a.month - b.month || a.day - b.day;
}

export function calendarDateOf(instant: Date): CalendarDate {
  const local = shifted(instant);
  return { day: local.getUTCDate(), month: local.getUTCMonth() + 1, year: local.getUTCFullYear() };
}

/** `yyyy-MM-dd` (ISO 8601), the form a calendar date is kept in by the database and in archive paths. */
export function formatIsoDate(date: CalendarDate): string {
  return `${String(date.year).padStart(4, '0')}-${two(date.month)}-${two(date.day)}`;
}

/** A `dd-MM-yyyy` date (FechaEmision) as `yyyy-MM-dd`, or undefined when it is not a real date. */
export function isoDateOfDgiiDate(text: string): string | undefined {
  const date = parseDgiiDate(text);
  return date === undefined ? undefined : formatIsoDate(date);
}

/** The calendar date of `instant` in GMT-4, `yyyy-MM-dd`. */
export function isoDateOf(instant: Date): string {
  return formatIsoDate(calendarDateOf(instant));
}

/** The instant a GMT-4 calendar day `yyyy-MM-dd` begins; undefined for anything else. */
export function startOfIsoDate(iso: string): Date | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(iso)) return undefined;
  const instant = new Date(`${iso}T00:00:00-04:00`);
  return Number.isNaN(instant.getTime()) || isoDateOf(instant) !== iso ? undefined : instant;
}
