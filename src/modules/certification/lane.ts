// The serial lane of a certification process (SPEC §4.8 ejecutar; research/certification.md §6.4): ejecutar hands
// cases to it, and it sends them one at a time, the next only once DGII has judged the one before. At most one case
// of a process is at DGII without a final verdict, so a rejection costs one e-NCF, and a note never reaches DGII
// before the invoice it modifies is accepted (DGII's 614 would reset the step). Each process's lane is an item of
// the outbound work engine (target `certification.lane`, lane-loop.ts): one worker at a time holds it under the
// item's lease and advances it one step per attempt, and the lane's writes count only while that lease holds.
//
// Exactly once: an e-CF case's document is made from the set verbatim and keyed by its e-NCF (documents
// issueVerbatim returns the one already made), and is then sent by the document pipeline, which sends a document
// once whatever crashes (sending/send-target.ts). A case is marked `sent` before its document is queued; a lane that
// finds a `sent` case whose document is still `signed` (a crash in between) queues it then. An approval (ACECF) is
// signed and archived once, and marked `sent` in the transaction that queues its sending (approval-target.ts, the
// engine's target `certification.acecf`): the same bytes are what is sent, however often.
import { createHash } from 'node:crypto';
import type { FiscalEnvironment } from '../../config.js';
import { splitOwnedFields } from '../../fiscal/certification/index.js';
import { formatDgiiTimestamp } from '../../fiscal/dates.js';
import { buildAcecf, type Acecf } from '../../fiscal/responses/acecf.js';
import { signCanonicalDocument } from '../../fiscal/xmldsig/index.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import { transact, type Trx } from '../../platform/db/transact.js';
import type { Logger } from '../../platform/observability/logger.js';
import { ok } from '../../platform/result.js';
import { BlobExistsError, type BlobStore } from '../../platform/storage/index.js';
import type { CompaniesService } from '../companies/index.js';
import type { DocumentsService } from '../documents/index.js';
import type { SendingService } from '../sending/index.js';
import type { CaseChanges } from './case-changes.js';
import * as repo from './certification.repo.js';
import type { CertificationTables } from './tables.js';
import { reconcileProcess } from './reconcile.js';

/** The e-NCF of an ECF or RFCE case: its key is RNCEmisor + eNCF. */
export const encfOfCase = (row: Pick<repo.CaseRow, 'case_key'>) => row.case_key.slice(-13);

/** The case a note modifies: a set case by its e-NCF, a simulation case by its key; undefined outside the set. */
export function referenceOf(
  row: Pick<repo.CaseRow, 'depends_on'>,
  cases: readonly repo.CaseRow[],
): repo.CaseRow | undefined {
  if (row.depends_on === null) return undefined;
  return cases.find(
    (other) => other.kind === 'ECF' && (other.case_key === row.depends_on || encfOfCase(other) === row.depends_on),
  );
}

/** The e-NCF of notes whose reference is no case of the set: they wait for a CERT document of the company. */
export function referencesOutside(cases: readonly repo.CaseRow[]): string[] {
  return cases.flatMap((row) =>
    row.depends_on !== null && referenceOf(row, cases) === undefined ? [row.depends_on] : [],
  );
}

/** Why a pending case is not the lane's next one; undefined when it may go. */
export function waitingFor(
  row: repo.CaseRow,
  cases: readonly repo.CaseRow[],
  steps: readonly repo.StepRow[],
  acceptedOutside: ReadonlySet<string>,
): string | undefined {
  const stepStatus = (number: number) => steps.find((step) => step.number === number)?.status;
  if (row.kind === 'RFCE') return 'sent_with_its_ecf';
  if (row.step === 2 && stepStatus(2) !== 'open' && stepStatus(2) !== 'done') return 'step_1_not_confirmed';
  if (row.step === 3 && stepStatus(2) !== 'done') return 'step_2_not_done';
  if (row.step === 4 && stepStatus(3) !== 'done') return 'step_3_not_done';
  if (row.depends_on !== null) {
    const reference = referenceOf(row, cases);
    const accepted = reference === undefined ? acceptedOutside.has(row.depends_on) : reference.status === 'accepted';
    if (!accepted) return 'reference_not_accepted';
  }
  return undefined;
}

/** The lane's order within a step: invoices to reception, then those summarised as RFCE, then notes (§6.4). */
function rank(row: repo.CaseRow): number {
  const group = row.kind === 'ACECF' ? 3 : row.depends_on !== null ? 2 : row.route === 'rfce' ? 1 : 0;
  return row.step * 10 + group;
}

export function laneOrder(cases: readonly repo.CaseRow[]): repo.CaseRow[] {
  return [...cases].sort((a, b) => rank(a) - rank(b) || a.position - b.position);
}

/** Everything the lane's next step depends on, as text: a lane left idle is looked at again when it changes. */
export function laneSignature(cases: readonly repo.CaseRow[]): string {
  return cases
    .map((row) => `${row.kind} ${row.case_key} ${row.status} ${row.queued_at?.toISOString() ?? '-'}`)
    .join('\n');
}

/**
 * What one step of a lane came to. `moved`: it did something, the next step may follow at once. `waiting`: a case
 * is with the document pipeline or DGII, or the next one waits for a step or a reference (asked again shortly).
 * `idle`: nothing to do until the cases change (`seen`: laneSignature as the step found them); ejecutar, or an
 * approval's verdict, hastens the lane again.
 */
export type LaneStep = { kind: 'moved' } | { kind: 'waiting' } | { kind: 'idle'; seen: string };

type Plan =
  | { kind: 'start'; row: repo.CaseRow; process: repo.ProcessRow; referenceDocumentId: string | null }
  | { kind: 'queue_document'; row: repo.CaseRow; documentId: string; retry: boolean; process: repo.ProcessRow }
  | { kind: 'waiting' }
  | { kind: 'idle'; seen: string };

/** The lease a step runs under (the lane's item, claimed by the engine). */
interface Lease {
  leaseId: string;
}

export function createLane(deps: {
  db: Db<CertificationTables>;
  clock: Clock;
  environment: FiscalEnvironment;
  log: Logger;
  blobs: BlobStore;
  companies: CompaniesService;
  documents: DocumentsService;
  sending: Pick<SendingService, 'send' | 'retry'>;
  changes: CaseChanges;
  /** Queues the sending of an approval case marked sent, in the transaction that marks it (approval-target.ts). */
  queueApproval: (trx: Trx<CertificationTables>, processId: string, caseKey: string) => Promise<void>;
  /** An approval was queued: wakes this process's approvals loop, when it runs one. */
  approvalQueued: () => void;
}) {
  const { db, clock, environment, log, blobs, companies, documents, sending, changes } = deps;
  const held = (trx: Trx<CertificationTables>, processId: string, lease: Lease) =>
    repo.laneHeld(trx, processId, { leaseId: lease.leaseId, now: clock.now() });

  /** Under the process's lock and the lane's lease: reconcile, then what the lane does next. */
  async function plan(trx: Trx<CertificationTables>, process: repo.ProcessRow): Promise<Plan> {
    await reconcileProcess(trx, process, { changes, environment, now: clock.now() });
    const current = await repo.findProcess(trx, process.company_id, environment, process.id);
    const cases = await repo.casesOf(trx, process.id);
    const idle = { kind: 'idle', seen: laneSignature(cases) } as const;
    if (current?.status !== 'active') return idle;
    const inFlight = cases.find((row) => row.status === 'sent' && row.kind !== 'RFCE');
    if (inFlight !== undefined) {
      // Its sending is queued work of its own (approval-target.ts), whose verdict hastens the lane.
      if (inFlight.route === 'approval') return idle;
      const [document] = await repo.documentVerdicts(trx, inFlight.document_id === null ? [] : [inFlight.document_id]);
      // Marked sent, but the worker stopped before queuing its document: queue it now (enviar is idempotent).
      if (document?.status === 'signed' && inFlight.document_id !== null)
        return {
          kind: 'queue_document',
          row: inFlight,
          documentId: inFlight.document_id,
          retry: false,
          process: current,
        };
      return { kind: 'waiting' };
    }
    // A case in error stops the lane (DGII may hold it, or it failed on our side) until ejecutar hands it in again.
    if (cases.some((row) => row.status === 'error')) return idle;
    const steps = await repo.stepsOf(trx, process.id);
    const acceptedOutside = new Set(
      (await repo.documentsNumbered(trx, process.company_id, environment, referencesOutside(cases)))
        .filter((row) => row.status === 'accepted' || row.status === 'accepted_conditional')
        .map((row) => row.encf),
    );
    const queued = laneOrder(cases).filter((row) => row.queued_at !== null && row.status === 'pending');
    const next = queued.find((row) => waitingFor(row, cases, steps, acceptedOutside) === undefined);
    // Cases handed in but not free to go wait for a step or a reference accepted elsewhere: looked at again shortly.
    if (next === undefined) return queued.length > 0 ? { kind: 'waiting' } : idle;
    return {
      kind: 'start',
      row: next,
      process: current,
      referenceDocumentId: referenceOf(next, cases)?.document_id ?? null,
    };
  }

  /**
   * Marks a case sent (with its twin RFCE case), only if it is still the lane's to start, nothing is in flight and
   * the lease still holds; an approval's sending is queued in the same transaction.
   */
  async function markSent(
    processId: string,
    row: repo.CaseRow,
    change: { documentId?: string; signedBlobKey?: string; signedSha256?: string },
    lease: Lease,
  ): Promise<boolean> {
    const marked = await transact(db, async (trx) => {
      const process = await repo.lockProcessById(trx, processId);
      if (process?.status !== 'active' || !(await held(trx, processId, lease))) return ok(false);
      const cases = await repo.casesOf(trx, processId);
      const current = cases.find((other) => other.kind === row.kind && other.case_key === row.case_key);
      if (current?.status !== 'pending' || current.queued_at === null || cases.some((other) => other.status === 'sent'))
        return ok(false);
      const now = clock.now();
      if (change.signedBlobKey !== undefined)
        await repo.updateCase(trx, current, {
          signed_blob_key: change.signedBlobKey,
          signed_sha256: change.signedSha256 ?? null,
        });
      const twins = cases.filter(
        (other) =>
          other.case_key === row.case_key && (other === current || (other.kind === 'RFCE' && row.kind === 'ECF')),
      );
      for (const twin of twins) {
        await changes.changeCase(
          trx,
          process,
          twin,
          {
            status: 'sent',
            cause:
              twin.kind === 'ACECF'
                ? "signed and sent to DGII's commercial approval service"
                : `handed to the document pipeline (${twin.route === 'rfce' ? 'as an RFCE' : 'to reception'})`,
            waitingFor: null,
            sent: true,
            ...(change.documentId === undefined ? {} : { documentId: change.documentId }),
          },
          now,
        );
      }
      if (current.route === 'approval') await deps.queueApproval(trx, processId, current.case_key);
      return ok(true);
    });
    return marked.ok && marked.value;
  }

  /** A simulation case's document: issued the usual way (the company's profile and ranges, today's date). */
  async function issueSimulation(
    companyId: string,
    row: repo.CaseRow,
    referenceDocumentId: string | null,
  ): Promise<{ ok: true; id: string } | { ok: false; detail: string }> {
    let body = row.payload;
    if (row.depends_on !== null) {
      const reference = referenceDocumentId === null ? undefined : await documents.get(companyId, referenceDocumentId);
      if (reference?.ok !== true)
        return { ok: false, detail: `the invoice it modifies (${row.depends_on}) has no document` };
      const informacion = (body['InformacionReferencia'] ?? {}) as Record<string, unknown>;
      body = {
        ...body,
        InformacionReferencia: {
          ...informacion,
          NCFModificado: reference.value.eNCF,
          FechaNCFModificado: reference.value.fechaEmision,
        },
      };
    }
    const created = await documents.create(companyId, body);
    if (!created.ok)
      return {
        ok: false,
        detail:
          `${created.failure.detail} ${(created.failure.errors ?? []).map((error) => `${error.pointer}: ${error.detail}`).join('; ')}`.trim(),
      };
    return { ok: true, id: created.value.id };
  }

  async function startDocumentCase(
    processId: string,
    companyId: string,
    row: repo.CaseRow,
    referenceDocumentId: string | null,
    lease: Lease,
  ): Promise<void> {
    let documentId = row.document_id;
    if (documentId === null && row.origin === 'simulation') {
      const issued = await issueSimulation(companyId, row, referenceDocumentId);
      if (!issued.ok) {
        await recordLocalFailure(
          processId,
          row,
          `the simulation document could not be issued: ${issued.detail}`,
          lease,
        );
        return;
      }
      documentId = issued.id;
    }
    if (documentId === null) {
      const { document, eNCF, fechaVencimientoSecuencia } = splitOwnedFields(row.payload);
      if (eNCF === undefined)
        throw new Error(`certification case ${row.case_key} has no eNCF (the set was checked at iniciar)`);
      const issued = await documents.issueVerbatim(companyId, document, { eNCF, fechaVencimientoSecuencia });
      if (!issued.ok) {
        await recordLocalFailure(processId, row, `the document could not be made: ${issued.failure.detail}`, lease);
        return;
      }
      documentId = issued.value.id;
    }
    if (!(await markSent(processId, row, { documentId }, lease))) return;
    await queueDocument(companyId, documentId, row.status === 'error');
  }

  async function queueDocument(companyId: string, documentId: string, retry: boolean): Promise<void> {
    const queued = retry ? await sending.retry(companyId, documentId) : await sending.send(companyId, documentId);
    if (!queued.ok && queued.failure.code === 'document_not_sendable') await sending.retry(companyId, documentId);
  }

  /** An error of ours (not DGII's verdict): the case blocks the lane as `error` until ejecutar hands it in again. */
  async function recordLocalFailure(processId: string, row: repo.CaseRow, cause: string, lease: Lease): Promise<void> {
    await transact(db, async (trx) => {
      const process = await repo.lockProcessById(trx, processId);
      if (process !== undefined && (await held(trx, processId, lease)))
        await changes.changeCase(
          trx,
          process,
          row,
          { status: 'error', cause, waitingFor: 'service_error', unqueue: true },
          clock.now(),
        );
      return ok(undefined);
    });
  }

  function approvalOf(row: repo.CaseRow, signedAt: Date): Acecf {
    const detail = (row.payload['DetalleAprobacionComercial'] ?? {}) as Record<string, string | undefined>;
    const common = {
      RNCEmisor: detail['RNCEmisor'] ?? '',
      eNCF: detail['eNCF'] ?? '',
      FechaEmision: detail['FechaEmision'] ?? '',
      MontoTotal: detail['MontoTotal'] ?? '',
      RNCComprador: detail['RNCComprador'] ?? '',
      FechaHoraAprobacionComercial: detail['FechaHoraAprobacionComercial'] ?? formatDgiiTimestamp(signedAt),
    };
    return detail['Estado'] === '2'
      ? { ...common, Estado: '2', DetalleMotivoRechazo: detail['DetalleMotivoRechazo'] ?? '' }
      : { ...common, Estado: '1' };
  }

  async function startApprovalCase(
    processId: string,
    companyId: string,
    row: repo.CaseRow,
    lease: Lease,
  ): Promise<void> {
    const identity = await companies.signingIdentity(companyId);
    if (identity === undefined) {
      await recordLocalFailure(processId, row, 'the company has no certificate to sign the approval with', lease);
      return;
    }
    let archived = {};
    // Signed once: a case handed in again sends the bytes archived the first time.
    if (row.signed_blob_key === null) {
      const built = buildAcecf(approvalOf(row, clock.now()));
      if (!built.ok) {
        await recordLocalFailure(
          processId,
          row,
          `the approval cannot be written: ${built.findings.map((finding) => finding.message).join('; ')}`,
          lease,
        );
        return;
      }
      archived = await archiveApproval(
        `certification/${companyId}/${processId}/${row.case_key}.acecf.xml`,
        Buffer.from(signCanonicalDocument(built.xml, identity), 'utf8'),
      );
    }
    if (await markSent(processId, row, archived, lease)) deps.approvalQueued();
  }

  /**
   * Archives a signed approval once. Its key is the case's: a lane that stopped after the put (before recording it)
   * finds the key taken, and those bytes, never sent, are the ones kept and sent.
   */
  async function archiveApproval(
    key: string,
    signed: Buffer,
  ): Promise<{ signedBlobKey: string; signedSha256: string }> {
    try {
      const stored = await blobs.put(key, signed, { contentType: 'application/xml' });
      return { signedBlobKey: stored.key, signedSha256: stored.sha256 };
    } catch (error) {
      const kept = error instanceof BlobExistsError ? await blobs.get(key) : undefined;
      if (kept === undefined) throw error;
      return { signedBlobKey: key, signedSha256: createHash('sha256').update(kept).digest('hex') };
    }
  }

  return {
    /**
     * One step of the lane of a process, under the lease `leaseId` of its item: reconcile, then start or resume the
     * next case. A throw is a failed attempt the engine counts and retries (lane-loop.ts); a case the service failed
     * to start is shown on the case, which stops the lane, rather than retried unseen.
     */
    async advance(processId: string, lease: Lease): Promise<LaneStep> {
      const planned = await transact(db, async (trx) => {
        const process = await repo.lockProcessById(trx, processId);
        if (process === undefined) return ok<Plan>({ kind: 'idle', seen: '' });
        // A lease run out: another worker may hold the lane now; this one writes nothing.
        if (!(await held(trx, processId, lease))) return ok<Plan>({ kind: 'waiting' });
        return ok(await plan(trx, process));
      });
      if (!planned.ok) throw new Error(`certification lane ${processId}: ${planned.failure.detail}`);
      const next = planned.value;
      if (next.kind === 'waiting' || next.kind === 'idle') return next;
      const companyId = next.process.company_id;
      try {
        if (next.kind === 'queue_document') await queueDocument(companyId, next.documentId, next.retry);
        else if (next.row.route === 'approval') await startApprovalCase(processId, companyId, next.row, lease);
        else await startDocumentCase(processId, companyId, next.row, next.referenceDocumentId, lease);
      } catch (error) {
        if (next.kind !== 'start') throw error;
        log.error({ err: error, processId, caseKey: next.row.case_key }, 'certification lane step failed');
        await recordLocalFailure(
          processId,
          next.row,
          `the service failed on it: ${error instanceof Error ? error.message : String(error)}`,
          lease,
        );
      }
      return { kind: 'moved' };
    },
  };
}
