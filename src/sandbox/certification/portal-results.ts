// What a portal action answers: done (and how the postulación moved), or refused with a status and a clear message.
// These are the sandbox's admin answers, plain JSON in English, not DGII's.
import type { Postulacion } from '../state/postulaciones.js';
import { stepName } from './portal-steps.js';

/** advanced: to the next step; recorded: counted in the same step; reset: the step's counters start over;
 * returned: sent back to an earlier step; cancelled. */
export type ActionOutcome = 'advanced' | 'recorded' | 'reset' | 'returned' | 'cancelled';

export type ActionResult =
  | { ok: true; outcome: ActionOutcome; message: string }
  | { ok: false; status: 400 | 404 | 409; message: string; step?: number; stepName?: string };

export function actionRefused(status: 400 | 404 | 409, message: string): ActionResult {
  return { ok: false, status, message };
}

const described = (number: number) => `${String(number)} (${stepName(number)})`;

/** 409: the portal shows an action only at its step (its stepper is strictly linear, research §1). */
export function wrongStep(postulacion: Postulacion, action: string, steps: readonly number[]): ActionResult {
  if (postulacion.cancelled)
    return {
      ok: false,
      status: 409,
      message: `The postulación of ${postulacion.rnc} was cancelled.`,
      step: postulacion.step,
      stepName: stepName(postulacion.step),
    };
  return {
    ok: false,
    status: 409,
    message: `${action} is done at step ${steps.map(described).join(' or ')}; the postulación of ${postulacion.rnc} is at step ${described(postulacion.step)}.`,
    step: postulacion.step,
    stepName: stepName(postulacion.step),
  };
}
