// The certification tables (migration 0014): processes, their 14 steps, the append-only confirmations, the cases
// and the timeline.
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { FiscalEnvironment } from '../../config.js';
import type { Db } from '../../platform/db/database.js';
import type {
  CertificationCasesTable,
  CertificationCaseStatus,
  CertificationConfirmationsTable,
  CertificationProcessesTable,
  CertificationStepsTable,
  CertificationTables,
} from './tables.js';
import {
  documentVerdicts as verdictsOfDocuments,
  documentsNumbered as documentsOfNumbers,
  type DocumentsTable,
} from '../documents/index.js';
import type { Trx } from '../../platform/db/transact.js';
import { newId } from '../../platform/ids.js';
import { heldUnder } from '../../platform/work/outbound-work.repo.js';
import { lockCompanyRow, receiverSegmentOf as companyReceiverSegment } from '../companies/index.js';
import { rangesOfCompany } from '../sequences/index.js';

export type ProcessRow = Selectable<CertificationProcessesTable>;
export type StepRow = Selectable<CertificationStepsTable>;
export type CaseRow = Selectable<CertificationCasesTable>;
export type ConfirmationRow = Selectable<CertificationConfirmationsTable>;
type Executor = Db<CertificationTables> | Trx<CertificationTables>;

export function findProcess(
  executor: Executor,
  companyId: string,
  environment: FiscalEnvironment,
  id: string,
): Promise<ProcessRow | undefined> {
  return executor
    .selectFrom('certification_processes')
    .selectAll()
    .where('id', '=', id)
    .where('company_id', '=', companyId)
    .where('environment', '=', environment)
    .executeTakeFirst();
}

/** The process row locked for the change a request makes to it. */
export function lockProcess(
  trx: Trx<CertificationTables>,
  companyId: string,
  environment: FiscalEnvironment,
  id: string,
): Promise<ProcessRow | undefined> {
  return trx
    .selectFrom('certification_processes')
    .selectAll()
    .where('id', '=', id)
    .where('company_id', '=', companyId)
    .where('environment', '=', environment)
    .forUpdate()
    .executeTakeFirst();
}

export function latestProcess(
  executor: Executor,
  companyId: string,
  environment: FiscalEnvironment,
): Promise<ProcessRow | undefined> {
  return executor
    .selectFrom('certification_processes')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('environment', '=', environment)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export function activeProcess(
  executor: Executor,
  companyId: string,
  environment: FiscalEnvironment,
): Promise<ProcessRow | undefined> {
  return executor
    .selectFrom('certification_processes')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('environment', '=', environment)
    .where('status', '=', 'active')
    .executeTakeFirst();
}

export function stepsOf(executor: Executor, processId: string): Promise<StepRow[]> {
  return executor
    .selectFrom('certification_steps')
    .selectAll()
    .where('process_id', '=', processId)
    .orderBy('number')
    .execute();
}

export function casesOf(executor: Executor, processId: string, status?: CertificationCaseStatus): Promise<CaseRow[]> {
  let query = executor.selectFrom('certification_cases').selectAll().where('process_id', '=', processId);
  if (status !== undefined) query = query.where('status', '=', status);
  return query.orderBy('step').orderBy('position').execute();
}

export function confirmationsOf(executor: Executor, processId: string): Promise<ConfirmationRow[]> {
  return executor
    .selectFrom('certification_confirmations')
    .selectAll()
    .where('process_id', '=', processId)
    .orderBy('confirmed_at')
    .orderBy('id')
    .execute();
}

export async function insertProcess(
  trx: Trx<CertificationTables>,
  row: Insertable<CertificationProcessesTable>,
  steps: Insertable<CertificationStepsTable>[],
  cases: Insertable<CertificationCasesTable>[],
): Promise<void> {
  await trx.insertInto('certification_processes').values(row).execute();
  await trx.insertInto('certification_steps').values(steps).execute();
  await insertCases(trx, cases);
}

/** In slices: a set of a few dozen cases is one statement; an operator's oversized file stays under PostgreSQL's
 * parameter limit. */
export async function insertCases(
  trx: Trx<CertificationTables>,
  cases: Insertable<CertificationCasesTable>[],
): Promise<void> {
  for (let start = 0; start < cases.length; start += 500)
    await trx
      .insertInto('certification_cases')
      .values(cases.slice(start, start + 500))
      .execute();
}

export async function insertConfirmation(
  trx: Trx<CertificationTables>,
  row: Omit<Insertable<CertificationConfirmationsTable>, 'id'>,
): Promise<void> {
  await trx
    .insertInto('certification_confirmations')
    .values({ id: newId('cfm'), ...row })
    .execute();
}

export async function setStep(
  trx: Trx<CertificationTables>,
  processId: string,
  number: number,
  change: { status: StepRow['status']; at: Date; evidence?: Record<string, unknown> },
): Promise<void> {
  await trx
    .updateTable('certification_steps')
    .set({
      status: change.status,
      ...(change.status === 'open' ? { opened_at: change.at } : {}),
      ...(change.status === 'done' ? { done_at: change.at } : {}),
      ...(change.evidence === undefined ? {} : { evidence: JSON.stringify(change.evidence) }),
    })
    .where('process_id', '=', processId)
    .where('number', '=', number)
    .execute();
}

export async function setProcess(
  trx: Trx<CertificationTables>,
  id: string,
  change: { status: ProcessRow['status']; at: Date; failure?: Record<string, unknown>; cancelReason?: string },
): Promise<void> {
  await trx
    .updateTable('certification_processes')
    .set({
      status: change.status,
      updated_at: change.at,
      ...(change.status === 'active' ? {} : { ended_at: change.at }),
      ...(change.failure === undefined ? {} : { failure: JSON.stringify(change.failure) }),
      ...(change.cancelReason === undefined ? {} : { cancel_reason: change.cancelReason }),
    })
    .where('id', '=', id)
    .execute();
}

export async function insertEvent(
  executor: Executor,
  event: { processId: string; at: Date; subject: string; status: string; cause: string },
): Promise<void> {
  await executor
    .insertInto('certification_events')
    .values({
      id: newId('evt'),
      process_id: event.processId,
      at: event.at,
      subject: event.subject,
      status: event.status,
      cause: event.cause,
    })
    .execute();
}

export function eventsOf(
  executor: Executor,
  processId: string,
): Promise<{ at: Date; subject: string; status: string; cause: string }[]> {
  return executor
    .selectFrom('certification_events')
    .select(['at', 'subject', 'status', 'cause'])
    .where('process_id', '=', processId)
    .orderBy('at')
    .orderBy('id')
    .execute();
}

/** The company's CERT documents with these e-NCF, with DGII's verdict: what an earlier process already spent. */
export function documentsNumbered(
  executor: Executor,
  companyId: string,
  environment: FiscalEnvironment,
  encfs: readonly string[],
): Promise<{ id: string; encf: string; status: string; origin: string }[]> {
  return documentsOfNumbers(executor, companyId, environment, encfs);
}

/** Cases of earlier processes of the company with DGII's verdict (accepted or rejected): what a new process may not
 * send again. */
export function judgedEarlier(
  executor: Executor,
  companyId: string,
  environment: FiscalEnvironment,
): Promise<
  Pick<
    CaseRow,
    | 'process_id'
    | 'kind'
    | 'case_key'
    | 'status'
    | 'document_id'
    | 'estado'
    | 'codigo'
    | 'verdict_at'
    | 'carried_from_process_id'
  >[]
> {
  return executor
    .selectFrom('certification_cases as c')
    .innerJoin('certification_processes as p', 'p.id', 'c.process_id')
    .select([
      'c.process_id',
      'c.kind',
      'c.case_key',
      'c.status',
      'c.document_id',
      'c.estado',
      'c.codigo',
      'c.verdict_at',
      'c.carried_from_process_id',
    ])
    .where('p.company_id', '=', companyId)
    .where('p.environment', '=', environment)
    .where('c.status', 'in', ['accepted', 'rejected'])
    .execute();
}

/** The service segment of the company's receiver URLs: its own, else its RNC (migration 0008). */
export function receiverSegmentOf(executor: Executor, companyId: string): Promise<string | undefined> {
  return companyReceiverSegment(executor, companyId);
}

export async function updateCase(
  trx: Trx<CertificationTables>,
  row: Pick<CaseRow, 'process_id' | 'kind' | 'case_key'>,
  change: Updateable<CertificationCasesTable>,
): Promise<void> {
  await trx
    .updateTable('certification_cases')
    .set(change)
    .where('process_id', '=', row.process_id)
    .where('kind', '=', row.kind)
    .where('case_key', '=', row.case_key)
    .execute();
}

/** What DGII said of the documents of a process's cases, as the sending pipeline recorded it. */
export function documentVerdicts(
  executor: Executor,
  ids: readonly string[],
): Promise<
  Pick<Selectable<DocumentsTable>, 'id' | 'encf' | 'status' | 'dgii_estado' | 'dgii_codigo' | 'dgii_messages'>[]
> {
  return verdictsOfDocuments(executor, ids);
}

/** The processes of these ids: the lane's work items (one per process). */
export function processesOf(executor: Executor, ids: readonly string[]): Promise<ProcessRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return executor
    .selectFrom('certification_processes')
    .selectAll()
    .where('id', 'in', [...ids])
    .execute();
}

/** The approval (ACECF) cases of these processes: the items of the approvals' target. */
export function approvalCasesOf(
  executor: Executor,
  processIds: readonly string[],
): Promise<(CaseRow & { company_id: string })[]> {
  if (processIds.length === 0) return Promise.resolve([]);
  return executor
    .selectFrom('certification_cases as c')
    .innerJoin('certification_processes as p', 'p.id', 'c.process_id')
    .selectAll('c')
    .select('p.company_id')
    .where('c.process_id', 'in', [...processIds])
    .where('c.kind', '=', 'ACECF')
    .execute();
}

/** The company's ranges in this environment, with what they have not handed out yet (from next_number on). */
export function rangesOf(
  executor: Executor,
  companyId: string,
  environment: FiscalEnvironment,
): Promise<{ id: string; ecf_type: string; first_number: number; last_number: number; next_number: number }[]> {
  return rangesOfCompany(executor, companyId, environment);
}

/** The outbound work target of the lanes (one item per process, its id the process id): lane-loop.ts. */
export const laneTarget = 'certification.lane';

/** Whether `leaseId` still holds the lane of a process at `now`: the lane's writes count only while it does. */
export async function laneHeld(
  trx: Trx<CertificationTables>,
  processId: string,
  lease: { leaseId: string; now: Date },
): Promise<boolean> {
  const row = await trx
    .selectNoFrom(heldUnder({ target: laneTarget, itemId: processId }, lease).as('held'))
    .executeTakeFirst();
  return row?.held === true;
}

/** The process row locked, waiting for a reader that holds it (the lane's own writes, under its lease). */
export function lockProcessById(trx: Trx<CertificationTables>, id: string): Promise<ProcessRow | undefined> {
  return trx.selectFrom('certification_processes').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export async function lockCompany(trx: Trx<CertificationTables>, companyId: string): Promise<void> {
  await lockCompanyRow(trx, companyId);
}
