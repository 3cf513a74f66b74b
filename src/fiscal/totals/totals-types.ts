// The DGII-shaped JSON this module reads and writes: XML element names as keys (spelled as in e-CF-31.xsd),
// amounts as decimal strings. Only the parts the totals need are typed; anything else passes untouched.
import type { Finding } from '../finding.js';

/** A decimal leaf as a client may send it: a string, or a number whose string form is exact. */
export type DecimalInput = string | number;
/** A repeated XML element: an array, or one object when the list has a single entry (as XML parsers give it). */
export type Repeated<T> = T | readonly T[];

export interface IdDocInput {
  TipoeCF?: DecimalInput;
  IndicadorMontoGravado?: DecimalInput;
}

export interface RetencionInput {
  IndicadorAgenteRetencionoPercepcion?: DecimalInput;
  MontoITBISRetenido?: DecimalInput;
  MontoISRRetenido?: DecimalInput;
}

export interface OtraMonedaDetalleInput {
  PrecioOtraMoneda?: DecimalInput;
  DescuentoOtraMoneda?: DecimalInput;
  RecargoOtraMoneda?: DecimalInput;
  MontoItemOtraMoneda?: DecimalInput;
}

export interface ItemInput {
  NumeroLinea?: DecimalInput;
  IndicadorFacturacion?: DecimalInput;
  Retencion?: RetencionInput;
  CantidadItem?: DecimalInput;
  UnidadMedida?: DecimalInput;
  CantidadReferencia?: DecimalInput;
  TablaSubcantidad?: { SubcantidadItem?: Repeated<{ Subcantidad?: DecimalInput; CodigoSubcantidad?: DecimalInput }> };
  GradosAlcohol?: DecimalInput;
  PrecioUnitarioReferencia?: DecimalInput;
  PrecioUnitarioItem?: DecimalInput;
  DescuentoMonto?: DecimalInput;
  RecargoMonto?: DecimalInput;
  TablaImpuestoAdicional?: { ImpuestoAdicional?: Repeated<{ TipoImpuesto?: DecimalInput }> };
  OtraMonedaDetalle?: OtraMonedaDetalleInput;
  MontoItem?: DecimalInput;
}

export interface DescuentoORecargoInput {
  NumeroLinea?: DecimalInput;
  TipoAjuste?: string;
  IndicadorNorma1007?: DecimalInput;
  TipoValor?: string;
  ValorDescuentooRecargo?: DecimalInput;
  MontoDescuentooRecargo?: DecimalInput;
  MontoDescuentooRecargoOtraMoneda?: DecimalInput;
  IndicadorFacturacionDescuentooRecargo?: DecimalInput;
}

export interface ImpuestoAdicional {
  TipoImpuesto: string;
  TasaImpuestoAdicional: string;
  MontoImpuestoSelectivoConsumoEspecifico?: string;
  MontoImpuestoSelectivoConsumoAdvalorem?: string;
  OtrosImpuestosAdicionales?: string;
}

/** Encabezado/Totales, in XSD order. Conditional elements are left out when they do not apply. */
export interface Totales {
  MontoGravadoTotal?: string;
  MontoGravadoI1?: string;
  MontoGravadoI2?: string;
  MontoGravadoI3?: string;
  MontoExento?: string;
  ITBIS1?: string;
  ITBIS2?: string;
  ITBIS3?: string;
  TotalITBIS?: string;
  TotalITBIS1?: string;
  TotalITBIS2?: string;
  TotalITBIS3?: string;
  MontoImpuestoAdicional?: string;
  ImpuestosAdicionales?: { ImpuestoAdicional: ImpuestoAdicional[] };
  MontoTotal: string;
  MontoNoFacturable?: string;
  MontoPeriodo?: string;
  SaldoAnterior?: string;
  MontoAvancePago?: string;
  ValorPagar?: string;
  TotalITBISRetenido?: string;
  TotalISRRetencion?: string;
  TotalITBISPercepcion?: string;
  TotalISRPercepcion?: string;
}

export interface ImpuestoAdicionalOtraMoneda {
  TipoImpuestoOtraMoneda: string;
  TasaImpuestoAdicionalOtraMoneda: string;
  MontoImpuestoSelectivoConsumoEspecificoOtraMoneda?: string;
  MontoImpuestoSelectivoConsumoAdvaloremOtraMoneda?: string;
  OtrosImpuestosAdicionalesOtraMoneda?: string;
}

/** Encabezado/OtraMoneda, in XSD order. */
export interface OtraMoneda {
  TipoMoneda: string;
  TipoCambio: string;
  MontoGravadoTotalOtraMoneda?: string;
  MontoGravado1OtraMoneda?: string;
  MontoGravado2OtraMoneda?: string;
  MontoGravado3OtraMoneda?: string;
  MontoExentoOtraMoneda?: string;
  TotalITBISOtraMoneda?: string;
  TotalITBIS1OtraMoneda?: string;
  TotalITBIS2OtraMoneda?: string;
  TotalITBIS3OtraMoneda?: string;
  MontoImpuestoAdicionalOtraMoneda?: string;
  ImpuestosAdicionalesOtraMoneda?: { ImpuestoAdicionalOtraMoneda: ImpuestoAdicionalOtraMoneda[] };
  MontoTotalOtraMoneda: string;
}

type Loose<T> = { [K in keyof T]?: T[K] extends string ? DecimalInput : unknown };

export interface EcfTotalsInput {
  Encabezado?: {
    IdDoc?: IdDocInput;
    Totales?: Loose<Totales> & { ImpuestosAdicionales?: { ImpuestoAdicional?: Repeated<Loose<ImpuestoAdicional>> } };
    OtraMoneda?: Loose<OtraMoneda> & {
      ImpuestosAdicionalesOtraMoneda?: { ImpuestoAdicionalOtraMoneda?: Repeated<Loose<ImpuestoAdicionalOtraMoneda>> };
    };
  };
  DetallesItems?: { Item?: Repeated<ItemInput> };
  DescuentosORecargos?: { DescuentoORecargo?: Repeated<DescuentoORecargoInput> };
}

/** A line's amounts as computed (MontoItem = CantidadItem × PrecioUnitarioItem − DescuentoMonto + RecargoMonto). */
export interface LineaCalculada {
  NumeroLinea: string;
  MontoItem: string;
  MontoItemOtraMoneda?: string;
}

export interface TotalsResult {
  totales: Totales;
  otraMoneda?: OtraMoneda;
  lineas: LineaCalculada[];
  findings: Finding[];
}
