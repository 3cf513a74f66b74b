// The portal's "Facturas de consumo < 250Mil" upload, in steps 2 and 4 (research/certification.md §2 "RFCE two-step
// binding", §6.12): the full signed e-CF 32 under DOP 250,000.00 whose RFCE DGII accepted in this step. Its
// signature must verify and begin with the CodigoSeguridadeCF the RFCE carried; each e-NCF is uploaded once, ever: a
// second upload of the same one starts the step over ("ya había sido cargada y aceptada previamente", WL §3).
import { isConsumerSummary } from '../../fiscal/timbre-url.js';
import { verifyEnvelopedSignature } from '../../fiscal/xmldsig/index.js';
import type { SandboxContext } from '../http/context.js';
import { readDocumentFacts } from '../services/document-checks.js';
import { recordsOf, wasUploaded, withPostulacion } from '../state/postulaciones.js';
import { inboxTexts, step } from './portal-steps.js';
import { actionRefused, wrongStep, type ActionResult } from './portal-results.js';
import { countInTransaction, resetInTransaction } from './step-progress.js';

export async function uploadConsumerInvoice(
  context: SandboxContext,
  postulacionId: number,
  xml: string,
): Promise<ActionResult> {
  const read = readDocumentFacts(Buffer.from(xml, 'utf8'), 'ECF');
  if (!read.ok) return actionRefused(400, `The file is not a full e-CF: ${read.mensaje}`);
  const { facts } = read;
  if (facts.tipoeCF !== '32' || facts.montoTotal === undefined || !isConsumerSummary(facts.tipoeCF, facts.montoTotal)) {
    return actionRefused(
      400,
      `Only a consumer invoice (type 32) under DOP 250,000.00 is uploaded here; ${facts.encf} is a type ${facts.tipoeCF} of ${facts.montoTotal ?? 'no'} MontoTotal.`,
    );
  }
  const verified = verifyEnvelopedSignature(xml);
  if (!verified.ok)
    return actionRefused(
      400,
      `The e-CF's signature does not verify: ${verified.problems.map((problem) => problem.message).join('; ')}`,
    );

  const result = await withPostulacion(context.db, postulacionId, async (trx, postulacion): Promise<ActionResult> => {
    if (postulacion.step !== step.dataTests && postulacion.step !== step.simulation)
      return wrongStep(postulacion, 'upload-consumer-invoice', [step.dataTests, step.simulation]);
    if (facts.rncEmisor !== postulacion.rnc)
      return actionRefused(400, `The e-CF was issued by ${facts.rncEmisor}, not by ${postulacion.rnc}.`);
    if (await wasUploaded(trx, postulacion.id, facts.encf)) {
      const reset = await resetInTransaction(context, trx, postulacion, inboxTexts.duplicateUpload(facts.encf));
      return {
        ok: true,
        outcome: 'reset',
        message: `${facts.encf} had been uploaded before: step ${String(reset.step)} starts over.`,
      };
    }
    const rfce = (await recordsOf(trx, postulacion, postulacion.step, postulacion.round)).find(
      (record) => record.kind === 'rfce' && record.encf === facts.encf,
    );
    if (rfce === undefined)
      return actionRefused(
        400,
        `No RFCE of ${facts.encf} was accepted in this step (since its counters last started): send the RFCE first.`,
      );
    if (rfce.security_code !== verified.securityCode) {
      return actionRefused(
        400,
        `The e-CF's security code (${verified.securityCode}, the first 6 characters of its SignatureValue) is not the RFCE's CodigoSeguridadeCF (${rfce.security_code ?? 'none'}): upload the very e-CF the RFCE was written from.`,
      );
    }
    await countInTransaction(context, trx, postulacion, { kind: 'fc_upload', encf: facts.encf, type: '32' });
    return { ok: true, outcome: 'recorded', message: `${facts.encf} uploaded.` };
  });
  return result ?? actionRefused(404, 'The postulación is gone.');
}
