// The numbers ANECFs voided, kept as spans (services/annulment-ranges.ts writes them): the one question the rest of
// the sandbox asks of them.
import { sql, type Expression, type SqlBool } from 'kysely';
import { parseEncf } from '../../fiscal/encf.js';
import type { SandboxDb, SandboxEnvironment } from './schema.js';

/**
 * Whether an ANECF voided the e-NCF, as a condition a statement carries. An issuer's spans of a type never overlap,
 * so only the span starting last at or before the number can hold it: one probe of the primary key, however long
 * the spans and however many.
 */
export function isVoided(
  db: SandboxDb,
  environment: SandboxEnvironment,
  rnc: string,
  encf: string,
): Expression<SqlBool> {
  const parsed = parseEncf(encf);
  if (parsed === undefined) return sql<SqlBool>`false`;
  const latest = db
    .selectFrom('sandbox_voided_spans')
    .select('last_sequence')
    .where('environment', '=', environment)
    .where('rnc', '=', rnc)
    .where('type', '=', parsed.ecfType)
    .where('first_sequence', '<=', parsed.sequence)
    .orderBy('first_sequence', 'desc')
    .limit(1);
  return sql<SqlBool>`coalesce((${latest}) >= ${parsed.sequence}::bigint, false)`;
}
