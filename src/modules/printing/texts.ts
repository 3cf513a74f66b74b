// The words printed on the RI, shared by the sheet and roll layouts. Labels are DGII's (Informe Técnico §17.2 and
// the Modelos ilustrativos), in Spanish only; nothing DGII does not word is added (no "ejemplo", no watermark, no
// "Representación Impresa de ...").
import type { PrintableDocument } from './printable.schema.js';

/** Header top right: the type, the e-NCF, the sequence expiry and, for notes, the voucher they modify. */
export function documentLines(printable: PrintableDocument): { title: string; eNCF: string; details: string[] } {
  const details: string[] = [];
  // FechaVencimientoSecuencia is absent for 32 and 34: no line at all, never an empty or 01-01-1970 date.
  if (printable.sequenceExpiry !== null && printable.sequenceExpiry !== '')
    details.push(`Fecha Vencimiento: ${printable.sequenceExpiry}`);
  const reference = printable.reference;
  if (reference !== null) {
    // The Informe Técnico says "e-NCF Modificado"; model 1.5 writes "NCF Modificado" because a note may modify a
    // paper (B-series) voucher. The label follows what is modified.
    const label = reference.modifiedNcf.startsWith('E') ? 'e-NCF Modificado' : 'NCF Modificado';
    details.push(`${label}: ${reference.modifiedNcf}`);
    // The modification code in words, with no label (Informe Técnico §17.2.1 A, model 1.5).
    if (reference.modificationCode !== null) details.push(reference.modificationCode.name);
  }
  return { title: printable.typeName, eNCF: `e-NCF: ${printable.eNCF}`, details };
}

/** Header top left: the issuer below its trade name, then the issue date. */
export function issuerLines(printable: PrintableDocument, rncLabel: string): string[] {
  const issuer = printable.issuer;
  const lines = [issuer.legalName];
  if (issuer.branch !== null) lines.push(`Sucursal: ${issuer.branch}`);
  lines.push(`${rncLabel} ${issuer.rnc}`);
  if (issuer.address !== null) lines.push(`Dirección: ${issuer.address}`);
  const place = [issuer.municipality?.name, issuer.province?.name].filter((name) => name !== undefined);
  if (place.length > 0) lines.push(place.join(', '));
  return lines;
}

export function issueDateLine(printable: PrintableDocument): string {
  return `Fecha Emisión: ${printable.issueDate}`;
}

/** The buyer as in the RNC registry; none for 43, nor for a 32 under DOP 250,000 issued without one. */
export function buyerLines(printable: PrintableDocument): string[] {
  const buyer = printable.buyer;
  if (buyer === null) return [];
  const lines: string[] = [];
  if (buyer.legalName !== null) lines.push(`Razón Social Cliente: ${buyer.legalName}`);
  if (buyer.rnc !== null) lines.push(`RNC Cliente: ${buyer.rnc}`);
  if (buyer.foreignId !== null) lines.push(`Identificador Extranjero: ${buyer.foreignId}`);
  return lines;
}

/** Under the QR: the security code raw ('+' and '/' stay; only the URL percent-encodes them) and the date. */
export function stampLines(printable: PrintableDocument): string[] {
  return [`Código de Seguridad: ${printable.securityCode}`, `Fecha de Firma Digital: ${printable.signatureDate}`];
}

/** The 24-hour and 72-hour legends, in DGII's words (models 3.1 and 4.1), printed in bold italic. */
export function legendTexts(printable: PrintableDocument): string[] {
  return printable.legends
    .filter((legend) => legend.code === 'deferred_sending' || legend.code === 'contingency')
    .map((legend) => legend.text);
}

export function pageFooter(page: number, pages: number): string {
  return `Página No. ${page} de ${pages}`;
}

export const columnTitles = {
  quantity: 'Cantidad',
  description: 'Descripción',
  unit: 'Unidad de Medida',
  price: 'Precio',
  itbis: 'ITBIS',
  value: 'Valor',
} as const;
