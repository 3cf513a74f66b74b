// Receiving in statements (DESIGN §5.3): the receiver's duplicate check and its record each serve a batch of
// receptions in ONE statement. What batching must not change: a copy of an e-CF already received, whether by an
// earlier statement or earlier in the same batch, is not recorded, and nothing of it (artefacts, timeline, outbox) is
// written.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import {
  receivedAlready,
  recordReceptions,
  type ReceivedRow,
  type ReceptionRecord,
} from '../src/modules/received/received.repo.js';
import { newId } from '../src/platform/ids.js';
import { nextRnc, startTestApp, type TestApp } from './support/test-app.js';

describe("the receiver's statements, a batch at a time", { timeout: 120_000 }, () => {
  let app: TestApp;
  let companyId: string;
  const db = () => app.application.database.db;
  const environment = () => app.config.fiscalEnv;

  before(async () => {
    app = await startTestApp();
    companyId = await app.provisionCompany({ rnc: nextRnc() });
  });
  after(() => app.close());

  function reception(encf: string, status: ReceivedRow['status']): ReceptionRecord {
    const id = newId('rcv');
    const now = new Date();
    const occurred = { companyId, environment: environment(), occurredAt: now };
    const named = { receivedDocumentId: id, issuerRnc: '130000006', eNCF: encf, ecfType: '31' };
    return {
      correlationId: `reception-${encf}`,
      row: {
        id,
        company_id: companyId,
        environment: environment(),
        issuer_rnc: '130000006',
        encf,
        ecf_type: '31',
        status,
        reason_code: status === 'received' ? null : '3',
        commercial_status: null,
        issuer_name: 'EMISOR',
        rnc_comprador: null,
        fecha_emision: '01-11-2026',
        monto_total: '118.00',
        total_itbis: '18.00',
        received_at: now,
        updated_at: now,
      },
      artefacts: (['received-xml', 'arecf-xml'] as const).map((kind) => ({
        received_document_id: id,
        kind,
        version: 1,
        blob_key: `received/${id}.${kind}`,
        sha256: '0'.repeat(64),
        size: 10,
        content_type: 'application/xml',
        created_at: now,
      })),
      event: { at: now, type: status, status, cause: `${encf} ${status}` },
      domainEvent:
        status === 'received'
          ? {
              ...occurred,
              type: 'received_document.received',
              payload: { ...named, status, codigoMotivoNoRecibido: null },
            }
          : {
              ...occurred,
              type: 'received_document.not_received',
              payload: { ...named, status, codigoMotivoNoRecibido: '3' },
            },
    };
  }

  async function written(id: string): Promise<[number, number, number, number]> {
    const count = async (query: Promise<unknown[]>) => (await query).length;
    return [
      await count(db().selectFrom('received_documents').select('id').where('id', '=', id).execute()),
      await count(
        db().selectFrom('received_artefacts').select('kind').where('received_document_id', '=', id).execute(),
      ),
      await count(
        db().selectFrom('received_document_events').select('id').where('received_document_id', '=', id).execute(),
      ),
      await count(
        sql<{ id: string }>`select id from domain_events where payload->>'receivedDocumentId' = ${id}`
          .execute(db())
          .then((result) => result.rows),
      ),
    ];
  }

  it('records a batch whole, and of two copies of one e-CF received in it only the first', async () => {
    const [first, copy, refused, other] = [
      reception('E310000000001', 'received'),
      reception('E310000000001', 'received'),
      reception('E310000000001', 'not_received'),
      reception('E310000000002', 'received'),
    ];
    assert.deepEqual(await recordReceptions(db(), [first, copy, refused, other]), [true, false, true, true]);
    assert.deepEqual(await written(first.row.id), [1, 2, 1, 1]);
    assert.deepEqual(await written(copy.row.id), [0, 0, 0, 0]);
    assert.deepEqual(await written(refused.row.id), [1, 2, 1, 1]);
    assert.deepEqual(await written(other.row.id), [1, 2, 1, 1]);
  });

  it('refuses in a later batch a copy of an e-CF received in an earlier one, and answers which keys were received', async () => {
    const late = reception('E310000000002', 'received');
    assert.deepEqual(await recordReceptions(db(), [late, reception('E310000000003', 'received')]), [false, true]);
    assert.deepEqual(await written(late.row.id), [0, 0, 0, 0]);
    const key = (encf: string, issuerRnc = '130000006') => ({ companyId, environment: environment(), issuerRnc, encf });
    // E310000000004 was never sent; E310000000001 from another issuer is another e-CF.
    assert.deepEqual(
      await receivedAlready(db(), [
        key('E310000000003'),
        key('E310000000004'),
        key('E310000000001'),
        key('E310000000001', '101000001'),
      ]),
      [true, false, true, false],
    );
  });
});
