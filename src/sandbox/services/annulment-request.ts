// An ANECF as the sandbox reads it, and the rules on its blocks that DGII checks before voiding anything
// (Formato Anulación de e-NCF v1.0; DT "Anulación de e-NCF"; research/dgii-protocol.md §7). Messages DGII
// publishes are quoted; the others are ours, in the same voice.
import { groupsOf, textOf, type XmlTree } from '../../fiscal/parse/index.js';
import { checkAnecf, rangeSize, type AnnulledRange } from '../../fiscal/responses/anecf.js';

export interface AnnulmentBlock {
  NoLinea: string;
  TipoeCF: string;
  ranges: AnnulledRange[];
  CantidadeNCFAnulados: string;
}

export interface AnnulmentRequest {
  RncEmisor: string;
  CantidadeNCFAnulados: string;
  FechaHoraAnulacioneNCF: string;
  blocks: AnnulmentBlock[];
}

/** A range to void, as numbers: what the ranges and uses tables speak. */
export interface SequenceSpan {
  type: string;
  from: number;
  to: number;
}

export const dgiiAnnulmentMessages = {
  notXml: 'Tipo de archivo no valido, favor proveer un XML',
  badSignature: 'La firma del documento no es válida',
  invalidType: 'El tipo de comprobante no es válido',
  descendingRange: 'El valor del campo SecuenciaeNCFDesde es mayor al del campo SecuenciaeNCFHasta',
  allUsed: 'Las secuencias que está intentando anular han sido utilizadas',
  voidedWithExceptions: 'Las secuencias fueron anuladas correctamente. Con excepción de las secuencias del detalle',
  lineNotSequential: 'El campo NoLinea no es válido, no cumple orden secuencial.',
  couldNotVoid: 'No fue posible anular las siguientes secuencias',
  notDelegated: 'El RNC del certificado no está delegado para realizar transacciones para el RNC',
} as const;

/** The request's fields, or undefined when a required one is missing (only possible without the XSD). */
export function readAnnulment(tree: XmlTree): AnnulmentRequest | undefined {
  const header = groupsOf(tree, 'Encabezado')[0];
  const detail = groupsOf(tree, 'DetalleAnulacion')[0];
  if (header === undefined || detail === undefined) return undefined;
  const RncEmisor = textOf(header, 'RncEmisor');
  const CantidadeNCFAnulados = textOf(header, 'CantidadeNCFAnulados');
  const FechaHoraAnulacioneNCF = textOf(header, 'FechaHoraAnulacioneNCF');
  if (RncEmisor === undefined || CantidadeNCFAnulados === undefined || FechaHoraAnulacioneNCF === undefined)
    return undefined;
  const blocks: AnnulmentBlock[] = [];
  for (const block of groupsOf(detail, 'Anulacion')) {
    const table = groupsOf(block, 'TablaRangoSecuenciasAnuladaseNCF')[0];
    const ranges = groupsOf(table ?? {}, 'Secuencias').map((range) => ({
      SecuenciaeNCFDesde: textOf(range, 'SecuenciaeNCFDesde') ?? '',
      SecuenciaeNCFHasta: textOf(range, 'SecuenciaeNCFHasta') ?? '',
    }));
    blocks.push({
      NoLinea: textOf(block, 'NoLinea') ?? '',
      TipoeCF: textOf(block, 'TipoeCF') ?? '',
      ranges,
      CantidadeNCFAnulados: textOf(block, 'CantidadeNCFAnulados') ?? '',
    });
  }
  return blocks.length === 0 ? undefined : { RncEmisor, CantidadeNCFAnulados, FechaHoraAnulacioneNCF, blocks };
}

const encfShape = /^E(\d{2})(\d{10})$/;

/** Why a range of a block is wrong, in DGII's words where DGII has them; undefined when it is a valid range. */
function rangeProblem(range: AnnulledRange, block: AnnulmentBlock): string | undefined {
  const where = `(línea ${block.NoLinea}: ${range.SecuenciaeNCFDesde} - ${range.SecuenciaeNCFHasta})`;
  const from = encfShape.exec(range.SecuenciaeNCFDesde);
  const to = encfShape.exec(range.SecuenciaeNCFHasta);
  if (from === null || to === null)
    return `${dgiiAnnulmentMessages.invalidType}: las secuencias deben ser e-NCF de 13 posiciones ${where}.`;
  if (from[1] !== block.TipoeCF || to[1] !== block.TipoeCF)
    return `${dgiiAnnulmentMessages.invalidType}: las secuencias no son del tipo ${block.TipoeCF} de la línea ${where}.`;
  if (Number(from[2]) === 0) return `La secuencia 0 no existe ${where}.`;
  if (rangeSize(range, block.TipoeCF) === undefined) return `${dgiiAnnulmentMessages.descendingRange} ${where}.`;
  return undefined;
}

/** How many numbers the block's valid ranges cover (inclusive: E31..1-E31..1 is one). */
function blockCount(block: AnnulmentBlock): bigint {
  return block.ranges.reduce((sum, range) => sum + (rangeSize(range, block.TipoeCF) ?? 0n), 0n);
}

function sameCount(declared: string, counted: bigint): boolean {
  return /^\d{1,10}$/.test(declared) && BigInt(declared) === counted;
}

/** Every rule on the blocks that does not need the database; empty when the request may proceed. */
export function annulmentProblems(request: AnnulmentRequest): string[] {
  const problems: string[] = [];
  if (request.blocks.some((block, index) => block.NoLinea !== String(index + 1)))
    problems.push(dgiiAnnulmentMessages.lineNotSequential);
  const lines = request.blocks.map((block) => ({ TipoeCF: block.TipoeCF, ranges: block.ranges }));
  for (const finding of checkAnecf({
    RncEmisor: request.RncEmisor,
    FechaHoraAnulacioneNCF: request.FechaHoraAnulacioneNCF,
    lines,
  })) {
    // Ranges are worded one by one below (DGII tells a wrong type from Desde > Hasta); repeated types here.
    if (finding.code === 'unknown_type') problems.push(`${dgiiAnnulmentMessages.invalidType}: ${finding.message}`);
    if (finding.code === 'too_many_numbers') problems.push('Una anulación cubre como máximo 9,999,999,999 secuencias.');
  }
  const seen = new Set<string>();
  for (const block of request.blocks) {
    if (seen.has(block.TipoeCF))
      problems.push(
        `El tipo de comprobante ${block.TipoeCF} aparece en más de una línea; cada tipo se anula en una sola línea.`,
      );
    seen.add(block.TipoeCF);
  }
  const rangeProblems = request.blocks.flatMap((block) =>
    block.ranges.map((range) => rangeProblem(range, block)).filter((problem) => problem !== undefined),
  );
  // Counts are only meaningful over valid ranges: a wrong range is reported once, not again as a wrong count.
  if (rangeProblems.length > 0) return [...problems, ...rangeProblems];
  for (const block of request.blocks) {
    const counted = blockCount(block);
    if (!sameCount(block.CantidadeNCFAnulados, counted)) {
      problems.push(
        `El campo CantidadeNCFAnulados de la línea ${block.NoLinea} (${block.CantidadeNCFAnulados}) no corresponde con la cantidad de secuencias de sus rangos (${String(counted)}).`,
      );
    }
  }
  const total = request.blocks.reduce((sum, block) => sum + blockCount(block), 0n);
  if (!sameCount(request.CantidadeNCFAnulados, total)) {
    problems.push(
      `El campo CantidadeNCFAnulados del encabezado (${request.CantidadeNCFAnulados}) no corresponde con la suma de las líneas (${String(total)}).`,
    );
  }
  return problems;
}

/** The ranges to void, once annulmentProblems found none. */
export function spansOf(request: AnnulmentRequest): SequenceSpan[] {
  return request.blocks.flatMap((block) =>
    block.ranges.map((range) => ({
      type: block.TipoeCF,
      from: Number(range.SecuenciaeNCFDesde.slice(3)),
      to: Number(range.SecuenciaeNCFHasta.slice(3)),
    })),
  );
}
