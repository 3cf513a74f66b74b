// How the automatic steps move (research/certification.md §4): a step counts what it accepted in its current
// round; when every count reached the set's, the portal moves on by itself with an inbox message; a rejection in
// step 2 or 4 starts the step's counting over (the e-NCF it burned stay burned).
import type { SandboxContext } from '../http/context.js';
import { setById } from '../state/cert-sets.js';
import {
  addInboxMessage,
  addRecord,
  recordsOf,
  updatePostulacion,
  withPostulacion,
  type CertTrx,
  type NewRecord,
  type Postulacion,
} from '../state/postulaciones.js';
import { approvalsComplete, compositionOf, documentsComplete, tallyOf } from './set-composition.js';
import { inboxTexts, step } from './portal-steps.js';

/** Where a judgement was made: a later settlement counts only if the postulación is still there. */
export interface StepMoment {
  postulacionId: number;
  step: number;
  round: number;
}

export function momentOf(postulacion: Postulacion): StepMoment {
  return { postulacionId: postulacion.id, step: postulacion.step, round: postulacion.round };
}

const completedTexts: Readonly<Record<number, string>> = {
  [step.dataTests]: inboxTexts.dataTestsDone,
  [step.approvalTests]: inboxTexts.approvalTestsDone,
  [step.simulation]: inboxTexts.simulationDone,
};

/**
 * Moves an automatic step on when its counts are full. Everything inside a postulación's transaction reads through
 * `trx`: the embedded database is one session, which the transaction holds until it ends.
 */
async function advanceWhenComplete(context: SandboxContext, trx: CertTrx, postulacion: Postulacion): Promise<void> {
  const set = await setById(trx, postulacion.set_id);
  const expected = compositionOf(set?.cases, postulacion.rnc);
  const tally = tallyOf(await recordsOf(trx, postulacion, postulacion.step, postulacion.round));
  const complete =
    postulacion.step === step.approvalTests ? approvalsComplete(tally, expected) : documentsComplete(tally, expected);
  if (!complete) return;
  const now = context.clock.now();
  await updatePostulacion(trx, postulacion, { step: postulacion.step + 1 }, now, true);
  const text = completedTexts[postulacion.step];
  if (text !== undefined) await addInboxMessage(trx, postulacion.id, text, now);
}

/** Counts what was accepted at `moment`, if its step and round still run, and moves the step on when full. */
export async function countAccepted(context: SandboxContext, moment: StepMoment, record: NewRecord): Promise<void> {
  await withPostulacion(context.db, moment.postulacionId, async (trx, postulacion) => {
    if (postulacion.cancelled || postulacion.step !== moment.step || postulacion.round !== moment.round) return;
    await addRecord(trx, postulacion, record, context.clock.now());
    await advanceWhenComplete(context, trx, postulacion);
  });
}

/** Within an open transaction: counts an upload and moves the step on when full. */
export async function countInTransaction(
  context: SandboxContext,
  trx: CertTrx,
  postulacion: Postulacion,
  record: NewRecord,
): Promise<void> {
  await addRecord(trx, postulacion, record, context.clock.now());
  await advanceWhenComplete(context, trx, postulacion);
}

const resetTexts: Readonly<Record<number, string>> = {
  [step.dataTests]: inboxTexts.dataTestsReset,
  [step.simulation]: inboxTexts.simulationReset,
};

/** Starts step 2 or 4 over (PCERT fn 4; research §3 "Zero-rejection guard"), with DGII's inbox message. */
export async function resetInTransaction(
  context: SandboxContext,
  trx: CertTrx,
  postulacion: Postulacion,
  lead?: string,
): Promise<Postulacion> {
  const now = context.clock.now();
  const reset = await updatePostulacion(trx, postulacion, {}, now, true);
  const text = resetTexts[postulacion.step];
  if (text !== undefined)
    await addInboxMessage(trx, postulacion.id, lead === undefined ? text : `${lead} ${text}`, now);
  return reset;
}

/** A rejection judged at `moment` resets its step if the postulación is still in it. */
export async function resetAfterRejection(context: SandboxContext, moment: StepMoment): Promise<void> {
  await withPostulacion(context.db, moment.postulacionId, async (trx, postulacion) => {
    if (postulacion.cancelled || postulacion.step !== moment.step) return;
    await resetInTransaction(context, trx, postulacion);
  });
}
