// Server-side prepared statements for the hot paths. PostgreSQL parses, analyses and plans every statement sent as
// plain text; for the data-modifying CTEs of the hot paths that costs more of its CPU than running them (measured on
// the reference machine: the e-NCF claim 0.43 ms of backend CPU per run as text, 0.20 ms prepared). A statement run
// through `executePrepared` is prepared once per connection, under a name derived from its text, and then executed
// by name. Only statements marked so are prepared: a prepared statement holds server memory for the connection's
// life, so texts that vary (IN lists of any length) must not be, and at most `maxPreparedTexts` are, whatever the
// callers do. PGlite runs the marked statement as any other.
// After five runs PostgreSQL may switch a prepared statement to a generic plan, which knows no parameter's value: a
// value that must match a partial index's predicate (an ON CONFLICT ... WHERE naming the index, a WHERE that should
// use it) must be written as a literal (sql.lit), or the generic plan cannot use the index, or errors.
import { createHash } from 'node:crypto';
import {
  CompiledQuery,
  sql,
  type Compilable,
  type QueryExecutorProvider,
  type QueryResult,
  type RawBuilder,
} from 'kysely';
import type pg from 'pg';

const maxPreparedTexts = 64;

/** Statement text → the name it is prepared under. */
const preparedNames = new Map<string, string>();

function markPrepared(text: string): void {
  if (preparedNames.has(text) || preparedNames.size >= maxPreparedTexts) return;
  preparedNames.set(text, `p_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`);
}

/** What executePrepared needs of a Kysely instance or transaction, whatever its tables. */
interface PreparedExecutor extends QueryExecutorProvider {
  executeQuery<R>(query: CompiledQuery<R>): Promise<QueryResult<R>>;
}

/**
 * Runs `query` (raw SQL or a query builder) as a prepared statement on PostgreSQL (see above); its text must not
 * vary with its values. Any Kysely instance or transaction of the process's pools: the service's or the sandbox's.
 */
export function executePrepared<R>(
  executor: PreparedExecutor,
  query: RawBuilder<R> | Compilable<R>,
): Promise<QueryResult<R>> {
  const compiled = sql<R>`${query}`.compile(executor);
  markPrepared(compiled.sql);
  return executor.executeQuery(compiled);
}

/** Where the i-th value of a run goes in a statement compiled once (compiledOnce). */
class Slot {
  constructor(readonly index: number) {}
}

/**
 * executePrepared for a statement that Kysely compiles once, on its first run, instead of on every run: `build`
 * writes it with `slot(i)` where the i-th value of a run goes, and a run only fills the values in. For the batch
 * statements of the hot paths, whose building and compiling cost the app more than the rows they carry (the
 * delivery's done record: 75-110 µs of CPU a statement, most of it for the batches of 1 to 3 rows that come under
 * a steady load). Every executor of this process compiles as PostgreSQL does (PostgresDialect, PGlite's too), so
 * one text serves them all.
 */
export function compiledOnce<R>(
  build: (slot: (index: number) => unknown) => RawBuilder<R>,
): (executor: PreparedExecutor, values: readonly unknown[]) => Promise<QueryResult<R>> {
  let compiled: CompiledQuery<R> | undefined;
  return (executor, values) => {
    compiled ??= build((index) => new Slot(index)).compile(executor);
    markPrepared(compiled.sql);
    const parameters = compiled.parameters.map((parameter) =>
      parameter instanceof Slot ? values[parameter.index] : parameter,
    );
    return executor.executeQuery<R>(CompiledQuery.raw(compiled.sql, parameters));
  };
}

const patched = new WeakSet<pg.PoolClient>();

/**
 * Makes a pooled client run the marked texts by name (pg prepares a name once per connection). Kysely calls
 * `query(text, values)`; every other call goes through unchanged.
 */
export function preparingClient(client: pg.PoolClient): pg.PoolClient {
  if (patched.has(client)) return client;
  patched.add(client);
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const [text, values] = args;
    const name = typeof text === 'string' && args.length === 2 ? preparedNames.get(text) : undefined;
    return name === undefined ? query(...args) : query({ name, text, values });
  };
  return client;
}
