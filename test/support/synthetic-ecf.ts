// An e-CF-shaped document in canonical form (written by the one writer) with any number of item lines: for
// signing tests and the signing benchmark. Placeholder data; not meant to pass the XSD.
import { leaf, writeXmlDocument, type XmlElement } from '../../src/fiscal/xml/xml-writer.js';

const group = (name: string, ...content: XmlElement[]): XmlElement => ({ name, content });

export function syntheticCanonicalEcf(lines: number, options: { namespaces?: Record<string, string> } = {}): string {
  const items: XmlElement[] = [];
  for (let line = 1; line <= lines; line++) {
    items.push(
      group(
        'Item',
        leaf('NumeroLinea', String(line)),
        leaf('IndicadorFacturacion', '1'),
        leaf('NombreItem', `Artículo de prueba número ${line} — café & azúcar <500g>`),
        leaf('IndicadorBienoServicio', '1'),
        leaf('CantidadItem', '2.00'),
        leaf('UnidadMedida', '43'),
        leaf('PrecioUnitarioItem', '1500.00'),
        leaf('MontoItem', '3000.00'),
      ),
    );
  }
  const total = (3000 * lines).toFixed(2);
  return writeXmlDocument({
    name: 'ECF',
    ...(options.namespaces === undefined ? {} : { namespaces: options.namespaces }),
    content: [
      group(
        'Encabezado',
        leaf('Version', '1.0'),
        group(
          'IdDoc',
          leaf('TipoeCF', '31'),
          leaf('eNCF', 'E310000000001'),
          leaf('FechaVencimientoSecuencia', '31-12-2027'),
        ),
        group(
          'Emisor',
          leaf('RNCEmisor', '130000001'),
          leaf('RazonSocialEmisor', 'Compañía de Prueba, S.R.L.'),
          leaf('FechaEmision', '01-04-2026'),
        ),
        group(
          'Comprador',
          leaf('RNCComprador', '131000002'),
          leaf('RazonSocialComprador', 'Cliente "Ejemplo" & Hijos'),
        ),
        group('Totales', leaf('MontoGravadoTotal', total), leaf('MontoTotal', total)),
      ),
      group('DetallesItems', ...items),
      leaf('FechaHoraFirma', '01-04-2026 10:15:00'),
    ],
  });
}
