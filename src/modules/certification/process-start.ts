// Starting a certification process (SPEC §3 rule 2; research/certification.md §6.3): the set, already checked whole,
// becomes a process with its 14 steps and its cases, in one transaction. What earlier processes of the company left
// decides the rest: cases DGII accepted carry over (never resent: a resend is DGII's 1209), an e-NCF DGII rejected
// is refused, and so is a set number one of the company's ranges would hand out again; the manual confirmations of a
// failed process carry over for the steps before the one that failed.
import { createHash } from 'node:crypto';
import type { FiscalEnvironment } from '../../config.js';
import { certificationSteps, type SetCase } from '../../fiscal/certification/index.js';
import { textAt } from '../../fiscal/rules/document-view.js';
import type { Trx } from '../../platform/db/transact.js';
import { recordDomainEvent } from '../../platform/events/domain-events.js';
import { newId } from '../../platform/ids.js';
import { fail, ok, type Result } from '../../platform/result.js';
import type { CaseChanges } from './case-changes.js';
import * as repo from './certification.repo.js';
import type { SetFile } from './certification.schema.js';
import { encfOfCase } from './lane.js';
import { setFindingsProblem } from './set-problems.js';
import type { CertificationTables } from './tables.js';

/** The step a case belongs to and the DGII service it reaches. */
function placeOf(
  setCase: SetCase,
  rfceRouted: ReadonlySet<string>,
): { step: 2 | 3; route: 'reception' | 'rfce' | 'approval' } {
  if (setCase.kind === 'ACECF') return { step: 3, route: 'approval' };
  if (setCase.kind === 'RFCE' || rfceRouted.has(setCase.caseKey)) return { step: 2, route: 'rfce' };
  return { step: 2, route: 'reception' };
}

const encfOf = (caseKey: string) => encfOfCase({ case_key: caseKey });

const referenceOf = (setCase: SetCase) => textAt(setCase.payload, ['InformacionReferencia', 'NCFModificado']);

export interface StartInput {
  actor: { companyId: string; keyId: string };
  file: SetFile;
  /** The file's cases, and with them the approvals derived from the set when the file has none. */
  cases: readonly SetCase[];
  all: readonly SetCase[];
  rfceRouted: ReadonlySet<string>;
  environment: FiscalEnvironment;
  now: Date;
  changes: CaseChanges;
}

/** The new process's id. */
export async function startProcess(trx: Trx<CertificationTables>, input: StartInput): Promise<Result<string>> {
  const { actor, file, cases, all, rfceRouted, environment, now } = input;
  const setSha256 = createHash('sha256').update(JSON.stringify(file)).digest('hex');
  // Two starts at once: the company's row, locked, lets one through; the other then sees the active process.
  await repo.lockCompany(trx, actor.companyId);
  if ((await repo.activeProcess(trx, actor.companyId, environment)) !== undefined)
    return fail(
      'certification_active_exists',
      'The company already has an active certification process: cancel it or complete it first.',
    );
  // What an earlier process already had judged: accepted cases carry over and are never resent (a resend is
  // DGII's 1209); an e-NCF DGII rejected is burned, and a set that uses it again cannot start.
  const judged = await repo.judgedEarlier(trx, actor.companyId, environment);
  const judgedOf = new Map(judged.map((row) => [`${row.kind} ${row.case_key}`, row]));
  const documents = await repo.documentsNumbered(
    trx,
    actor.companyId,
    environment,
    all.filter((setCase) => setCase.kind !== 'ACECF').map((setCase) => encfOf(setCase.caseKey)),
  );
  const burned = all.flatMap((setCase, index) => {
    const earlier = judgedOf.get(`${setCase.kind} ${setCase.caseKey}`);
    const document =
      setCase.kind === 'ACECF' ? undefined : documents.find((row) => row.encf === encfOf(setCase.caseKey));
    // An approval DGII refused spends no number: only e-CF and RFCE cases burn their e-NCF.
    const rejected = setCase.kind !== 'ACECF' && (earlier?.status === 'rejected' || document?.status === 'rejected');
    if (!rejected && document !== undefined && document.origin !== 'certification') {
      return [
        {
          index,
          pointer: '/caseKey',
          code: 'encf_used',
          severity: 'error' as const,
          caseKey: setCase.caseKey,
          message: `${encfOf(setCase.caseKey)} is already the e-NCF of the company's document ${document.id}, not one of a certification set: it cannot be sent as this case.`,
        },
      ];
    }
    return rejected
      ? [
          {
            index,
            pointer: '/caseKey',
            code: 'encf_burned',
            severity: 'error' as const,
            caseKey: setCase.caseKey,
            message: `DGII already rejected ${setCase.caseKey} in an earlier process: its e-NCF is spent. Get a new set from the portal.`,
          },
        ]
      : [];
  });
  if (burned.length > 0) return setFindingsProblem(burned);
  // A set number the company's own range has yet to hand out would be handed out again by the simulation's
  // documents (and refused as used): the ranges registered for CERT must leave the set's numbers out.
  const ranges = await repo.rangesOf(trx, actor.companyId, environment);
  const overlapping = all.flatMap((setCase, index) => {
    if (setCase.kind === 'ACECF') return [];
    const encf = encfOf(setCase.caseKey);
    const sequence = Number(encf.slice(3));
    const range = ranges.find(
      (row) =>
        row.ecf_type === encf.slice(1, 3) &&
        sequence >= Math.max(row.first_number, row.next_number) &&
        sequence <= row.last_number,
    );
    return range === undefined
      ? []
      : [
          {
            index,
            pointer: '/caseKey',
            code: 'encf_in_company_range',
            severity: 'error' as const,
            caseKey: setCase.caseKey,
            message: `${encf} lies in the company's range ${range.id} (${String(range.first_number)}-${String(range.last_number)}), which would hand it out again: register CERT ranges that leave the set's numbers out.`,
          },
        ];
  });
  if (overlapping.length > 0) return setFindingsProblem(overlapping);
  const previous = await repo.latestProcess(trx, actor.companyId, environment);
  const id = newId('cpr');
  const caseRows = all.map((setCase, position) => {
    const { step, route } = placeOf(setCase, rfceRouted);
    const earlier = judgedOf.get(`${setCase.kind} ${setCase.caseKey}`);
    const carried = earlier?.status === 'accepted' ? earlier : undefined;
    const payload = JSON.stringify(setCase.payload);
    return {
      process_id: id,
      kind: setCase.kind,
      case_key: setCase.caseKey,
      ecf_type: setCase.ecfType ?? null,
      step,
      position,
      origin: position < cases.length ? ('set' as const) : ('derived' as const),
      payload,
      payload_sha256: createHash('sha256').update(payload).digest('hex'),
      depends_on: setCase.kind === 'ECF' ? (referenceOf(setCase) ?? null) : null,
      route,
      status: carried === undefined ? ('pending' as const) : ('accepted' as const),
      waiting_for: null,
      estado: carried?.estado ?? null,
      codigo: carried?.codigo ?? null,
      mensajes: '[]',
      document_id: carried?.document_id ?? null,
      carried_from_process_id: carried === undefined ? null : (carried.carried_from_process_id ?? carried.process_id),
      sent_at: null,
      verdict_at: carried?.verdict_at ?? null,
      updated_at: now,
    };
  });
  // Manual confirmations carry from a failed previous process for the steps before the one that failed; a
  // cancelled one stands for a postulación given up, so nothing carries from it.
  const failedStep =
    previous?.status === 'failed' ? Number((previous.failure as { step?: unknown } | null)?.step ?? 0) : 0;
  const carriedConfirmations =
    previous === undefined || failedStep === 0
      ? []
      : (await repo.confirmationsOf(trx, previous.id)).filter((row) => row.step < failedStep);
  const carriedSteps = new Set(carriedConfirmations.map((row) => row.step));
  let opened = false;
  const stepRows = certificationSteps.map((step) => {
    const done = carriedSteps.has(step.number);
    const open = !done && !opened;
    if (open) opened = true;
    return {
      process_id: id,
      number: step.number,
      key: step.key,
      mode: step.mode,
      status: done ? ('done' as const) : open ? ('open' as const) : ('locked' as const),
      opened_at: done || open ? now : null,
      done_at: done ? now : null,
    };
  });
  await repo.insertProcess(
    trx,
    {
      id,
      company_id: actor.companyId,
      environment,
      label: file.label,
      status: 'active',
      failure: null,
      cancel_reason: null,
      previous_process_id: previous?.id ?? null,
      set_sha256: setSha256,
      created_by_key: actor.keyId,
      created_at: now,
      updated_at: now,
      ended_at: null,
    },
    stepRows,
    caseRows,
  );
  for (const confirmation of carriedConfirmations) {
    await repo.insertConfirmation(trx, {
      process_id: id,
      step: confirmation.step,
      key: confirmation.key,
      note: confirmation.note,
      api_key_id: confirmation.api_key_id,
      correlation_id: confirmation.correlation_id,
      carried_from: previous?.id ?? null,
      confirmed_at: now,
    });
  }
  const carriedCases = caseRows.filter((row) => row.carried_from_process_id !== null).length;
  await repo.insertEvent(trx, {
    processId: id,
    at: now,
    subject: 'process',
    status: 'active',
    cause: `started from the set "${file.label}": ${String(caseRows.length)} cases (${String(all.length - cases.length)} approvals derived from the set), ${String(carriedCases)} already accepted in an earlier process`,
  });
  await recordDomainEvent(trx, {
    companyId: actor.companyId,
    environment,
    type: 'certification.process_updated',
    payload: { processId: id, status: 'active' },
    occurredAt: now,
  });
  return ok(id);
}
