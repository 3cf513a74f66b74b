// Step 2, "Pruebas de Datos e-CF": what DGII receives must be a row of the set, field by field (PCERT fn 4: "con los
// mismos campos y en el mismo orden"; research/certification.md §4). The document is read back into the set's
// JSON shape (the e-CF with the fiscal parser, the RFCE as a tree) and compared leaf by leaf with leavesOf. Only
// what the set cannot fix is free: the signature, FechaHoraFirma (the set has no such column, §2) and the RFCE's
// CodigoSeguridadeCF (the set holds `#e`: it comes from the signed full e-CF, recorded for the portal upload).
import { leavesOf, type SetCase } from '../../fiscal/certification/index.js';
import { parseEcf, parseXmlTree, type XmlTree } from '../../fiscal/parse/index.js';
import type { SandboxMessage } from '../state/schema.js';
import { emulatorCodes, emulatorMarker } from './portal-steps.js';
import { setRowFor } from './set-composition.js';

type Json = Record<string, unknown>;

/** The RFCE's repeated elements (RFCE-32.xsd: FormaDePago up to 7, ImpuestoAdicional up to 20). */
const repeatedInRfce: ReadonlySet<string> = new Set(['FormaDePago', 'ImpuestoAdicional']);

/** An RFCE tree as the set's RFCE rows are shaped: arrays for the repeated elements, a single value otherwise. */
function rfceJsonOf(tree: XmlTree): Json {
  const out: Json = {};
  for (const [name, occurrences] of Object.entries(tree)) {
    const values = occurrences.map((occurrence) =>
      typeof occurrence === 'string' ? occurrence : rfceJsonOf(occurrence),
    );
    // A second occurrence of a single element stays visible as an array, so the comparison names it.
    out[name] = repeatedInRfce.has(name) || values.length > 1 ? values : values[0];
  }
  return out;
}

function documentJson(channel: 'ecf' | 'rfce', xml: Buffer): Json | undefined {
  if (channel === 'ecf') {
    const parsed = parseEcf(xml.toString('utf8'));
    return parsed.ok ? parsed.document : undefined;
  }
  const parsed = parseXmlTree(xml);
  return parsed.ok ? rfceJsonOf(parsed.tree) : undefined;
}

/** Pointers the set leaves to the sender, per channel. */
const freePointers: Readonly<Record<'ecf' | 'rfce', readonly string[]>> = {
  ecf: ['/FechaHoraFirma'],
  rfce: ['/Encabezado/CodigoSeguridadeCF'],
};

const shown = (value: unknown) => (value === undefined ? 'nada' : JSON.stringify(value));

/** The first leaf, in the set row's order, where the document differs from it; undefined when they are equal. */
export function firstDifference(
  row: Json,
  document: Json,
  free: readonly string[],
): { pointer: string; expected: unknown; received: unknown } | undefined {
  const expected = leavesOf(row);
  const received = leavesOf(document);
  for (const pointer of free) {
    expected.delete(pointer);
    received.delete(pointer);
  }
  for (const [pointer, value] of expected) {
    if (received.get(pointer) !== value) return { pointer, expected: value, received: received.get(pointer) };
  }
  for (const [pointer, value] of received)
    if (!expected.has(pointer)) return { pointer, expected: undefined, received: value };
  return undefined;
}

/** Why an e-CF or RFCE that passed DGII's usual checks is not the set's; undefined when it is. */
export function dataTestRefusal(
  cases: readonly SetCase[],
  channel: 'ecf' | 'rfce',
  encf: string,
  xml: Buffer,
): SandboxMessage | undefined {
  const row = setRowFor(cases, channel === 'ecf' ? 'ECF' : 'RFCE', encf);
  const what = channel === 'ecf' ? 'e-CF' : 'RFCE';
  if (row === undefined) {
    return {
      codigo: emulatorCodes.notInSet,
      valor: `${emulatorMarker} El ${what} ${encf} no corresponde a ninguna fila del set de pruebas de la postulación.`,
    };
  }
  const document = documentJson(channel, xml);
  if (document === undefined)
    return {
      codigo: emulatorCodes.differsFromSet,
      valor: `${emulatorMarker} El ${what} ${encf} no pudo leerse para compararlo con el set de pruebas.`,
    };
  const difference = firstDifference(row.payload, document, freePointers[channel]);
  if (difference === undefined) return undefined;
  return {
    codigo: emulatorCodes.differsFromSet,
    valor: `${emulatorMarker} El ${what} ${encf} no coincide con el set de pruebas en ${difference.pointer}: el set dice ${shown(difference.expected)}, el documento ${shown(difference.received)}.`,
  };
}
