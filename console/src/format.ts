// Amounts and times as a Dominican reader expects them: money as DOP from the API's decimal strings (never through
// a float: the string's digits are regrouped, not recomputed), times in GMT-4 as DGII writes them.

/** `1180.5` → `RD$1,180.50`; text that is not a decimal is shown as it came. */
export function dop(amount: string | null | undefined): string {
  if (amount === null || amount === undefined || amount === '') return '—';
  const decimal = /^(-?)(\d+)(?:\.(\d+))?$/.exec(amount.trim());
  if (decimal === null) return amount;
  const [, sign = '', whole = '0', fraction = ''] = decimal;
  const grouped = whole.replace(/^0+(?=\d)/, '').replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${sign}RD$${grouped}.${fraction.padEnd(2, '0')}`;
}

const gmt4 = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'America/Santo_Domingo',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

/** An API timestamp (ISO-8601, UTC) as `dd-MM-yyyy HH:mm:ss` in GMT-4 (America/Santo_Domingo). */
export function gmt4Time(iso: string | null | undefined): string {
  if (iso === null || iso === undefined) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const part = (type: Intl.DateTimeFormatPartTypes) =>
    gmt4.formatToParts(date).find((candidate) => candidate.type === type)?.value ?? '';
  return `${part('day')}-${part('month')}-${part('year')} ${part('hour')}:${part('minute')}:${part('second')}`;
}

const counts = new Intl.NumberFormat('en-US');

/** A count as the amounts are grouped: `100000` → `100,000`. */
export function count(value: number): string {
  return counts.format(value);
}
