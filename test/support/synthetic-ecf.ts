// An e-CF-shaped document in canonical form (canonical-form.ts) with any number of item lines: for signing tests
// and the signing benchmark. Placeholder data; not meant to pass the XSD.
import { canonicalStartTag, escapeCanonicalText, XML_DECLARATION } from '../../src/fiscal/xmldsig/index.js';

const element = (name: string, text: string) => `<${name}>${escapeCanonicalText(text)}</${name}>`;

export function syntheticCanonicalEcf(lines: number, options: { namespaces?: Record<string, string> } = {}): string {
  const items: string[] = [];
  for (let line = 1; line <= lines; line++) {
    items.push(
      '<Item>' +
        element('NumeroLinea', String(line)) +
        element('IndicadorFacturacion', '1') +
        element('NombreItem', `Artículo de prueba número ${line} — café & azúcar <500g>`) +
        element('IndicadorBienoServicio', '1') +
        element('CantidadItem', '2.00') +
        element('UnidadMedida', '43') +
        element('PrecioUnitarioItem', '1500.00') +
        element('MontoItem', '3000.00') +
        '</Item>',
    );
  }
  const total = (3000 * lines).toFixed(2);
  return (
    XML_DECLARATION +
    canonicalStartTag('ECF', options.namespaces) +
    '<Encabezado>' +
    element('Version', '1.0') +
    '<IdDoc>' + element('TipoeCF', '31') + element('eNCF', 'E310000000001') + element('FechaVencimientoSecuencia', '31-12-2027') + '</IdDoc>' +
    '<Emisor>' + element('RNCEmisor', '130000001') + element('RazonSocialEmisor', 'Compañía de Prueba, S.R.L.') + element('FechaEmision', '01-04-2026') + '</Emisor>' +
    '<Comprador>' + element('RNCComprador', '131000002') + element('RazonSocialComprador', 'Cliente "Ejemplo" & Hijos') + '</Comprador>' +
    '<Totales>' + element('MontoGravadoTotal', total) + element('MontoTotal', total) + '</Totales>' +
    '</Encabezado>' +
    `<DetallesItems>${items.join('')}</DetallesItems>` +
    element('FechaHoraFirma', '01-04-2026 10:15:00') +
    '</ECF>'
  );
}
