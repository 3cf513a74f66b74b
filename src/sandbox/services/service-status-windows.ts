// Maintenance windows as DGII announces them (DT "Obtener ventanas mantenimiento"): per environment, a time span
// ("9:00 AM" to "12:00 PM", Dominican time) on listed days (dd-MM-yyyy). Kept in the sandbox settings under
// `maintenance_windows`, exactly in DGII's shape, so obtenerventanasmantenimiento returns them as stored.
import { formatDgiiDate } from '../../fiscal/dates.js';
import type { SandboxDb } from '../state/schema.js';
import { readSetting } from '../state/settings.js';

export const maintenanceWindowsSetting = 'maintenance_windows';

/** DGII's environment names in the status service, without accents as DGII writes them. */
export const statusEnvironments = ['PreCertificacion', 'Produccion', 'Certificacion'] as const;
export type StatusEnvironment = (typeof statusEnvironments)[number];

export interface MaintenanceWindow {
  ambiente: StatusEnvironment;
  horaInicio: string;
  horaFin: string;
  dias: string[];
}

const clockTime = /^(\d{1,2}):(\d{2}) ?(AM|PM)$/i;

/** Minutes after midnight of `9:00 AM`, or undefined when it is not such a time. */
function minutesOf(text: string): number | undefined {
  const match = clockTime.exec(text.trim());
  if (match === null) return undefined;
  const [hours, minutes] = [Number(match[1]), Number(match[2])];
  if (hours < 1 || hours > 12 || minutes > 59) return undefined;
  const pm = (match[3] ?? '').toUpperCase() === 'PM';
  return ((hours % 12) + (pm ? 12 : 0)) * 60 + minutes;
}

function isWindow(value: unknown): value is MaintenanceWindow {
  if (typeof value !== 'object' || value === null) return false;
  const window = value as Record<string, unknown>;
  return (
    (statusEnvironments as readonly unknown[]).includes(window['ambiente']) &&
    typeof window['horaInicio'] === 'string' &&
    minutesOf(window['horaInicio']) !== undefined &&
    typeof window['horaFin'] === 'string' &&
    minutesOf(window['horaFin']) !== undefined &&
    Array.isArray(window['dias']) &&
    window['dias'].every((day) => typeof day === 'string' && /^\d{2}-\d{2}-\d{4}$/.test(day))
  );
}

/** The stored windows; none by default. Entries not in DGII's shape are left out rather than shown broken. */
export async function maintenanceWindows(db: SandboxDb): Promise<MaintenanceWindow[]> {
  const stored = await readSetting<unknown>(db, maintenanceWindowsSetting);
  return Array.isArray(stored) ? stored.filter(isWindow) : [];
}

/** Whether `now` falls inside one of the environment's windows (days and hours in GMT-4). */
export function inWindow(windows: readonly MaintenanceWindow[], ambiente: StatusEnvironment, now: Date): boolean {
  const today = formatDgiiDate(now);
  const local = new Date(now.getTime() - 4 * 3_600_000);
  const minute = local.getUTCHours() * 60 + local.getUTCMinutes();
  return windows.some((window) => {
    if (window.ambiente !== ambiente || !window.dias.includes(today)) return false;
    const start = minutesOf(window.horaInicio) ?? 0;
    const end = minutesOf(window.horaFin) ?? 0;
    return minute >= start && minute < end;
  });
}
