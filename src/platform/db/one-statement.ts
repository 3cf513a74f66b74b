// Several writes that must commit together, sent as ONE statement of data-modifying CTEs
// (WITH s0 AS (insert ...), s1 AS (delete ...) SELECT 1). A single statement is atomic without BEGIN and COMMIT, so
// the writes cost one round trip instead of one each plus two; this is the hot path's way of storing a document.
// PostgreSQL runs every part on one snapshot: the parts must not read each other's rows. Foreign keys are checked
// at the end of the statement, so a part may insert a row that another part's row refers to.
import { sql, type OperationNodeSource } from 'kysely';
import type { Db } from './database.js';
import { executePrepared } from './prepared.js';
import type { Trx } from './transact.js';

/**
 * A statement built and not yet run: here, one part of one statement. A function that returns one is named for what
 * it builds and ends in `Statement` (`domainEventInsertStatements`, several), or in `Ctes` for a fragment of a WITH
 * (`outboxInsertCtes`); a function named with a verb (`recordDomainEvent`) runs what it builds. A builder returned
 * under a verb's name and never run writes nothing, and nothing at the call says so.
 */
export type UnexecutedStatement = OperationNodeSource;

/**
 * `prepared`: run it as a prepared statement (prepared.ts), for a call site whose parts always have the same shape
 * (the same columns, the same number of rows), so its text never varies; a batch of any size must say false.
 */
export async function executeAsOneStatement(
  executor: Db | Trx,
  parts: readonly UnexecutedStatement[],
  options: { prepared: boolean },
): Promise<void> {
  if (parts.length === 0) return;
  const ctes = sql.join(
    parts.map((part, index) => sql`${sql.raw(`s${String(index)}`)} as (${part})`),
    sql`, `,
  );
  const statement = sql`with ${ctes} select 1`;
  if (options.prepared) await executePrepared(executor, statement);
  else await statement.execute(executor);
}
