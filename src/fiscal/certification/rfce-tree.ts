// The RFCE's element tree (RFCE-32.xsd v1.0, in its order), in the e-CF model's shape, so the certification set's
// RFCE sheet is read and written by the same column layout as its ECF sheet. Only the structure matters here:
// the RFCE itself is still written from the signed e-CF 32 by responses/rfce.ts.
import type { EcfElement } from '../model/index.js';

function leaf(parent: string, name: string, maxOccurs = 1): EcfElement {
  return { name, path: `${parent}/${name}`, minOccurs: 0, maxOccurs, repeated: maxOccurs > 1, obligation: 3 };
}

function group(parent: string, name: string, children: (path: string) => EcfElement[], maxOccurs = 1): EcfElement {
  const path = parent === '' ? name : `${parent}/${name}`;
  return { name, path, minOccurs: 0, maxOccurs, repeated: maxOccurs > 1, obligation: 3, children: children(path) };
}

const leaves = (parent: string, names: readonly string[]) => names.map((name) => leaf(parent, name));

export const rfceTree: readonly EcfElement[] = [
  group('', 'Encabezado', (encabezado) => [
    leaf(encabezado, 'Version'),
    group(encabezado, 'IdDoc', (idDoc) => [
      ...leaves(idDoc, ['TipoeCF', 'eNCF', 'TipoIngresos', 'TipoPago']),
      group(idDoc, 'TablaFormasPago', (tabla) => [
        group(tabla, 'FormaDePago', (forma) => leaves(forma, ['FormaPago', 'MontoPago']), 7),
      ]),
    ]),
    group(encabezado, 'Emisor', (emisor) => leaves(emisor, ['RNCEmisor', 'RazonSocialEmisor', 'FechaEmision'])),
    group(encabezado, 'Comprador', (comprador) =>
      leaves(comprador, ['RNCComprador', 'IdentificadorExtranjero', 'RazonSocialComprador']),
    ),
    group(encabezado, 'Totales', (totales) => [
      ...leaves(totales, [
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
      group(totales, 'ImpuestosAdicionales', (tabla) => [
        group(
          tabla,
          'ImpuestoAdicional',
          (impuesto) =>
            leaves(impuesto, [
              'TipoImpuesto',
              'MontoImpuestoSelectivoConsumoEspecifico',
              'MontoImpuestoSelectivoConsumoAdvalorem',
              'OtrosImpuestosAdicionales',
            ]),
          20,
        ),
      ]),
      ...leaves(totales, ['MontoTotal', 'MontoNoFacturable', 'MontoPeriodo']),
    ]),
    leaf(encabezado, 'CodigoSeguridadeCF'),
  ]),
];
