// Delivering an accepted e-CF to its buyer (DESIGN §5.3; Informe Técnico §8), a target of the outbound work engine
// (platform/work), which claims, leases, counts attempts, backs off (never before a receiver's Retry-After) and
// settles. Each attempt chooses the channel afresh, since DGII's directory changes:
// - nothing, for a document DGII has not accepted, a replacement of an NCF issued in contingency (CodigoModificacion 4:
//   it goes to DGII only, Informe Técnico §18), or a company whose automatic delivery is off (unless entregar asked);
// - an address entregar named: e-mail to it;
// - types 31, 33, 34 and 44 whose buyer DGII's directory lists: the buyer's receiver (receiver-channel.ts); a
//   receiver only ever gets those four (research/dgii-protocol.md §6.1);
// - else the e-CF's CorreoComprador: e-mail (email-channel.ts);
// - else no channel (`none`), said as such.
import { maxRetryDelayMs, type FiscalEnvironment } from '../../config.js';
import { isTypeSentToReceiver } from '../../fiscal/receiving/received-ecf.js';
import type { EcfObject } from '../../fiscal/build/index.js';
import { parseEcf } from '../../fiscal/parse/index.js';
import { textAt } from '../../fiscal/rules/document-view.js';
import { exponentialBackoff } from '../../platform/backoff.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import type { BuyerDeliveryChannel } from '../documents/index.js';
import { readArchived, type BlobStore } from '../../platform/storage/index.js';
import type { Outcome, WorkTarget } from '../../platform/work/work-engine.js';
import {
  archiveNextArtefactVersion,
  buyerDeliveryItems,
  recordBuyerDeliveriesDone,
  type ArtefactRow,
  type BuyerDeliveryItem,
} from '../documents/index.js';
import { deliverByEmail } from './email-channel.js';
import { deliverToReceiver, type ChannelResult } from './receiver-channel.js';
import { doneRecord, recordSettlement } from './buyer-delivery.record.js';
import type { Attempted, BuyerDeliveryDeps, Settled } from './buyer-delivery.deps.js';

/** The queue's name for deliveries to buyers (outbound_work.target). */
export const buyerDeliveryTarget = 'buyer.delivery';

const accepted = new Set(['accepted', 'accepted_conditional']);

function skipped(reason: string, channel: BuyerDeliveryChannel | null = null): Outcome<Settled, Attempted> {
  return {
    kind: 'done',
    result: { channel, status: 'skipped', target: null, reason, arecf: undefined, messageId: undefined },
  };
}

export function createBuyerDeliveryTarget(
  deps: BuyerDeliveryDeps & { db: Db; clock: Clock; blobs: BlobStore; environment: FiscalEnvironment },
): WorkTarget<BuyerDeliveryItem, Settled, Attempted> {
  const { db, clock, blobs, documents, companies, directory, policy } = deps;

  /** The ARECF archived as the document's next arecf-xml version, its row to record with the settlement. */
  async function keepArecf(
    item: BuyerDeliveryItem,
    result: Extract<ChannelResult, { kind: 'delivered' | 'not_received' }>,
  ): Promise<Settled['arecf']> {
    if (result.arecf === undefined) return undefined;
    const { document } = item;
    const artefact = await archiveNextArtefactVersion(
      blobs,
      { companyId: document.company_id, documentId: document.id, createdAt: document.created_at },
      'arecf-xml',
      result.arecf.bytes,
      item.lastArecfVersion,
      clock.now(),
    );
    const { estado, motivo, fechaHora } = result.arecf;
    return { estado, motivo, fechaHora, artefact };
  }

  async function outcomeOf(
    item: BuyerDeliveryItem,
    channel: BuyerDeliveryChannel,
    result: ChannelResult,
  ): Promise<Outcome<Settled, Attempted>> {
    if (result.kind === 'failed')
      return {
        kind: 'failed',
        reason: result.reason,
        retryAt: result.retryAt,
        final: result.final === true,
        failure: { channel, target: result.target },
      };
    return {
      kind: 'done',
      result: {
        channel,
        status: result.kind,
        target: result.target,
        reason: result.reason,
        arecf: await keepArecf(item, result),
        messageId: result.messageId,
      },
    };
  }

  /**
   * The archived signed e-CF, its SHA-256 checked, and what it says, read when asked (the receiver channel needs
   * only the bytes). Its signature is not verified again: the bytes are the ones we signed and archived (the hash
   * says so), the receiver verifies it, and an e-mail's printed representation goes through the verified reading
   * anyway (documents.printableWithModel).
   */
  async function signedEcf(
    item: BuyerDeliveryItem,
  ): Promise<{ bytes: Buffer; signed: ArtefactRow; model: () => EcfObject; references: boolean }> {
    const { document, signed } = item;
    if (signed === undefined) throw new Error(`document ${document.id} has no signed-xml artefact`);
    const bytes = await readArchived(blobs, signed);
    let model: EcfObject | undefined;
    return {
      bytes,
      signed,
      model() {
        if (model !== undefined) return model;
        const parsed = parseEcf(bytes.toString('utf8'));
        if (!parsed.ok)
          throw new Error(
            `the archived signed XML of ${document.id} cannot be read: ${parsed.findings[0]?.message ?? 'unreadable'}`,
          );
        model = parsed.document;
        return model;
      },
      // Whether it may have InformacionReferencia: a `<` never stands raw in XML text, so without this the element
      // is not there, and the parse (a quarter of a millisecond) is spared. A comment naming it only costs the parse.
      references: bytes.includes('<InformacionReferencia'),
    };
  }

  async function perform(item: BuyerDeliveryItem): Promise<Outcome<Settled, Attempted>> {
    const { delivery, document } = item;
    const companyId = document.company_id;
    if (!accepted.has(document.status)) return skipped(`DGII has not accepted it (status ${document.status})`);
    const issuer = await companies.issuer(companyId);
    if (issuer === undefined) throw new Error(`document ${document.id}: its company is missing`);
    const { company } = issuer;
    if (!company.delivery.automatic && delivery.requested_at === null)
      return skipped(
        `automatic delivery is off for the company; POST /api/v1/documentos/${document.id}/entregar delivers it`,
      );
    const ecf = await signedEcf(item);
    const { bytes: signedXml, signed } = ecf;
    if (ecf.references && textAt(ecf.model(), ['InformacionReferencia', 'CodigoModificacion']) === '4')
      return skipped(
        'a replacement of an NCF issued in contingency (CodigoModificacion 4) goes to DGII only (Informe Técnico §18)',
      );

    const email = async (to: string): Promise<Outcome<Settled, Attempted>> => {
      if (deps.mailer === undefined)
        return skipped(`e-mail delivery is off on this service (SMTP_URL is not set); it would go to ${to}`, 'email');
      // The verified reading: an e-mail never carries a printed representation of bytes whose signature fails.
      const read = await documents.printableWithModel(companyId, document.id, {
        row: document,
        artefact: signed,
        bytes: signedXml,
      });
      if (!read.ok) throw new Error(read.failure.detail);
      const { printable } = read.value;
      const settings = await deps.printing.settingsOf(companyId, true);
      const pdf = await deps.printing.pdf(printable, settings);
      if (!pdf.ok) throw new Error(pdf.failure.detail);
      const result = await deliverByEmail(deps.mailer, {
        printable,
        pdf: pdf.value,
        signedXml: read.value.signedXml,
        to,
        from: { name: company.delivery.senderName ?? company.tradeName ?? company.legalName, address: deps.mailFrom },
        replyTo: company.delivery.replyTo,
      });
      return outcomeOf(item, 'email', result);
    };

    if (delivery.requested_address !== null) return email(delivery.requested_address);
    const buyer = document.rnc_comprador;
    if (buyer !== null && isTypeSentToReceiver(document.ecf_type)) {
      const found = await directory.lookup(buyer, companyId);
      if (found.kind === 'unknown')
        return { kind: 'failed', reason: found.detail, failure: { channel: null, target: null } };
      if (found.kind === 'found') {
        if (issuer.identity === undefined)
          return {
            kind: 'failed',
            reason: "the company has no certificate to sign the receiver's seed with",
            failure: { channel: 'receiver', target: null },
          };
        const result = await deliverToReceiver(
          { receivers: deps.receivers, schemas: deps.schemas, now: () => clock.now() },
          {
            companyId,
            entry: found.entry,
            signedXml,
            expected: {
              // The company's own: no e-CF of another RNCEmisor is issued under it (documents' intake checks).
              RNCEmisor: company.rnc,
              RNCComprador: buyer,
              eNCF: document.encf,
            },
            key: issuer.identity,
          },
        );
        return outcomeOf(item, 'receiver', result);
      }
    }
    const correo = textAt(ecf.model(), ['Encabezado', 'Comprador', 'CorreoComprador'])?.trim();
    if (correo !== undefined && correo !== '') return email(correo);
    const why =
      buyer === null
        ? 'the e-CF names no buyer RNC'
        : isTypeSentToReceiver(document.ecf_type)
          ? `the buyer ${buyer} is not an electronic receiver in DGII's directory`
          : `type ${document.ecf_type} is never sent to a receiver`;
    return skipped(`no channel: ${why}, and the e-CF has no CorreoComprador`, 'none');
  }

  return {
    name: buyerDeliveryTarget,
    policy: {
      leaseMs: policy.leaseMs,
      maxAttempts: policy.maxAttempts,
      retryDelayMs: exponentialBackoff(policy.retryDelayMs, maxRetryDelayMs.buyerDeliveries),
    },
    load: (ids) => buyerDeliveryItems(db, ids),
    perform,
    record: (trx, item, settlement) => recordSettlement(deps, trx, item, settlement),
    async recordDone(done) {
      const records = done.map(({ item, result, leaseId, attempts, correlationId }) => ({
        ...doneRecord(deps, item, result, attempts),
        leaseId,
        correlationId,
      }));
      const recorded = await recordBuyerDeliveriesDone(db, records, buyerDeliveryTarget);
      for (const { item, result } of done)
        if (recorded.has(item.document.id)) deps.count(result.channel, result.status);
      return done.map(({ item }) => recorded.has(item.document.id));
    },
  };
}
