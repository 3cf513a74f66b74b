// DGII's status service (statusecf.dgii.gov.do; DT "Estatus Servicios"): verificarestado says whether an
// environment's services are "Disponible" or in maintenance ("No Disponible"), obtenerventanasmantenimiento lists
// the announced windows per environment as days and 12-hour times in GMT-4. Read here into instants. Pure.
import type { FiscalEnvironment } from '../fiscal/environment.js';
import { windowsOf } from './dgii-dates.js';
import type { MaintenanceWindow, ServiceStatus, Transient } from './outcomes.js';
import type { Answer } from './responses.js';

/** verificarestado's `ambiente` number and the name the windows use (DT): 1 PreCertificación, 2 Producción, 3 Certificación. */
export const statusAmbiente: Record<FiscalEnvironment, { number: string; name: string }> = {
  TEST: { number: '1', name: 'PreCertificacion' },
  PRODUCTION: { number: '2', name: 'Produccion' },
  CERT: { number: '3', name: 'Certificacion' },
};

/** DGII writes these names with and without accents ("Producción", "Produccion"). */
function plain(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .trim()
    .toLowerCase();
}

function jsonOf(answer: Answer): unknown {
  try {
    return JSON.parse(answer.body.toString('utf8').replace(/^\uFEFF/, '')) as unknown;
  } catch {
    return undefined;
  }
}

interface AnnouncedWindow {
  ambiente: string;
  horaInicio: string;
  horaFin: string;
  dias: unknown[];
}

function isAnnouncedWindow(value: unknown): value is AnnouncedWindow {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Record<string, unknown>;
  return (
    typeof entry['ambiente'] === 'string' &&
    typeof entry['horaInicio'] === 'string' &&
    typeof entry['horaFin'] === 'string' &&
    Array.isArray(entry['dias'])
  );
}

export function readServiceStatus(
  verified: Answer,
  announced: Answer,
  environment: FiscalEnvironment,
  now: Date,
): ServiceStatus | Transient {
  const estado = (jsonOf(verified) as { estado?: unknown } | undefined)?.estado;
  const list = (jsonOf(announced) as { ventanaMantenimientos?: unknown } | undefined)?.ventanaMantenimientos;
  if (typeof estado !== 'string' || !Array.isArray(list))
    return { kind: 'transient', reason: 'bad_response', detail: 'statusecf answered something unreadable' };
  const ambiente = plain(statusAmbiente[environment].name);
  const windows: MaintenanceWindow[] = list
    .filter(isAnnouncedWindow)
    .filter((entry) => plain(entry.ambiente) === ambiente)
    .flatMap((entry) =>
      windowsOf(
        entry.horaInicio,
        entry.horaFin,
        entry.dias.filter((day): day is string => typeof day === 'string'),
      ),
    )
    .sort((a, b) => a.start.getTime() - b.start.getTime());
  const instant = now.getTime();
  const activeWindow =
    windows.find((window) => window.start.getTime() <= instant && instant < window.end.getTime()) ?? null;
  return { kind: 'status', available: plain(estado) === 'disponible', estado, windows, activeWindow };
}
