// The checks a certification set passes before anything of it reaches DGII (zero rejections: SPEC §3, certification
// rule 6): its shape, and every ECF case built VERBATIM — the set's own e-NCF, expiry, Emisor and Totales, nothing
// recomputed or defaulted — through the same model, fiscal rules and builder as any document, with every leaf of what
// would be written equal to the set's text. DGII compares the XML to the set field by field
// (research/certification.md §4), so a value our builder would write differently (1000 as 1000.00) is refused here
// rather than at DGII.
import { buildEcf, normaliseEcf, type EcfObject } from '../build/index.js';
import { error, type Finding } from '../finding.js';
import { isEcfType } from '../model/index.js';
import { isConsumerSummary } from '../timbre-url.js';
import { textAt } from '../rules/document-view.js';
import { validateEcfDocument } from '../validate-ecf.js';
import type { Json, SetCase } from './set-rows.js';

/** The fixed signing time the checks build with: the set has none (the service signs when it sends). */
const checkSigningTime = '01-01-2000 00:00:00';

export interface CaseFindings {
  readonly caseKey: string;
  readonly kind: SetCase['kind'];
  readonly findings: Finding[];
}

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every leaf of a JSON document by JSON pointer (array entries by position), walked without recursion. */
export function leavesOf(value: unknown, at = ''): Map<string, unknown> {
  const leaves = new Map<string, unknown>();
  const pending: [unknown, string][] = [[value, at]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, pointer] = next;
    if (Array.isArray(node))
      for (let index = node.length - 1; index >= 0; index--) pending.push([node[index], `${pointer}/${String(index)}`]);
    else if (isObject(node))
      for (const [name, child] of Object.entries(node).reverse()) pending.push([child, `${pointer}/${name}`]);
    else leaves.set(pointer, node);
  }
  return leaves;
}

/** How deep a JSON value nests, counted without recursion, stopping once past `limit`. */
export function depthOf(value: unknown, limit: number): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, depth] = next;
    deepest = Math.max(deepest, depth);
    if (deepest > limit) return deepest;
    if (Array.isArray(node)) for (const child of node) pending.push([child, depth + 1]);
    else if (isObject(node)) for (const child of Object.values(node)) pending.push([child, depth + 1]);
  }
  return deepest;
}

/** The set's own service-owned values, taken out of the payload to be given to the builder as the range would. */
export function splitOwnedFields(payload: Json): {
  document: Json;
  eNCF: string | undefined;
  fechaVencimientoSecuencia: string | undefined;
} {
  const encabezado = isObject(payload['Encabezado']) ? payload['Encabezado'] : {};
  const idDoc = isObject(encabezado['IdDoc']) ? encabezado['IdDoc'] : {};
  const { eNCF, FechaVencimientoSecuencia, ...restIdDoc } = idDoc;
  return {
    document: { ...payload, Encabezado: { ...encabezado, IdDoc: restIdDoc } },
    eNCF: typeof eNCF === 'string' ? eNCF : undefined,
    fechaVencimientoSecuencia: typeof FechaVencimientoSecuencia === 'string' ? FechaVencimientoSecuencia : undefined,
  };
}

/** An ECF case's findings: errors only (DGII's set is DGII's; a totals warning is its own business). */
export function checkEcfCase(setCase: SetCase, context: { now: Date; issuerRnc?: string }): Finding[] {
  const { payload } = setCase;
  const type = textAt(payload, ['Encabezado', 'IdDoc', 'TipoeCF']);
  if (type === undefined || !isEcfType(type))
    return [
      error('/Encabezado/IdDoc/TipoeCF', 'unknown_type', 'TipoeCF is one of 31, 32, 33, 34, 41, 43, 44, 45, 46, 47.'),
    ];
  const findings: Finding[] = [];
  if (setCase.ecfType !== undefined && setCase.ecfType !== type)
    findings.push(
      error(
        '/Encabezado/IdDoc/TipoeCF',
        'type_mismatch',
        `The case says ecfType ${setCase.ecfType}; its payload's TipoeCF is ${type}.`,
      ),
    );
  const nonText = [...leavesOf(payload)].filter(([, value]) => typeof value !== 'string');
  for (const [pointer] of nonText)
    findings.push(
      error(
        pointer,
        'not_text',
        "Every value of a set is text, as the workbook's cells are: send it as a string, verbatim.",
      ),
    );
  const { document, eNCF, fechaVencimientoSecuencia } = splitOwnedFields(payload);
  const rncEmisor = textAt(payload, ['Encabezado', 'Emisor', 'RNCEmisor']);
  if (eNCF === undefined)
    findings.push(error('/Encabezado/IdDoc/eNCF', 'missing', "The set fixes every case's e-NCF: eNCF is required."));
  else if (!new RegExp(`^E${type}\\d{10}$`).test(eNCF))
    findings.push(
      error(
        '/Encabezado/IdDoc/eNCF',
        'encf_format',
        `${eNCF} is not an e-NCF of type ${type}: E${type} and a ten-digit sequence.`,
      ),
    );
  if (context.issuerRnc !== undefined && rncEmisor !== undefined && rncEmisor !== context.issuerRnc) {
    findings.push(
      error(
        '/Encabezado/Emisor/RNCEmisor',
        'not_the_issuer',
        `RNCEmisor ${rncEmisor} is not the RNC of this company (${context.issuerRnc}).`,
      ),
    );
  }
  if (eNCF !== undefined && rncEmisor !== undefined && setCase.caseKey !== `${rncEmisor}${eNCF}`) {
    findings.push(
      error('', 'case_key_mismatch', `The case key ${setCase.caseKey} is not RNCEmisor + eNCF (${rncEmisor}${eNCF}).`),
    );
  }
  if (findings.length > 0) return findings;

  const validation = validateEcfDocument(document, { now: context.now });
  const errors = validation.findings.filter((finding) => finding.severity === 'error');
  if (errors.length > 0) return errors;
  const owned = {
    eNCF: eNCF ?? '',
    ...(fechaVencimientoSecuencia === undefined ? {} : { fechaVencimientoSecuencia }),
    fechaHoraFirma: checkSigningTime,
  };
  const built = buildEcf(document, owned);
  if (!built.ok) return built.findings.filter((finding) => finding.severity === 'error');
  const written = normaliseEcf(document, owned);
  if (!written.ok) return written.findings;
  return verbatimFindings(payload, written.document);
}

/** Where what would be written differs from the set's text: a value changed, dropped or added. */
function verbatimFindings(payload: Json, written: EcfObject): Finding[] {
  const sent = leavesOf(payload);
  const kept = leavesOf(written);
  kept.delete('/FechaHoraFirma');
  const findings: Finding[] = [];
  for (const [pointer, value] of sent) {
    const out = kept.get(pointer);
    if (out === undefined)
      findings.push(
        error(
          pointer,
          'not_written',
          `${JSON.stringify(value)} would not be written: the e-CF sent would lack a value of the set.`,
        ),
      );
    else if (out !== value)
      findings.push(
        error(
          pointer,
          'not_verbatim',
          `${JSON.stringify(value)} would be written as ${JSON.stringify(out)}: DGII compares it with the set's text.`,
        ),
      );
  }
  for (const [pointer, value] of kept)
    if (!sent.has(pointer))
      findings.push(
        error(pointer, 'added', `${JSON.stringify(value)} would be written although the set has no value there.`),
      );
  return findings;
}

/** An ECF case that DGII takes as an RFCE: a type 32 under DOP 250,000.00 (research/dgii-protocol.md §8). */
export function isRfceRouted(setCase: SetCase): boolean {
  const total = textAt(setCase.payload, ['Encabezado', 'Totales', 'MontoTotal']);
  return (
    setCase.kind === 'ECF' &&
    total !== undefined &&
    isConsumerSummary(textAt(setCase.payload, ['Encabezado', 'IdDoc', 'TipoeCF']) ?? '', total)
  );
}
