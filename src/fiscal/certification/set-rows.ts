// A row of DGII's certification set workbook to a case of the set file and back (SPEC §2.3). Every cell is
// text and is kept verbatim: nothing trimmed, recomputed, defaulted or dropped; `#e` and blank cells are "not
// sent" (research/certification.md §2, "Cell conventions").
import { error, type Finding } from '../finding.js';
import {
  caseKeyColumn,
  emptyCell,
  headerOf,
  resolveHeader,
  sheetLayout,
  type ResolvedColumn,
  type SetSheet,
} from './set-columns.js';

export type Json = Record<string, unknown>;

/** A case of the set file: `payload` is DGII-shaped JSON, the body `POST /documentos` takes (RFCE: the summary). */
export interface SetCase {
  readonly kind: 'ECF' | 'RFCE' | 'ACECF';
  readonly caseKey: string;
  /** TipoeCF as the case gives it (checked: one of the ten e-CF types). */
  readonly ecfType?: string;
  readonly payload: Json;
}

/** A sheet's header row, read once for all its rows. */
export interface SheetColumns {
  readonly sheet: SetSheet;
  /** By column position: the leaf it stands for, or undefined (the case key, an unknown or a blank header). */
  readonly columns: readonly (ResolvedColumn | undefined)[];
  readonly headers: readonly string[];
  readonly caseKeyAt: number;
}

export type HeaderReading = { ok: true; columns: SheetColumns } | { ok: false; message: string };

export function readHeaderRow(sheet: SetSheet, cells: readonly (string | undefined)[]): HeaderReading {
  const headers = cells.map((cell) => (cell ?? '').trim());
  const caseKeyAt = headers.indexOf(caseKeyColumn);
  if (caseKeyAt === -1) return { ok: false, message: `sheet ${sheet} has no ${caseKeyColumn} column` };
  const seen = new Map<string, string>();
  const columns = headers.map((header) => {
    if (header === '' || header === caseKeyColumn) return undefined;
    const resolved = resolveHeader(sheet, header);
    if (resolved === undefined) return undefined;
    const where = headerOf(resolved.slot, resolved.indices);
    const twin = seen.get(where);
    if (twin !== undefined) throw new DuplicateColumnError(sheet, twin, header);
    seen.set(where, header);
    return resolved;
  });
  // A sheet none of whose headers is a leaf of the model is some other workbook's sheet.
  if (!columns.some((column) => column !== undefined))
    return { ok: false, message: `sheet ${sheet} has none of the e-CF columns` };
  return { ok: true, columns: { sheet, columns, headers, caseKeyAt } };
}

export class DuplicateColumnError extends Error {
  constructor(sheet: SetSheet, first: string, second: string) {
    super(`sheet ${sheet} has two columns for the same field: "${first}" and "${second}"`);
  }
}

const isSent = (cell: string | undefined): cell is string => cell !== undefined && cell !== '' && cell !== emptyCell;

export interface RowCase {
  readonly case: SetCase;
  /** Cells the layout cannot place: values in columns that are no leaf of the model. */
  readonly findings: Finding[];
}

/** One data row as a case; undefined for a row with no case key and no value (a trailing empty row). */
export function caseOfRow(layout: SheetColumns, cells: readonly (string | undefined)[]): RowCase | undefined {
  const caseKey = cells[layout.caseKeyAt];
  const findings: Finding[] = [];
  const root = new Map<string, Node>();
  cells.forEach((cell, position) => {
    if (!isSent(cell) || position === layout.caseKeyAt) return;
    const column = layout.columns[position];
    if (column === undefined) {
      findings.push(
        error(
          '',
          'unknown_column',
          `column "${layout.headers[position] ?? String(position)}" is not a field of the ${layout.sheet} sheet; its value ${JSON.stringify(cell)} was left out`,
        ),
      );
      return;
    }
    place(root, column, cell);
  });
  if (!isSent(caseKey) && root.size === 0) return undefined;
  const payload = toJson(root);
  const ecfType = typeOf(payload);
  return {
    case: { kind: layout.sheet, caseKey: caseKey ?? '', ...(ecfType === undefined ? {} : { ecfType }), payload },
    findings,
  };
}

function typeOf(payload: Json): string | undefined {
  const encabezado = payload['Encabezado'] as Json | undefined;
  const idDoc = encabezado?.['IdDoc'] as Json | undefined;
  const type = idDoc?.['TipoeCF'];
  return typeof type === 'string' ? type : undefined;
}

/** A container while a row is read: repeated elements keep their entries by index until the row is done. */
type Node = string | Map<string, Node> | Map<number, Node>;

function place(root: Map<string, Node>, column: ResolvedColumn, value: string): void {
  let container: Map<string, Node> | Map<number, Node> = root;
  let index = 0;
  const segments = column.slot.segments;
  segments.forEach((segment, position) => {
    const last = position === segments.length - 1;
    let key: string | number = segment.name;
    let holder = container as Map<string | number, Node>;
    if (segment.repeated) {
      let entries = holder.get(segment.name);
      if (!(entries instanceof Map)) {
        entries = new Map<number, Node>();
        holder.set(segment.name, entries);
      }
      holder = entries;
      key = column.indices[index] ?? 1;
      index += 1;
    }
    if (last) {
      holder.set(key, value);
      return;
    }
    let next = holder.get(key);
    if (!(next instanceof Map)) {
      next = new Map<string, Node>();
      holder.set(key, next);
    }
    container = next;
  });
}

function toJson(node: Map<string, Node>): Json {
  const out: Json = {};
  for (const [name, value] of node) out[name] = toValue(value);
  return out;
}

function toValue(value: Node): unknown {
  if (typeof value === 'string') return value;
  const keys = [...value.keys()];
  if (keys.length > 0 && typeof keys[0] === 'number') {
    // A repeated element: its entries in index order (a gap in the indices closes up).
    return [...(value as Map<number, Node>).entries()].sort(([a], [b]) => a - b).map(([, entry]) => toValue(entry));
  }
  return toJson(value as Map<string, Node>);
}

/** The cells of a case's payload, by header (the inverse of caseOfRow); leaves that are not strings are refused. */
export function cellsOfCase(sheet: SetSheet, payload: Json): Map<string, string> {
  const cells = new Map<string, string>();
  const { slots } = sheetLayout(sheet);
  const byPath = new Map(
    [...slots.values()].map((slot) => [slot.segments.map((segment) => segment.name).join('/'), slot]),
  );
  const walk = (value: unknown, path: readonly string[], indices: readonly number[], repeatedHere: boolean): void => {
    if (Array.isArray(value) && repeatedHere) {
      value.forEach((entry, position) => {
        walk(entry, path, [...indices, position + 1], false);
      });
      return;
    }
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      for (const [name, child] of Object.entries(value)) walk(child, [...path, name], indices, true);
      return;
    }
    const slot = byPath.get(path.join('/'));
    if (slot === undefined) throw new Error(`set columns: ${path.join('/')} is no field of the ${sheet} sheet`);
    if (typeof value !== 'string')
      throw new Error(`set columns: ${path.join('/')} is not text (every cell of a set is)`);
    cells.set(headerOf(slot, indices), value);
  };
  walk(payload, [], [], false);
  return cells;
}
