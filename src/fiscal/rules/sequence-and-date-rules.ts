// The e-NCF against the type, and dates against each other and the clock (Formato e-CF IdDoc and
// FechaHoraFirma; research/ecf-format.md §1.3, §2.5).
import { calendarDateOf, compareCalendarDates, parseDgiiDate, parseDgiiTimestamp } from '../dates.js';
import { error, warning, type Finding } from '../finding.js';
import { pointer, textAt, tipoeCF, type JsonObject } from './document-view.js';

export function encfRules(document: JsonObject): Finding[] {
  const encf = textAt(document, ['Encabezado', 'IdDoc', 'eNCF']);
  const type = tipoeCF(document);
  if (encf === undefined || type === undefined) return [];
  const at = pointer(['Encabezado', 'IdDoc', 'eNCF']);
  if (!/^E\d{12}$/.test(encf))
    return [error(at, 'encf_format', `${encf} is not an e-NCF: E, the two-digit type and a ten-digit sequence.`)];
  return encf.slice(1, 3) === type
    ? []
    : [error(at, 'encf_type_mismatch', `The e-NCF ${encf} is of type ${encf.slice(1, 3)}, but TipoeCF is ${type}.`)];
}

const datePaths = {
  emision: ['Encabezado', 'Emisor', 'FechaEmision'],
  vencimientoSecuencia: ['Encabezado', 'IdDoc', 'FechaVencimientoSecuencia'],
  limitePago: ['Encabezado', 'IdDoc', 'FechaLimitePago'],
  desde: ['Encabezado', 'IdDoc', 'FechaDesde'],
  hasta: ['Encabezado', 'IdDoc', 'FechaHasta'],
} as const;

export function dateRules(document: JsonObject, now: Date): Finding[] {
  const findings: Finding[] = [];
  const read = (path: readonly string[]) => {
    const text = textAt(document, path);
    if (text === undefined) return undefined;
    const date = parseDgiiDate(text);
    if (date === undefined)
      findings.push(error(pointer(path), 'date_invalid', `${text} is not a real date dd-MM-yyyy.`));
    return date;
  };
  const today = calendarDateOf(now);
  const emision = read(datePaths.emision);
  if (emision !== undefined && compareCalendarDates(emision, today) > 0) {
    findings.push(error(pointer(datePaths.emision), 'date_in_future', 'FechaEmision cannot be after today (GMT-4).'));
  }
  const expiry = read(datePaths.vencimientoSecuencia);
  if (emision !== undefined && expiry !== undefined && compareCalendarDates(expiry, emision) < 0) {
    findings.push(
      error(pointer(datePaths.vencimientoSecuencia), 'sequence_expired', 'The sequence expired before FechaEmision.'),
    );
  }
  const limit = read(datePaths.limitePago);
  if (emision !== undefined && limit !== undefined && compareCalendarDates(limit, emision) < 0) {
    findings.push(
      error(
        pointer(datePaths.limitePago),
        'payment_limit_before_emission',
        'FechaLimitePago cannot be before FechaEmision.',
      ),
    );
  }
  if (limit !== undefined && textAt(document, ['Encabezado', 'IdDoc', 'TipoPago']) !== '2') {
    findings.push(
      warning(
        pointer(datePaths.limitePago),
        'payment_limit_without_credit',
        'FechaLimitePago is for credit sales (TipoPago 2).',
      ),
    );
  }
  const from = read(datePaths.desde);
  const to = read(datePaths.hasta);
  if (from !== undefined && to !== undefined && compareCalendarDates(from, to) > 0) {
    findings.push(error(pointer(datePaths.hasta), 'period_reversed', 'FechaHasta cannot be before FechaDesde.'));
  }
  const signed = textAt(document, ['FechaHoraFirma']);
  if (signed !== undefined) {
    const instant = parseDgiiTimestamp(signed);
    if (instant === undefined)
      findings.push(error('/FechaHoraFirma', 'timestamp_invalid', `${signed} is not dd-MM-yyyy HH:mm:ss.`));
    else if (instant.getTime() > now.getTime())
      findings.push(error('/FechaHoraFirma', 'date_in_future', 'FechaHoraFirma cannot be in the future.'));
  }
  return findings;
}
