// Annulment of unused e-NCF (SPEC §4.4; FANECF): the request is checked against the company's ranges and
// accounting, its numbers are held at once (burned ones claimed, a range's unissued tail withdrawn from handing
// out), an ANECF is built and signed, and the outbound work engine sends it to DGII (annulment-sending.ts). DGII's
// answer moves the request to accepted (the numbers count as annulled), rejected (the numbers are given back) or
// failed (DGII could not be reached; reintentar sends the same signed ANECF again).
import type { FiscalEnvironment } from '../../config.js';
import { formatDgiiTimestamp } from '../../fiscal/dates.js';
import { buildAnecf, type AnnulmentLine } from '../../fiscal/responses/anecf.js';
import { signXml, type SigningKey } from '../../fiscal/xmldsig/index.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import { transact, type Trx } from '../../platform/db/transact.js';
import { newId } from '../../platform/ids.js';
import { pageLimits, pageOf, startOf } from '../../platform/paging.js';
import { fail, ok, type FieldError, type Result } from '../../platform/result.js';
import type { BlobStore } from '../../platform/storage/index.js';
import { anecfCapacityErrors } from './annulment-limits.js';
import * as repo from './annulments.repo.js';
import type { AnnulmentView, BurnedSpan, RequestAnnulment } from './annulments.schema.js';
import type { IssuedDocuments } from './issued-documents.js';
import { encfOf, sequenceOf } from './numbers.js';
import type { RangeRow } from './sequences.repo.js';
import type { SequencesTables } from './tables.js';

export interface AnnulmentIssuer {
  rnc: string;
  identity: SigningKey | undefined;
}

export interface AnnulmentsService {
  request(companyId: string, body: RequestAnnulment): Promise<Result<AnnulmentView>>;
  list(
    companyId: string,
    query: { limit?: number | undefined; cursor?: string | undefined },
  ): Promise<Result<{ items: AnnulmentView[]; nextCursor: string | null }>>;
  get(companyId: string, id: string): Promise<Result<AnnulmentView>>;
  burned(companyId: string): Promise<BurnedSpan[]>;
  retry(companyId: string, id: string): Promise<Result<AnnulmentView>>;
}

/** Queues an annulment's ANECF to be sent now, inside the transaction that asked for it. */
export type ScheduleAnnulment = (trx: Trx<SequencesTables>, annulmentId: string) => Promise<void>;

function view(row: repo.AnnulmentRow, spans: readonly repo.SpanRow[]): AnnulmentView {
  return {
    id: row.id,
    status: row.status,
    total: row.total,
    spans: spans.map((span) => ({
      ecfType: span.ecf_type,
      from: encfOf(span.ecf_type, span.first_number),
      to: encfOf(span.ecf_type, span.last_number),
      count: span.last_number - span.first_number + 1,
      kind: span.kind,
    })),
    attempts: row.attempts,
    dgii: { estado: row.dgii_estado, codigo: row.dgii_codigo, mensajes: row.dgii_messages },
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function createAnnulmentsService(deps: {
  db: Db<SequencesTables>;
  clock: Clock;
  environment: FiscalEnvironment;
  blobs: BlobStore;
  issuer: (companyId: string) => Promise<AnnulmentIssuer | undefined>;
  /** Whether a number numbers a document (documents' table, passed in: sequences.module.ts). */
  issued: IssuedDocuments;
  schedule: ScheduleAnnulment;
  /** An annulment was queued and committed: this process's sender may take it at once. */
  queued?: () => void;
}): AnnulmentsService {
  const { db, clock, environment, blobs, issuer, issued, schedule } = deps;
  const queued = deps.queued ?? (() => undefined);

  async function withSpans(rows: repo.AnnulmentRow[]): Promise<AnnulmentView[]> {
    const spans = await repo.spansOf(
      db,
      rows.map((row) => row.id),
    );
    return rows.map((row) =>
      view(
        row,
        spans.filter((span) => span.annulment_id === row.id),
      ),
    );
  }

  /** Checks every span and holds its numbers for the annulment; the errors, with pointers, when any span fails. */
  async function hold(
    trx: Trx<SequencesTables>,
    companyId: string,
    annulmentId: string,
    body: RequestAnnulment,
  ): Promise<Result<repo.SpanRow[]>> {
    const errors: FieldError[] = [];
    const spans: repo.SpanRow[] = [];
    const rangesByType = new Map<string, RangeRow[]>();
    const beyond = anecfCapacityErrors(body);
    if (beyond.length > 0) return fail('annulment_invalid', 'One ANECF cannot carry these ranges.', beyond);
    const types = [...new Set(body.ranges.map((span) => span.ecfType))].sort();
    for (const type of types) rangesByType.set(type, await repo.lockRangesOf(trx, companyId, environment, type));

    for (const [index, span] of body.ranges.entries()) {
      const pointer = `/ranges/${String(index)}`;
      const refuse = (code: string, detail: string) => errors.push({ pointer, in: 'body', code, detail });
      if (span.from.slice(1, 3) !== span.ecfType || span.to.slice(1, 3) !== span.ecfType) {
        refuse('type_mismatch', `${span.from}..${span.to} are not e-NCF of type ${span.ecfType}.`);
        continue;
      }
      const first = sequenceOf(span.from);
      const last = sequenceOf(span.to);
      if (last < first) {
        refuse('descending', `${span.to} comes before ${span.from}.`);
        continue;
      }
      const range = rangesByType
        .get(span.ecfType)
        ?.find((candidate) => candidate.first_number <= first && last <= candidate.last_number);
      if (range === undefined) {
        refuse(
          'foreign_range',
          `${span.from}..${span.to} is not inside one of the company's registered ranges of type ${span.ecfType}.`,
        );
        continue;
      }
      const issuedLast = Math.min(last, range.next_number - 1);
      if (first <= issuedLast) {
        const from = encfOf(span.ecfType, first);
        const to = encfOf(span.ecfType, issuedLast);
        const used = await issued.firstNumberedIn(trx, companyId, environment, from, to);
        if (used !== undefined) {
          refuse('number_used', `${used.encf} numbers a document: used numbers cannot be annulled.`);
          continue;
        }
        const block = await repo.activeBlockOverlapping(trx, range.id, first, issuedLast);
        if (block !== undefined) {
          refuse(
            'inside_allocation',
            `${span.from}..${span.to} overlaps the active offline block ${block.id} (${encfOf(span.ecfType, block.first_number)}–${encfOf(span.ecfType, block.last_number)}): cancel the block first; its unused numbers then become burned.`,
          );
          continue;
        }
        const burned = await repo.burnedIn(trx, companyId, environment, from, to);
        const held = burned.find((row) => row.annulment_id !== null);
        if (held !== undefined) {
          refuse('already_requested', `${held.encf} is already in annulment ${held.annulment_id ?? ''}.`);
          continue;
        }
        if (burned.length !== issuedLast - first + 1) {
          const burnedSet = new Set(burned.map((row) => row.encf));
          let missing = first;
          while (missing <= issuedLast && burnedSet.has(encfOf(span.ecfType, missing))) missing++;
          refuse(
            'number_used',
            `${encfOf(span.ecfType, missing)} was handed out and is not burned (a device's offline block reported it, or a document is being created with it): only unused numbers can be annulled.`,
          );
          continue;
        }
        await repo.claimBurned(trx, companyId, environment, from, to, annulmentId);
        spans.push({
          annulment_id: annulmentId,
          range_id: range.id,
          ecf_type: span.ecfType,
          first_number: first,
          last_number: issuedLast,
          kind: 'burned',
        });
      }
      if (last >= range.next_number) {
        // Numbers are handed out in order, so only the whole rest of a range can be withdrawn from handing out.
        if (last !== range.last_number || first > range.next_number) {
          refuse(
            'not_a_tail',
            `Numbers never handed out can be annulled only as the whole rest of their range: ${encfOf(span.ecfType, range.next_number)}..${encfOf(span.ecfType, range.last_number)}.`,
          );
          continue;
        }
        const tailFirst = range.next_number;
        if (!(await repo.withdrawTail(trx, range.id, tailFirst))) {
          refuse('range_changed', `${span.from}..${span.to}: numbers of the range were taken meanwhile; ask again.`);
          continue;
        }
        range.next_number = range.last_number + 1;
        spans.push({
          annulment_id: annulmentId,
          range_id: range.id,
          ecf_type: span.ecfType,
          first_number: tailFirst,
          last_number: last,
          kind: 'unissued',
        });
      }
    }
    if (errors.length > 0) return fail('annulment_invalid', 'Some numbers cannot be annulled.', errors);
    const overlapping = spans
      .slice()
      .sort((a, b) => a.ecf_type.localeCompare(b.ecf_type) || a.first_number - b.first_number)
      .find(
        (span, i, sorted) =>
          i > 0 && sorted[i - 1]?.ecf_type === span.ecf_type && (sorted[i - 1]?.last_number ?? 0) >= span.first_number,
      );
    if (overlapping !== undefined)
      return fail('annulment_invalid', 'The spans overlap.', [
        {
          pointer: '/ranges',
          in: 'body',
          code: 'overlapping',
          detail: `${encfOf(overlapping.ecf_type, overlapping.first_number)} is in two spans.`,
        },
      ]);
    return ok(spans);
  }

  return {
    async request(companyId, body) {
      const signer = await issuer(companyId);
      if (signer === undefined) return fail('company_not_found', `No company ${companyId}.`);
      const identity = signer.identity;
      if (identity === undefined)
        return fail(
          'certificate_missing',
          'Install the company certificate (.p12) first: the ANECF is signed with it.',
        );
      const id = newId('anl');
      const created = await transact(db, async (trx) => {
        const held = await hold(trx, companyId, id, body);
        if (!held.ok) return held;
        const spans = held.value;
        const lines: AnnulmentLine[] = [...new Set(spans.map((span) => span.ecf_type))].sort().map((type) => ({
          TipoeCF: type,
          ranges: spans
            .filter((span) => span.ecf_type === type)
            .sort((a, b) => a.first_number - b.first_number)
            .map((span) => ({
              SecuenciaeNCFDesde: encfOf(type, span.first_number),
              SecuenciaeNCFHasta: encfOf(type, span.last_number),
            })),
        }));
        const now = clock.now();
        const built = buildAnecf({ RncEmisor: signer.rnc, FechaHoraAnulacioneNCF: formatDgiiTimestamp(now), lines });
        if (!built.ok)
          return fail(
            'annulment_invalid',
            'The ANECF cannot be written.',
            built.findings.map((finding) => ({
              pointer: '/ranges',
              in: 'body',
              code: finding.code,
              detail: finding.message,
            })),
          );
        // Signed once and archived: a retry sends these same bytes.
        const key = `annulments/${companyId}/${id}/anecf.v1.xml`;
        const stored = await blobs.put(key, Buffer.from(signXml(built.xml, identity)), {
          contentType: 'application/xml',
        });
        const row: Omit<repo.AnnulmentRow, 'attempts' | 'dgii_messages'> = {
          id,
          company_id: companyId,
          environment,
          status: 'pending',
          total: Number(built.total),
          blob_key: key,
          sha256: stored.sha256,
          size: stored.size,
          dgii_estado: null,
          dgii_codigo: null,
          created_at: now,
          updated_at: now,
          final_at: null,
        };
        await repo.insertAnnulment(trx, row, spans);
        await schedule(trx, id);
        return ok(view({ ...row, attempts: 0, dgii_messages: [] }, spans));
      });
      if (created.ok) queued();
      return created;
    },

    async list(companyId, query) {
      const after = startOf(query.cursor);
      if (!after.ok) return after;
      const limit = query.limit ?? pageLimits.default;
      const rows = await repo.listAnnulments(db, companyId, environment, { limit, after: after.value });
      const page = pageOf(rows, limit, (row) => row.created_at);
      return ok({ items: await withSpans(page.rows), nextCursor: page.nextCursor });
    },

    async get(companyId, id) {
      const row = await repo.findAnnulment(db, companyId, environment, id);
      if (row === undefined) return fail('annulment_not_found', `No annulment ${id}.`);
      const [found] = await withSpans([row]);
      return found === undefined ? fail('annulment_not_found', `No annulment ${id}.`) : ok(found);
    },

    async burned(companyId) {
      const spans: BurnedSpan[] = [];
      let open: (BurnedSpan & { last: number }) | undefined;
      for (const row of await repo.awaitingAnnulment(db, companyId, environment)) {
        const type = row.encf.slice(1, 3);
        const sequence = sequenceOf(row.encf);
        if (open?.ecfType === type && open.last + 1 === sequence) {
          open.last = sequence;
          open.to = row.encf;
          open.count++;
          if (open.causes.length < 5 && !open.causes.includes(row.cause)) open.causes.push(row.cause);
          continue;
        }
        if (open !== undefined)
          spans.push({ ecfType: open.ecfType, from: open.from, to: open.to, count: open.count, causes: open.causes });
        open = { ecfType: type, from: row.encf, to: row.encf, count: 1, causes: [row.cause], last: sequence };
      }
      if (open !== undefined)
        spans.push({ ecfType: open.ecfType, from: open.from, to: open.to, count: open.count, causes: open.causes });
      return spans;
    },

    async retry(companyId, id) {
      const retried = await transact(db, async (trx) => {
        const row = await repo.lockAnnulment(trx, id);
        if (row?.company_id !== companyId || row.environment !== environment)
          return fail('annulment_not_found', `No annulment ${id}.`);
        if (row.status !== 'failed')
          return fail(
            'annulment_not_retryable',
            `Annulment ${id} is ${row.status}: only a failed request (DGII could not be reached) is retried; a rejected one gave its numbers back — request them again.`,
          );
        await repo.updateAnnulment(trx, id, { status: 'pending', attempts: 0, updated_at: clock.now() });
        await schedule(trx, id);
        return ok(undefined);
      });
      if (!retried.ok) return retried;
      queued();
      return this.get(companyId, id);
    },
  };
}
