// The RFCE a type-32 e-CF is summarised as, as DGII-shaped JSON (rfce-tree.ts's shape): the values responses/
// rfce.ts copies from the signed e-CF, in the same groups, without CodigoSeguridadeCF (it comes from the signature).
// The set's RFCE rows hold exactly this, so a set is checked against it before anything is signed, and the sandbox
// writes its RFCE rows with it.
import { listAt, objectAt } from '../rules/document-view.js';
import type { Json } from './set-rows.js';

const groupAt = (value: unknown, name: string): Json => objectAt(value, [name]) ?? {};

/** The named leaves `from` has, in the order given; absent and empty ones left out. */
function pick(from: Json, names: readonly string[]): Json {
  const out: Json = {};
  for (const name of names) {
    const value = from[name];
    if (typeof value === 'string' && value !== '') out[name] = value;
  }
  return out;
}

const nonEmpty = (group: Json) => Object.keys(group).length > 0;

export function rfcePayloadOf(ecf32: Json): Json {
  const encabezado = groupAt(ecf32, 'Encabezado');
  const idDoc = groupAt(encabezado, 'IdDoc');
  const totales = groupAt(encabezado, 'Totales');
  const formas = listAt(idDoc, ['TablaFormasPago', 'FormaDePago'])
    .map((entry) => pick(entry, ['FormaPago', 'MontoPago']))
    .filter(nonEmpty);
  const impuestos = listAt(totales, ['ImpuestosAdicionales', 'ImpuestoAdicional'])
    .map((entry) =>
      pick(entry, [
        'TipoImpuesto',
        'MontoImpuestoSelectivoConsumoEspecifico',
        'MontoImpuestoSelectivoConsumoAdvalorem',
        'OtrosImpuestosAdicionales',
      ]),
    )
    .filter(nonEmpty);
  const comprador = pick(groupAt(encabezado, 'Comprador'), [
    'RNCComprador',
    'IdentificadorExtranjero',
    'RazonSocialComprador',
  ]);
  return {
    Encabezado: {
      Version: '1.0',
      IdDoc: {
        ...pick(idDoc, ['TipoeCF', 'eNCF', 'TipoIngresos', 'TipoPago']),
        ...(formas.length > 0 ? { TablaFormasPago: { FormaDePago: formas } } : {}),
      },
      Emisor: pick(groupAt(encabezado, 'Emisor'), ['RNCEmisor', 'RazonSocialEmisor', 'FechaEmision']),
      ...(nonEmpty(comprador) ? { Comprador: comprador } : {}),
      Totales: {
        ...pick(totales, [
          'MontoGravadoTotal',
          'MontoGravadoI1',
          'MontoGravadoI2',
          'MontoGravadoI3',
          'MontoExento',
          'TotalITBIS',
          'TotalITBIS1',
          'TotalITBIS2',
          'TotalITBIS3',
          'MontoImpuestoAdicional',
        ]),
        ...(impuestos.length > 0 ? { ImpuestosAdicionales: { ImpuestoAdicional: impuestos } } : {}),
        ...pick(totales, ['MontoTotal', 'MontoNoFacturable', 'MontoPeriodo']),
      },
    },
  };
}
