// The postulaciones to DGII's certification portal, their records and inbox (state/migrations.ts creates the
// tables). Every change of a postulación happens in one transaction holding its row, so two documents judged at
// once cannot both advance, or reset, the same step.
import type { Selectable, Transaction } from 'kysely';
import type {
  ReceiverUrls,
  SandboxCertPostulacionesTable,
  SandboxCertRecordsTable,
  SandboxDatabase,
  SandboxDb,
} from './schema.js';

export type Postulacion = Selectable<SandboxCertPostulacionesTable>;
export type CertRecord = Selectable<SandboxCertRecordsTable>;
export type CertTrx = Transaction<SandboxDatabase>;

/** The postulación of an RNC that is not cancelled (in progress or finished), if any. */
export function currentPostulacion(db: SandboxDb, rnc: string): Promise<Postulacion | undefined> {
  return db
    .selectFrom('sandbox_cert_postulaciones')
    .selectAll()
    .where('rnc', '=', rnc)
    .where('cancelled', '=', false)
    .executeTakeFirst();
}

/** The postulación DGII is running for an RNC: not cancelled and not finished. */
export async function postulacionInProgress(db: SandboxDb, rnc: string): Promise<Postulacion | undefined> {
  const found = await currentPostulacion(db, rnc);
  return found !== undefined && found.step < 15 ? found : undefined;
}

export function postulacionById(db: SandboxDb, id: number): Promise<Postulacion | undefined> {
  return db.selectFrom('sandbox_cert_postulaciones').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The RNC's latest postulación, cancelled ones included (what the admin GET shows). */
export function latestPostulacion(db: SandboxDb, rnc: string): Promise<Postulacion | undefined> {
  return db
    .selectFrom('sandbox_cert_postulaciones')
    .selectAll()
    .where('rnc', '=', rnc)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Creates it at step 1; undefined when the RNC already has one not cancelled (the unique index says so). */
export async function createPostulacion(
  db: SandboxDb,
  rnc: string,
  urls: ReceiverUrls,
  now: Date,
): Promise<Postulacion | undefined> {
  return (
    db
      .insertInto('sandbox_cert_postulaciones')
      .values({
        rnc,
        step: 1,
        test_urls: JSON.stringify(urls),
        production_urls: null,
        printed_representations: null,
        cancel_reason: null,
        set_id: null,
        declaration_code: null,
        created_at: now,
        updated_at: now,
      })
      // The only unique index that can conflict besides the key: one postulación not cancelled per RNC.
      .onConflict((conflict) => conflict.doNothing())
      .returningAll()
      .executeTakeFirst()
  );
}

/** Runs `work` on the postulación's row, locked, in one transaction; undefined when it is gone. */
export function withPostulacion<T>(
  db: SandboxDb,
  id: number,
  work: (trx: CertTrx, postulacion: Postulacion) => Promise<T>,
): Promise<T | undefined> {
  return db.transaction().execute(async (trx) => {
    const locked = await trx
      .selectFrom('sandbox_cert_postulaciones')
      .selectAll()
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
    return locked === undefined ? undefined : work(trx, locked);
  });
}

export type PostulacionChange = Partial<{
  step: number;
  cancelled: boolean;
  cancel_reason: string;
  set_id: number;
  test_urls: ReceiverUrls;
  production_urls: ReceiverUrls;
  printed_representations: { slot: string; bytes: number }[];
  declaration_code: string | null;
}>;

/**
 * Writes a change. `newRound` starts counting over: a reset, a new step or a new set, after which the records of
 * the rounds before no longer count (they stay, as evidence and for "already uploaded").
 */
export async function updatePostulacion(
  trx: CertTrx,
  postulacion: Postulacion,
  change: PostulacionChange,
  now: Date,
  newRound = false,
): Promise<Postulacion> {
  const { test_urls, production_urls, printed_representations, ...plain } = change;
  return trx
    .updateTable('sandbox_cert_postulaciones')
    .set({
      ...plain,
      ...(test_urls === undefined ? {} : { test_urls: JSON.stringify(test_urls) }),
      ...(production_urls === undefined ? {} : { production_urls: JSON.stringify(production_urls) }),
      ...(printed_representations === undefined
        ? {}
        : { printed_representations: JSON.stringify(printed_representations) }),
      ...(newRound ? { round: postulacion.round + 1 } : {}),
      updated_at: now,
    })
    .where('id', '=', postulacion.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function addInboxMessage(
  trx: CertTrx | SandboxDb,
  postulacionId: number,
  text: string,
  now: Date,
): Promise<void> {
  await trx.insertInto('sandbox_cert_inbox').values({ postulacion_id: postulacionId, sent_at: now, text }).execute();
}

export async function inboxOf(db: SandboxDb, postulacionId: number): Promise<{ at: Date; text: string }[]> {
  const rows = await db
    .selectFrom('sandbox_cert_inbox')
    .select(['sent_at', 'text'])
    .where('postulacion_id', '=', postulacionId)
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ at: row.sent_at, text: row.text }));
}

export interface NewRecord {
  kind: CertRecord['kind'];
  encf: string;
  type: string;
  securityCode?: string | undefined;
}

/** Records what the postulación's current step and round counted. */
export async function addRecord(trx: CertTrx, postulacion: Postulacion, record: NewRecord, now: Date): Promise<void> {
  await trx
    .insertInto('sandbox_cert_records')
    .values({
      postulacion_id: postulacion.id,
      step: postulacion.step,
      round: postulacion.round,
      kind: record.kind,
      encf: record.encf,
      type: record.type,
      security_code: record.securityCode ?? null,
      recorded_at: now,
    })
    .execute();
}

/** The records of a step in one round. */
export function recordsOf(
  db: CertTrx | SandboxDb,
  postulacion: Pick<Postulacion, 'id'>,
  step: number,
  round: number,
): Promise<CertRecord[]> {
  return db
    .selectFrom('sandbox_cert_records')
    .selectAll()
    .where('postulacion_id', '=', postulacion.id)
    .where('step', '=', step)
    .where('round', '=', round)
    .orderBy('id')
    .execute();
}

/** Every record of the postulación, for the counters of steps already done (their last round). */
export function allRecordsOf(db: SandboxDb, postulacionId: number): Promise<CertRecord[]> {
  return db
    .selectFrom('sandbox_cert_records')
    .selectAll()
    .where('postulacion_id', '=', postulacionId)
    .orderBy('id')
    .execute();
}

/** Whether this full e-CF was uploaded in the portal before, in any step or round (research §3: once each, ever). */
export async function wasUploaded(db: CertTrx | SandboxDb, postulacionId: number, encf: string): Promise<boolean> {
  const found = await db
    .selectFrom('sandbox_cert_records')
    .select('id')
    .where('postulacion_id', '=', postulacionId)
    .where('kind', '=', 'fc_upload')
    .where('encf', '=', encf)
    .executeTakeFirst();
  return found !== undefined;
}
