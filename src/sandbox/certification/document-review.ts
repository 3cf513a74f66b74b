// CerteCF's certification behaviour at e-CF and RFCE reception (research/certification.md §4, §6.12 "Judging"):
// for a taxpayer whose postulación is in step 2 or 4, once DGII's usual checks are done, the document must also be
// what the step asks for (a set row in step 2, the taxpayer's own data in step 4), and the verdict moves the step:
// accepted documents count, any rejection starts the step over. Everywhere else (TesteCF, eCF, a taxpayer without
// a postulación, the other steps) reception judges exactly as it does without certification.
import type { SandboxContext } from '../http/context.js';
import { setById } from '../state/cert-sets.js';
import { postulacionInProgress } from '../state/postulaciones.js';
import type { SandboxEnvironment, SandboxMessage } from '../state/schema.js';
import { usedRefusal, type DocumentFacts } from '../services/document-checks.js';
import { rejected, type Verdict } from '../services/reception-documents.js';
import { dataTestRefusal } from './data-tests.js';
import { dgiiCertificationMessages, step } from './portal-steps.js';
import { simulationRefusal } from './simulation.js';
import { countAccepted, momentOf, resetAfterRejection } from './step-progress.js';

export interface ReviewInput {
  environment: SandboxEnvironment;
  channel: 'ecf' | 'rfce';
  facts: DocumentFacts;
  xml: Buffer;
  /** DGII's usual verdict. */
  verdict: Verdict;
}

export interface Review {
  /** The verdict to store and answer. */
  verdict: Verdict;
  /** How the verdict reads if the e-NCF was burned before it (recordReception decides that as it stores it). */
  alreadyUsed: Verdict;
  /** After the verdict is stored (as it was stored: a copy may have taken the e-NCF first): count it, or reset. */
  settle(stored: Verdict): Promise<void>;
}

/**
 * The refusals DGII words with its own codes during certification (research §3): a note before its invoice is 614,
 * a burned e-NCF 1209. The sandbox's general codes stay as they are outside certification.
 */
function inDgiiWords(verdict: Verdict): Verdict {
  if (verdict.reason === 'reference_unknown')
    return { ...verdict, mensajes: [dgiiCertificationMessages.referenceNotIssued] };
  if (verdict.reason === 'encf_already_used') return { ...verdict, mensajes: [dgiiCertificationMessages.sequenceUsed] };
  return verdict;
}

function refusedBy(message: SandboxMessage): Verdict {
  // A refusal on content: the e-NCF is burned (DT; research/dgii-protocol.md §2).
  return { outcome: 2, secuenciaUtilizada: true, mensajes: [message], reason: 'certification' };
}

async function registeredName(context: SandboxContext, rnc: string): Promise<string | undefined> {
  return (await context.db.selectFrom('sandbox_taxpayers').select('name').where('rnc', '=', rnc).executeTakeFirst())
    ?.name;
}

const isAccepted = (verdict: Verdict) => verdict.outcome === 1 || verdict.outcome === 4;

export async function reviewForCertification(context: SandboxContext, input: ReviewInput): Promise<Review | undefined> {
  if (input.environment !== 'certecf') return undefined;
  const postulacion = await postulacionInProgress(context.db, input.facts.rncEmisor);
  if (postulacion === undefined || (postulacion.step !== step.dataTests && postulacion.step !== step.simulation))
    return undefined;
  const moment = momentOf(postulacion);
  let verdict = inDgiiWords(input.verdict);
  if (isAccepted(verdict)) {
    const cases = (await setById(context.db, postulacion.set_id))?.cases ?? [];
    const refusal =
      postulacion.step === step.dataTests
        ? dataTestRefusal(cases, input.channel, input.facts.encf, input.xml)
        : simulationRefusal(cases, input.facts.encf, input.xml, await registeredName(context, postulacion.rnc));
    if (refusal !== undefined) verdict = refusedBy(refusal);
  }
  const { channel, facts } = input;
  return {
    verdict,
    alreadyUsed: inDgiiWords(rejected(usedRefusal(facts.encf))),
    settle: async (stored) => {
      if (!isAccepted(stored)) {
        await resetAfterRejection(context, moment);
        return;
      }
      await countAccepted(context, moment, {
        kind: channel,
        encf: facts.encf,
        type: facts.tipoeCF,
        securityCode: channel === 'rfce' ? facts.codigoSeguridadeCF : undefined,
      });
    },
  };
}
