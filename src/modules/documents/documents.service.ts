// Creating e-CF from JSON and reading them back. Creation validates before anything is taken: only a document that
// passes the fiscal rules and the model gets a number. Then the next e-NCF is taken (in order, recorded as burned
// until the document is stored), the document is built, signed with the company's certificate, archived (write-once
// blobs, SHA-256 recorded), and one transaction records it with its first timeline event and settles the number. A
// failure leaves the number burned with its cause. Nothing is sent to DGII here (SPEC §3).
import { createHash } from 'node:crypto';
import type { FiscalEnvironment } from '../../config.js';
import { buildEcf, normaliseEcf } from '../../fiscal/build/index.js';
import { formatDgiiTimestamp, isoDateOfDgiiDate, startOfIsoDate } from '../../fiscal/dates.js';
import type { Finding } from '../../fiscal/finding.js';
import { textAt } from '../../fiscal/rules/document-view.js';
import { timbreUrl } from '../../fiscal/timbre-url.js';
import { readSignatureValue, securityCode, signCanonicalDocumentInBackground } from '../../fiscal/xmldsig/index.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import type { ArtefactKind, DocumentsTables } from './tables.js';
import { executeAsOneStatement } from '../../platform/db/one-statement.js';
import { transact } from '../../platform/db/transact.js';
import { domainEventInsertStatements } from '../../platform/events/domain-events.js';
import { pageLimits, pageOf, startOf } from '../../platform/paging.js';
import { fail, ok, type FieldError, type Result } from '../../platform/result.js';
import { newId } from '../../platform/ids.js';
import type { AbandonedWrites } from '../../platform/storage/abandoned-writes.js';
import { readArchived, type BlobStore } from '../../platform/storage/index.js';
import type { XmlChecks } from '../../platform/xml-checks/index.js';
import type { CompaniesService, SigningIdentity } from '../companies/index.js';
import type { SequencesService } from '../sequences/index.js';
import { checkDocument } from './check-document.js';
import { listDocuments } from './document-list.repo.js';
import { previewOf } from './document-preview.js';
import { createDocumentViews, type DocumentViews } from './document-views.js';
import { archiveArtefacts, artefactKeys, artefactKinds } from './artefacts.js';
import { idempotentCreationStatement } from './idempotency.js';
import { receivedApprovalsOf, type ReceivedApprovalRow } from './received-approvals.repo.js';
import * as repo from './documents.repo.js';
import {
  deliveryChannelNames,
  type DocumentDelivery,
  type DocumentPreview,
  type DocumentView,
} from './documents.schema.js';

export interface Artefact {
  bytes: Buffer;
  contentType: string;
  sha256: string;
  version: number;
}

export interface DocumentsService {
  /** `idempotencyKey`: the key the request came with, recorded in the statement that stores the document (idempotency.ts). */
  create(companyId: string, body: unknown, idempotencyKey?: string): Promise<Result<DocumentView>>;
  /** What create would make of the body, its totals and findings, without numbering, signing or storing anything. */
  preview(companyId: string, body: unknown): Promise<Result<DocumentPreview>>;
  /**
   * A document exactly as a certification set gives it: its own e-NCF and expiry (DGII's for the set, not from the
   * company's ranges), every value verbatim, signed now. The e-NCF is the key: a document already recorded with it is
   * returned, never made twice.
   */
  issueVerbatim(
    companyId: string,
    document: Record<string, unknown>,
    owned: { eNCF: string; fechaVencimientoSecuencia?: string | undefined },
  ): Promise<Result<{ id: string; created: boolean }>>;
  get(companyId: string, id: string): Promise<Result<DocumentView>>;
  list(
    companyId: string,
    query: {
      status?: string | undefined;
      ecfType?: string | undefined;
      entrega?: string | undefined;
      eNCF?: string | undefined;
      rncComprador?: string | undefined;
      desde?: string | undefined;
      hasta?: string | undefined;
      limit?: number | undefined;
      cursor?: string | undefined;
    },
  ): Promise<Result<{ items: DocumentView[]; nextCursor: string | null }>>;
  artefact(companyId: string, id: string, kind: string, version: number | undefined): Promise<Result<Artefact>>;
  /** The bytes of an archived artefact the caller has already found, checked against its recorded SHA-256. */
  archivedBytes(stored: Pick<repo.ArtefactRow, 'blob_key' | 'sha256'>): Promise<Buffer>;
  /**
   * Archives version 1 of an artefact made after creation (the RFCE a type 32 is sent as), write-once: when the
   * document already has one, that one stands and its bytes are returned.
   */
  keepArtefact(companyId: string, id: string, kind: ArtefactKind, bytes: Buffer): Promise<Buffer>;
  /** Derived views (document-views.ts): the model from the signed XML with integrity, the printed data, the timeline. */
  normalized: DocumentViews['normalized'];
  printable: DocumentViews['printable'];
  printableWithModel: DocumentViews['printableWithModel'];
  timeline: DocumentViews['timeline'];
}

function fieldErrors(findings: readonly Finding[]): FieldError[] {
  return findings.map((finding) => ({
    pointer: finding.pointer,
    in: 'body',
    code: finding.code,
    detail: finding.message,
  }));
}

/** The list's issue-day bounds: each a day that exists, desde not after hasta (yyyy-MM-dd compares as text). */
function issueDays(desde: string | undefined, hasta: string | undefined): Result<undefined> {
  const notADay = (name: string): FieldError => ({
    pointer: `/${name}`,
    in: 'query',
    code: 'invalid_date',
    detail: 'A yyyy-MM-dd day that exists.',
  });
  const wrong = [
    ...(desde !== undefined && startOfIsoDate(desde) === undefined ? [notADay('desde')] : []),
    ...(hasta !== undefined && startOfIsoDate(hasta) === undefined ? [notADay('hasta')] : []),
  ];
  if (wrong.length > 0)
    return fail(
      'validation_failed',
      `${wrong.map((error) => error.pointer.slice(1)).join(' and ')}: not a real day.`,
      wrong,
    );
  if (desde !== undefined && hasta !== undefined && desde > hasta) {
    const detail = `desde ${desde} is after hasta ${hasta}: no day is in between.`;
    return fail('validation_failed', detail, [
      { pointer: '/desde', in: 'query', code: 'after_hasta', detail },
      { pointer: '/hasta', in: 'query', code: 'before_desde', detail },
    ]);
  }
  return ok(undefined);
}

function deliveryView(row: repo.DeliveryRow): DocumentDelivery {
  return {
    canal: row.channel === null ? null : deliveryChannelNames[row.channel],
    status: row.status,
    attempts: row.attempts,
    lastError: row.last_error,
    reason: row.reason,
    destino: row.target,
    acuseRecibo:
      row.arecf_estado === null || row.arecf_version === null
        ? null
        : {
            estado: row.arecf_estado,
            codigoMotivoNoRecibido: row.arecf_motivo,
            fechaHoraAcuseRecibo: row.arecf_fecha_hora,
            version: row.arecf_version,
          },
    messageId: row.message_id,
    nextAttemptAt: row.next_attempt_at?.toISOString() ?? null,
    deliveredAt: row.delivered_at?.toISOString() ?? null,
    updatedAt: row.updated_at.toISOString(),
  };
}

function view(
  row: repo.DocumentRow,
  artefacts: readonly repo.ArtefactRow[],
  commercial: ReceivedApprovalRow | undefined,
  delivery: repo.DeliveryRow | undefined,
): DocumentView {
  return {
    id: row.id,
    status: row.status,
    ecfType: row.ecf_type,
    eNCF: row.encf,
    fechaEmision: row.fecha_emision,
    rncComprador: row.rnc_comprador,
    montoTotal: row.monto_total,
    totalITBIS: row.total_itbis,
    securityCode: row.security_code,
    fechaHoraFirma: row.fecha_hora_firma,
    timbreUrl: row.timbre_url,
    warnings: row.warnings as DocumentView['warnings'],
    dgii:
      row.send_route === null
        ? null
        : {
            route: row.send_route,
            attempts: row.send_attempts,
            trackId: row.track_id,
            estado: row.dgii_estado,
            codigo: row.dgii_codigo,
            mensajes: row.dgii_messages,
            secuenciaUtilizada: row.secuencia_utilizada,
            sentAt: row.sent_at?.toISOString() ?? null,
            finalAt: row.final_at?.toISOString() ?? null,
          },
    commercialResponse:
      commercial === undefined
        ? null
        : {
            decision: commercial.decision,
            reason: commercial.reason,
            rncComprador: commercial.rnc_comprador,
            fechaHoraAprobacionComercial: commercial.fecha_hora_aprobacion,
            receivedAt: commercial.received_at.toISOString(),
            sha256: commercial.acecf_sha256,
          },
    entrega: delivery === undefined ? null : deliveryView(delivery),
    // In one order whatever gave the rows: by kind, then version.
    artefacts: [...artefacts]
      .sort((a, b) => a.kind.localeCompare(b.kind) || a.version - b.version)
      .map((artefact) => ({
        type: artefact.kind,
        version: artefact.version,
        sha256: artefact.sha256,
        size: artefact.size,
        contentType: artefact.content_type,
      })),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function createDocumentsService(deps: {
  db: Db<DocumentsTables>;
  clock: Clock;
  blobs: BlobStore;
  abandonedWrites: AbandonedWrites;
  environment: FiscalEnvironment;
  companies: CompaniesService;
  sequences: SequencesService;
  /** Reads archived signed XML for the views, off the event loop when it is large. */
  xmlChecks: XmlChecks;
}): DocumentsService {
  const { db, clock, blobs, abandonedWrites, environment, companies, sequences, xmlChecks } = deps;

  async function withArtefacts(rows: repo.DocumentRow[]): Promise<DocumentView[]> {
    const ids = rows.map((row) => row.id);
    // The delivery first, then the artefacts: a delivery becomes `delivered` in the statement that adds its ARECF
    // artefact, so a delivery read as delivered has its artefact committed before the artefacts are read. Read side by
    // side, on two connections, the view could say delivered and list no ARECF.
    const deliveries = await repo.deliveriesOf(db, ids);
    const [artefacts, commercial] = await Promise.all([repo.artefactsOf(db, ids), receivedApprovalsOf(db, ids)]);
    return rows.map((row) =>
      view(
        row,
        artefacts.filter((artefact) => artefact.document_id === row.id),
        commercial.find((response) => response.document_id === row.id),
        deliveries.find((delivery) => delivery.document_id === row.id),
      ),
    );
  }

  const views = createDocumentViews({ db, blobs, environment, xmlChecks });

  /**
   * Builds the document with the service-owned fields, signs it with the company's key, archives its artefacts and
   * records it with its first timeline and outbox events in ONE statement (with `settle`, the number's settlement,
   * when the number came from a range). Findings when the document cannot be written.
   */
  async function signAndRecord(input: {
    id: string;
    companyId: string;
    company: { rnc: string };
    identity: SigningIdentity;
    document: Record<string, unknown>;
    owned: { eNCF: string; fechaVencimientoSecuencia?: string | undefined };
    origin: repo.NewDocument['origin'];
    rangeId: string | null;
    warnings: repo.NewDocument['warnings'];
    sourceJson: Buffer;
    now: Date;
    settle: Parameters<typeof executeAsOneStatement>[1][number] | undefined;
    idempotencyKey: string | undefined;
  }): Promise<{ ok: true; row: repo.NewDocument; artefacts: repo.ArtefactRow[] } | { ok: false; findings: Finding[] }> {
    const { id, companyId, company, identity, document, now } = input;
    const fechaHoraFirma = formatDgiiTimestamp(now);
    const owned = {
      eNCF: input.owned.eNCF,
      ...(input.owned.fechaVencimientoSecuencia === undefined
        ? {}
        : { fechaVencimientoSecuencia: input.owned.fechaVencimientoSecuencia }),
      fechaHoraFirma,
    };
    const built = buildEcf(document, owned);
    if (!built.ok) return built;
    // The values as the XML carries them (1430 sent as a number is written 1430.00): what the QR and reads show.
    const written = normaliseEcf(document, owned);
    if (!written.ok) throw new Error('a document that builds must normalise');
    const signed = await signCanonicalDocumentInBackground(built.xml, identity);
    const signatureValue = readSignatureValue(signed);
    if (signatureValue === undefined) throw new Error('a document signed by the fast path has no SignatureValue');
    const code = securityCode(signatureValue);
    const ecfType = String(textAt(written.document, ['Encabezado', 'IdDoc', 'TipoeCF']));
    const montoTotal = textAt(written.document, ['Encabezado', 'Totales', 'MontoTotal']) ?? '0.00';
    const rncComprador = textAt(written.document, ['Encabezado', 'Comprador', 'RNCComprador']);
    const fechaEmision = textAt(written.document, ['Encabezado', 'Emisor', 'FechaEmision']) ?? '';
    const row: repo.NewDocument = {
      id,
      company_id: companyId,
      environment,
      ecf_type: ecfType,
      encf: owned.eNCF,
      status: 'signed',
      origin: input.origin,
      fecha_emision: fechaEmision,
      issued_on: isoDateOfDgiiDate(fechaEmision) ?? null,
      rnc_comprador: rncComprador ?? null,
      monto_total: montoTotal,
      total_itbis: textAt(written.document, ['Encabezado', 'Totales', 'TotalITBIS']) ?? null,
      security_code: code,
      fecha_hora_firma: fechaHoraFirma,
      timbre_url: timbreUrl(environment, {
        TipoeCF: ecfType,
        RNCEmisor: company.rnc,
        RNCComprador: rncComprador,
        eNCF: owned.eNCF,
        FechaEmision: fechaEmision,
        MontoTotal: montoTotal,
        FechaHoraFirma: fechaHoraFirma,
        CodigoSeguridad: code,
      }),
      range_id: input.rangeId,
      warnings: input.warnings,
      created_at: now,
      updated_at: now,
    };
    const owner = { companyId, documentId: id, createdAt: now };
    const files = {
      'source-json': input.sourceJson,
      'source-xml': Buffer.from(built.xml),
      'signed-xml': Buffer.from(signed),
    };
    try {
      const artefacts = await archiveArtefacts(blobs, owner, files, now, true);
      const cause =
        input.origin === 'certification'
          ? `created from the certification set; its e-NCF ${owned.eNCF}, signed`
          : `created from JSON; e-NCF ${owned.eNCF} taken, signed`;
      // One statement: the document, its artefacts, its first event, the outbox event and the settled number commit
      // together in one round trip.
      await executeAsOneStatement(
        db,
        [
          ...(input.settle === undefined ? [] : [input.settle]),
          repo.insertDocumentStatement(db, row),
          ...(input.idempotencyKey === undefined
            ? []
            : [
                idempotentCreationStatement(db, {
                  companyId,
                  environment,
                  key: input.idempotencyKey,
                  documentId: id,
                  at: now,
                }),
              ]),
          repo.insertArtefactsStatement(db, artefacts),
          repo.insertEventStatement(db, { documentId: id, at: now, type: 'created', status: 'signed', cause }),
          ...domainEventInsertStatements(db, {
            companyId,
            environment,
            type: 'document.signed',
            payload: { documentId: id, eNCF: owned.eNCF, ecfType, status: 'signed' },
            occurredAt: now,
          }),
        ],
        { prepared: true },
      );
      return { ok: true, row, artefacts };
    } catch (error) {
      // No record will name what was written (all of it, some, or none): said so, or the archive verifier would
      // report each as an orphan.
      const why = error instanceof Error ? error.message : String(error);
      await abandonedWrites.record(artefactKeys(owner, files), `document ${id} was not stored: ${why}`);
      throw error;
    }
  }

  return {
    normalized: views.normalized,
    printable: views.printable,
    printableWithModel: views.printableWithModel,
    timeline: views.timeline,

    async create(companyId, body, idempotencyKey) {
      const now = clock.now();
      const issuer = await companies.issuer(companyId);
      if (issuer === undefined) return fail('company_not_found', `No company ${companyId}.`);
      const { company, identity } = issuer;
      const checked = checkDocument(body, company, now);
      if (!checked.composed) return fail('document_invalid', 'The e-CF is not valid.', fieldErrors(checked.findings));
      const document = checked.document;
      if (!checked.acceptable)
        return fail(
          'document_invalid',
          'The e-CF does not pass the fiscal rules or the model of its type.',
          fieldErrors(checked.findings.filter((finding) => finding.severity === 'error')),
        );
      const warnings = checked.findings
        .filter((finding) => finding.severity === 'warning')
        .map((finding) => ({ pointer: finding.pointer, code: finding.code, detail: finding.message }));
      if (identity === undefined)
        return fail(
          'certificate_missing',
          'Install the company certificate (.p12) before creating documents: every e-CF is signed with it.',
        );
      const ecfType = String(textAt(document, ['Encabezado', 'IdDoc', 'TipoeCF']));
      const sourceJson = Buffer.from(JSON.stringify(body));

      // The number is taken on its own, recorded as burned until the document is stored: the range's lock is held
      // for one statement, not for the signing and the archive writes, and if the process stops in between, the
      // number stays accounted for (its cause says why).
      const id = newId('doc');
      const taken = await sequences.takeNumber(
        companyId,
        ecfType,
        `document ${id} was being created when the work stopped`,
      );
      if (!taken.ok) return taken;
      const burn = (cause: string) =>
        transact(db, async (trx) => {
          await sequences.burnNumber(trx, companyId, taken.value, cause);
          return ok(undefined);
        });

      try {
        const recorded = await signAndRecord({
          id,
          companyId,
          company,
          identity,
          document,
          owned: { eNCF: taken.value.encf, fechaVencimientoSecuencia: taken.value.fechaVencimientoSecuencia },
          origin: 'json',
          rangeId: taken.value.rangeId,
          warnings,
          sourceJson,
          now,
          settle: sequences.settleNumberStatement(db, companyId, taken.value.encf),
          idempotencyKey,
        });
        if (!recorded.ok) {
          await burn(`document ${id} could not be written: ${recorded.findings[0]?.message ?? 'unknown'}`);
          return fail(
            'document_invalid',
            'The e-CF cannot be written as DGII requires.',
            fieldErrors(recorded.findings),
          );
        }
        return ok(view({ ...recorded.row, ...repo.notYetSent }, recorded.artefacts, undefined, undefined));
      } catch (error) {
        await burn(`creating document ${id} failed: ${error instanceof Error ? error.message : String(error)}`);
        throw error;
      }
    },

    async preview(companyId, body) {
      // The issuer read creation makes, kept for a moment: a console previews on every pause in typing.
      const issuer = await companies.issuer(companyId);
      if (issuer === undefined) return fail('company_not_found', `No company ${companyId}.`);
      return ok(previewOf(checkDocument(body, issuer.company, clock.now())));
    },

    async issueVerbatim(companyId, document, owned) {
      const issuer = await companies.issuer(companyId);
      if (issuer === undefined) return fail('company_not_found', `No company ${companyId}.`);
      if (issuer.identity === undefined)
        return fail('certificate_missing', 'Install the company certificate (.p12): every e-CF is signed with it.');
      const sourceJson = Buffer.from(JSON.stringify(document));
      // The e-NCF is the key, but only a document made from these very values is this one's.
      const same = async (existing: repo.DocumentRow): Promise<Result<{ id: string; created: boolean }>> => {
        const source =
          existing.origin === 'certification' ? await repo.findArtefact(db, existing.id, 'source-json', 1) : undefined;
        if (source?.sha256 === createHash('sha256').update(sourceJson).digest('hex'))
          return ok({ id: existing.id, created: false });
        return fail(
          'encf_already_used',
          `${owned.eNCF} is already the e-NCF of document ${existing.id}, made from other values: it cannot be this one.`,
        );
      };
      const existing = await repo.findByEncf(db, companyId, environment, owned.eNCF);
      if (existing !== undefined) return same(existing);
      const now = clock.now();
      const id = newId('doc');
      try {
        const recorded = await signAndRecord({
          id,
          companyId,
          company: issuer.company,
          identity: issuer.identity,
          document,
          owned,
          origin: 'certification',
          rangeId: null,
          warnings: [],
          sourceJson,
          now,
          settle: undefined,
          idempotencyKey: undefined,
        });
        if (!recorded.ok)
          return fail(
            'document_invalid',
            'The e-CF cannot be written as DGII requires.',
            fieldErrors(recorded.findings),
          );
        return ok({ id, created: true });
      } catch (error) {
        // Two workers issuing the same e-NCF: the unique (company, environment, e-NCF) lets one in; the other's is it.
        const winner = await repo.findByEncf(db, companyId, environment, owned.eNCF);
        if (winner !== undefined) return same(winner);
        throw error;
      }
    },

    async get(companyId, id) {
      const row = await repo.findDocument(db, companyId, environment, id);
      if (row === undefined) return fail('document_not_found', `No document ${id}.`);
      const [result] = await withArtefacts([row]);
      return result === undefined ? fail('document_not_found', `No document ${id}.`) : ok(result);
    },

    async list(companyId, query) {
      const after = startOf(query.cursor);
      if (!after.ok) return after;
      const days = issueDays(query.desde, query.hasta);
      if (!days.ok) return days;
      const limit = query.limit ?? pageLimits.default;
      const rows = await listDocuments(db, companyId, environment, {
        status: query.status as repo.DocumentRow['status'] | undefined,
        ecfType: query.ecfType,
        delivery: query.entrega as repo.DeliveryRow['status'] | undefined,
        encf: query.eNCF,
        rncComprador: query.rncComprador,
        issuedFrom: query.desde,
        issuedTo: query.hasta,
        limit,
        after: after.value,
      });
      const page = pageOf(rows, limit, (row) => row.created_at);
      return ok({ items: await withArtefacts(page.rows), nextCursor: page.nextCursor });
    },

    async keepArtefact(companyId, id, kind, bytes) {
      const document = await repo.findDocument(db, companyId, environment, id);
      if (document === undefined) throw new Error(`document ${id} is missing: its ${kind} has nowhere to be kept`);
      const kept = await repo.findArtefact(db, id, kind, 1);
      if (kept !== undefined) return this.archivedBytes(kept);
      const rows = await archiveArtefacts(
        blobs,
        { companyId, documentId: id, createdAt: document.created_at },
        { [kind]: bytes },
        clock.now(),
        false,
      );
      await repo
        .insertArtefactsStatement(db, rows)
        .onConflict((conflict) => conflict.columns(['document_id', 'kind', 'version']).doNothing())
        .execute();
      return bytes;
    },

    async artefact(companyId, id, kind, version) {
      const row = await repo.findDocument(db, companyId, environment, id);
      if (row === undefined) return fail('document_not_found', `No document ${id}.`);
      if (!(artefactKinds as readonly string[]).includes(kind))
        return fail('artefact_not_found', `No artefact ${kind}: one of ${artefactKinds.join(', ')}.`);
      const artefact = await repo.findArtefact(db, id, kind as ArtefactKind, version);
      if (artefact === undefined)
        return fail(
          'artefact_not_found',
          `Document ${id} has no ${kind}${version === undefined ? '' : ` version ${String(version)}`}.`,
        );
      const bytes = await this.archivedBytes(artefact);
      return ok({ bytes, contentType: artefact.content_type, sha256: artefact.sha256, version: artefact.version });
    },

    archivedBytes(stored) {
      return readArchived(blobs, stored);
    },
  };
}
