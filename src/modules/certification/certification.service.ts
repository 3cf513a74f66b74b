// DGII's issuer certification, run in CERT (SPEC §3 rules 1-8, §4.8, §5 rule 4; research/certification.md §6):
// starting a process from a converted set (checked whole first: nothing starts from a set with a defect), reading
// it with its steps and checklist, confirming the manual steps in the portal's strictly linear order, cancelling
// and completing. Every change is a timeline entry and a webhook event.
import type { FiscalEnvironment } from '../../config.js';
import {
  certificationSteps,
  checkSetFile,
  deriveAcecfCases,
  isRfceRouted,
  stepOfKey,
  type SetCase,
} from '../../fiscal/certification/index.js';
import { textAt } from '../../fiscal/rules/document-view.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import type { CertificationCaseStatus, CertificationTables } from './tables.js';
import { transact, type Trx } from '../../platform/db/transact.js';
import { fail, ok, type Result } from '../../platform/result.js';
import type { CompaniesService } from '../companies/index.js';
import { createCaseChanges } from './case-changes.js';
import * as repo from './certification.repo.js';
import type { CaseView, ProcessView, RunAnswer, SetFile } from './certification.schema.js';
import {
  checklistOf,
  printedRepresentationSlots,
  type PrintedRepresentationSlot,
  type ReceiverLinks,
} from './checklist.js';
import { laneOrder, referencesOutside, waitingFor } from './lane.js';
import { startProcess } from './process-start.js';
import { reconcileProcess } from './reconcile.js';
import { setFindingsProblem } from './set-problems.js';
import { caseView, processView } from './views.js';

export interface Actor {
  companyId: string;
  keyId: string;
  correlationId: string;
}

export interface CertificationService {
  start(actor: Actor, file: SetFile): Promise<Result<ProcessView>>;
  latest(companyId: string): Promise<Result<ProcessView | null>>;
  get(companyId: string, id: string): Promise<Result<ProcessView>>;
  cases(companyId: string, id: string, status: CertificationCaseStatus | undefined): Promise<Result<CaseView[]>>;
  run(actor: Actor, id: string, limit: number): Promise<Result<RunAnswer>>;
  confirm(actor: Actor, id: string, key: string, note: string | undefined): Promise<Result<ProcessView>>;
  cancel(actor: Actor, id: string, reason: string): Promise<Result<ProcessView>>;
  complete(actor: Actor, id: string): Promise<Result<ProcessView>>;
  /** Step 5's eleven slots, each with the accepted simulation document whose RI goes in it (null: none yet). */
  printedRepresentationSlots(companyId: string, id: string): Promise<Result<PrintedRepresentationSlot[]>>;
}

export function createCertificationService(deps: {
  db: Db<CertificationTables>;
  clock: Clock;
  environment: FiscalEnvironment;
  companies: CompaniesService;
  /** Whether the service can authenticate to DGII for the company (a certificate, or a session it handed in). */
  canAuthenticate: (companyId: string) => Promise<boolean>;
  /** Where the receiver is published (PUBLIC_BASE_URL); undefined: the links are paths. */
  publicBaseUrl: string | undefined;
  /** Makes a process's lane due now, in the caller's transaction (lane-loop.ts: the lane's work item). */
  hastenLane: (trx: Trx, processId: string) => Promise<void>;
  /** Cases were handed to a lane: wakes this process's lane loop, when it runs one. */
  laneQueued: () => void;
}): CertificationService {
  const { db, clock, environment, companies } = deps;
  const changes = createCaseChanges(environment);

  /** A read reconciles first (SPEC §3 rule 4): DGII's verdicts, kept by the sending pipeline, reach the cases. */
  async function reconciled(companyId: string, id: string): Promise<repo.ProcessRow | undefined> {
    const result = await transact(db, async (trx) => {
      const process = await repo.lockProcess(trx, companyId, environment, id);
      if (process !== undefined) await reconcileProcess(trx, process, { changes, environment, now: clock.now() });
      return ok(undefined);
    });
    if (!result.ok) return undefined;
    return repo.findProcess(db, companyId, environment, id);
  }

  /** The receiver URLs the portal asks for: CERT's in step 1, PRODUCTION's in step 12. */
  async function receiverLinks(
    executor: Db<CertificationTables> | Trx<CertificationTables>,
    companyId: string,
  ): Promise<ReceiverLinks> {
    const segment = (await repo.receiverSegmentOf(executor, companyId)) ?? companyId;
    const base = (deps.publicBaseUrl ?? '').replace(/\/+$/, '');
    const urls = (environmentSegment: string) =>
      ['autenticacion/api/semilla', 'recepcion/api/ecf', 'aprobacioncomercial/api/ecf'].map(
        (path) => `${base}/${environmentSegment}/${segment}/fe/${path}`,
      );
    return { test: urls('certecf'), production: urls('ecf') };
  }

  /** SPEC §5 rule 4 and §3 rule 1: what a certification route needs before it does anything. */
  async function guard(
    companyId: string,
    change: boolean,
  ): Promise<Result<{ rnc: string; certificateNotAfter: string | null }>> {
    if (environment !== 'CERT')
      return fail(
        'certification_cert_only',
        `Certification runs in CERT only; this instance serves ${environment}. Use a CERT key on a CERT instance.`,
      );
    const company = await companies.get(companyId);
    if (company === undefined) return fail('company_not_found', `No company ${companyId}.`);
    if (!company.certificationEnabled)
      return fail(
        'certification_not_enabled',
        'The company is not enabled for certification; ask your provider to enable it.',
      );
    if (change && company.certificate === null)
      return fail(
        'certification_certificate_missing',
        'Install the company certificate (.p12) first: every document of the set is signed with it.',
      );
    if (change && !(await deps.canAuthenticate(companyId)))
      return fail(
        'certification_authentication_missing',
        'The service cannot authenticate to DGII CERT for the company: install its certificate or hand in a session (POST /dgii/sesion).',
      );
    return ok({ rnc: company.rnc, certificateNotAfter: company.certificate?.notAfter ?? null });
  }

  /** The process with its steps and checklist; `certificateNotAfter` comes from the guard (no company read inside a
   * transaction). */
  async function read(
    executor: Db<CertificationTables> | Trx<CertificationTables>,
    companyId: string,
    process: repo.ProcessRow,
    certificateNotAfter: string | null,
  ): Promise<ProcessView> {
    const [steps, cases, confirmations, events, links] = await Promise.all([
      repo.stepsOf(executor, process.id),
      repo.casesOf(executor, process.id),
      repo.confirmationsOf(executor, process.id),
      repo.eventsOf(executor, process.id),
      receiverLinks(executor, companyId),
    ]);
    const checklist = checklistOf({ process, steps, cases, links, certificateNotAfter, now: clock.now() });
    return processView(process, steps, cases, confirmations, events, checklist);
  }

  return {
    async start(actor, file) {
      const guarded = await guard(actor.companyId, true);
      if (!guarded.ok) return guarded;
      const now = clock.now();
      // A case's type is its payload's TipoeCF when the file leaves ecfType out (the checks compare the two).
      const cases = (file.cases as SetCase[]).map((setCase) =>
        setCase.ecfType !== undefined
          ? setCase
          : { ...setCase, ecfType: textAt(setCase.payload, ['Encabezado', 'IdDoc', 'TipoeCF']) },
      );
      const findings = checkSetFile(cases, { now, issuerRnc: guarded.value.rnc });
      if (findings.length > 0) return setFindingsProblem(findings);
      const all = cases.some((setCase) => setCase.kind === 'ACECF')
        ? cases
        : [...cases, ...deriveAcecfCases(cases, guarded.value.rnc)];
      const rfceRouted = new Set(cases.filter(isRfceRouted).map((setCase) => setCase.caseKey));

      return transact(db, async (trx) => {
        const started = await startProcess(trx, { actor, file, cases, all, rfceRouted, environment, now, changes });
        if (!started.ok) return started;
        const process = await repo.findProcess(trx, actor.companyId, environment, started.value);
        if (process === undefined)
          throw new Error(`certification process ${started.value} vanished in its own transaction`);
        return ok(await read(trx, actor.companyId, process, guarded.value.certificateNotAfter));
      });
    },

    async latest(companyId) {
      const guarded = await guard(companyId, false);
      if (!guarded.ok) return guarded;
      const latest = await repo.latestProcess(db, companyId, environment);
      const process = latest === undefined ? undefined : await reconciled(companyId, latest.id);
      return ok(process === undefined ? null : await read(db, companyId, process, guarded.value.certificateNotAfter));
    },

    async get(companyId, id) {
      const guarded = await guard(companyId, false);
      if (!guarded.ok) return guarded;
      const process = await reconciled(companyId, id);
      return process === undefined
        ? fail('certification_not_found', `No certification process ${id}.`)
        : ok(await read(db, companyId, process, guarded.value.certificateNotAfter));
    },

    async printedRepresentationSlots(companyId, id) {
      const guarded = await guard(companyId, false);
      if (!guarded.ok) return guarded;
      const process = await reconciled(companyId, id);
      if (process === undefined) return fail('certification_not_found', `No certification process ${id}.`);
      return ok(printedRepresentationSlots(await repo.casesOf(db, id)));
    },

    async cases(companyId, id, status) {
      const guarded = await guard(companyId, false);
      if (!guarded.ok) return guarded;
      const process = await reconciled(companyId, id);
      if (process === undefined) return fail('certification_not_found', `No certification process ${id}.`);
      return ok((await repo.casesOf(db, id, status)).map(caseView));
    },

    async run(actor, id, limit) {
      const guarded = await guard(actor.companyId, true);
      if (!guarded.ok) return guarded;
      const result = await transact(db, async (trx) => {
        // First, before the process's lock: a worker settling the lane locks its queue row, then reads the cases
        // (lane-loop.ts), so the two meet in the same order, and a lane that found nothing to do sees these cases.
        await deps.hastenLane(trx, id);
        const process = await repo.lockProcess(trx, actor.companyId, environment, id);
        if (process === undefined) return fail('certification_not_found', `No certification process ${id}.`);
        const now = clock.now();
        await reconcileProcess(trx, process, { changes, environment, now });
        const current = await repo.findProcess(trx, actor.companyId, environment, id);
        if (current?.status !== 'active')
          return fail(
            'certification_not_active',
            `The process is ${current?.status ?? process.status}: nothing more is sent in it.${current?.status === 'failed' ? ' Start a new process with a regenerated set: accepted cases carry over.' : ''}`,
          );
        const steps = await repo.stepsOf(trx, id);
        if (steps.find((step) => step.number === 1)?.status !== 'done')
          return fail(
            'certification_step_blocked',
            "Step 1 (Registrado) is not confirmed: DGII takes the set's documents only once the postulación is validated. Confirm it with POST .../pasos/registrado/confirmar.",
          );
        const cases = await repo.casesOf(trx, id);
        // A case that failed on our side or DGII's reach (error) is handed in again: its same document is retried.
        const candidates = laneOrder(cases).filter(
          (row) =>
            row.kind !== 'RFCE' &&
            (row.status === 'error' ||
              (row.status === 'pending' && row.queued_at === null && row.waiting_for !== 'process_failed')),
        );
        const handed = candidates.slice(0, limit);
        for (const row of handed) {
          if (row.status === 'error')
            await changes.changeCase(
              trx,
              current,
              row,
              { status: 'pending', cause: 'handed in again by ejecutar', waitingFor: null },
              now,
            );
          await repo.updateCase(trx, row, { queued_at: now, waiting_for: null, updated_at: now });
        }
        const after = await repo.casesOf(trx, id);
        const acceptedOutside = new Set(
          (await repo.documentsNumbered(trx, actor.companyId, environment, referencesOutside(after)))
            .filter((row) => row.status === 'accepted' || row.status === 'accepted_conditional')
            .map((row) => row.encf),
        );
        const inLane = laneOrder(after).filter(
          (row) => row.queued_at !== null && (row.status === 'pending' || row.status === 'sent') && row.kind !== 'RFCE',
        );
        return ok({
          processId: id,
          queued: handed.map((row) => ({ caseKey: row.case_key, kind: row.kind })),
          lane: inLane.map((row) => ({
            caseKey: row.case_key,
            kind: row.kind,
            status: row.status,
            waitingFor:
              row.status === 'pending' ? (waitingFor(row, after, steps, acceptedOutside) ?? null) : 'dgii_verdict',
          })),
          remaining: candidates.length - handed.length,
        });
      });
      if (result.ok && result.value.lane.length > 0) deps.laneQueued();
      return result;
    },

    async confirm(actor, id, key, note) {
      const step = stepOfKey(key);
      if (step === undefined)
        return fail(
          'certification_step_not_found',
          `No manual step has the key ${key}: one of registrado, representacion_impresa_envio, representacion_impresa_validacion, url_servicio_prueba, url_pruebas_comunicacion, inicio_prueba_aprobaciones, url_produccion, declaracion_jurada, verificacion_estatus.`,
        );
      const guarded = await guard(actor.companyId, true);
      if (!guarded.ok) return guarded;
      return transact(db, async (trx) => {
        const process = await repo.lockProcess(trx, actor.companyId, environment, id);
        if (process === undefined) return fail('certification_not_found', `No certification process ${id}.`);
        if (process.status !== 'active')
          return fail(
            'certification_not_active',
            `The process is ${process.status}: only an active process takes confirmations.`,
          );
        const steps = await repo.stepsOf(trx, id);
        const missing = steps.filter((row) => row.number < step.number && row.status !== 'done');
        if (missing.length > 0) {
          return fail(
            'certification_step_blocked',
            `Step ${String(step.number)} (${step.name}) follows steps not done yet: ${missing.map((row) => `${String(row.number)} ${certificationSteps[row.number - 1]?.name ?? ''}`).join(', ')}. The portal's steps are strictly in order.`,
          );
        }
        const now = clock.now();
        await repo.insertConfirmation(trx, {
          process_id: id,
          step: step.number,
          key,
          note: note ?? null,
          api_key_id: actor.keyId,
          correlation_id: actor.correlationId,
          carried_from: null,
          confirmed_at: now,
        });
        const current = steps.find((row) => row.number === step.number);
        const cause = `confirmed (${key})${note === undefined ? '' : `: ${note}`}`;
        if (current === undefined || current.status === 'done') {
          await repo.insertEvent(trx, {
            processId: id,
            at: now,
            subject: `step ${String(step.number)}`,
            status: 'done',
            cause: `${cause}, again`,
          });
        } else {
          await changes.changeStep(trx, process, current, 'done', cause, now);
          const next = steps.find((row) => row.number === step.number + 1);
          if (next?.status === 'locked')
            await changes.changeStep(trx, process, next, 'open', `step ${String(step.number)} done`, now);
        }
        await trx.updateTable('certification_processes').set({ updated_at: now }).where('id', '=', id).execute();
        const updated = await repo.findProcess(trx, actor.companyId, environment, id);
        return ok(await read(trx, actor.companyId, updated ?? process, guarded.value.certificateNotAfter));
      });
    },

    async cancel(actor, id, reason) {
      const guarded = await guard(actor.companyId, true);
      if (!guarded.ok) return guarded;
      return transact(db, async (trx) => {
        const process = await repo.lockProcess(trx, actor.companyId, environment, id);
        if (process === undefined) return fail('certification_not_found', `No certification process ${id}.`);
        if (process.status !== 'active')
          return fail(
            'certification_not_active',
            `The process is ${process.status}: only an active process can be cancelled.`,
          );
        const now = clock.now();
        await changes.changeProcess(trx, process, { status: 'cancelled', cause: reason, cancelReason: reason }, now);
        return ok(
          await read(
            trx,
            actor.companyId,
            { ...process, status: 'cancelled', cancel_reason: reason, updated_at: now, ended_at: now },
            guarded.value.certificateNotAfter,
          ),
        );
      });
    },

    async complete(actor, id) {
      const guarded = await guard(actor.companyId, true);
      if (!guarded.ok) return guarded;
      return transact(db, async (trx) => {
        const process = await repo.lockProcess(trx, actor.companyId, environment, id);
        if (process === undefined) return fail('certification_not_found', `No certification process ${id}.`);
        if (process.status !== 'active')
          return fail(
            'certification_not_active',
            `The process is ${process.status}: only an active process can be completed.`,
          );
        const view = await read(trx, actor.companyId, process, guarded.value.certificateNotAfter);
        const open = view.checklist.filter((item) => item.status !== 'ok' && item.required);
        if (open.length > 0)
          return fail(
            'certification_incomplete',
            `Not complete yet: ${open.map((item) => `${item.id} (${item.detail})`).join('; ')}.`,
          );
        const now = clock.now();
        await changes.changeProcess(
          trx,
          process,
          { status: 'completed', cause: 'every step done and every case accepted' },
          now,
        );
        return ok(
          await read(
            trx,
            actor.companyId,
            { ...process, status: 'completed', updated_at: now, ended_at: now },
            guarded.value.certificateNotAfter,
          ),
        );
      });
    },
  };
}
