// SpreadsheetML's cells as text (ECMA-376 Part 1 §18.3.1.4 c, §18.4 shared strings): the handlers that the XML
// scanner feeds with a sheet part and with the shared strings part. Values are the text exactly as written, never
// trimmed or converted: a number is its `<v>` text, so "1430" and "0012" come through as the file holds them.
import type { XmlHandler } from './xml-scanner.js';

export interface XlsxRow {
  /** The row's 1-based number in the sheet. */
  number: number;
  /** By 0-based column (A = 0); a column without a value is undefined, and the array ends at the last value. */
  cells: (string | undefined)[];
}

const maxColumn = 16_383; // XFD
const maxRow = 1_048_576;

/** `<sst><si>` entries; rich text runs (`<r><t>`) concatenate, phonetic runs (`<rPh>`) do not count. */
export class SharedStringsScan implements XmlHandler {
  readonly strings: string[] = [];
  private current: string | undefined;
  private inT = false;
  private inPhonetic = false;

  open(name: string): void {
    if (name === 'si') this.current = '';
    else if (name === 'rPh') this.inPhonetic = true;
    else if (name === 't') this.inT = this.current !== undefined && !this.inPhonetic;
  }
  close(name: string): void {
    if (name === 'si') {
      this.strings.push(unescapeExcel(this.current ?? ''));
      this.current = undefined;
    } else if (name === 'rPh') this.inPhonetic = false;
    else if (name === 't') this.inT = false;
  }
  text(text: string): void {
    if (this.inT) this.current = (this.current ?? '') + text;
  }
}

/** `<sheetData><row><c>` to rows of text; queues completed rows for the caller to take after each chunk. */
export class SheetScan implements XmlHandler {
  private ready: XlsxRow[] = [];
  private inSheetData = false;
  private row: XlsxRow | undefined;
  private rowNumber = 0;
  private column = -1;
  private cell: { type: string; value: string | undefined; inline: string | undefined } | undefined;
  private into: 'value' | 'inline' | undefined;
  private inPhonetic = false;

  constructor(
    private readonly sharedStrings: readonly string[],
    private readonly fail: (detail: string) => Error,
  ) {}

  take(): XlsxRow[] {
    const rows = this.ready;
    this.ready = [];
    return rows;
  }

  open(name: string, attributes: ReadonlyMap<string, string>): void {
    if (name === 'sheetData') this.inSheetData = true;
    if (!this.inSheetData) return;
    const r = attributes.get('r');
    if (name === 'row') {
      this.rowNumber = r === undefined ? this.rowNumber + 1 : Number(r);
      if (!Number.isInteger(this.rowNumber) || this.rowNumber < 1 || this.rowNumber > maxRow)
        throw this.fail(`has a row numbered "${r ?? ''}"`);
      this.row = { number: this.rowNumber, cells: [] };
      this.column = -1;
    } else if (name === 'c') {
      this.column = r === undefined ? this.column + 1 : columnOf(r);
      if (this.column < 0 || this.column > maxColumn)
        throw this.fail(`has a cell "${r ?? ''}" outside columns A to XFD`);
      this.cell = { type: attributes.get('t') ?? 'n', value: undefined, inline: undefined };
    } else if (this.cell === undefined) return;
    else if (name === 'v') this.into = 'value';
    else if (name === 'is') this.cell.inline = '';
    else if (name === 'rPh') this.inPhonetic = true;
    else if (name === 't' && this.cell.inline !== undefined && !this.inPhonetic) this.into = 'inline';
  }

  close(name: string): void {
    if (name === 'sheetData') this.inSheetData = false;
    else if (name === 'v' || name === 't') this.into = undefined;
    else if (name === 'rPh') this.inPhonetic = false;
    else if (name === 'c' && this.cell !== undefined) {
      const value = this.valueOf(this.cell.type, this.cell.value, this.cell.inline);
      const cells = this.row?.cells;
      if (value !== undefined && cells !== undefined) {
        while (cells.length < this.column) cells.push(undefined);
        cells[this.column] = value;
      }
      this.cell = undefined;
    } else if (name === 'row' && this.row !== undefined) {
      if (this.row.cells.length > 0) this.ready.push(this.row);
      this.row = undefined;
    }
  }

  text(text: string): void {
    if (this.cell === undefined || this.into === undefined) return;
    if (this.into === 'value') this.cell.value = (this.cell.value ?? '') + text;
    else this.cell.inline = (this.cell.inline ?? '') + text;
  }

  private valueOf(type: string, value: string | undefined, inline: string | undefined): string | undefined {
    switch (type) {
      case 'inlineStr':
        return inline === undefined ? undefined : unescapeExcel(inline);
      case 's': {
        if (value === undefined) return undefined;
        const text = /^\d+$/.test(value.trim()) ? this.sharedStrings[Number(value)] : undefined;
        if (text === undefined)
          throw this.fail(`row ${this.rowNumber} refers to shared string "${value}", which the workbook lacks`);
        return text;
      }
      case 'str':
        return value === undefined ? undefined : unescapeExcel(value);
      case 'b':
        return value === undefined ? undefined : value.trim() === '1' ? 'TRUE' : 'FALSE';
      case 'n':
      case 'e':
      case 'd':
        return value;
      default:
        throw this.fail(`row ${this.rowNumber} has a cell of unknown type "${type}"`);
    }
  }
}

/** Column letters to a 0-based index: A = 0, Z = 25, AA = 26, XFD = 16383; -1 for what is not a cell reference. */
function columnOf(reference: string): number {
  const letters = /^([A-Za-z]{1,3})\d+$/.exec(reference)?.[1]?.toUpperCase();
  let column = 0;
  for (const letter of letters ?? '') column = column * 26 + letter.charCodeAt(0) - 64;
  return column - 1;
}

/** Excel writes characters XML cannot carry (and a literal `_x` sequence) as `_xHHHH_`. */
function unescapeExcel(text: string): string {
  if (!text.includes('_x')) return text;
  return text.replace(/_x([0-9A-Fa-f]{4})_/g, (_match: string, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}
