// DGII's official files, read where they live (../shared/dgii beside the repository), never copied into it.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const officialXsdDir = fileURLToPath(new URL('../../../shared/dgii/xsd/', import.meta.url));
export const dgiiSamplesDir = fileURLToPath(new URL('../../../shared/dgii/samples/', import.meta.url));

export function readOfficialXsds(): Map<string, string> {
  const names = readdirSync(officialXsdDir).filter((name) => name.endsWith('.xsd'));
  return new Map(names.map((name) => [name, readFileSync(officialXsdDir + name, 'utf8')]));
}

export function readDgiiSample(name: string): string {
  return readFileSync(dgiiSamplesDir + name, 'utf8');
}

/** The signed e-CF 31 sample fails the XSD only on TotalPaginas = 1 (it must be greater than 1, or absent). */
export function validEcf31(): string {
  return withoutTotalPaginas(readDgiiSample('130359334E310000008928.xml'));
}

export function withoutTotalPaginas(xml: string): string {
  return xml.replace(/<TotalPaginas>[^<]*<\/TotalPaginas>/, '');
}

/** The valid e-CF 31 with its one Item repeated `count` times, numbered 1..count (the XSD allows 1,000). */
export function ecf31WithItems(count: number): string {
  const xml = validEcf31();
  const item = /<Item>[\s\S]*?<\/Item>/.exec(xml)?.[0];
  if (item === undefined) throw new Error('the sample has no Item');
  const items = Array.from({ length: count }, (_, i) =>
    item.replace(/<NumeroLinea>\d+<\/NumeroLinea>/, `<NumeroLinea>${i + 1}</NumeroLinea>`),
  );
  return xml.replace(item, items.join(''));
}

/** The valid e-CF 31 with its signature cut to an empty element (the XSD only requires one element there). */
export function ecf31WithStubSignature(): string {
  return validEcf31().replace(
    /<Signature[\s\S]*<\/Signature>/,
    '<Signature xmlns="http://www.w3.org/2000/09/xmldsig#"/>',
  );
}

/** A credit (34) or debit (33) note made from the valid e-CF 31, with a ResponsablePago (Alfa20Type, defect 3). */
export function ecfNote(type: 33 | 34, responsablePago: string): string {
  const xml = validEcf31()
    .replace('<TipoeCF>31</TipoeCF><eNCF>E31', `<TipoeCF>${type}</TipoeCF><eNCF>E${type}`)
    .replace('</RazonSocialComprador>', `</RazonSocialComprador><ResponsablePago>${responsablePago}</ResponsablePago>`)
    .replace(
      '<FechaHoraFirma>',
      '<InformacionReferencia><NCFModificado>E310000008927</NCFModificado><FechaNCFModificado>19-01-2025</FechaNCFModificado><CodigoModificacion>3</CodigoModificacion></InformacionReferencia><FechaHoraFirma>',
    );
  // A credit note has no sequence expiry date and says instead whether it is within 30 days of the invoice.
  return type === 34
    ? xml.replace(
        /<FechaVencimientoSecuencia>[^<]*<\/FechaVencimientoSecuencia>/,
        '<IndicadorNotaCredito>0</IndicadorNotaCredito>',
      )
    : xml;
}
