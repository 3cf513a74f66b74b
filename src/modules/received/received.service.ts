// Documents other taxpayers sent to a company's receiver: the reception itself (the verdict of the receiver
// standard, the signed ARECF, the exact bytes kept) and the integrator's inbox (list, one, artefacts).
import type { FiscalEnvironment } from '../../config.js';
import { formatDgiiTimestamp } from '../../fiscal/dates.js';
import {
  identifiersOf,
  judgeReading,
  type ReceivedFacts,
  type ReceivedIdentifiers,
  type ReceptionVerdict,
} from '../../fiscal/receiving/received-ecf.js';
import { buildArecf, notReceivedReasons, type NotReceivedReason } from '../../fiscal/responses/arecf.js';
import { signCanonicalDocument, type SigningKey } from '../../fiscal/xmldsig/index.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import type { ReceivedArtefactKind, ReceivedTables } from './tables.js';
import { groupCommit } from '../../platform/group-commit.js';
import { correlationIdNow } from '../../platform/observability/correlation.js';
import { newId } from '../../platform/ids.js';
import { pageLimits, pageOf, startOf } from '../../platform/paging.js';
import { fail, ok, type Result } from '../../platform/result.js';
import { readArchived, type BlobStore } from '../../platform/storage/index.js';
import type { XmlChecks } from '../../platform/xml-checks/index.js';
import { printableOf, type PrintableDocument } from '../printing/index.js';
import { archiveReceivedArtefacts, receivedArtefactKinds } from './artefacts.js';
import type { ReceivedWithResponseView } from './outgoing-response.schema.js';
import { outgoingResponseOf } from './outgoing-response-view.js';
import * as repo from './received.repo.js';
import type { ListReceivedQuery, ReceivedDocumentView } from './received.schema.js';

/** The company a receiver route serves, as the reception needs it. */
export interface ReceivingCompany {
  id: string;
  rnc: string;
}

export type Reception =
  /** The signed ARECF to answer, and the received document recorded. */
  | { kind: 'answered'; arecf: Buffer; receivedId: string; estado: '0' | '1'; reason: NotReceivedReason | undefined }
  /** Not an e-CF document at all (not XML, a DTD, another root): refused, nothing recorded. */
  | { kind: 'unreadable'; message: string }
  /** The company has no certificate to sign the ARECF with. */
  | { kind: 'no_certificate' };

export interface ReceivedArtefact {
  bytes: Buffer;
  contentType: string;
  sha256: string;
  version: number;
}

export interface ReceivedService {
  /** Judges an e-CF sent to `company`'s receiver, records it with its exact bytes and answers the signed ARECF. */
  receive(company: ReceivingCompany, xml: Buffer, filename: string): Promise<Reception>;
  list(
    companyId: string,
    query: ListReceivedQuery,
  ): Promise<Result<{ items: ReceivedDocumentView[]; nextCursor: string | null }>>;
  /** One received document with its timeline, and its commercial response with that response's deliveries. */
  get(companyId: string, id: string): Promise<Result<ReceivedWithResponseView>>;
  artefact(companyId: string, id: string, kind: string): Promise<Result<ReceivedArtefact>>;
  /** The printed representation's data, read from the received signed XML as archived. */
  printable(companyId: string, id: string): Promise<Result<PrintableDocument>>;
}

export interface ReceivedDeps {
  db: Db<ReceivedTables>;
  clock: Clock;
  blobs: BlobStore;
  environment: FiscalEnvironment;
  /** Parse, XSD and signature of what arrives, off the event loop when it is large. */
  xmlChecks: XmlChecks;
  /** The company's signing key (the ARECF is signed by the receiver); undefined without a certificate. */
  signingKey(companyId: string): Promise<SigningKey | undefined>;
}

type Judged = Exclude<ReceptionVerdict, { kind: 'unreadable' }>;

const duplicate = (facts: ReceivedFacts | undefined): Judged => ({
  kind: 'not_received',
  reason: '3',
  outcome: 'not_received:duplicate',
  facts,
});

function view(
  row: repo.ReceivedRow,
  artefacts: readonly repo.ReceivedArtefactRow[],
  timeline?: readonly repo.ReceivedEventRow[],
): ReceivedDocumentView {
  return {
    id: row.id,
    status: row.status,
    issuer: { rnc: row.issuer_rnc, name: row.issuer_name },
    eNCF: row.encf,
    ecfType: row.ecf_type,
    rncComprador: row.rnc_comprador,
    fechaEmision: row.fecha_emision,
    montoTotal: row.monto_total,
    totalITBIS: row.total_itbis,
    receivedAt: row.received_at.toISOString(),
    arecf: {
      estado: row.status === 'received' ? '0' : '1',
      codigoMotivoNoRecibido: row.reason_code,
      motivo: row.reason_code === null ? null : notReceivedReasons[row.reason_code],
    },
    commercialStatus: row.commercial_status,
    artefacts: artefacts
      .filter((artefact) => artefact.received_document_id === row.id)
      .map((artefact) => ({
        type: artefact.kind,
        version: artefact.version,
        sha256: artefact.sha256,
        size: artefact.size,
        contentType: artefact.content_type,
      })),
    ...(timeline === undefined
      ? {}
      : {
          timeline: timeline.map((event) => ({
            at: event.at.toISOString(),
            type: event.type,
            status: event.status,
            cause: event.cause,
            correlationId: event.correlation_id,
          })),
        }),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** The first instant of a `yyyy-MM-dd` day in GMT-4 (Dominican time), or undefined for a day that does not exist. */
function dayStart(day: string): Date | undefined {
  const instant = new Date(`${day}T00:00:00.000-04:00`);
  if (Number.isNaN(instant.getTime())) return undefined;
  return new Date(instant.getTime() - 4 * 3_600_000).toISOString().startsWith(day) ? instant : undefined;
}

function causeOf(verdict: Judged, identifiers: ReceivedIdentifiers): string {
  const what = `e-CF ${identifiers.eNCF} from ${identifiers.RNCEmisor}`;
  if (verdict.kind === 'received') return `${what} received; ARECF Estado 0 (e-CF Recibido) answered`;
  return `${what} not received (${verdict.outcome}); ARECF Estado 1, CodigoMotivoNoRecibido ${verdict.reason} (${notReceivedReasons[verdict.reason]}) answered`;
}

export function createReceivedService(deps: ReceivedDeps): ReceivedService {
  const { db, clock, blobs, environment, xmlChecks } = deps;
  // One statement serves every reception asking at once (platform/group-commit.ts): under load, dozens share a round
  // trip and a WAL flush; alone, one goes at once. A batch the database refuses is run again one by one, so that a
  // sender's bad document fails its own request only.
  const batched = { maxBatch: 100, isolateFailures: true };
  const receivedAlready = groupCommit((keys: repo.ReceivedKey[]) => repo.receivedAlready(db, keys), batched);
  const recordReception = groupCommit(
    (receptions: repo.ReceptionRecord[]) => repo.recordReceptions(db, receptions),
    batched,
  );

  /**
   * Signs the ARECF, archives the bytes and records the reception; undefined when a concurrent copy won Estado 0 (its
   * blobs, written first, are then left unreferenced, as a crash between archive and insert would leave them).
   */
  async function record(
    company: ReceivingCompany,
    key: SigningKey,
    xml: Buffer,
    identifiers: ReceivedIdentifiers,
    verdict: Judged,
  ): Promise<Reception | undefined> {
    const now = clock.now();
    const id = newId('rcv');
    const base = {
      RNCEmisor: identifiers.RNCEmisor,
      eNCF: identifiers.eNCF,
      RNCComprador: company.rnc,
      FechaHoraAcuseRecibo: formatDgiiTimestamp(now),
    };
    const unsigned =
      verdict.kind === 'received'
        ? buildArecf({ ...base, Estado: '0' })
        : buildArecf({ ...base, Estado: '1', CodigoMotivoNoRecibido: verdict.reason });
    // Signed on the event loop (0.4 ms), not on the thread pool as documents sign: handing one RSA operation to
    // another thread and back cost the receiver more than the operation on the 2-core reference host (measured,
    // interleaved: 0.4 to 0.7 ms more CPU per e-CF, 10 % fewer e-CF/s, and no better p99 at 100/s).
    const arecf = Buffer.from(signCanonicalDocument(unsigned, key), 'utf8');
    const artefacts = await archiveReceivedArtefacts(
      blobs,
      { companyId: company.id, receivedId: id, receivedAt: now },
      { 'received-xml': xml, 'arecf-xml': arecf },
      now,
    );
    const facts = verdict.facts;
    const status = verdict.kind === 'received' ? 'received' : 'not_received';
    const reason = verdict.kind === 'received' ? null : verdict.reason;
    const row: repo.ReceivedRow = {
      id,
      company_id: company.id,
      environment,
      issuer_rnc: identifiers.RNCEmisor,
      encf: identifiers.eNCF,
      ecf_type: facts?.ecfType ?? null,
      status,
      reason_code: reason,
      commercial_status: null,
      issuer_name: facts?.razonSocialEmisor ?? null,
      rnc_comprador: facts?.rncComprador ?? null,
      fecha_emision: facts?.fechaEmision ?? null,
      monto_total: facts?.montoTotal ?? null,
      total_itbis: facts?.totalItbis ?? null,
      received_at: now,
      updated_at: now,
    };
    const occurred = { companyId: company.id, environment, occurredAt: now };
    const named = {
      receivedDocumentId: id,
      issuerRnc: identifiers.RNCEmisor,
      eNCF: identifiers.eNCF,
      ecfType: facts?.ecfType ?? null,
    };
    const recorded = await recordReception({
      row,
      artefacts,
      event: { at: now, type: status, status, cause: causeOf(verdict, identifiers) },
      correlationId: correlationIdNow(),
      domainEvent:
        verdict.kind === 'received'
          ? {
              ...occurred,
              type: 'received_document.received',
              payload: { ...named, status: 'received', codigoMotivoNoRecibido: null },
            }
          : {
              ...occurred,
              type: 'received_document.not_received',
              payload: { ...named, status: 'not_received', codigoMotivoNoRecibido: verdict.reason },
            },
    });
    if (!recorded) return undefined;
    return {
      kind: 'answered',
      arecf,
      receivedId: id,
      estado: status === 'received' ? '0' : '1',
      reason: reason ?? undefined,
    };
  }

  async function withArtefacts(rows: readonly repo.ReceivedRow[]): Promise<ReceivedDocumentView[]> {
    const artefacts = await repo.artefactsOf(
      db,
      rows.map((row) => row.id),
    );
    return rows.map((row) => view(row, artefacts));
  }

  return {
    async receive(company, xml, filename) {
      const identifiers = identifiersOf(xml.toString('utf8'), filename);
      const verdict = await judgeReading(await xmlChecks.readReceivedEcf(xml), identifiers, {
        receiverRnc: company.rnc,
        alreadyReceived: (ids) =>
          receivedAlready({ companyId: company.id, environment, issuerRnc: ids.RNCEmisor, encf: ids.eNCF }),
      });
      if (verdict.kind === 'unreadable') return verdict;
      const key = await deps.signingKey(company.id);
      if (key === undefined) return { kind: 'no_certificate' };
      const answered = await record(company, key, xml, identifiers, verdict);
      if (answered !== undefined) return answered;
      // A concurrent copy of the same e-CF was received first: this one is the duplicate.
      const again = await record(company, key, xml, identifiers, duplicate(verdict.facts));
      if (again === undefined) throw new Error('a not-received document cannot conflict');
      return again;
    },

    async list(companyId, query) {
      const after = startOf(query.cursor);
      if (!after.ok) return after;
      const from = query.receivedFrom === undefined ? undefined : dayStart(query.receivedFrom);
      const to = query.receivedTo === undefined ? undefined : dayStart(query.receivedTo);
      if (query.receivedFrom !== undefined && from === undefined)
        return fail('validation_failed', 'receivedFrom is not a real day.', [
          { pointer: '/receivedFrom', in: 'query', code: 'invalid_date', detail: 'A yyyy-MM-dd day that exists.' },
        ]);
      if (query.receivedTo !== undefined && to === undefined)
        return fail('validation_failed', 'receivedTo is not a real day.', [
          { pointer: '/receivedTo', in: 'query', code: 'invalid_date', detail: 'A yyyy-MM-dd day that exists.' },
        ]);
      const limit = query.limit ?? pageLimits.default;
      const rows = await repo.listReceived(db, companyId, environment, {
        issuerRnc: query.issuerRnc,
        ecfType: query.ecfType,
        status: query.status as repo.ReceivedRow['status'] | undefined,
        receivedFrom: from,
        receivedTo: to === undefined ? undefined : new Date(to.getTime() + 86_400_000),
        limit,
        after: after.value,
      });
      const page = pageOf(rows, limit, (row) => row.received_at);
      return ok({ items: await withArtefacts(page.rows), nextCursor: page.nextCursor });
    },

    async get(companyId, id) {
      const row = await repo.findReceived(db, companyId, environment, id);
      if (row === undefined) return fail('document_not_found', `No received document ${id}.`);
      const [artefacts, timeline, commercialResponse] = await Promise.all([
        repo.artefactsOf(db, [id]),
        repo.eventsOf(db, id),
        outgoingResponseOf(db, id),
      ]);
      return ok({ ...view(row, artefacts, timeline), commercialResponse });
    },

    async artefact(companyId, id, kind) {
      const row = await repo.findReceived(db, companyId, environment, id);
      if (row === undefined) return fail('document_not_found', `No received document ${id}.`);
      if (!(receivedArtefactKinds as readonly string[]).includes(kind))
        return fail('artefact_not_found', `No artefact ${kind}: one of ${receivedArtefactKinds.join(', ')}.`);
      const artefact = await repo.findArtefact(db, id, kind as ReceivedArtefactKind);
      if (artefact === undefined) return fail('artefact_not_found', `Received document ${id} has no ${kind}.`);
      const bytes = await readArchived(blobs, artefact);
      return ok({ bytes, contentType: artefact.content_type, sha256: artefact.sha256, version: artefact.version });
    },

    async printable(companyId, id) {
      const row = await repo.findReceived(db, companyId, environment, id);
      if (row === undefined) return fail('document_not_found', `No received document ${id}.`);
      // An e-CF answered "not received" (bad signature, not addressed to us, ...) has no valid printed form.
      if (row.status !== 'received')
        return fail(
          'document_not_printable',
          `Received document ${id} was not received (ARECF Estado 1, CodigoMotivoNoRecibido ${row.reason_code ?? '?'}): it has no printed representation.`,
        );
      const artefact = await repo.findArtefact(db, id, 'received-xml');
      if (artefact === undefined) throw new Error(`received document ${id} has no received-xml artefact`);
      const { verdict, parsed } = await xmlChecks.readSignedEcf(await readArchived(blobs, artefact));
      if (!verdict.ok || !parsed.ok)
        return fail(
          'document_integrity_failed',
          `The archived XML of received document ${id} no longer reads as the signed e-CF it was: it cannot be printed.`,
        );
      return ok(
        printableOf(parsed.document, {
          id: row.id,
          status: row.status,
          environment,
          securityCode: verdict.securityCode,
          // Whether DGII accepted it, and whether its issuer was in contingency, are the issuer's facts, not ours.
          acceptedByDgii: null,
          contingency: false,
        }),
      );
    },
  };
}
