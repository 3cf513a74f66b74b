// The layout of DGII's public taxpayer listing, one line at a time. Pure: bytes in, a row or a rejection out.
//
// Two published layouts are recognised (sources: franklinmdev/dgii-ts `src/bulk/parser.ts`, verified there against
// the ~778k-row production file; and the RNC_CONTRIBUYENTES notes in research):
// - `DGII_RNC.TXT` inside `DGII_RNC.zip`: no header, `|`-delimited, exactly 11 columns:
//   0 RNC/cédula, 1 legal name, 2 trade name, 3 economic activity, 4–7 empty, 8 start date dd/mm/yyyy,
//   9 status (ACTIVO, SUSPENDIDO, DADO DE BAJA, CESE TEMPORAL, ANULADO, RECHAZADO), 10 payment regime (NORMAL, RST, PST).
// - `RNC_Contribuyentes_*.csv` inside `RNC_CONTRIBUYENTES.zip` (DGII's newer name for the same listing): a header,
//   every field quoted, `,`-delimited, 6 columns: RNC, RAZÓN SOCIAL, ACTIVIDAD ECONÓMICA, FECHA DE INICIO
//   OPERACIONES, ESTADO, RÉGIMEN DE PAGO.
// Both are Windows-1252 (a superset of ISO-8859-1's printable range); reading them as UTF-8 garbles Ñ and accents.

export interface RegistryRow {
  /** 9-digit RNC or 11-digit cédula. */
  taxId: string;
  legalName: string;
  tradeName: string | null;
  economicActivity: string | null;
  /** yyyy-mm-dd, or null when absent or not a real date. */
  startedOn: string | null;
  /** As DGII writes it, upper-cased. */
  status: string;
  paymentRegime: string | null;
}

export const rejectReasons = ['bad_encoding', 'column_count', 'bad_rnc', 'missing_name', 'missing_status'] as const;
export type RejectReason = (typeof rejectReasons)[number];

export type ParsedLine = { ok: true; row: RegistryRow } | { ok: false; reason: RejectReason; detail: string };

export type RegistryLayout = 'dgii-rnc-txt' | 'rnc-contribuyentes-csv';

const pipeColumns = 11;
const csvColumns = 6;

// Windows-1252 bytes 0x80–0x9F (ISO-8859-1 has control characters there). Empty: the byte is undefined in 1252.
const cp1252High = '€\u0000‚ƒ„…†‡ˆ‰Š‹Œ\u0000Ž\u0000\u0000‘’“”•–—˜™š›œ\u0000žŸ';

/** Decodes one line of Windows-1252; refuses control characters, bytes 1252 leaves undefined, and UTF-8 text. */
export function decodeLine(bytes: Uint8Array): { ok: true; text: string } | { ok: false; detail: string } {
  let high = false;
  let c1 = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i] as number;
    if ((byte < 0x20 && byte !== 0x09) || byte === 0x7f)
      return { ok: false, detail: `control byte 0x${byte.toString(16).padStart(2, '0')} at column ${i + 1}` };
    if (byte >= 0x80) {
      high = true;
      if (byte <= 0x9f) {
        if (cp1252High[byte - 0x80] === '\u0000')
          return { ok: false, detail: `byte 0x${byte.toString(16)} is not Windows-1252 (column ${i + 1})` };
        c1 = true;
      }
    }
  }
  if (high && isUtf8(bytes)) return { ok: false, detail: 'the line is UTF-8, the listing is Windows-1252/ISO-8859-1' };
  const latin1 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  if (!c1) return { ok: true, text: latin1 };
  let text = '';
  for (const char of latin1) {
    const code = char.charCodeAt(0);
    text += code >= 0x80 && code <= 0x9f ? (cp1252High[code - 0x80] as string) : char;
  }
  return { ok: true, text };
}

// Latin-1 names almost never form valid multi-byte UTF-8 (a letter byte follows Ñ or an accent), so a line that
// is valid UTF-8 with non-ASCII in it was written in the wrong encoding. Scanned by hand: a decoder that throws on
// every ordinary accented line would cost more than the rest of the parse.
function isUtf8(bytes: Uint8Array): boolean {
  let i = 0;
  while (i < bytes.length) {
    const byte = bytes[i] as number;
    if (byte < 0x80) {
      i++;
      continue;
    }
    const length =
      byte >= 0xc2 && byte <= 0xdf ? 2 : byte >= 0xe0 && byte <= 0xef ? 3 : byte >= 0xf0 && byte <= 0xf4 ? 4 : 0;
    if (length === 0 || i + length > bytes.length) return false;
    for (let k = 1; k < length; k++) if (((bytes[i + k] as number) & 0xc0) !== 0x80) return false;
    i += length;
  }
  return true;
}

/** The layout, from the first line of the file (the CSV has a header; the TXT has none). */
export function detectLayout(firstLine: string): { layout: RegistryLayout; header: boolean } {
  const line = stripBom(firstLine).trimStart();
  if (/^"?RNC"?\s*,/i.test(line)) return { layout: 'rnc-contribuyentes-csv', header: true };
  return { layout: 'dgii-rnc-txt', header: false };
}

export function stripBom(line: string): string {
  if (line.startsWith('\uFEFF')) return line.slice(1);
  // A UTF-8 BOM read as Windows-1252.
  if (line.startsWith('ï»¿')) return line.slice(3);
  return line;
}

/** Runs of spaces collapse and the ends are trimmed: the listing pads and double-spaces names. */
function clean(value: string): string {
  const trimmed = value.trim();
  return /\s\s|[\t\n\r\f\v\u00a0]/.test(trimmed) ? trimmed.replace(/\s+/g, ' ') : trimmed;
}

function optional(value: string): string | null {
  const cleaned = clean(value);
  return cleaned === '' ? null : cleaned;
}

/** dd/mm/yyyy to yyyy-mm-dd; anything else (empty, 00/00/0000, 31/02/2020) to null: the date is informative only. */
export function registryDate(value: string): string | null {
  const match = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(value.trim());
  if (match === null) return null;
  const [, day, month, year] = match as unknown as [string, string, string, string];
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (
    date.getUTCFullYear() !== Number(year) ||
    date.getUTCMonth() !== Number(month) - 1 ||
    date.getUTCDate() !== Number(day)
  )
    return null;
  if (Number(year) < 1800) return null;
  return `${year}-${month}-${day}`;
}

/** Splits one CSV line (`,`, fields optionally quoted, `""` inside quotes). */
export function splitCsv(line: string): string[] | undefined {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    if (line[i] === '"') {
      let value = '';
      i++;
      for (;;) {
        const next = line.indexOf('"', i);
        if (next === -1) return undefined;
        value += line.slice(i, next);
        if (line[next + 1] === '"') {
          value += '"';
          i = next + 2;
        } else {
          i = next + 1;
          break;
        }
      }
      fields.push(value);
      if (i === line.length) return fields;
      if (line[i] !== ',') return undefined;
      i++;
    } else {
      const next = line.indexOf(',', i);
      if (next === -1) {
        fields.push(line.slice(i));
        return fields;
      }
      fields.push(line.slice(i, next));
      i = next + 1;
    }
  }
}

function row(fields: {
  taxId: string;
  legalName: string;
  tradeName: string;
  activity: string;
  started: string;
  status: string;
  regime: string;
}): ParsedLine {
  const taxId = fields.taxId.trim().replace(/-/g, '');
  // Only the shape is checked here: DGII has issued a few numbers that fail the check-digit rules
  // (src/fiscal/taxpayer-id.ts), and the registry is where they are recognised.
  if (!/^(\d{9}|\d{11})$/.test(taxId))
    return {
      ok: false,
      reason: 'bad_rnc',
      detail: `"${clean(fields.taxId)}" is neither a 9-digit RNC nor an 11-digit cédula`,
    };
  const legalName = clean(fields.legalName);
  if (legalName === '') return { ok: false, reason: 'missing_name', detail: `${taxId} has no legal name` };
  const status = clean(fields.status).toUpperCase();
  if (status === '') return { ok: false, reason: 'missing_status', detail: `${taxId} has no status` };
  return {
    ok: true,
    row: {
      taxId,
      legalName,
      tradeName: optional(fields.tradeName),
      economicActivity: optional(fields.activity),
      startedOn: registryDate(fields.started),
      status,
      paymentRegime: optional(fields.regime),
    },
  };
}

/** One decoded data line of the given layout. */
export function parseLine(line: string, layout: RegistryLayout): ParsedLine {
  if (layout === 'dgii-rnc-txt') {
    const fields = line.split('|');
    if (fields.length !== pipeColumns)
      return { ok: false, reason: 'column_count', detail: `${fields.length} columns, the layout has ${pipeColumns}` };
    const [taxId, legalName, tradeName, activity, , , , , started, status, regime] = fields as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    return row({ taxId, legalName, tradeName, activity, started, status, regime });
  }
  const fields = splitCsv(line);
  if (fields === undefined) return { ok: false, reason: 'column_count', detail: 'unbalanced quotes' };
  if (fields.length !== csvColumns)
    return { ok: false, reason: 'column_count', detail: `${fields.length} columns, the layout has ${csvColumns}` };
  const [taxId, legalName, activity, started, status, regime] = fields as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  return row({ taxId, legalName, tradeName: '', activity, started, status, regime });
}
