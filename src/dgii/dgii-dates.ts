// The date formats DGII's services answer in, read into instants. DGII's local time is GMT-4 all year
// (America/Santo_Domingo has no DST; research/dgii-protocol.md §9.5).
import type { MaintenanceWindow } from './outcomes.js';

const gmtMinus4Ms = 4 * 3_600_000;

function twelveHour(hours: number, meridiem: string): number {
  return (hours % 12) + (meridiem.toUpperCase() === 'PM' ? 12 : 0);
}

/** consultaresultado's fechaRecepcion, US style in GMT-4: "10/8/2026 11:22:49 AM" (§2). */
export function parseUsDateTime(text: string | null | undefined): Date | null {
  if (typeof text !== 'string') return null;
  const match = /^(\d{1,2})\/(\d{1,2})\/(\d{4}) (\d{1,2}):(\d{2}):(\d{2}) ?(AM|PM)$/i.exec(text.trim());
  if (match === null) return null;
  const [month, day, year, hours, minutes, seconds] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || day > 31 || hours < 1 || hours > 12) return null;
  return new Date(Date.UTC(year, month - 1, day, twelveHour(hours, match[7] ?? 'AM'), minutes, seconds) + gmtMinus4Ms);
}

/** The token's expira/expedido: universal time, `yyyy-MM-ddTHH:mm:ssZ` (DT); any ISO instant with a zone is taken. */
export function parseUniversal(text: unknown): Date | null {
  if (
    typeof text !== 'string' ||
    !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text.trim())
  )
    return null;
  const instant = new Date(text.trim());
  return Number.isNaN(instant.getTime()) ? null : instant;
}

function minutesOfDay(text: string): number | undefined {
  const match = /^(\d{1,2}):(\d{2}) ?(AM|PM)$/i.exec(text.trim());
  if (match === null) return undefined;
  const hours = Number(match[1]);
  const minutes = Number(match[2]);
  if (hours < 1 || hours > 12 || minutes > 59) return undefined;
  return twelveHour(hours, match[3] ?? 'AM') * 60 + minutes;
}

/** One announced window (`horaInicio` "9:00 AM", `horaFin` "12:00 PM", `dias` ["06-08-2020"], GMT-4) as one span per
 * day; a window that ends at or before it starts runs past midnight. Unreadable days or times are left out. */
export function windowsOf(horaInicio: string, horaFin: string, dias: readonly string[]): MaintenanceWindow[] {
  const start = minutesOfDay(horaInicio);
  const end = minutesOfDay(horaFin);
  if (start === undefined || end === undefined) return [];
  const spans: MaintenanceWindow[] = [];
  for (const day of dias) {
    const match = /^(\d{2})-(\d{2})-(\d{4})$/.exec(day.trim());
    if (match === null) continue;
    const midnight = Date.UTC(Number(match[3]), Number(match[2]) - 1, Number(match[1])) + gmtMinus4Ms;
    const endMinutes = end <= start ? end + 24 * 60 : end;
    spans.push({ start: new Date(midnight + start * 60_000), end: new Date(midnight + endMinutes * 60_000) });
  }
  return spans.sort((a, b) => a.start.getTime() - b.start.getTime());
}
