// The columns of DGII's certification set workbook and the DGII-shaped JSON they stand for (research/certification.md
// §2). A column is named by its leaf element, with one `[i]` per repeated element on the way down: `FormaPago[1]`,
// `NombreItem[3]`, `CodigoItem[3][2]`; the item's `TipoImpuesto[i][j]` and Totales' `TipoImpuesto[i]` share a name
// and differ only by depth. Where DGII's header differs from the XSD, the header is DGII's (`ENCF`,
// `NumeroLineaDoR`, `MontosubRecargo`); both spellings are read. The same layout reads a workbook (the converter)
// and writes one (the sandbox's set generator), so the two are each other's inverse by construction.
import { ecfModel, ecfTypes, type EcfElement } from '../model/index.js';
import { rfceTree } from './rfce-tree.js';

export type SetSheet = 'ECF' | 'RFCE';

/** The column that holds the case key (RNCEmisor + eNCF) in both sheets. */
export const caseKeyColumn = 'CasoPrueba';

/** A cell DGII leaves empty holds this text, never a blank. */
export const emptyCell = '#e';

interface Segment {
  readonly name: string;
  readonly repeated: boolean;
}

/** One leaf of the model as the set's columns name it. */
export interface LeafSlot {
  /** The header without its indices: DGII's spelling. */
  readonly base: string;
  /** How many `[i]` the header carries: one per repeated element from the root down to the leaf itself. */
  readonly depth: number;
  readonly segments: readonly Segment[];
}

/** DGII's header for a leaf where it is not the element's name (research/certification.md §2). */
function dgiiBase(name: string, ancestors: readonly string[]): string {
  if (name === 'eNCF') return 'ENCF';
  if (name === 'NumeroLinea' && ancestors.includes('DescuentoORecargo')) return 'NumeroLineaDoR';
  if (name === 'MontoSubRecargo') return 'MontosubRecargo';
  return name;
}

function slotsOf(
  tree: readonly EcfElement[],
  into: Map<string, LeafSlot>,
  ordered: LeafSlot[],
  above: readonly Segment[] = [],
): void {
  for (const element of tree) {
    const segments = [...above, { name: element.name, repeated: element.repeated }];
    if (element.children !== undefined) {
      slotsOf(element.children, into, ordered, segments);
      continue;
    }
    const slot: LeafSlot = {
      base: dgiiBase(
        element.name,
        above.map((segment) => segment.name),
      ),
      depth: segments.filter((segment) => segment.repeated).length,
      segments,
    };
    const key = slotKey(slot.base, slot.depth);
    const known = into.get(key);
    if (known === undefined) {
      into.set(key, slot);
      ordered.push(slot);
    } else if (pathOf(known) !== pathOf(slot)) {
      // Every type's model is walked into one layout: a name must mean one element in all of them.
      throw new Error(`set columns: ${key} stands for both ${pathOf(known)} and ${pathOf(slot)}`);
    }
  }
}

const slotKey = (base: string, depth: number) => `${base}#${String(depth)}`;
const pathOf = (slot: LeafSlot) => slot.segments.map((segment) => segment.name).join('/');

export interface SheetLayout {
  /** By `base#depth`, DGII's spelling and (where unambiguous) the XSD's. */
  readonly slots: ReadonlyMap<string, LeafSlot>;
  /** Every leaf once, in the order a workbook lists them (XSD order, types 31 to 47 merged). */
  readonly ordered: readonly LeafSlot[];
}

function layoutOf(trees: readonly (readonly EcfElement[])[]): SheetLayout {
  const slots = new Map<string, LeafSlot>();
  const ordered: LeafSlot[] = [];
  for (const tree of trees) slotsOf(tree, slots, ordered);
  // The XSD's own spelling is read too, where it names one leaf only (NumeroLinea does not: it is both the item's
  // and the discount's).
  for (const slot of ordered) {
    const name = slot.segments[slot.segments.length - 1]?.name ?? slot.base;
    const key = slotKey(name, slot.depth);
    if (name !== slot.base && !slots.has(key)) slots.set(key, slot);
  }
  return { slots, ordered };
}

const layouts = new Map<SetSheet, SheetLayout>();

export function sheetLayout(sheet: SetSheet): SheetLayout {
  let layout = layouts.get(sheet);
  if (layout === undefined) {
    layout = sheet === 'ECF' ? layoutOf(ecfTypes.map((type) => ecfModel(type).children)) : layoutOf([rfceTree]);
    layouts.set(sheet, layout);
  }
  return layout;
}

/** A header split into its base and indices: `CodigoItem[3][2]` → CodigoItem, [3, 2]. Headers are trimmed (DGII
 * writes `NumeroContenedor ` with a trailing space). */
export function parseHeader(header: string): { base: string; indices: number[] } | undefined {
  const match = /^([^[\]]+?)((?:\[\d{1,5}\])*)$/.exec(header.trim());
  if (match === null) return undefined;
  const indices = [...(match[2] ?? '').matchAll(/\[(\d+)\]/g)].map((found) => Number(found[1]));
  if (indices.some((index) => index < 1)) return undefined;
  return { base: match[1] ?? '', indices };
}

/** A column resolved to its leaf: the slot and the index of every repeated element on the way. */
export interface ResolvedColumn {
  readonly slot: LeafSlot;
  readonly indices: readonly number[];
}

/**
 * The leaf a header stands for. A header with fewer indices than its leaf needs takes 1 for the missing ones
 * (a table DGII fills once, such as a lone Subtotal, may come unindexed); the exact depth always wins.
 */
export function resolveHeader(sheet: SetSheet, header: string): ResolvedColumn | undefined {
  const parsed = parseHeader(header);
  if (parsed === undefined) return undefined;
  const { slots } = sheetLayout(sheet);
  const exact = slots.get(slotKey(parsed.base, parsed.indices.length));
  if (exact !== undefined) return { slot: exact, indices: parsed.indices };
  for (let depth = parsed.indices.length + 1; depth <= 3; depth += 1) {
    const deeper = slots.get(slotKey(parsed.base, depth));
    if (deeper !== undefined)
      return { slot: deeper, indices: [...parsed.indices, ...Array<number>(depth - parsed.indices.length).fill(1)] };
  }
  return undefined;
}

/** How many of a repeated element a DGII workbook has columns for (research §2: 62 lines, 7 payments, ...). */
const columnsFor: Readonly<Record<string, number>> = {
  Item: 62,
  Pagina: 2,
  Subtotal: 1,
  DescuentoORecargo: 2,
  ImpuestoAdicionalOtraMoneda: 4,
  SubDescuento: 5,
  SubRecargo: 5,
};

function repeats(segments: readonly Segment[]): number[] {
  return segments.flatMap((segment, position) => {
    if (!segment.repeated) return [];
    // Totales' additional taxes: 4 columns; the item's own table has 2 (its XSD maximum).
    if (segment.name === 'ImpuestoAdicional') return [segments[position - 2]?.name === 'Totales' ? 4 : 2];
    return [columnsFor[segment.name] ?? Number.POSITIVE_INFINITY];
  });
}

/** Every header of a DGII-like workbook sheet, `CasoPrueba` first, each leaf with all its index combinations. */
export function sheetHeaders(sheet: SetSheet): string[] {
  const headers = [caseKeyColumn];
  for (const slot of sheetLayout(sheet).ordered) {
    const counts = repeats(slot.segments).map((count, position) => Math.min(count, maxOccursOf(sheet, slot, position)));
    for (const indices of combinations(counts)) headers.push(headerOf(slot, indices));
  }
  return headers;
}

export function headerOf(slot: LeafSlot, indices: readonly number[]): string {
  return `${slot.base}${indices.map((index) => `[${String(index)}]`).join('')}`;
}

function combinations(counts: readonly number[]): number[][] {
  return counts.reduce<number[][]>(
    (sofar, count) => sofar.flatMap((prefix) => Array.from({ length: count }, (_, index) => [...prefix, index + 1])),
    [[]],
  );
}

/** The XSD's maxOccurs of the `position`-th repeated element of a slot, in any type that has it. */
function maxOccursOf(sheet: SetSheet, slot: LeafSlot, position: number): number {
  const trees = sheet === 'ECF' ? ecfTypes.map((type) => ecfModel(type).children) : [rfceTree];
  let most = 1;
  for (const tree of trees) {
    let level: readonly EcfElement[] | undefined = tree;
    let seen = -1;
    for (const segment of slot.segments) {
      const element: EcfElement | undefined = level?.find((candidate) => candidate.name === segment.name);
      if (element === undefined) break;
      if (element.repeated) seen += 1;
      if (element.repeated && seen === position) most = Math.max(most, element.maxOccurs);
      level = element.children;
    }
  }
  return most;
}
