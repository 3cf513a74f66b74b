// Writes a minimal .xlsx: one worksheet part per sheet, every text as a shared string (a wide sheet of repeated
// labels stays small) and every number as a numeric cell, in a zip from platform/zip.ts. The output is
// deterministic (fixed timestamps), so the same sheets give the same bytes.
import { writeZip } from '../zip.js';

export type XlsxCellValue = string | number | null | undefined;

export interface XlsxSheet {
  /** As Excel allows: 1 to 31 characters, none of `\ / ? * [ ] :`, unique ignoring case. */
  name: string;
  /** Row by row from row 1, cell by cell from column A; null and undefined leave the cell empty. */
  rows: readonly (readonly XlsxCellValue[])[];
}

const main = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const relationships = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const contentType = 'application/vnd.openxmlformats-officedocument.spreadsheetml';
const declaration = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const maxRows = 1_048_576;
const maxColumns = 16_384;

/** Throws RangeError for what Excel cannot hold: a bad sheet name, NaN or ±Infinity, a character XML forbids. */
export function writeXlsx(sheets: readonly XlsxSheet[]): Buffer {
  if (sheets.length === 0) throw new RangeError('a workbook needs at least one sheet');
  checkSheetNames(sheets);
  const strings = new Map<string, number>();
  let stringCells = 0;
  const shared = (text: string) => {
    stringCells++;
    let index = strings.get(text);
    if (index === undefined) strings.set(text, (index = strings.size));
    return index;
  };
  const worksheets = sheets.map((sheet) => worksheetXml(sheet, shared));
  const sst = [...strings.keys()].map(
    (text) => `<si><t${/^\s|\s$/.test(text) ? ' xml:space="preserve"' : ''}>${escapeCellText(text)}</t></si>`,
  );

  const n = sheets.length;
  const sheetNumbers = sheets.map((_, i) => i + 1);
  return writeZip([
    [
      '[Content_Types].xml',
      xml(
        `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
          `<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
          `<Default Extension="xml" ContentType="application/xml"/>` +
          `<Override PartName="/xl/workbook.xml" ContentType="${contentType}.sheet.main+xml"/>` +
          sheetNumbers
            .map(
              (i) => `<Override PartName="/xl/worksheets/sheet${i}.xml" ContentType="${contentType}.worksheet+xml"/>`,
            )
            .join('') +
          `<Override PartName="/xl/styles.xml" ContentType="${contentType}.styles+xml"/>` +
          `<Override PartName="/xl/sharedStrings.xml" ContentType="${contentType}.sharedStrings+xml"/></Types>`,
      ),
    ],
    [
      '_rels/.rels',
      xml(
        `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
          `<Relationship Id="rId1" Type="${relationships}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
      ),
    ],
    [
      'xl/workbook.xml',
      xml(
        `<workbook xmlns="${main}" xmlns:r="${relationships}"><sheets>` +
          sheets
            .map((sheet, i) => `<sheet name="${escapeText(sheet.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`)
            .join('') +
          `</sheets></workbook>`,
      ),
    ],
    [
      'xl/_rels/workbook.xml.rels',
      xml(
        `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
          sheetNumbers
            .map(
              (i) => `<Relationship Id="rId${i}" Type="${relationships}/worksheet" Target="worksheets/sheet${i}.xml"/>`,
            )
            .join('') +
          `<Relationship Id="rId${n + 1}" Type="${relationships}/styles" Target="styles.xml"/>` +
          `<Relationship Id="rId${n + 2}" Type="${relationships}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
      ),
    ],
    ...worksheets.map((sheetXml, i): [string, string] => [`xl/worksheets/sheet${i + 1}.xml`, sheetXml]),
    // Excel repairs a workbook without styles: one font, the two fills it reserves, one border, one cell format.
    [
      'xl/styles.xml',
      xml(
        `<styleSheet xmlns="${main}"><fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts>` +
          `<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>` +
          `<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>` +
          `<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>` +
          `<cellXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/></cellXfs>` +
          `<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>`,
      ),
    ],
    [
      'xl/sharedStrings.xml',
      xml(`<sst xmlns="${main}" count="${stringCells}" uniqueCount="${strings.size}">${sst.join('')}</sst>`),
    ],
  ]);
}

function worksheetXml(sheet: XlsxSheet, shared: (text: string) => number): string {
  if (sheet.rows.length > maxRows)
    throw new RangeError(`sheet "${sheet.name}" has ${sheet.rows.length} rows, more than Excel's ${maxRows}`);
  const parts: string[] = [];
  sheet.rows.forEach((row, r) => {
    if (row.length > maxColumns)
      throw new RangeError(
        `row ${r + 1} of sheet "${sheet.name}" has ${row.length} cells, more than Excel's ${maxColumns}`,
      );
    const cells: string[] = [];
    row.forEach((value, c) => {
      const ref = `${columnName(c)}${r + 1}`;
      if (typeof value === 'string') cells.push(`<c r="${ref}" t="s"><v>${shared(value)}</v></c>`);
      else if (typeof value === 'number') {
        if (!Number.isFinite(value))
          throw new RangeError(`cell ${ref} of sheet "${sheet.name}" is ${value}, which a spreadsheet cannot hold`);
        cells.push(`<c r="${ref}"><v>${value}</v></c>`);
      }
    });
    if (cells.length > 0) parts.push(`<row r="${r + 1}">${cells.join('')}</row>`);
  });
  return xml(`<worksheet xmlns="${main}"><sheetData>${parts.join('')}</sheetData></worksheet>`);
}

function checkSheetNames(sheets: readonly XlsxSheet[]): void {
  const seen = new Set<string>();
  for (const { name } of sheets) {
    if (
      name.length === 0 ||
      name.length > 31 ||
      /[\\/?*[\]:]/.test(name) ||
      /^'|'$/.test(name) ||
      Array.from(name).some((char) => char < ' ') ||
      forbiddenInXml.test(name)
    ) {
      throw new RangeError(`"${name}" is not a sheet name Excel accepts`);
    }
    if (seen.has(name.toLowerCase())) throw new RangeError(`two sheets are named "${name}"`);
    seen.add(name.toLowerCase());
  }
}

/** A = 0, Z = 25, AA = 26, XFD = 16383. */
export function columnName(index: number): string {
  let name = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

// XML 1.0 §2.2: C0 controls other than tab, LF and CR, lone surrogates, U+FFFE and U+FFFF.
const forbiddenInXml = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

/** Text as XML character data (or an attribute value). */
function escapeText(text: string): string {
  const forbidden = forbiddenInXml.exec(text);
  if (forbidden !== null) {
    throw new RangeError(
      `text holds U+${(forbidden[0].codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}, which XML cannot carry`,
    );
  }
  return text.replace(/[&<>"]/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[char] ?? char);
}

/** A cell's text: Excel reads `_xHHHH_` as an escaped character, so a literal one has its `_` escaped; a CR is
 * escaped too because XML parsers turn a raw CR into LF (XML 1.0 §2.11). */
function escapeCellText(text: string): string {
  return escapeText(text)
    .replace(/_(?=x[0-9A-Fa-f]{4}_)/g, '_x005F_')
    .replaceAll('\r', '_x000D_');
}

function xml(body: string): string {
  return declaration + body;
}
