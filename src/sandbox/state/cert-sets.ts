// The certification sets DGII issued to each taxpayer (research/certification.md §2): every set is kept, so a set
// issued again continues the e-NCF after every one issued before, and a postulación points at its current one.
// The workbook is not stored: setWorkbook writes the same bytes for the same cases.
import type { SetCase } from '../../fiscal/certification/index.js';
import { parseEncf } from '../../fiscal/encf.js';
import type { SandboxDb } from './schema.js';

export interface StoredSet {
  id: number;
  rnc: string;
  name: string;
  cases: SetCase[];
  createdAt: Date;
}

export async function insertSet(
  db: SandboxDb,
  input: { rnc: string; name: string; cases: readonly SetCase[]; now: Date },
): Promise<StoredSet> {
  const row = await db
    .insertInto('sandbox_cert_sets')
    .values({ rnc: input.rnc, name: input.name, cases: JSON.stringify(input.cases), created_at: input.now })
    .returning(['id'])
    .executeTakeFirstOrThrow();
  return { id: row.id, rnc: input.rnc, name: input.name, cases: [...input.cases], createdAt: input.now };
}

export async function setById(db: SandboxDb, id: number | null): Promise<StoredSet | undefined> {
  if (id === null) return undefined;
  const row = await db.selectFrom('sandbox_cert_sets').selectAll().where('id', '=', id).executeTakeFirst();
  return row === undefined
    ? undefined
    : { id: row.id, rnc: row.rnc, name: row.name, cases: row.cases as SetCase[], createdAt: row.created_at };
}

export async function setCount(db: SandboxDb, rnc: string): Promise<number> {
  const row = await db
    .selectFrom('sandbox_cert_sets')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('rnc', '=', rnc)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** The highest sequence number of each type in any set ever issued to the RNC. */
export async function highestSetSequences(db: SandboxDb, rnc: string): Promise<Map<string, number>> {
  const rows = await db.selectFrom('sandbox_cert_sets').select('cases').where('rnc', '=', rnc).execute();
  const highest = new Map<string, number>();
  for (const row of rows) {
    for (const setCase of row.cases as SetCase[]) {
      // CasoPrueba is RNCEmisor + eNCF (research §2); a registered set is checked to say so.
      const parsed = parseEncf(setCase.caseKey.slice(-13));
      if (parsed === undefined) continue;
      highest.set(parsed.ecfType, Math.max(highest.get(parsed.ecfType) ?? 0, parsed.sequence));
    }
  }
  return highest;
}
