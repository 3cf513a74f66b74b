// The obligation code of every element for every type (scripts/generate-ecf-model.ts): the numbered rows of the
// format document matched to the XSD leaf paths, checked against the XSDs, and codes derived where the format
// document has no row (containers, XSD-only fields).
import { ecfTypes } from '../src/fiscal/model/ecf-model-types.js';
import type { EcfType, Obligation, ObligationSource } from '../src/fiscal/model/ecf-model-types.js';
import type { ObligationRow } from './ecf-model-format-document.js';
import type { RawElement } from './ecf-model-xsd-reader.js';

export interface ObligationEntry {
  codes: Obligation[];
  source: ObligationSource;
}

export interface DerivedObligations {
  obligations: Map<string, ObligationEntry>;
  /** Where the XSD overrode the format document, one line each. */
  conflicts: string[];
  /** Format rows no XSD leaf matched. */
  unmatchedRows: string[];
}

function derivedCode(element: RawElement | undefined): Obligation {
  if (element === undefined) return 0;
  return element.minOccurs >= 1 ? 1 : 3;
}

/**
 * @param order every element path of any type, in one document order (XSD order)
 * @param declared per path, the element as each type's XSD declares it
 * @param rows the format document's numbered rows, in printed order
 */
export function deriveObligations(
  order: readonly string[],
  declared: ReadonlyMap<string, ReadonlyMap<EcfType, RawElement>>,
  rows: readonly ObligationRow[],
): DerivedObligations {
  const isLeaf = (path: string): boolean =>
    [...(declared.get(path)?.values() ?? [])].some((e) => e.children === undefined);
  const leaves = matchRows(
    order.filter(isLeaf),
    rows.filter((row) => row.kind === 'field'),
  );
  const groups = matchRows(
    order.filter((path) => !isLeaf(path)),
    rows.filter((row) => row.kind === 'area'),
  );
  const fromFormat = new Map([...leaves.matched, ...groups.matched]);
  const unmatchedRows = leaves.unmatched;
  const conflicts: string[] = [];
  const obligations = new Map<string, ObligationEntry>();

  for (const path of order) {
    const present = declared.get(path) ?? new Map<EcfType, RawElement>();
    const row = fromFormat.get(path);
    if (row !== undefined) {
      const codes = ecfTypes.map((type, i): Obligation => {
        const code = row.codes[i] ?? 0;
        const element = present.get(type);
        // The XSD decides existence: DGII validates with it (research/ecf-format.md §1.4, e.g. Transporte in 47).
        if (element === undefined && code !== 0) {
          conflicts.push(`${path} type ${type}: format ${code}, absent from the XSD -> 0`);
          return 0;
        }
        if (element !== undefined && code === 0) {
          conflicts.push(`${path} type ${type}: format 0, present in the XSD -> ${derivedCode(element)}`);
          return derivedCode(element);
        }
        return code;
      });
      obligations.set(path, { codes, source: 'format' });
    } else if (present.values().next().value?.children === undefined) {
      obligations.set(path, { codes: ecfTypes.map((type) => derivedCode(present.get(type))), source: 'derived' });
    }
  }
  // Containers (no numbered row in the format document): 1 when the XSD requires them, otherwise the strongest
  // obligation among their descendants (2 before 3), 0 when absent.
  for (const path of [...order].reverse()) {
    if (obligations.has(path)) continue;
    const present = declared.get(path) ?? new Map<EcfType, RawElement>();
    const descendants = order.filter((p) => p.startsWith(`${path}/`)).map((p) => obligations.get(p));
    const codes = ecfTypes.map((type, i): Obligation => {
      const element = present.get(type);
      if (element === undefined) return 0;
      if (element.minOccurs >= 1) return 1;
      const childCodes = descendants.map((d) => d?.codes[i] ?? 0);
      return childCodes.includes(1) || childCodes.includes(2) ? 2 : 3;
    });
    obligations.set(path, { codes, source: 'derived' });
  }
  return { obligations, conflicts, unmatchedRows };
}

const sameName = (path: string, name: string): boolean => {
  const leaf = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  const printed = name.toLowerCase();
  return leaf === printed || (printed.length >= 15 && leaf.startsWith(printed));
};

/** Pairs printed rows with element paths; both lists are in document order. */
function matchRows(
  paths: readonly string[],
  rows: readonly ObligationRow[],
): { matched: Map<string, ObligationRow>; unmatched: string[] } {
  const matched = new Map<string, ObligationRow>();
  const unmatched: string[] = [];
  let cursor = 0;
  for (const row of rows) {
    // The printed order equals the XSD order (research/ecf-format.md §1.1), so look near the cursor only, in both
    // directions: a type-specific field (IndicadorNotaCredito, 34 only) sits in the union order before the field
    // the other types have in its place, and a row's nearby names include its neighbours'.
    let at = -1;
    for (const name of row.names) {
      const candidates = paths
        .map((path, index) => ({ path, index }))
        .filter(({ path, index }) => Math.abs(index - cursor) <= 12 && !matched.has(path) && sameName(path, name));
      candidates.sort((a, b) => Math.abs(a.index - cursor) - Math.abs(b.index - cursor));
      at = candidates[0]?.index ?? -1;
      if (at >= 0) break;
    }
    const path = paths[at];
    if (path === undefined) {
      unmatched.push(`${row.number} (line ${row.line}) ${row.names.join('/')}`);
      continue;
    }
    matched.set(path, row);
    cursor = at + 1;
  }
  return { matched, unmatched };
}
