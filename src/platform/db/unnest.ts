// A batch of rows sent as one array per column and read back as a table by unnest: any number of rows in one
// statement whose text does not change with their number, so that it can be prepared (prepared.ts).
import { sql, type RawBuilder } from 'kysely';

/** One column of a batch: its name in the statement, its PostgreSQL type, and each row's value. */
export interface InputColumn {
  name: string;
  type: string;
  values: readonly unknown[];
}

/**
 * `unnest($1::type[], ...) as alias(name, ...)`: the columns as a table named `alias`. With `ordinality`, a last
 * column of that name numbers the rows from 1, in the order of the values.
 */
export function unnested(
  columns: readonly InputColumn[],
  alias: string,
  options: { ordinality?: string } = {},
): RawBuilder<unknown> {
  return unnestOf(columns, alias, (i) => [...(columns[i]?.values ?? [])], options.ordinality);
}

/**
 * unnested for a statement compiled once (prepared.ts compiledOnce): the i-th column's array is the run's value at
 * `slot(i)`.
 */
export function unnestedSlots(
  columns: readonly Omit<InputColumn, 'values'>[],
  alias: string,
  slot: (index: number) => unknown,
): RawBuilder<unknown> {
  return unnestOf(columns, alias, slot, undefined);
}

function unnestOf(
  columns: readonly Omit<InputColumn, 'values'>[],
  alias: string,
  arrayAt: (index: number) => unknown,
  ordinality: string | undefined,
): RawBuilder<unknown> {
  const arrays = columns.map((column, i) => sql`${arrayAt(i)}::${sql.raw(column.type)}[]`);
  const names = columns.map((column) => sql.ref(column.name));
  if (ordinality === undefined) return sql`unnest(${sql.join(arrays)}) as ${sql.raw(alias)}(${sql.join(names)})`;
  return sql`unnest(${sql.join(arrays)}) with ordinality as ${sql.raw(alias)}(${sql.join([...names, sql.ref(ordinality)])})`;
}
