// Figures → DGII-shaped Totales and OtraMoneda, keeping only the elements that apply to the lines and the type.
import type Big from 'big.js';
import { error, type Finding } from '../finding.js';
import { formatAmount, round2, sum } from './decimal.js';
import { isAllowedForType, type TotalsField } from './fields-by-type.js';
import type { Figures, ItbisGroup, TaxFigure } from './figures.js';
import type { TotalsDocument } from './totals-document.js';
import type { ImpuestoAdicional, ImpuestoAdicionalOtraMoneda, OtraMoneda, Totales } from './totals-types.js';

const itbisPercent: Record<ItbisGroup, string> = { 1: '18', 2: '16', 3: '0' };
const groupField: Record<ItbisGroup, TotalsField> = { 1: 'MontoGravadoI1', 2: 'MontoGravadoI2', 3: 'MontoGravadoI3' };

/** Drops what the type does not allow, with an error naming the lines' cause. */
export function gateFigures(document: TotalsDocument, figures: Figures, findings: Finding[] | undefined): Figures {
  const allowed = (field: TotalsField) => {
    const ok = isAllowedForType(document.type, field);
    if (!ok)
      findings?.push(
        error(
          `/Encabezado/Totales/${field}`,
          'not_allowed_for_type',
          `The lines produce ${field}, which a type ${document.type} e-CF may not carry.`,
        ),
      );
    return ok;
  };
  const gravado = new Map([...figures.gravado].filter(([group]) => allowed(groupField[group])));
  const itbis = new Map([...figures.itbis].filter(([group]) => gravado.has(group)));
  // Formato e-CF n. 19: a Regímenes Especiales e-CF (44) carries only the other taxes, 001–005.
  const taxes =
    figures.taxes.length > 0 && !allowed('ImpuestosAdicionales')
      ? []
      : figures.taxes.filter((tax) => {
          const ok = document.type !== '44' || tax.kind === 'other';
          if (!ok)
            findings?.push(
              error(
                '/Encabezado/Totales/ImpuestosAdicionales',
                'not_allowed_for_type',
                `A type 44 e-CF carries additional taxes 001–005 only, not ${tax.code}.`,
              ),
            );
          return ok;
        });
  const exento = figures.exento !== undefined && allowed('MontoExento') ? figures.exento : undefined;
  const noFacturable =
    figures.noFacturable !== undefined && allowed('MontoNoFacturable') ? figures.noFacturable : undefined;
  const gravadoTotal = gravado.size === 0 ? undefined : sum([...gravado.values()]);
  const totalItbis = itbis.size === 0 ? undefined : sum([...itbis.values()]);
  const taxTotal = taxes.length === 0 ? undefined : sum(taxes.map((tax) => tax.amount));
  return {
    gravado,
    itbis,
    taxes,
    exento,
    noFacturable,
    gravadoTotal,
    totalItbis,
    taxTotal,
    total: sum([gravadoTotal, exento, totalItbis, taxTotal].filter((value) => value !== undefined)),
  };
}

export interface RetentionFigures {
  readonly TotalITBISRetenido?: Big;
  readonly TotalISRRetencion?: Big;
  readonly TotalITBISPercepcion?: Big;
  readonly TotalISRPercepcion?: Big;
}

/** Formato e-CF fields 116–119: sums of the lines' Retencion amounts, split by retención (1) and percepción (2). */
export function retentionFigures(document: TotalsDocument): RetentionFigures {
  const total = (agent: '1' | '2', pick: 'itbis' | 'isr') => {
    const amounts = document.lines.flatMap((line) => {
      const value = line.retention?.agent === agent ? line.retention[pick] : undefined;
      return value === undefined ? [] : [value];
    });
    return amounts.length === 0 ? undefined : round2(sum(amounts));
  };
  return {
    TotalITBISRetenido: total('1', 'itbis'),
    TotalISRRetencion: total('1', 'isr'),
    TotalITBISPercepcion: total('2', 'itbis'),
    TotalISRPercepcion: total('2', 'isr'),
  };
}

const positive = (value: Big | undefined) => (value !== undefined && value.gt(0) ? formatAmount(value) : undefined);
const present = (value: Big | undefined) => (value === undefined ? undefined : formatAmount(value));

function taxEntry(tax: TaxFigure): ImpuestoAdicional {
  const field =
    tax.kind === 'other'
      ? 'OtrosImpuestosAdicionales'
      : tax.kind.endsWith('specific')
        ? 'MontoImpuestoSelectivoConsumoEspecifico'
        : 'MontoImpuestoSelectivoConsumoAdvalorem';
  // XSD: the amounts are > 0, so a granel line's absent ISC específico leaves the element out.
  return dropUndefined({
    TipoImpuesto: tax.code,
    TasaImpuestoAdicional: tax.rate.toString(),
    [field]: positive(tax.amount),
  });
}

export function toTotales(figures: Figures, retentions: RetentionFigures, document: TotalsDocument): Totales {
  const allowed = (field: TotalsField) => isAllowedForType(document.type, field);
  return dropUndefined({
    MontoGravadoTotal: present(figures.gravadoTotal),
    MontoGravadoI1: present(figures.gravado.get(1)),
    MontoGravadoI2: present(figures.gravado.get(2)),
    MontoGravadoI3: present(figures.gravado.get(3)),
    MontoExento: present(figures.exento),
    ITBIS1: figures.itbis.has(1) ? itbisPercent[1] : undefined,
    ITBIS2: figures.itbis.has(2) ? itbisPercent[2] : undefined,
    ITBIS3: figures.itbis.has(3) ? itbisPercent[3] : undefined,
    TotalITBIS: present(figures.totalItbis),
    TotalITBIS1: present(figures.itbis.get(1)),
    TotalITBIS2: present(figures.itbis.get(2)),
    TotalITBIS3: present(figures.itbis.get(3)),
    MontoImpuestoAdicional: positive(figures.taxTotal),
    ImpuestosAdicionales: figures.taxes.length === 0 ? undefined : { ImpuestoAdicional: figures.taxes.map(taxEntry) },
    MontoTotal: formatAmount(figures.total),
    MontoNoFacturable: present(figures.noFacturable),
    TotalITBISRetenido: allowed('TotalITBISRetenido') ? present(retentions.TotalITBISRetenido) : undefined,
    TotalISRRetencion: allowed('TotalISRRetencion') ? present(retentions.TotalISRRetencion) : undefined,
    TotalITBISPercepcion: allowed('TotalITBISPercepcion') ? positive(retentions.TotalITBISPercepcion) : undefined,
    TotalISRPercepcion: allowed('TotalISRPercepcion') ? positive(retentions.TotalISRPercepcion) : undefined,
  });
}

function taxEntryOtraMoneda(tax: TaxFigure): ImpuestoAdicionalOtraMoneda {
  const entry = taxEntry(tax);
  return dropUndefined({
    TipoImpuestoOtraMoneda: entry.TipoImpuesto,
    TasaImpuestoAdicionalOtraMoneda: entry.TasaImpuestoAdicional,
    MontoImpuestoSelectivoConsumoEspecificoOtraMoneda: entry.MontoImpuestoSelectivoConsumoEspecifico,
    MontoImpuestoSelectivoConsumoAdvaloremOtraMoneda: entry.MontoImpuestoSelectivoConsumoAdvalorem,
    OtrosImpuestosAdicionalesOtraMoneda: entry.OtrosImpuestosAdicionales,
  });
}

export function toOtraMoneda(figures: Figures, currency: { code: string; exchangeRate: Big }): OtraMoneda {
  return dropUndefined({
    TipoMoneda: currency.code,
    TipoCambio: currency.exchangeRate.toString(),
    MontoGravadoTotalOtraMoneda: present(figures.gravadoTotal),
    MontoGravado1OtraMoneda: present(figures.gravado.get(1)),
    MontoGravado2OtraMoneda: present(figures.gravado.get(2)),
    MontoGravado3OtraMoneda: present(figures.gravado.get(3)),
    MontoExentoOtraMoneda: present(figures.exento),
    TotalITBISOtraMoneda: present(figures.totalItbis),
    TotalITBIS1OtraMoneda: present(figures.itbis.get(1)),
    TotalITBIS2OtraMoneda: present(figures.itbis.get(2)),
    TotalITBIS3OtraMoneda: present(figures.itbis.get(3)),
    MontoImpuestoAdicionalOtraMoneda: positive(figures.taxTotal),
    ImpuestosAdicionalesOtraMoneda:
      figures.taxes.length === 0 ? undefined : { ImpuestoAdicionalOtraMoneda: figures.taxes.map(taxEntryOtraMoneda) },
    MontoTotalOtraMoneda: formatAmount(figures.total),
  });
}

/** Leaves absent elements out entirely: DGII rejects empty tags. */
export function dropUndefined<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };
}
