// What the admin GET shows of a postulación: what the portal shows the taxpayer (the step, the counters of the
// automatic steps against the set's composition, the inbox, the URLs, the set's file name).
import type { SandboxContext } from '../http/context.js';
import { setById } from '../state/cert-sets.js';
import { allRecordsOf, inboxOf, type CertRecord, type Postulacion } from '../state/postulaciones.js';
import type { ReceiverUrls } from '../state/schema.js';
import { step, stepName } from './portal-steps.js';
import { compositionOf, tallyOf, type StepTally } from './set-composition.js';

interface Count {
  accepted: number;
  expected: number;
}

export interface DocumentCounters {
  ecf: Record<string, Count>;
  rfce: Count;
  consumerInvoiceUploads: Count;
}

export interface PostulacionView {
  rnc: string;
  step: number;
  stepName: string;
  cancelled: boolean;
  cancelReason: string | null;
  /** Steps 2 and 4 (documents) and 3 (approvals): the current round for the step in progress, the last one before. */
  counters: { '2': DocumentCounters; '3': { approvals: Count }; '4': DocumentCounters };
  inbox: { at: string; text: string }[];
  urls: { test: ReceiverUrls; production: ReceiverUrls | null };
  setName: string | null;
  printedRepresentations: { slot: string; bytes: number }[] | null;
  createdAt: string;
}

/** The records that count for a step: its current round while in it; after it, its last round. */
function countedFor(postulacion: Postulacion, records: readonly CertRecord[], number: number): CertRecord[] {
  const ofStep = records.filter((record) => record.step === number);
  const round = postulacion.step === number ? postulacion.round : Math.max(-1, ...ofStep.map((record) => record.round));
  return ofStep.filter((record) => record.round === round);
}

function documentCounters(tally: StepTally, expected: StepTally): DocumentCounters {
  const types = [...new Set([...Object.keys(expected.ecf), ...Object.keys(tally.ecf)])].sort();
  return {
    ecf: Object.fromEntries(
      types.map((type) => [type, { accepted: tally.ecf[type] ?? 0, expected: expected.ecf[type] ?? 0 }]),
    ),
    rfce: { accepted: tally.rfce, expected: expected.rfce },
    consumerInvoiceUploads: { accepted: tally.consumerInvoiceUploads, expected: expected.consumerInvoiceUploads },
  };
}

export async function postulacionView(context: SandboxContext, postulacion: Postulacion): Promise<PostulacionView> {
  const set = await setById(context.db, postulacion.set_id);
  const expected = compositionOf(set?.cases, postulacion.rnc);
  const records = await allRecordsOf(context.db, postulacion.id);
  const tally = (number: number) => tallyOf(countedFor(postulacion, records, number));
  return {
    rnc: postulacion.rnc,
    step: postulacion.step,
    stepName: stepName(postulacion.step),
    cancelled: postulacion.cancelled,
    cancelReason: postulacion.cancel_reason,
    counters: {
      '2': documentCounters(tally(step.dataTests), expected),
      '3': { approvals: { accepted: tally(step.approvalTests).approvals, expected: expected.approvals } },
      '4': documentCounters(tally(step.simulation), expected),
    },
    inbox: (await inboxOf(context.db, postulacion.id)).map((message) => ({
      at: message.at.toISOString(),
      text: message.text,
    })),
    urls: { test: postulacion.test_urls, production: postulacion.production_urls },
    setName: set?.name ?? null,
    printedRepresentations: postulacion.printed_representations,
    createdAt: postulacion.created_at.toISOString(),
  };
}
