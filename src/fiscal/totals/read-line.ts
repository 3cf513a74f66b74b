// One Detalle line, read exactly: MontoItem is computed as CantidadItem × PrecioUnitarioItem − DescuentoMonto
// + RecargoMonto (Formato e-CF field 39) and kept beside the client's own MontoItem.
import { error, type Finding } from '../finding.js';
import { amountRule, readDecimal, round2, subquantityRule, unitPriceRule, zero, type DecimalRule } from './decimal.js';
import { isKnownAdditionalTax } from './additional-tax-catalogue.js';
import { asList, leafText } from './json-leaves.js';
import type { BillingIndicator, Line, Retention } from './totals-document.js';
import type { ItemInput } from './totals-types.js';

export function readLine(item: ItemInput, index: number, findings: Finding[]): Line | undefined {
  const at = (...path: string[]) => `/DetallesItems/Item/${index}/${path.join('/')}`;
  const read = (value: unknown, rule: DecimalRule, ...path: string[]) =>
    readDecimal(value, at(...path), rule, findings);
  const indicatorText = leafText(item.IndicadorFacturacion);
  const indicator = (['0', '1', '2', '3', '4'] as const).indexOf(indicatorText as '0');
  if (indicator < 0) {
    findings.push(
      error(
        at('IndicadorFacturacion'),
        'unknown_billing_indicator',
        `IndicadorFacturacion "${indicatorText ?? ''}" is not 0 (no facturable), 1 (18 %), 2 (16 %), 3 (0 %) or 4 (exento).`,
      ),
    );
  }
  const quantity = read(item.CantidadItem, amountRule, 'CantidadItem');
  if (quantity?.eq(0) === true)
    findings.push(error(at('CantidadItem'), 'non_positive_quantity', 'CantidadItem must be greater than 0.'));
  const unitPrice = read(item.PrecioUnitarioItem, unitPriceRule, 'PrecioUnitarioItem');
  const discount = read(item.DescuentoMonto, amountRule, 'DescuentoMonto') ?? zero;
  const surcharge = read(item.RecargoMonto, amountRule, 'RecargoMonto') ?? zero;
  const givenAmount = read(item.MontoItem, amountRule, 'MontoItem');
  const computedAmount =
    quantity !== undefined && unitPrice !== undefined
      ? round2(quantity.times(unitPrice).minus(discount).plus(surcharge))
      : undefined;
  if (computedAmount?.lt(0) === true) {
    findings.push(
      error(
        at('MontoItem'),
        'negative_line_amount',
        'CantidadItem × PrecioUnitarioItem − DescuentoMonto + RecargoMonto is negative.',
      ),
    );
  }
  const amount = givenAmount ?? computedAmount;
  if (amount === undefined) {
    if (leafText(item.MontoItem) === undefined && leafText(item.CantidadItem) === undefined) {
      findings.push(
        error(
          at('MontoItem'),
          'line_amount_missing',
          'A line needs MontoItem, or CantidadItem and PrecioUnitarioItem to compute it.',
        ),
      );
    }
    return undefined;
  }
  if (indicator < 0) return undefined;
  const taxCodes = asList(item.TablaImpuestoAdicional?.ImpuestoAdicional)
    .map((entry, taxIndex) => {
      const code = leafText(entry.TipoImpuesto) ?? '';
      if (!isKnownAdditionalTax(code)) {
        findings.push(
          error(
            at('TablaImpuestoAdicional', 'ImpuestoAdicional', String(taxIndex), 'TipoImpuesto'),
            'unknown_additional_tax',
            `TipoImpuesto "${code}" is not in Tabla I (001–039).`,
          ),
        );
      }
      return code;
    })
    .filter(isKnownAdditionalTax);
  const firstSubquantity = asList(item.TablaSubcantidad?.SubcantidadItem)[0];
  return {
    index,
    numeroLinea: leafText(item.NumeroLinea) ?? String(index + 1),
    indicator: indicator as BillingIndicator,
    quantity,
    unitPrice,
    computedAmount,
    givenAmount,
    amount,
    unitOfMeasure: leafText(item.UnidadMedida),
    referenceQuantity: read(item.CantidadReferencia, amountRule, 'CantidadReferencia'),
    subquantity: read(
      firstSubquantity?.Subcantidad,
      subquantityRule,
      'TablaSubcantidad',
      'SubcantidadItem',
      '0',
      'Subcantidad',
    ),
    alcoholDegrees: read(item.GradosAlcohol, amountRule, 'GradosAlcohol'),
    referenceUnitPrice: read(item.PrecioUnitarioReferencia, amountRule, 'PrecioUnitarioReferencia'),
    taxCodes,
    retention: readRetention(item, at, findings),
    otherCurrency:
      item.OtraMonedaDetalle === undefined
        ? undefined
        : {
            price: read(
              item.OtraMonedaDetalle.PrecioOtraMoneda,
              unitPriceRule,
              'OtraMonedaDetalle',
              'PrecioOtraMoneda',
            ),
            discount: read(
              item.OtraMonedaDetalle.DescuentoOtraMoneda,
              amountRule,
              'OtraMonedaDetalle',
              'DescuentoOtraMoneda',
            ),
            surcharge: read(
              item.OtraMonedaDetalle.RecargoOtraMoneda,
              amountRule,
              'OtraMonedaDetalle',
              'RecargoOtraMoneda',
            ),
            amount: read(
              item.OtraMonedaDetalle.MontoItemOtraMoneda,
              amountRule,
              'OtraMonedaDetalle',
              'MontoItemOtraMoneda',
            ),
          },
  };
}

function readRetention(item: ItemInput, at: (...path: string[]) => string, findings: Finding[]): Retention | undefined {
  const retention = item.Retencion;
  if (retention === undefined) return undefined;
  const agent = leafText(retention.IndicadorAgenteRetencionoPercepcion);
  if (agent !== '1' && agent !== '2') {
    findings.push(
      error(
        at('Retencion', 'IndicadorAgenteRetencionoPercepcion'),
        'invalid_indicator',
        'IndicadorAgenteRetencionoPercepcion is 1 (retención) or 2 (percepción).',
      ),
    );
    return undefined;
  }
  return {
    agent,
    itbis: readDecimal(retention.MontoITBISRetenido, at('Retencion', 'MontoITBISRetenido'), amountRule, findings),
    isr: readDecimal(retention.MontoISRRetenido, at('Retencion', 'MontoISRRetenido'), amountRule, findings),
  };
}
