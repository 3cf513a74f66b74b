// ANECF, the request to annul unused e-NCF (Formato Anulación de e-NCF v1.0): up to 10 lines, one per type,
// each with up to 10,000 ranges; quantities must add up.
import { error, type Finding } from '../finding.js';
import { leaf, writeXmlDocument } from '../xml/xml-writer.js';

export interface AnnulledRange {
  /** e-NCF, 13 characters. */
  SecuenciaeNCFDesde: string;
  SecuenciaeNCFHasta: string;
}

export interface AnnulmentLine {
  TipoeCF: string;
  ranges: AnnulledRange[];
}

export interface Anecf {
  RncEmisor: string;
  /** dd-MM-yyyy HH:mm:ss, GMT-4. */
  FechaHoraAnulacioneNCF: string;
  lines: AnnulmentLine[];
}

const annullableTypes = ['31', '32', '33', '34', '41', '43', '44', '45', '46', '47'];

/** What one ANECF carries (ANECF.xsd): Anulacion maxOccurs 10, Secuencias maxOccurs 10000, CantidadeNCFAnulados
 * Num10Validation (`\d{1,10}`). Nothing else bounds a span: its e-NCF have ten-digit sequences. */
export const anecfLimits = { lines: 10, rangesPerLine: 10_000, numbers: 9_999_999_999 } as const;

function sequenceNumber(encf: string): bigint {
  return BigInt(encf.slice(3));
}

/** How many numbers a range covers, or undefined when it is not a range of this type. */
export function rangeSize(range: AnnulledRange, type: string): bigint | undefined {
  const shape = new RegExp(`^E${type}\\d{10}$`);
  if (!shape.test(range.SecuenciaeNCFDesde) || !shape.test(range.SecuenciaeNCFHasta)) return undefined;
  const size = sequenceNumber(range.SecuenciaeNCFHasta) - sequenceNumber(range.SecuenciaeNCFDesde) + 1n;
  return size > 0n ? size : undefined;
}

export function checkAnecf(request: Anecf): Finding[] {
  const findings: Finding[] = [];
  if (request.lines.length === 0 || request.lines.length > anecfLimits.lines)
    findings.push(error('/lines', 'line_count', 'An annulment has 1 to 10 lines.'));
  const types = new Set<string>();
  request.lines.forEach((line, i) => {
    if (!annullableTypes.includes(line.TipoeCF))
      findings.push(error(`/lines/${i}/TipoeCF`, 'unknown_type', `${line.TipoeCF} is not an e-CF type.`));
    if (types.has(line.TipoeCF))
      findings.push(
        error(
          `/lines/${i}/TipoeCF`,
          'duplicate_type',
          `Type ${line.TipoeCF} already has a line; put all its ranges there.`,
        ),
      );
    types.add(line.TipoeCF);
    if (line.ranges.length === 0 || line.ranges.length > anecfLimits.rangesPerLine)
      findings.push(error(`/lines/${i}/ranges`, 'range_count', 'A line has 1 to 10,000 ranges.'));
    line.ranges.forEach((range, j) => {
      if (rangeSize(range, line.TipoeCF) === undefined) {
        findings.push(
          error(
            `/lines/${i}/ranges/${j}`,
            'range_invalid',
            `${range.SecuenciaeNCFDesde}..${range.SecuenciaeNCFHasta} is not an ascending range of type ${line.TipoeCF} e-NCF.`,
          ),
        );
      }
    });
  });
  const total = request.lines.reduce(
    (sum, line) => sum + line.ranges.reduce((inner, range) => inner + (rangeSize(range, line.TipoeCF) ?? 0n), 0n),
    0n,
  );
  if (total > BigInt(anecfLimits.numbers))
    findings.push(error('/lines', 'too_many_numbers', 'One annulment covers at most 9,999,999,999 numbers.'));
  return findings;
}

export function buildAnecf(
  request: Anecf,
): { ok: true; xml: string; total: bigint } | { ok: false; findings: Finding[] } {
  const findings = checkAnecf(request);
  if (findings.length > 0) return { ok: false, findings };
  const lineTotals = request.lines.map((line) =>
    line.ranges.reduce((sum, range) => sum + (rangeSize(range, line.TipoeCF) ?? 0n), 0n),
  );
  const total = lineTotals.reduce((sum, count) => sum + count, 0n);
  const xml = writeXmlDocument({
    name: 'ANECF',
    content: [
      {
        name: 'Encabezado',
        content: [
          leaf('Version', '1.0'),
          leaf('RncEmisor', request.RncEmisor),
          leaf('CantidadeNCFAnulados', String(total)),
          leaf('FechaHoraAnulacioneNCF', request.FechaHoraAnulacioneNCF),
        ],
      },
      {
        name: 'DetalleAnulacion',
        content: request.lines.map((line, i) => ({
          name: 'Anulacion',
          content: [
            leaf('NoLinea', String(i + 1)),
            leaf('TipoeCF', line.TipoeCF),
            {
              name: 'TablaRangoSecuenciasAnuladaseNCF',
              content: line.ranges.map((range) => ({
                name: 'Secuencias',
                content: [
                  leaf('SecuenciaeNCFDesde', range.SecuenciaeNCFDesde),
                  leaf('SecuenciaeNCFHasta', range.SecuenciaeNCFHasta),
                ],
              })),
            },
            leaf('CantidadeNCFAnulados', String(lineTotals[i] ?? 0n)),
          ],
        })),
      },
    ],
  });
  return { ok: true, xml, total };
}
