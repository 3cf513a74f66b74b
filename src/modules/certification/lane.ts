// The serial lane of a certification process (SPEC §4.8 ejecutar; research/certification.md §6.4): ejecutar hands
// cases to it, and it sends them one at a time, the next only once DGII has judged the one before. At most one case
// of a process is at DGII without a final verdict, so a rejection costs one e-NCF, and a note never reaches DGII
// before the invoice it modifies is accepted (DGII's 614 would reset the step). The lane runs in the workers
// (lane-loop.ts); one worker at a time holds a process's lane, under the engine's lease (platform/work), taken while
// its row is locked (SKIP LOCKED) and held for the whole step.
//
// Exactly once: an e-CF case's document is made from the set verbatim and keyed by its e-NCF (documents
// issueVerbatim returns the one already made), and is then sent by the document pipeline, which sends a document
// once whatever crashes (sending/send-target.ts). A case is marked `sent` before its document is queued; a lane that
// finds a `sent` case whose document is still `signed` (a crash in between) queues it then. An approval (ACECF) is
// signed and archived once, and the same bytes are what is sent, however often.
import { createHash } from 'node:crypto';
import type { FiscalEnvironment } from '../../config.js';
import type { DgiiClient, SendAcecfOutcome } from '../../dgii/index.js';
import { splitOwnedFields } from '../../fiscal/certification/index.js';
import { formatDgiiTimestamp } from '../../fiscal/dates.js';
import { buildAcecf, type Acecf } from '../../fiscal/responses/acecf.js';
import { signCanonicalDocument } from '../../fiscal/xmldsig/index.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import type { DgiiMessageRow } from '../../platform/db/schema.js';
import { transact, type Trx } from '../../platform/db/transact.js';
import { newId } from '../../platform/ids.js';
import type { Logger } from '../../platform/observability/logger.js';
import { ok } from '../../platform/result.js';
import { BlobExistsError, readArchived, type BlobStore } from '../../platform/storage/index.js';
import type { CompaniesService } from '../companies/index.js';
import type { DocumentsService } from '../documents/index.js';
import type { SendingService } from '../sending/index.js';
import type { CaseChanges } from './case-changes.js';
import * as repo from './certification.repo.js';
import { reconcileProcess } from './reconcile.js';
import type { CertificationTables } from './tables.js';

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

type Plan =
  | { kind: 'start'; row: repo.CaseRow; process: repo.ProcessRow; referenceDocumentId: string | null }
  | { kind: 'queue_document'; row: repo.CaseRow; documentId: string; retry: boolean; process: repo.ProcessRow }
  | { kind: 'send_acecf'; row: repo.CaseRow; process: repo.ProcessRow };

export function createLane(deps: {
  db: Db<CertificationTables>;
  clock: Clock;
  environment: FiscalEnvironment;
  log: Logger;
  blobs: BlobStore;
  companies: CompaniesService;
  documents: DocumentsService;
  sending: Pick<SendingService, 'send' | 'retry'>;
  dgii: Pick<DgiiClient, 'sendAcecf'>;
  changes: CaseChanges;
  /** How long one worker holds a process's lane: longer than a step (a document made, or one call to DGII). */
  leaseMs: number;
}) {
  const { db, clock, environment, log, blobs, companies, documents, sending, dgii, changes } = deps;

  /** Under the process's lane lock: reconcile, then what the lane does next (nothing while a case is in flight). */
  async function plan(trx: Trx<CertificationTables>, process: repo.ProcessRow): Promise<Plan | undefined> {
    await reconcileProcess(trx, process, { changes, environment, now: clock.now() });
    const current = await repo.findProcess(trx, process.company_id, environment, process.id);
    if (current?.status !== 'active') return undefined;
    const cases = await repo.casesOf(trx, process.id);
    const inFlight = cases.find((row) => row.status === 'sent' && row.kind !== 'RFCE');
    if (inFlight !== undefined) {
      if (inFlight.route === 'approval') return { kind: 'send_acecf', row: inFlight, process: current };
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
      return undefined;
    }
    // A case in error stops the lane (DGII may hold it, or it failed on our side) until ejecutar hands it in again.
    if (cases.some((row) => row.status === 'error')) return undefined;
    const steps = await repo.stepsOf(trx, process.id);
    const acceptedOutside = new Set(
      (await repo.documentsNumbered(trx, process.company_id, environment, referencesOutside(cases)))
        .filter((row) => row.status === 'accepted' || row.status === 'accepted_conditional')
        .map((row) => row.encf),
    );
    const next = laneOrder(cases).find(
      (row) =>
        row.queued_at !== null &&
        row.status === 'pending' &&
        waitingFor(row, cases, steps, acceptedOutside) === undefined,
    );
    return next === undefined
      ? undefined
      : {
          kind: 'start',
          row: next,
          process: current,
          referenceDocumentId: referenceOf(next, cases)?.document_id ?? null,
        };
  }

  /** Marks a case sent (with its twin RFCE case), only if it is still the lane's to start and nothing is in flight. */
  async function markSent(
    processId: string,
    row: repo.CaseRow,
    change: { documentId?: string; signedBlobKey?: string; signedSha256?: string },
  ): Promise<boolean> {
    const marked = await transact(db, async (trx) => {
      const process = await repo.lockProcessById(trx, processId);
      if (process?.status !== 'active') return ok(false);
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
  ): Promise<void> {
    let documentId = row.document_id;
    if (documentId === null && row.origin === 'simulation') {
      const issued = await issueSimulation(companyId, row, referenceDocumentId);
      if (!issued.ok) {
        await recordLocalFailure(processId, row, `the simulation document could not be issued: ${issued.detail}`);
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
        await recordLocalFailure(processId, row, `the document could not be made: ${issued.failure.detail}`);
        return;
      }
      documentId = issued.value.id;
    }
    if (!(await markSent(processId, row, { documentId }))) return;
    await queueDocument(companyId, documentId, row.status === 'error');
  }

  async function queueDocument(companyId: string, documentId: string, retry: boolean): Promise<void> {
    const queued = retry ? await sending.retry(companyId, documentId) : await sending.send(companyId, documentId);
    if (!queued.ok && queued.failure.code === 'document_not_sendable') await sending.retry(companyId, documentId);
  }

  /** An error of ours (not DGII's verdict): the case blocks the lane as `error` until ejecutar hands it in again. */
  async function recordLocalFailure(processId: string, row: repo.CaseRow, cause: string): Promise<void> {
    await transact(db, async (trx) => {
      const process = await repo.lockProcessById(trx, processId);
      if (process !== undefined)
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

  async function startApprovalCase(processId: string, companyId: string, row: repo.CaseRow): Promise<void> {
    const identity = await companies.signingIdentity(companyId);
    if (identity === undefined) {
      await recordLocalFailure(processId, row, 'the company has no certificate to sign the approval with');
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
        );
        return;
      }
      archived = await archiveApproval(
        `certification/${companyId}/${processId}/${row.case_key}.acecf.xml`,
        Buffer.from(signCanonicalDocument(built.xml, identity), 'utf8'),
      );
    }
    const marked = await markSent(processId, row, archived);
    if (marked) await sendApproval(processId, companyId, row.case_key);
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

  async function sendApproval(processId: string, companyId: string, caseKey: string): Promise<void> {
    const row = (await repo.casesOf(db, processId)).find(
      (other) => other.kind === 'ACECF' && other.case_key === caseKey,
    );
    if (row?.status !== 'sent' || row.signed_blob_key === null || row.signed_sha256 === null) return;
    const xml = await readArchived(blobs, { blob_key: row.signed_blob_key, sha256: row.signed_sha256 });
    const detail = row.payload['DetalleAprobacionComercial'] as Record<string, string>;
    const outcome = await dgii.sendAcecf(companyId, {
      xml,
      fileName: `${detail['RNCComprador'] ?? ''}${detail['eNCF'] ?? ''}.xml`,
    });
    await transact(db, async (trx) => {
      // Waits for a reader holding the row: DGII's answer is never dropped, and counts only for the case as sent.
      const process = await repo.lockProcessById(trx, processId);
      const current =
        process === undefined
          ? undefined
          : (await repo.casesOf(trx, processId)).find((other) => other.kind === 'ACECF' && other.case_key === caseKey);
      if (process === undefined || current?.status !== 'sent') return ok(undefined);
      await changes.changeCase(trx, process, current, approvalVerdict(outcome), clock.now());
      if (approvalVerdict(outcome).status === 'rejected')
        await reconcileProcess(trx, process, { changes, environment, now: clock.now() });
      return ok(undefined);
    });
  }

  return {
    /** One step of the lane of a process: reconcile, and start or resume the next case. Safe to run on any worker. */
    async advance(processId: string): Promise<void> {
      // The lane is leased while its step runs (a DGII answer can take seconds): another worker, or this loop's next
      // round, finds it taken and does nothing, so a case is never started or sent twice side by side. A worker that
      // dies mid-step leaves the lease to run out.
      const leaseId = newId('lse');
      const planned = await transact(db, async (trx) => {
        const process = await repo.lockProcessForLane(trx, processId);
        const now = clock.now();
        const lease = { leaseId, now, until: new Date(now.getTime() + deps.leaseMs) };
        if (process === undefined || !(await repo.takeLaneLease(trx, process, lease))) return ok(undefined);
        return ok(await plan(trx, process));
      });
      const next = planned.ok ? planned.value : undefined;
      try {
        if (next === undefined) return;
        const companyId = next.process.company_id;
        switch (next.kind) {
          case 'queue_document':
            await queueDocument(companyId, next.documentId, next.retry);
            return;
          case 'send_acecf':
            await sendApproval(processId, companyId, next.row.case_key);
            return;
          case 'start':
            if (next.row.route === 'approval') await startApprovalCase(processId, companyId, next.row);
            else await startDocumentCase(processId, companyId, next.row, next.referenceDocumentId);
            return;
        }
      } catch (error) {
        log.error({ err: error, processId, caseKey: next?.row.case_key }, 'certification lane step failed');
        // Shown on the case, which stops the lane, rather than retried unseen every round.
        if (next?.kind === 'start')
          await recordLocalFailure(
            processId,
            next.row,
            `the service failed on it: ${error instanceof Error ? error.message : String(error)}`,
          );
      } finally {
        await repo.releaseLaneLease(db, processId, leaseId);
      }
    },
  };
}

/** DGII's answer to an approval, as the case's next state (research/certification.md §4: "01" OK, "02" Error). */
function approvalVerdict(outcome: SendAcecfOutcome): {
  status: 'accepted' | 'rejected' | 'pending' | 'error';
  cause: string;
  waitingFor: string | null;
  estado?: string | null;
  codigo?: string | null;
  mensajes?: DgiiMessageRow[];
  verdict?: boolean;
  unqueue?: boolean;
} {
  switch (outcome.kind) {
    case 'accepted': {
      const verdict = { estado: outcome.estado, codigo: outcome.codigo, mensajes: outcome.messages, verdict: true };
      return outcome.codigo === '02'
        ? {
            status: 'rejected',
            cause: `DGII answered Error (02): ${outcome.estado ?? ''}`,
            waitingFor: null,
            unqueue: true,
            ...verdict,
          }
        : {
            status: 'accepted',
            cause: `DGII answered ${outcome.codigo ?? ''} ${outcome.estado ?? ''}`.trim(),
            waitingFor: null,
            ...verdict,
          };
    }
    case 'rejected': {
      const said = outcome.messages.map((message) => message.valor).join('; ');
      // DGII's "No fue posible procesar … Favor intentar nuevamente": its own trouble, not a verdict on the approval.
      if (/intentar nuevamente/i.test(said))
        return {
          status: 'error',
          cause: `DGII could not process it now: ${said}; the same signed approval is sent again when the case is handed in again`,
          waitingFor: 'dgii_unreachable',
          mensajes: outcome.messages,
          unqueue: true,
        };
      // DGII's phase gate (research §4): not a rejection, nothing resets; the lane tries again later.
      // Out of the lane until ejecutar hands it in again (usually once the consumer invoices are uploaded).
      if (/etapa/i.test(said))
        return {
          status: 'pending',
          cause: `DGII is not taking approvals yet: ${said}`,
          waitingFor: 'dgii_stage',
          mensajes: outcome.messages,
          unqueue: true,
        };
      return {
        status: 'rejected',
        cause: `DGII refused it (${String(outcome.httpStatus)}): ${said}`,
        waitingFor: null,
        estado: outcome.estado,
        codigo: outcome.codigo,
        mensajes: outcome.messages,
        verdict: true,
        unqueue: true,
      };
    }
    case 'transient':
    case 'uncertain':
      return {
        status: 'error',
        cause: `DGII did not answer (${outcome.reason}: ${outcome.detail}); the same signed approval is sent again when the case is handed in again`,
        waitingFor: 'dgii_unreachable',
        unqueue: true,
      };
    case 'unauthorized':
    case 'no_credentials':
      return {
        status: 'error',
        cause:
          'DGII did not authenticate the company: check its certificate and delegation (POST /dgii/prueba-conexion)',
        waitingFor: 'dgii_authentication',
        unqueue: true,
      };
  }
}
