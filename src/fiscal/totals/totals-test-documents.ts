// Builders for the totals tests: a minimal DGII-shaped document with only what the totals read.
import type { DescuentoORecargoInput, EcfTotalsInput, ItemInput } from './totals-types.js';

export interface DocumentParts {
  readonly type?: string;
  readonly pricesIncludeItbis?: boolean;
  readonly items: readonly ItemInput[];
  readonly adjustments?: readonly DescuentoORecargoInput[];
  readonly totales?: Record<string, unknown>;
  readonly otraMoneda?: Record<string, unknown>;
}

export function ecf(parts: DocumentParts): EcfTotalsInput {
  return {
    Encabezado: {
      IdDoc: { TipoeCF: parts.type ?? '31', IndicadorMontoGravado: parts.pricesIncludeItbis === true ? '1' : '0' },
      ...(parts.totales === undefined ? {} : { Totales: parts.totales }),
      ...(parts.otraMoneda === undefined ? {} : { OtraMoneda: parts.otraMoneda }),
    },
    DetallesItems: { Item: parts.items.map((item, index) => ({ NumeroLinea: String(index + 1), ...item })) },
    ...(parts.adjustments === undefined ? {} : { DescuentosORecargos: { DescuentoORecargo: parts.adjustments } }),
  };
}

/** One unit at `amount`, so MontoItem = PrecioUnitarioItem = amount. */
export function line(indicator: string, amount: string, extra: ItemInput = {}): ItemInput {
  return {
    IndicadorFacturacion: indicator,
    CantidadItem: '1',
    PrecioUnitarioItem: amount,
    MontoItem: amount,
    ...extra,
  };
}

export function taxCodes(...codes: string[]): ItemInput['TablaImpuestoAdicional'] {
  return { ImpuestoAdicional: codes.map((code) => ({ TipoImpuesto: code })) };
}

export function givenRates(rates: Record<string, string>): Record<string, unknown> {
  return {
    ImpuestosAdicionales: {
      ImpuestoAdicional: Object.entries(rates).map(([code, rate]) => ({
        TipoImpuesto: code,
        TasaImpuestoAdicional: rate,
      })),
    },
  };
}
