// The send of a signed document to DGII (DESIGN §5.2), a target of the outbound work engine (platform/work):
// `document.send`. The engine claims, leases, counts attempts and backs off; what is DGII's stays here.
//
// The rule that makes "exactly once" hold whatever DGII, the network or our processes do: a document is marked
// `sending` (committed) BEFORE its bytes leave, and only a definite answer moves it on. So a document found in
// `sending` by a later attempt — after an uncertain outcome (timeout after the bytes left, reset, 5xx) or after a
// worker died mid-call — may already be at DGII, and is resolved by asking DGII about its e-NCF first (trackIds for
// reception, consultaestado for an RFCE: rfce-send.ts); only a definite "DGII has nothing" lets the bytes go again.
// One worker at a time may talk to DGII about a document: its queue row's lease is taken in the same statement that
// marks it `sending` (documents' claimForSending), with a copy of the lease id on the document, and runs out if
// its worker dies (test/sending-crash.test.ts). The bytes sent are the archived signed bytes, never re-signed. The
// common steps (a trackId, a verdict) are each ONE statement whose conditions (the lease) are its UPDATE's WHERE and
// which settles the queue row under its lease (document-changes.ts, batched with the other documents in flight): a
// worker whose lease passed changes nothing.
import type { FiscalEnvironment } from '../../config.js';
import type { DgiiClient, SendEcfOutcome, SendRfceOutcome } from '../../dgii/index.js';
import { consumerSummaryThreshold } from '../../fiscal/timbre-url.js';
import { backoffMs, exponentialBackoff } from '../../platform/backoff.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import type { Logger } from '../../platform/observability/logger.js';
import type { WorkTarget } from '../../platform/work/work-engine.js';
import type { CompaniesService } from '../companies/index.js';
import {
  claimForSending,
  groupedDocumentChanges,
  type DocumentRow,
  type DocumentsService,
} from '../documents/index.js';
import {
  documentSends,
  recordTogether,
  type ClaimedSend,
  type DocumentChanges,
  type SendDone,
} from './document-changes.js';
import { createRfceSend, type Resolution } from './rfce-send.js';
import { createSendOutcomes, type SendOutcome } from './send-outcome.js';
import { createSendRecords, type NotTaken } from './send-records.js';

export interface SendPolicy {
  leaseMs: number;
  maxAttempts: number;
  retryDelayMs: number;
  maxRetryDelayMs: number;
  uncertainSettleMs: number;
}

export function createSendTarget(deps: {
  db: Db;
  clock: Clock;
  log: Logger;
  dgii: DgiiClient;
  companies: CompaniesService;
  documents: DocumentsService;
  changes: DocumentChanges;
  environment: FiscalEnvironment;
  policy: SendPolicy;
}): WorkTarget<ClaimedSend, SendDone, NotTaken> {
  const { db, clock, log, dgii, companies, documents, changes, policy } = deps;
  const recordSend = createSendRecords({ clock, environment: deps.environment, changes, policy });
  const rfce = createRfceSend({ dgii, companies, documents });
  // The one-statement changes made while an attempt runs, batched with those of the other documents in flight.
  const changeDocumentIf = groupedDocumentChanges(db);
  const later = (ms: number) => new Date(clock.now().getTime() + ms);
  const outcomes = createSendOutcomes({
    later,
    retryBackoff: (attempts) => backoffMs(Math.max(1, attempts), policy.retryDelayMs, policy.maxRetryDelayMs),
    policy,
  });

  async function resolve(row: DocumentRow, rnc: string): Promise<Resolution> {
    if (row.send_route === 'rfce') return rfce.resolve(row, rnc);
    const tracks = await dgii.trackIds(row.company_id, { rncEmisor: rnc, eNCF: row.encf });
    if (tracks.kind === 'found') {
      const latest = [...tracks.entries].sort(
        (a, b) => (b.receivedAt?.getTime() ?? 0) - (a.receivedAt?.getTime() ?? 0),
      )[0];
      if (latest !== undefined) return { kind: 'track', trackId: latest.trackId };
      return { kind: 'nothing' };
    }
    if (tracks.kind === 'not_found') return { kind: 'nothing' };
    return { kind: 'unknown', detail: tracks.kind === 'transient' ? tracks.detail : tracks.kind };
  }

  /** The bytes to DGII: the archived signed XML, named as DGII expects, or for an RFCE its summary. */
  function sendFile(
    row: DocumentRow,
    file: { xml: Buffer; fileName: string },
    leaving: () => void,
  ): Promise<SendEcfOutcome | SendRfceOutcome> {
    if (row.send_route === 'rfce') return rfce.send(row, file, leaving);
    leaving();
    return dgii.sendEcf(row.company_id, file);
  }

  /** DGII already had it (found by asking): what it said, or, when it has nothing, clearance to send again. */
  async function asked(claimed: ClaimedSend, known: Resolution): Promise<SendOutcome | 'send'> {
    const { row, leaseId } = claimed;
    switch (known.kind) {
      case 'track':
        return {
          kind: 'done',
          result: {
            kind: 'track',
            trackId: known.trackId,
            cause: `DGII already had it: trackId ${known.trackId} (found by asking about ${row.encf})`,
            sent: false,
          },
        };
      case 'verdict':
        return {
          kind: 'done',
          result: {
            kind: 'verdict',
            verdict: known.verdict,
            source: `DGII already had it (found by asking about ${row.encf})`,
            sent: false,
          },
        };
      case 'unknown':
        return outcomes.unknownYet(row, `asking DGII about ${row.encf} failed: ${known.detail}`);
      case 'nothing': {
        const now = clock.now();
        const held = await changeDocumentIf({
          id: row.id,
          expected: { leaseId },
          change: { updated_at: now },
          records: {
            event: {
              at: now,
              type: 'dgii.resolved',
              status: 'sending',
              cause: `DGII has nothing for ${row.encf}: it is sent again`,
            },
          },
        });
        // The lease passed to another worker: it asks and sends, not this one (what is returned is not recorded).
        return held ? 'send' : outcomes.unknownYet(row, 'the lease passed to another worker');
      }
    }
  }

  /**
   * One attempt. An error of ours on the way (the signed XML's blob missing, the database lost mid-way) is a counted
   * attempt: before the bytes may have left (taken from `queued`, or DGII just said it has nothing), one DGII did not
   * take, retried and in the end `send_failed` with its reason; after, an answer still unknown, asked about before
   * anything is sent again.
   */
  async function perform(claimed: ClaimedSend): Promise<SendOutcome> {
    const { row, previous, signedXml } = claimed;
    let mayHaveIt = previous === 'sending';
    try {
      // Read as API issuing reads it (kept for recentReadMs): the company's RNC names the file sent.
      const company = (await companies.issuer(row.company_id))?.company;
      if (company === undefined) throw new Error(`document ${row.id}: its company is missing`);
      if (mayHaveIt) {
        const known = await asked(claimed, await resolve(row, company.rnc));
        if (known !== 'send') return known;
        mayHaveIt = false;
      }
      if (signedXml === undefined) throw new Error(`document ${row.id}: its signed XML is missing from the archive`);
      const file = { xml: await documents.archivedBytes(signedXml), fileName: `${company.rnc}${row.encf}.xml` };
      const outcome = await sendFile(row, file, () => {
        mayHaveIt = true;
      });
      return outcomes.answered(claimed, outcome);
    } catch (error) {
      const reason = `an error of this service: ${error instanceof Error ? error.message : String(error)}`;
      log.error({ err: error, documentId: row.id }, 'document send failed');
      if (mayHaveIt) return outcomes.unknownYet(row, reason);
      return outcomes.notTaken(row, reason, undefined, false, true);
    }
  }

  return {
    name: documentSends,
    policy: {
      leaseMs: policy.leaseMs,
      maxAttempts: policy.maxAttempts,
      retryDelayMs: exponentialBackoff(policy.retryDelayMs, policy.maxRetryDelayMs),
    },
    async claim(terms) {
      // Type 32 under DGII's threshold goes as an RFCE summary (Informe Técnico; research/dgii-protocol.md §8.1).
      const rows = await claimForSending(db, terms, consumerSummaryThreshold);
      return rows.map(({ itemId, attempts, correlationId, row }) => {
        if (row === undefined) return { itemId, attempts, correlationId, item: undefined };
        const { previous_status: previous, signed_xml_blob_key: blobKey, signed_xml_sha256: sha256, ...document } = row;
        return {
          itemId,
          attempts,
          correlationId,
          item: {
            row: document,
            previous,
            leaseId: terms.leaseId,
            signedXml: blobKey === null || sha256 === null ? undefined : { blob_key: blobKey, sha256 },
          },
        };
      });
    },
    perform,
    record: recordSend,
    recordDone: recordTogether(db, documentSends, changes.sendDone),
  };
}
