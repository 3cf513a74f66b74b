// The portal's buttons (research/certification.md §1, §6.12): each is offered at one step only, and moves the
// postulación along the strictly linear stepper. Steps 9 and 11 run within the request that starts them: the
// portal shows 9 (or 11) while DGII talks to the receiver, then 10 (or 12) on success, or back at 8 (or 10) with
// what failed in the inbox (WL: a failure sends the postulación back).
import type { SandboxContext } from '../http/context.js';
import { setById } from '../state/cert-sets.js';
import {
  addInboxMessage,
  postulacionById,
  updatePostulacion,
  withPostulacion,
  type CertTrx,
  type Postulacion,
  type PostulacionChange,
} from '../state/postulaciones.js';
import type { ReceiverUrls } from '../state/schema.js';
import { actionRefused, wrongStep, type ActionResult } from './portal-results.js';
import { emulatorMarker, inboxTexts, lastCancellableStep, step } from './portal-steps.js';
import { checkPrintedRepresentations, type PrintedFile } from './printed-representations.js';
import { testApprovalReception, testEcfReception, type ReceiverTestResult } from './receiver-tests.js';
import { signedDeclarationProblem } from './sworn-declaration.js';

interface Transition {
  action: string;
  from: number;
  to: number;
  change?: PostulacionChange | ((postulacion: Postulacion) => PostulacionChange);
  inbox?: string;
  message: string;
  /** More work with the row held, before the step moves; a refusal leaves the postulación as it was. */
  withRow?: (trx: CertTrx, postulacion: Postulacion) => Promise<ActionResult | undefined>;
}

/** Moves the postulación from one step to another, if it is at `from`. */
async function transition(context: SandboxContext, postulacionId: number, move: Transition): Promise<ActionResult> {
  const result = await withPostulacion(context.db, postulacionId, async (trx, postulacion): Promise<ActionResult> => {
    if (postulacion.cancelled || postulacion.step !== move.from)
      return wrongStep(postulacion, move.action, [move.from]);
    const refused = await move.withRow?.(trx, postulacion);
    if (refused !== undefined) return refused;
    const now = context.clock.now();
    const change = typeof move.change === 'function' ? move.change(postulacion) : move.change;
    await updatePostulacion(trx, postulacion, { ...change, step: move.to }, now, true);
    if (move.inbox !== undefined) await addInboxMessage(trx, postulacion.id, move.inbox, now);
    return { ok: true, outcome: move.to > move.from ? 'advanced' : 'returned', message: move.message };
  });
  return result ?? actionRefused(404, 'The postulación is gone.');
}

export function validatePostulacion(context: SandboxContext, id: number): Promise<ActionResult> {
  return transition(context, id, {
    action: 'validate',
    from: step.registered,
    to: step.dataTests,
    message: 'DGII validated the postulación: the data tests (step 2) are open.',
  });
}

export function uploadPrintedRepresentations(
  context: SandboxContext,
  id: number,
  files: readonly PrintedFile[],
): Promise<ActionResult> {
  const checked = checkPrintedRepresentations(files);
  if (!checked.ok) return Promise.resolve(actionRefused(400, checked.message));
  return transition(context, id, {
    action: 'upload-printed-representations',
    from: step.printedUpload,
    to: step.printedReview,
    change: { printed_representations: checked.slots },
    message: `${String(checked.slots.length)} printed representations uploaded; DGII reviews them (step 6).`,
  });
}

export function approvePrintedRepresentations(context: SandboxContext, id: number): Promise<ActionResult> {
  return transition(context, id, {
    action: 'approve-printed-representations',
    from: step.printedReview,
    to: step.testUrls,
    inbox: inboxTexts.printedApproved,
    message: 'Printed representations approved.',
  });
}

export function rejectPrintedRepresentations(
  context: SandboxContext,
  id: number,
  observations: string,
): Promise<ActionResult> {
  return transition(context, id, {
    action: 'reject-printed-representations',
    from: step.printedReview,
    to: step.printedUpload,
    inbox: inboxTexts.printedRejected(observations),
    message: 'Printed representations rejected: back to step 5, with the observations in the inbox.',
  });
}

export function confirmTestUrls(
  context: SandboxContext,
  id: number,
  given: Partial<ReceiverUrls>,
): Promise<ActionResult> {
  return transition(context, id, {
    action: 'confirm-test-urls',
    from: step.testUrls,
    to: step.receptionTestStart,
    message: 'Test URLs confirmed.',
    change: (postulacion) => ({ test_urls: { ...postulacion.test_urls, ...given } }),
  });
}

/** A DGII test that broke inside the sandbox still ends, back at the step that started it, rather than leave 9 or 11 stuck. */
async function guarded(context: SandboxContext, test: () => Promise<ReceiverTestResult>): Promise<ReceiverTestResult> {
  try {
    return await test();
  } catch (error) {
    context.log.error({ err: error }, 'sandbox: a certification receiver test failed inside the sandbox');
    return { ok: false, detail: `${emulatorMarker} error interno del emulador durante la prueba.` };
  }
}

/** The second half of steps 9 and 11: on to the next step, or back to the one that started the test. */
async function finishTest(
  context: SandboxContext,
  id: number,
  at: number,
  passed: ReceiverTestResult,
  texts: { done: string; failed: (detail: string) => string },
): Promise<ActionResult> {
  const moved = await withPostulacion(context.db, id, async (trx, postulacion): Promise<ActionResult> => {
    // Cancelled (or moved by another request) while DGII was testing: the test's result no longer applies.
    if (postulacion.cancelled || postulacion.step !== at) return wrongStep(postulacion, 'Finishing the test', [at]);
    const now = context.clock.now();
    const to = passed.ok ? at + 1 : at - 1;
    await updatePostulacion(trx, postulacion, { step: to }, now, true);
    await addInboxMessage(trx, postulacion.id, passed.ok ? texts.done : texts.failed(passed.detail), now);
    return passed.ok
      ? { ok: true, outcome: 'advanced', message: texts.done }
      : { ok: true, outcome: 'returned', message: texts.failed(passed.detail) };
  });
  return moved ?? actionRefused(404, 'The postulación is gone.');
}

/** "Enviar prueba de comprobantes": 8 → 9, DGII's e-CF to the receiver, then 10 or back to 8. */
export async function sendTestDocuments(context: SandboxContext, id: number): Promise<ActionResult> {
  const start = await transition(context, id, {
    action: 'send-test-documents',
    from: step.receptionTestStart,
    to: step.receptionTest,
    message: 'DGII is sending its test e-CF.',
  });
  const started = start.ok ? await postulacionById(context.db, id) : undefined;
  if (started === undefined) return start;
  const passed = await guarded(context, () => testEcfReception(context, started.rnc, started.test_urls));
  return finishTest(context, id, step.receptionTest, passed, {
    done: inboxTexts.receptionTestDone,
    failed: inboxTexts.receptionTestFailed,
  });
}

/** "Enviar prueba de aprobaciones comerciales": 10 → 11, DGII's ACECFs to the receiver, then 12 or back to 10. */
export async function sendTestApprovals(context: SandboxContext, id: number): Promise<ActionResult> {
  const start = await transition(context, id, {
    action: 'send-test-approvals',
    from: step.approvalTestStart,
    to: step.approvalTest,
    message: 'DGII is sending its test commercial approvals.',
  });
  const started = start.ok ? await postulacionById(context.db, id) : undefined;
  if (started === undefined) return start;
  const passed = await guarded(context, async () =>
    testApprovalReception(
      context,
      started.rnc,
      started.test_urls,
      (await setById(context.db, started.set_id))?.cases ?? [],
    ),
  );
  return finishTest(context, id, step.approvalTest, passed, {
    done: inboxTexts.approvalTestDone,
    failed: inboxTexts.approvalTestFailed,
  });
}

/** 12 → 13; the URLs go to DGII's production directory (research §1: "They go to the OFV directory"). */
export function confirmProductionUrls(context: SandboxContext, id: number, urls: ReceiverUrls): Promise<ActionResult> {
  return transition(context, id, {
    action: 'confirm-production-urls',
    from: step.productionUrls,
    to: step.swornDeclaration,
    change: { production_urls: urls },
    message: 'Production URLs confirmed and written to the eCF directory.',
    withRow: async (trx, postulacion) => {
      const entry = {
        reception_url: urls.receptionUrl,
        approval_url: urls.approvalUrl,
        authentication_url: urls.authenticationUrl,
      };
      await trx
        .insertInto('sandbox_directory_entries')
        .values({ environment: 'ecf', rnc: postulacion.rnc, ...entry })
        .onConflict((conflict) => conflict.columns(['environment', 'rnc']).doUpdateSet(entry))
        .execute();
      return undefined;
    },
  });
}

/** 13 → 14 with the declaration the portal issued, signed by a certificate delegated for the RNC. */
export async function submitSwornDeclaration(
  context: SandboxContext,
  id: number,
  xml: string,
  expected: Postulacion,
): Promise<ActionResult> {
  // Checked before the row is held: the delegation is read through the sandbox's shared state, not the transaction.
  const problem =
    expected.step === step.swornDeclaration
      ? await signedDeclarationProblem(context, xml, { rnc: expected.rnc, code: expected.declaration_code })
      : undefined;
  if (problem !== undefined) return actionRefused(400, problem);
  return transition(context, id, {
    action: 'sworn-declaration',
    from: step.swornDeclaration,
    to: step.statusCheck,
    message: 'Sworn declaration received.',
    withRow: (_trx, postulacion) =>
      Promise.resolve(
        postulacion.declaration_code === expected.declaration_code
          ? undefined
          : actionRefused(400, 'A newer declaration was issued meanwhile: sign that one.'),
      ),
  });
}

export function verifyStatus(context: SandboxContext, id: number): Promise<ActionResult> {
  return transition(context, id, {
    action: 'verify-status',
    from: step.statusCheck,
    to: step.finished,
    inbox: inboxTexts.finished,
    message: 'Status verified: Finalizado.',
  });
}

/** PCERT §2.1: cancellable in steps 1–13, with a reason; a new postulación may follow. */
export async function cancelPostulacion(context: SandboxContext, id: number, reason: string): Promise<ActionResult> {
  const result = await withPostulacion(context.db, id, async (trx, postulacion): Promise<ActionResult> => {
    if (postulacion.cancelled || postulacion.step > lastCancellableStep) {
      return {
        ok: false,
        status: 409,
        message: `A postulación is cancelled in steps 1 to ${String(lastCancellableStep)}; the postulación of ${postulacion.rnc} is ${postulacion.cancelled ? 'cancelled already' : `at step ${String(postulacion.step)}`}.`,
        step: postulacion.step,
      };
    }
    const now = context.clock.now();
    await updatePostulacion(trx, postulacion, { cancelled: true, cancel_reason: reason }, now);
    await addInboxMessage(trx, postulacion.id, `Postulación cancelada: ${reason}`, now);
    return { ok: true, outcome: 'cancelled', message: 'Postulación cancelled.' };
  });
  return result ?? actionRefused(404, 'The postulación is gone.');
}
