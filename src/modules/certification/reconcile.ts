// A process read against DGII's verdicts (SPEC §3 rule 4; research/certification.md §6.6): the sending pipeline keeps
// each document's verdict, and this carries it to the cases, then recomputes the automatic steps. No DGII call here.
// A rejection fails the process at once (rule 6): nothing more is sent, the queued cases leave the lane.
import type { FiscalEnvironment } from '../../config.js';
import { createHash } from 'node:crypto';
import { simulationCases, stepNumbered } from '../../fiscal/certification/index.js';
import { formatDgiiDate } from '../../fiscal/dates.js';
import type { Trx } from '../../platform/db/transact.js';
import type { CaseChanges } from './case-changes.js';
import * as repo from './certification.repo.js';
import { stepEvidence } from './step-evidence.js';
import type { CertificationTables } from './tables.js';

export async function reconcileProcess(
  trx: Trx<CertificationTables>,
  process: repo.ProcessRow,
  context: { changes: CaseChanges; environment: FiscalEnvironment; now: Date },
): Promise<void> {
  const { changes, now } = context;
  const cases = await repo.casesOf(trx, process.id);
  const documentIds = [
    ...new Set(cases.flatMap((row) => (row.route !== 'approval' && row.document_id !== null ? [row.document_id] : []))),
  ];
  const verdicts = new Map((await repo.documentVerdicts(trx, documentIds)).map((row) => [row.id, row]));
  for (const row of cases) {
    if (row.route === 'approval' || row.document_id === null || (row.status !== 'sent' && row.status !== 'error'))
      continue;
    const document = verdicts.get(row.document_id);
    if (document === undefined) continue;
    const dgii = { estado: document.dgii_estado, codigo: document.dgii_codigo, mensajes: document.dgii_messages };
    switch (document.status) {
      case 'accepted':
      case 'accepted_conditional':
        await changes.changeCase(
          trx,
          process,
          row,
          {
            status: 'accepted',
            cause: `DGII: ${document.dgii_estado ?? document.status}`,
            waitingFor: null,
            verdict: true,
            ...dgii,
          },
          now,
        );
        break;
      case 'rejected':
        await changes.changeCase(
          trx,
          process,
          row,
          {
            status: 'rejected',
            cause: `DGII rejected it: ${document.dgii_messages.map((message) => `${message.codigo ?? ''} ${message.valor}`.trim()).join('; ') || (document.dgii_estado ?? '')}`,
            waitingFor: null,
            verdict: true,
            unqueue: true,
            ...dgii,
          },
          now,
        );
        break;
      case 'send_failed':
      case 'not_found':
        // Not a rejection: the lane stops on it until ejecutar hands it in again, and the same document is retried.
        if (row.status === 'sent')
          await changes.changeCase(
            trx,
            process,
            row,
            {
              status: 'error',
              cause: `the document is ${document.status}: DGII could not be reached or has no record of it`,
              waitingFor: `dgii_${document.status}`,
              unqueue: true,
              ...dgii,
            },
            now,
          );
        break;
      case 'queued':
      case 'sending':
      case 'in_process':
        if (row.status === 'error')
          await changes.changeCase(
            trx,
            process,
            row,
            { status: 'sent', cause: `the document is ${document.status} again`, waitingFor: null },
            now,
          );
        break;
      case 'signed':
        break;
    }
  }
  if (process.status !== 'active') return;
  const after = await repo.casesOf(trx, process.id);
  const rejected = after.find((row) => row.status === 'rejected' && row.carried_from_process_id === null);
  const steps = await repo.stepsOf(trx, process.id);
  if (rejected !== undefined) {
    await failProcess(trx, process, rejected, steps, context);
    return;
  }
  await advanceSteps(trx, process, after, steps, context);
}

async function failProcess(
  trx: Trx<CertificationTables>,
  process: repo.ProcessRow,
  rejected: repo.CaseRow,
  steps: readonly repo.StepRow[],
  context: { changes: CaseChanges; now: Date },
): Promise<void> {
  const { changes, now } = context;
  const failure = {
    step: rejected.step,
    caseKey: rejected.case_key,
    kind: rejected.kind,
    documentId: rejected.document_id,
    estado: rejected.estado,
    codigo: rejected.codigo,
    mensajes: rejected.mensajes,
  };
  await changes.changeProcess(
    trx,
    process,
    {
      status: 'failed',
      cause: `DGII rejected ${rejected.kind} ${rejected.case_key}: nothing more is sent; regenerate the set in the portal and start a new process (accepted cases carry over)`,
      failure,
    },
    now,
  );
  const step = steps.find((row) => row.number === rejected.step);
  if (step !== undefined)
    await changes.changeStep(trx, process, step, 'failed', `DGII rejected ${rejected.case_key}`, now);
  for (const row of await repo.casesOf(trx, process.id)) {
    if (row.queued_at !== null && row.status === 'pending')
      await repo.updateCase(trx, row, { queued_at: null, waiting_for: 'process_failed', updated_at: now });
  }
}

/**
 * Steps 2, 3 and 4 are done when every case of theirs is accepted; 9 and 11 by their evidence. A step done opens the
 * next; the walk stops at the first step not done (the portal's steps are strictly in order).
 */
async function advanceSteps(
  trx: Trx<CertificationTables>,
  process: repo.ProcessRow,
  initialCases: readonly repo.CaseRow[],
  steps: readonly repo.StepRow[],
  context: { changes: CaseChanges; environment: FiscalEnvironment; now: Date },
): Promise<void> {
  const { changes, now } = context;
  let cases = initialCases;
  let previousJustDone = false;
  for (const step of steps) {
    let status = step.status;
    if (status === 'locked' && previousJustDone) {
      await changes.changeStep(trx, process, step, 'open', `step ${String(step.number - 1)} done`, now);
      if (step.number === 4) cases = [...cases, ...(await addSimulationCases(trx, process, cases, now))];
      status = 'open';
    }
    previousJustDone = false;
    if (status === 'done') continue;
    if (status !== 'open' || stepNumbered(step.number).mode !== 'automatic') return;
    const done = await automaticStepDone(trx, process, step, cases, context.environment);
    if (done === undefined) return;
    await changes.changeStep(trx, process, step, 'done', done.cause, now, done.evidence);
    previousJustDone = true;
  }
}

async function automaticStepDone(
  trx: Trx<CertificationTables>,
  process: repo.ProcessRow,
  step: repo.StepRow,
  cases: readonly repo.CaseRow[],
  environment: FiscalEnvironment,
): Promise<{ cause: string; evidence: Record<string, unknown> } | undefined> {
  if (step.number === 9 || step.number === 11)
    return stepEvidence(trx, process, step, {
      environment,
      expectedApprovals: cases.filter((row) => row.kind === 'ACECF').length,
    });
  const own = cases.filter((row) => row.step === step.number);
  if (own.length === 0 || !own.every((row) => row.status === 'accepted')) return undefined;
  return { cause: `all ${String(own.length)} cases accepted by DGII`, evidence: { accepted: own.length } };
}

/** Step 4's cases, made when it opens: the set's composition from the company's own data (simulation.ts). */
async function addSimulationCases(
  trx: Trx<CertificationTables>,
  process: repo.ProcessRow,
  cases: readonly repo.CaseRow[],
  now: Date,
): Promise<repo.CaseRow[]> {
  if (cases.some((row) => row.step === 4)) return [];
  const setCases = cases
    .filter((row) => row.kind === 'ECF' && row.step === 2)
    .map((row) => ({ kind: 'ECF' as const, caseKey: row.case_key, ecfType: row.ecf_type ?? '', payload: row.payload }));
  const simulated = simulationCases(setCases, {
    today: formatDgiiDate(now),
    paymentLimit: formatDgiiDate(new Date(now.getTime() + 30 * 86_400_000)),
  });
  let position = Math.max(0, ...cases.map((row) => row.position)) + 1;
  const rows = simulated.flatMap((simulation) => {
    const payload = JSON.stringify(simulation.payload);
    const common = {
      process_id: process.id,
      ecf_type: simulation.ecfType,
      step: 4 as const,
      origin: 'simulation' as const,
      payload_sha256: createHash('sha256').update(payload).digest('hex'),
      status: 'pending' as const,
      mensajes: '[]',
      updated_at: now,
    };
    const ecf = {
      ...common,
      kind: 'ECF' as const,
      case_key: simulation.caseKey,
      position: position++,
      payload,
      depends_on: simulation.dependsOn,
      route: simulation.rfceRouted ? ('rfce' as const) : ('reception' as const),
    };
    return simulation.rfceRouted
      ? [
          ecf,
          {
            ...common,
            kind: 'RFCE' as const,
            case_key: simulation.caseKey,
            position: position++,
            payload: '{}',
            depends_on: null,
            route: 'rfce' as const,
          },
        ]
      : [ecf];
  });
  await repo.insertCases(trx, rows);
  await repo.insertEvent(trx, {
    processId: process.id,
    at: now,
    subject: 'step 4',
    status: 'open',
    cause: `${String(simulated.length)} simulation cases made from the set's composition with the company's own data; hand them in with ejecutar`,
  });
  return repo.casesOf(trx, process.id).then((all) => all.filter((row) => row.step === 4));
}
