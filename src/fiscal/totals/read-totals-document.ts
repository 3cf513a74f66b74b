// Turns the client's DGII-shaped JSON into exact, checked values for the totals. Every structural problem
// becomes an error finding; a line that cannot be read is left out of the sums.
import type Big from 'big.js';
import { error, type Finding } from '../finding.js';
import { amountRule, exchangeRateRule, readDecimal } from './decimal.js';
import { asList, leafText } from './json-leaves.js';
import { readLine } from './read-line.js';
import type { Adjustment, TotalsDocument } from './totals-document.js';
import type { DescuentoORecargoInput, EcfTotalsInput } from './totals-types.js';

const knownTypes = new Set(['31', '32', '33', '34', '41', '43', '44', '45', '46', '47']);

export function readTotalsDocument(input: EcfTotalsInput): { document: TotalsDocument; findings: Finding[] } {
  const findings: Finding[] = [];
  const idDoc = input.Encabezado?.IdDoc;
  const type = leafText(idDoc?.TipoeCF) ?? '';
  if (!knownTypes.has(type)) {
    findings.push(
      error(
        '/Encabezado/IdDoc/TipoeCF',
        'unknown_ecf_type',
        `TipoeCF "${type}" is not one of 31, 32, 33, 34, 41, 43, 44, 45, 46, 47.`,
      ),
    );
  }
  const indicadorMontoGravado = leafText(idDoc?.IndicadorMontoGravado);
  if (indicadorMontoGravado !== undefined && indicadorMontoGravado !== '0' && indicadorMontoGravado !== '1') {
    findings.push(
      error('/Encabezado/IdDoc/IndicadorMontoGravado', 'invalid_indicator', 'IndicadorMontoGravado is 0 or 1.'),
    );
  }
  const items = asList(input.DetallesItems?.Item);
  if (items.length === 0) findings.push(error('/DetallesItems/Item', 'no_items', 'An e-CF has at least one line.'));
  const lines = items.flatMap((item, index) => {
    const line = readLine(item, index, findings);
    return line === undefined ? [] : [line];
  });
  const adjustments = asList(input.DescuentosORecargos?.DescuentoORecargo).flatMap((entry, index) => {
    const adjustment = readAdjustment(entry, index, findings);
    return adjustment === undefined ? [] : [adjustment];
  });
  return {
    document: {
      type,
      pricesIncludeItbis: indicadorMontoGravado === '1',
      lines,
      lineCount: items.length,
      adjustments,
      givenTaxRates: readGivenTaxRates(input, findings),
      currency: readCurrency(input, findings),
    },
    findings,
  };
}

function readAdjustment(entry: DescuentoORecargoInput, index: number, findings: Finding[]): Adjustment | undefined {
  const at = (field: string) => `/DescuentosORecargos/DescuentoORecargo/${index}/${field}`;
  const kind = leafText(entry.TipoAjuste);
  if (kind !== 'D' && kind !== 'R') {
    findings.push(error(at('TipoAjuste'), 'invalid_adjustment_type', 'TipoAjuste is D (descuento) or R (recargo).'));
    return undefined;
  }
  const groupText = leafText(entry.IndicadorFacturacionDescuentooRecargo);
  const group = groupText === undefined ? undefined : (['1', '2', '3', '4'] as const).indexOf(groupText as '1') + 1;
  if (group === 0) {
    findings.push(
      error(
        at('IndicadorFacturacionDescuentooRecargo'),
        'unknown_billing_indicator',
        'IndicadorFacturacionDescuentooRecargo is 1, 2, 3 or 4.',
      ),
    );
    return undefined;
  }
  const tipoValor = leafText(entry.TipoValor);
  const valor = readDecimal(entry.ValorDescuentooRecargo, at('ValorDescuentooRecargo'), amountRule, findings);
  const amount =
    readDecimal(entry.MontoDescuentooRecargo, at('MontoDescuentooRecargo'), amountRule, findings) ??
    (tipoValor === '$' ? valor : undefined);
  const percent = tipoValor === '%' ? valor : undefined;
  if (amount === undefined && percent === undefined) {
    findings.push(
      error(
        at('MontoDescuentooRecargo'),
        'adjustment_amount_missing',
        'A global discount or surcharge needs MontoDescuentooRecargo, or TipoValor and ValorDescuentooRecargo.',
      ),
    );
    return undefined;
  }
  return {
    index,
    kind,
    group: group as 1 | 2 | 3 | 4 | undefined,
    percent,
    amount,
    amountOtherCurrency: readDecimal(
      entry.MontoDescuentooRecargoOtraMoneda,
      at('MontoDescuentooRecargoOtraMoneda'),
      amountRule,
      findings,
    ),
    norma1007: leafText(entry.IndicadorNorma1007) === '1',
  };
}

function readGivenTaxRates(input: EcfTotalsInput, findings: Finding[]): Map<string, Big> {
  const rates = new Map<string, Big>();
  asList(input.Encabezado?.Totales?.ImpuestosAdicionales?.ImpuestoAdicional).forEach((entry, index) => {
    const code = leafText(entry.TipoImpuesto);
    const at = `/Encabezado/Totales/ImpuestosAdicionales/ImpuestoAdicional/${index}/TasaImpuestoAdicional`;
    const rate = readDecimal(entry.TasaImpuestoAdicional, at, amountRule, findings);
    if (code !== undefined && rate !== undefined) rates.set(code, rate);
  });
  return rates;
}

function readCurrency(input: EcfTotalsInput, findings: Finding[]): TotalsDocument['currency'] {
  const otraMoneda = input.Encabezado?.OtraMoneda;
  if (otraMoneda === undefined) return undefined;
  const code = leafText(otraMoneda.TipoMoneda);
  const exchangeRate = readDecimal(
    otraMoneda.TipoCambio,
    '/Encabezado/OtraMoneda/TipoCambio',
    exchangeRateRule,
    findings,
  );
  if (code === undefined)
    findings.push(error('/Encabezado/OtraMoneda/TipoMoneda', 'currency_missing', 'OtraMoneda needs TipoMoneda.'));
  if (leafText(otraMoneda.TipoCambio) === undefined || exchangeRate?.eq(0) === true) {
    findings.push(
      error(
        '/Encabezado/OtraMoneda/TipoCambio',
        'exchange_rate_missing',
        'OtraMoneda needs a TipoCambio greater than 0.',
      ),
    );
    return undefined;
  }
  if (exchangeRate === undefined) return undefined;
  return code === undefined ? undefined : { code, exchangeRate };
}
