// Reads the text copy of DGII's "Formato Comprobante Fiscal Electrónico (e-CF) V1.0" (layout-preserving text of
// the PDF): the numbered field rows with their ten obligation columns, and Tabla I's additional-tax rates.

export interface ObligationRow {
  /** A numbered field row, or an area row (a group such as ÁREA SUBTOTAL, printed without a number). */
  kind: 'field' | 'area';
  /** The field number printed in the first column (numbering restarts in each section); 0 for an area. */
  number: number;
  /** Element names printed as <Name> in the CAMPOS column near the row, nearest first (a name may be cut where
   * the PDF wrapped it; neighbouring rows' names appear too, so the caller picks the one its XSD order expects). */
  names: string[];
  /** Codes for 31, 32, 33, 34, 41, 43, 44, 45, 46, 47; a footnote mark (2*) is dropped. */
  codes: (0 | 1 | 2 | 3)[];
  line: number;
}

// A row's last ten tokens are the obligation columns. A footnote number is printed fused to its cell: `N34` in the
// RI column, `25` for code 2 with footnote 5, `214` for 2* with footnote 14; the code is the first digit.
const codesAtEnd = /((?:\s+[0-3]\*?\d{0,2}){10})\s*$/;
// The field number sits in the first columns; an area row has only codes, far to the right.
const numberedRow = /^ {0,8}(\d{1,3})(?:\s|$)/;
// The PDF text sometimes has a space after `<` (`< DescripcionSubtotal>`).
const tagInFieldColumn = /< ?([A-Za-z][A-Za-z0-9]*)/g;
const fieldColumnWidth = 60;
const searchRadius = 7;
const codesRadius = 3;
const areaRadius = 2;

export function readObligationRows(text: string): ObligationRow[] {
  const lines = text.split('\n');
  const codesOf = (index: number): string | undefined => codesAtEnd.exec(lines[index] ?? '')?.[1];
  const isNumbered = (index: number): boolean => numberedRow.test(lines[index] ?? '');
  const used = new Set<number>();
  const rows: ObligationRow[] = [];
  lines.forEach((line, index) => {
    const numbered = numberedRow.exec(line);
    if (numbered === null) return;
    // The PDF centres cells vertically, so a row's codes may sit a line or two away from its number.
    let codesLine = codesOf(index) === undefined ? undefined : index;
    for (let distance = 1; codesLine === undefined && distance <= codesRadius; distance++) {
      codesLine = [index + distance, index - distance].find(
        (at) => codesOf(at) !== undefined && !isNumbered(at) && !used.has(at),
      );
    }
    if (codesLine === undefined) return;
    const names = nearbyTags(lines, index);
    if (names.length === 0) return;
    used.add(codesLine);
    rows.push({
      kind: 'field',
      number: Number(numbered[1]),
      names,
      codes: codesIn(codesOf(codesLine)),
      line: index + 1,
    });
  });
  // The code lines left over belong to areas; their <Name> is printed within a line or two.
  lines.forEach((_, index) => {
    if (used.has(index) || isNumbered(index) || codesOf(index) === undefined) return;
    const names = nearbyTags(lines, index, areaRadius);
    if (names.length > 0)
      rows.push({ kind: 'area', number: 0, names, codes: codesIn(codesOf(index)), line: index + 1 });
  });
  return rows.sort((a, b) => a.line - b.line);
}

function codesIn(cells: string | undefined): (0 | 1 | 2 | 3)[] {
  return (cells ?? '')
    .trim()
    .split(/\s+/)
    .map((token) => Number(token[0]) as 0 | 1 | 2 | 3);
}

function nearbyTags(lines: string[], index: number, radius = searchRadius): string[] {
  const names: string[] = [];
  for (let distance = 0; distance <= radius; distance++) {
    for (const at of distance === 0 ? [index] : [index + distance, index - distance]) {
      const field = (lines[at] ?? '').slice(0, fieldColumnWidth);
      for (const tag of field.matchAll(tagInFieldColumn)) if (tag[1] !== undefined) names.push(tag[1]);
    }
  }
  return names;
}

export interface AdditionalTaxRate {
  rate: string;
  rateKind: 'percent' | 'amount';
}

/** Tabla I (Formato e-CF p.60–61): `001 ... 10%`; a rate may sit on the line after its code (002). */
export function readAdditionalTaxRates(text: string): Map<string, AdditionalTaxRate> {
  const start = text.indexOf('TABLA I. CODIFICACIÓN TIPOS DE IMPUESTOS ADICIONALES');
  const end = text.indexOf('TABLA II.', start);
  if (start < 0 || end < 0) throw new Error('Tabla I not found in the format document');
  const rates = new Map<string, AdditionalTaxRate>();
  let waiting: string | undefined;
  for (const line of text.slice(start, end).split('\n')) {
    const code = /^\s*(0[0-3]\d)\s/.exec(line)?.[1];
    const rate = /\s(\d+(?:\.\d+)?)(%?)\s*$/.exec(line);
    const value =
      rate === null ? undefined : ({ rate: rate[1] ?? '', rateKind: rate[2] === '%' ? 'percent' : 'amount' } as const);
    if (code !== undefined && value !== undefined) rates.set(code, value);
    else if (code !== undefined) waiting = code;
    else if (waiting !== undefined && value !== undefined && !/^\s*\d{2,3}\s*$/.test(line)) {
      rates.set(waiting, value);
      waiting = undefined;
    }
  }
  return rates;
}
