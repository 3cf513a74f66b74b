// Notes of credit and debit, and other references (Formato e-CF, InformacionReferencia and footnotes 80–81;
// research/ecf-format.md §2.5).
import { compareCalendarDates, parseDgiiDate } from '../dates.js';
import { error, type Finding } from '../finding.js';
import { objectAt, pointer, textAt, tipoeCF, type JsonObject } from './document-view.js';

const modificationCodes = ['1', '2', '3', '4', '5'];
const notes = ['33', '34'];

/** 11 characters: B-series (paper or contingency) NCF; 13: e-NCF; 19: the old series A/P NCF. */
const referencedNcf = /^([A-Z]\d{10}|E\d{12}|[A-Z]\d{18})$/;

function daysBetween(
  from: { day: number; month: number; year: number },
  to: { day: number; month: number; year: number },
): number {
  return Math.round(
    (Date.UTC(to.year, to.month - 1, to.day) - Date.UTC(from.year, from.month - 1, from.day)) / 86_400_000,
  );
}

export function referenceRules(document: JsonObject): Finding[] {
  const type = tipoeCF(document) ?? '';
  const reference = objectAt(document, ['InformacionReferencia']);
  const at = (field: string) => pointer(['InformacionReferencia', field]);
  const findings: Finding[] = [];
  if (reference === undefined) {
    if (notes.includes(type))
      findings.push(
        error(
          pointer(['InformacionReferencia']),
          'reference_required',
          `A ${type === '33' ? 'debit' : 'credit'} note (${type}) must say which document it modifies: InformacionReferencia.`,
        ),
      );
    return findings;
  }
  const ncf = textAt(reference, ['NCFModificado']);
  const date = textAt(reference, ['FechaNCFModificado']);
  const code = textAt(reference, ['CodigoModificacion']);
  if (notes.includes(type)) {
    for (const [field, value] of [
      ['NCFModificado', ncf],
      ['FechaNCFModificado', date],
      ['CodigoModificacion', code],
    ] as const) {
      if (value === undefined)
        findings.push(error(at(field), 'reference_field_required', `A note (${type}) must give ${field}.`));
    }
  }
  if (ncf !== undefined && !referencedNcf.test(ncf)) {
    findings.push(
      error(
        at('NCFModificado'),
        'reference_ncf_format',
        `${ncf} is not an NCF (11 characters), an e-NCF (13) or an old-series NCF (19).`,
      ),
    );
  }
  if (code !== undefined && !modificationCodes.includes(code)) {
    findings.push(
      error(
        at('CodigoModificacion'),
        'modification_code_unknown',
        'CodigoModificacion is 1 (anula), 2 (corrige texto), 3 (corrige montos), 4 (reemplazo de contingencia) or 5 (referencia a factura de consumo).',
      ),
    );
  } else if (code !== undefined && ['1', '2', '3'].includes(code) && !notes.includes(type)) {
    findings.push(
      error(
        at('CodigoModificacion'),
        'modification_code_not_allowed',
        `CodigoModificacion ${code} is for notes (33, 34) only.`,
      ),
    );
  }
  const emission = parseDgiiDate(textAt(document, ['Encabezado', 'Emisor', 'FechaEmision']) ?? '');
  const referenced = parseDgiiDate(date ?? '');
  if (date !== undefined && referenced === undefined)
    findings.push(error(at('FechaNCFModificado'), 'date_invalid', `${date} is not a date dd-MM-yyyy.`));
  if (emission !== undefined && referenced !== undefined && compareCalendarDates(referenced, emission) > 0) {
    findings.push(
      error(
        at('FechaNCFModificado'),
        'reference_after_emission',
        'The modified document cannot be dated after this one.',
      ),
    );
  }
  // Reglamento 293-11 arts. 8 and 28: a credit note more than 30 days after the invoice refunds the price only.
  const creditIndicator = textAt(document, ['Encabezado', 'IdDoc', 'IndicadorNotaCredito']);
  if (type === '34' && emission !== undefined && referenced !== undefined && creditIndicator !== undefined) {
    const expected = daysBetween(referenced, emission) > 30 ? '1' : '0';
    if (creditIndicator !== expected) {
      findings.push(
        error(
          pointer(['Encabezado', 'IdDoc', 'IndicadorNotaCredito']),
          'credit_note_indicator',
          `The modified document is ${daysBetween(referenced, emission)} days older than this note: IndicadorNotaCredito must be ${expected}.`,
        ),
      );
    }
  }
  return findings;
}
