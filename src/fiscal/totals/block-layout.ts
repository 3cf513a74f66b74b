// Element names of the two totals blocks, Totales and OtraMoneda, as e-CF-31.xsd spells and orders them.
import type { BlockKeys } from './merge-block.js';
import type { OtraMoneda, Totales } from './totals-types.js';

export const totalesKeys: BlockKeys = {
  gravadoTotal: 'MontoGravadoTotal',
  gravado: ['MontoGravadoI1', 'MontoGravadoI2', 'MontoGravadoI3'],
  exento: 'MontoExento',
  totalItbis: 'TotalITBIS',
  itbis: ['TotalITBIS1', 'TotalITBIS2', 'TotalITBIS3'],
  taxTotal: 'MontoImpuestoAdicional',
  taxContainer: 'ImpuestosAdicionales',
  taxEntry: 'ImpuestoAdicional',
  taxCode: 'TipoImpuesto',
  taxRate: 'TasaImpuestoAdicional',
  taxAmounts: ['MontoImpuestoSelectivoConsumoEspecifico', 'MontoImpuestoSelectivoConsumoAdvalorem', 'OtrosImpuestosAdicionales'],
  total: 'MontoTotal',
  plain: ['MontoNoFacturable', 'TotalITBISRetenido', 'TotalISRRetencion', 'TotalITBISPercepcion', 'TotalISRPercepcion'],
  passthrough: ['SaldoAnterior', 'MontoAvancePago'],
  signed: new Set(['MontoNoFacturable', 'MontoPeriodo', 'SaldoAnterior', 'ValorPagar']),
};

export const otraMonedaKeys: BlockKeys = {
  gravadoTotal: 'MontoGravadoTotalOtraMoneda',
  gravado: ['MontoGravado1OtraMoneda', 'MontoGravado2OtraMoneda', 'MontoGravado3OtraMoneda'],
  exento: 'MontoExentoOtraMoneda',
  totalItbis: 'TotalITBISOtraMoneda',
  itbis: ['TotalITBIS1OtraMoneda', 'TotalITBIS2OtraMoneda', 'TotalITBIS3OtraMoneda'],
  taxTotal: 'MontoImpuestoAdicionalOtraMoneda',
  taxContainer: 'ImpuestosAdicionalesOtraMoneda',
  taxEntry: 'ImpuestoAdicionalOtraMoneda',
  taxCode: 'TipoImpuestoOtraMoneda',
  taxRate: 'TasaImpuestoAdicionalOtraMoneda',
  taxAmounts: ['MontoImpuestoSelectivoConsumoEspecificoOtraMoneda', 'MontoImpuestoSelectivoConsumoAdvaloremOtraMoneda', 'OtrosImpuestosAdicionalesOtraMoneda'],
  total: 'MontoTotalOtraMoneda',
  plain: [],
  passthrough: [],
  signed: new Set(),
};

// XSD e-CF-31 sequence order, so the result can be written as is.
export const totalesOrder: readonly (keyof Totales)[] = [
  'MontoGravadoTotal', 'MontoGravadoI1', 'MontoGravadoI2', 'MontoGravadoI3', 'MontoExento', 'ITBIS1', 'ITBIS2', 'ITBIS3',
  'TotalITBIS', 'TotalITBIS1', 'TotalITBIS2', 'TotalITBIS3', 'MontoImpuestoAdicional', 'ImpuestosAdicionales', 'MontoTotal',
  'MontoNoFacturable', 'MontoPeriodo', 'SaldoAnterior', 'MontoAvancePago', 'ValorPagar', 'TotalITBISRetenido',
  'TotalISRRetencion', 'TotalITBISPercepcion', 'TotalISRPercepcion',
];
export const otraMonedaOrder: readonly (keyof OtraMoneda)[] = [
  'TipoMoneda', 'TipoCambio', 'MontoGravadoTotalOtraMoneda', 'MontoGravado1OtraMoneda', 'MontoGravado2OtraMoneda',
  'MontoGravado3OtraMoneda', 'MontoExentoOtraMoneda', 'TotalITBISOtraMoneda', 'TotalITBIS1OtraMoneda', 'TotalITBIS2OtraMoneda',
  'TotalITBIS3OtraMoneda', 'MontoImpuestoAdicionalOtraMoneda', 'ImpuestosAdicionalesOtraMoneda', 'MontoTotalOtraMoneda',
];
