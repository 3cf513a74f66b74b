// The set of step 2 (research/certification.md §2): generated the first time the taxpayer downloads it and kept, so
// every later download gives the same bytes; issued anew on request, with e-NCF that continue after every set this
// RNC ever had (PCERT fn 4: after a reset the taxpayer "reinicia la generación del set"; the burned numbers stay
// burned, §3); or registered as an operator gives it. A set changes only while step 2 has not been passed.
import type { SetCase } from '../../fiscal/certification/index.js';
import type { EcfType } from '../../fiscal/model/ecf-model-types.js';
import type { SandboxContext } from '../http/context.js';
import { highestSetSequences, insertSet, setById, setCount, type StoredSet } from '../state/cert-sets.js';
import { updatePostulacion, withPostulacion, type CertTrx, type Postulacion } from '../state/postulaciones.js';
import { actionRefused, wrongStep, type ActionResult } from './portal-results.js';
import { step } from './portal-steps.js';
import { textAt } from './set-composition.js';
import { generateCertificationSet, type SetDefect } from './set-generator.js';
import { setWorkbookName } from './set-workbook.js';

export const setDefects: readonly SetDefect[] = ['type34_without_tipo_ingresos'];

export interface IssueOptions {
  regenerate: boolean;
  seed?: number | undefined;
  defects: readonly SetDefect[];
}

export type IssuedSet = { ok: true; set: StoredSet } | { ok: false; refusal: ActionResult };

const lastStepWithNewSet = step.dataTests;

async function attach(
  context: SandboxContext,
  trx: CertTrx,
  postulacion: Postulacion,
  input: { name: string; cases: readonly SetCase[] },
): Promise<StoredSet> {
  const now = context.clock.now();
  const stored = await insertSet(trx, { rnc: postulacion.rnc, name: input.name, cases: input.cases, now });
  // A new set is counted from nothing: what step 2 accepted of the previous one no longer counts.
  await updatePostulacion(trx, postulacion, { set_id: stored.id }, now, true);
  return stored;
}

function refused(refusal: ActionResult): IssuedSet {
  return { ok: false, refusal };
}

/** The postulación's set: the one it has, or a new one the first time (or when asked to regenerate). */
export async function issueSet(
  context: SandboxContext,
  postulacionId: number,
  options: IssueOptions,
): Promise<IssuedSet> {
  const issued = await withPostulacion(context.db, postulacionId, async (trx, postulacion): Promise<IssuedSet> => {
    const current = await setById(trx, postulacion.set_id);
    if (current !== undefined && !options.regenerate) return { ok: true, set: current };
    if (postulacion.cancelled || postulacion.step > lastStepWithNewSet)
      return refused(
        wrongStep(postulacion, current === undefined ? 'Generating the set' : 'Regenerating the set', [
          step.registered,
          step.dataTests,
        ]),
      );
    const highest = await highestSetSequences(trx, postulacion.rnc);
    const sequenceStart = Object.fromEntries([...highest].map(([type, sequence]) => [type, sequence + 1])) as Partial<
      Record<EcfType, number>
    >;
    const now = context.clock.now();
    let cases: SetCase[];
    try {
      cases = generateCertificationSet({
        rnc: postulacion.rnc,
        now,
        seed: options.seed ?? (await setCount(trx, postulacion.rnc)) + 1,
        defects: options.defects,
        sequenceStart,
      });
    } catch (error) {
      if (error instanceof RangeError) return refused(actionRefused(400, error.message));
      throw error;
    }
    return {
      ok: true,
      set: await attach(context, trx, postulacion, { name: setWorkbookName(postulacion.rnc, now), cases }),
    };
  });
  return issued ?? refused(actionRefused(404, 'The postulación is gone.'));
}

/** A set the operator gives (already read and checked by set-reading.ts), as DGII would have issued it. */
export async function registerSet(
  context: SandboxContext,
  postulacionId: number,
  cases: readonly SetCase[],
): Promise<ActionResult> {
  const result = await withPostulacion(context.db, postulacionId, async (trx, postulacion): Promise<ActionResult> => {
    if (postulacion.cancelled || postulacion.step > lastStepWithNewSet)
      return wrongStep(postulacion, 'Registering a set', [step.registered, step.dataTests]);
    const issuer = textAt(cases[0]?.payload, ['Encabezado', 'Emisor', 'RNCEmisor']);
    if (issuer !== postulacion.rnc)
      return actionRefused(400, `The set is for RNCEmisor ${issuer ?? 'none'}, not for ${postulacion.rnc}.`);
    const stored = await attach(context, trx, postulacion, {
      name: setWorkbookName(postulacion.rnc, context.clock.now()),
      cases,
    });
    return {
      ok: true,
      outcome: 'recorded',
      message: `Set ${stored.name} registered: ${String(cases.filter((setCase) => setCase.kind === 'ECF').length)} ECF and ${String(cases.filter((setCase) => setCase.kind === 'RFCE').length)} RFCE cases.`,
    };
  });
  return result ?? actionRefused(404, 'The postulación is gone.');
}
