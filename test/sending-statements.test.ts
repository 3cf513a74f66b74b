// Sending in statements (DESIGN §5.2): each common step of the sending pipeline is ONE statement (no BEGIN/COMMIT),
// and its conditions are in the statement, so a worker whose lease passed or a stale poll changes nothing. Driven
// through delivery (with a DGII that answers what each case needs) against the app's database; no worker runs. Sends
// and polls wait in the outbound work queue (platform/work): a document set in a waiting state here is queued too.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql, type KyselyPlugin, type Updateable } from 'kysely';
import type { DgiiClient, ResultOutcome, SendEcfOutcome } from '../src/dgii/index.js';
import {
  createDelivery,
  deliveryPolicy,
  documentPolls,
  documentSends,
  type Delivery,
  type DeliveryPolicy,
} from '../src/modules/sending/index.js';
import {
  changeDocumentsIf,
  claimForSending,
  pendingCounts,
  type DocumentChange,
} from '../src/modules/documents/index.js';
import type { ClaimTerms } from '../src/platform/work/outbound-work.repo.js';
import { parseConfig } from '../src/config.js';
import { systemClock } from '../src/platform/clock.js';
import type { DocumentsTable } from '../src/modules/documents/tables.js';
import { ecfDocuments } from './support/ecf-documents.js';
import { startSendingWorld, type SendingWorld } from './support/sending-kit.js';

describe('the sending pipeline, a statement per step', { timeout: 300_000 }, () => {
  let world: SendingWorld;
  const db = () => world.app.application.database.db;

  before(async () => {
    world = await startSendingWorld({ roles: { http: true, work: false, schedule: false } });
  });
  after(() => world.close());

  /**
   * Statements delivery runs through its own database handle, counted as their results come back (a transaction's
   * BEGIN and COMMIT are not counted, its statements are).
   */
  let statements = 0;
  const counting: KyselyPlugin = {
    transformQuery: (args) => args.node,
    transformResult: (args) => {
      statements++;
      return Promise.resolve(args.result);
    },
  };

  function deliveryWith(dgii: Partial<DgiiClient>, policy: Partial<DeliveryPolicy> = {}): Delivery {
    const services = world.app.application.services;
    const answers: Partial<DgiiClient> = { serviceStatus: () => Promise.resolve({ kind: 'no_credentials' }), ...dgii };
    return createDelivery({
      db: db().withPlugin(counting),
      clock: systemClock,
      log: world.app.application.log,
      environment: world.app.config.fiscalEnv,
      dgii: answers as DgiiClient,
      companies: services.companies,
      documents: services.documents,
      policy: { ...deliveryPolicy(parseConfig({})), ...policy },
    });
  }

  /** A document of `type` changed as given; one waiting to be sent or polled is queued for it, due now or `queue`. */
  async function documentIn(
    type: '31' | '32',
    change: Updateable<DocumentsTable>,
    queue: { dueAt?: Date; leaseId?: string } = {},
  ): Promise<string> {
    const created = await world.create(ecfDocuments[type]);
    if (Object.keys(change).length > 0)
      await db().updateTable('documents').set(change).where('id', '=', created.id).execute();
    const target =
      change.status === 'queued' || change.status === 'sending'
        ? documentSends
        : change.status === 'in_process'
          ? documentPolls
          : undefined;
    if (target !== undefined) {
      const environment = typeof change.environment === 'string' ? change.environment : world.app.config.fiscalEnv;
      await db()
        .insertInto('outbound_work')
        .values({
          target,
          item_id: created.id,
          environment,
          due_at: queue.dueAt ?? new Date(),
          lease_id: queue.leaseId ?? null,
          attempts: 0,
        })
        .execute();
    }
    return created.id;
  }
  const queueRow = (target: string, id: string) =>
    db()
      .selectFrom('outbound_work')
      .selectAll()
      .where('target', '=', target)
      .where('item_id', '=', id)
      .executeTakeFirst();
  const row = (id: string) => db().selectFrom('documents').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const events = async (id: string) =>
    (
      await db()
        .selectFrom('document_events')
        .select(['type', 'status', 'cause'])
        .where('document_id', '=', id)
        .orderBy('id')
        .execute()
    ).slice(1);
  const domainEvents = async (id: string) =>
    (
      await sql<{
        type: string;
      }>`select type from domain_events where payload->>'documentId' = ${id} order by occurred_at, id`.execute(db())
    ).rows.map((event) => event.type);
  const openFailedJobs = async (id: string) =>
    (
      await db()
        .selectFrom('failed_jobs')
        .select('id')
        .where('document_id', '=', id)
        .where('closed_at', 'is', null)
        .execute()
    ).length;

  const accepted: ResultOutcome = {
    kind: 'accepted',
    estado: 'Aceptado',
    codigo: '1',
    messages: [],
    secuenciaUtilizada: undefined,
    trackId: 'track-1',
    encf: null,
    rnc: null,
    receivedAt: null,
  };

  it('claims a queued document and records its trackId in one statement each', async () => {
    const id = await documentIn('31', { status: 'queued' });
    const onSend: { status: string; leased: boolean }[] = [];
    const delivery = deliveryWith({
      sendEcf: async (): Promise<SendEcfOutcome> => {
        const held = await row(id);
        onSend.push({ status: held.status, leased: held.send_lease_id !== null });
        return { kind: 'received', trackId: 'track-1' };
      },
    });
    statements = 0;
    await delivery.attempt(id);
    assert.equal(statements, 2, 'the claim, then the trackId');
    assert.deepEqual(
      onSend,
      [{ status: 'sending', leased: true }],
      'marked sending, under a lease, before the bytes leave',
    );
    const done = await row(id);
    assert.equal(done.status, 'in_process');
    assert.equal(done.track_id, 'track-1');
    assert.equal(done.send_route, 'reception');
    assert.equal(done.send_lease_id, null);
    assert.equal(done.poll_count, 0);
    assert.ok(done.sent_at !== null && done.next_poll_at !== null);
    assert.equal(await queueRow(documentSends, id), undefined, 'its send settled in the same statement');
    assert.deepEqual(
      (await queueRow(documentPolls, id))?.due_at,
      done.next_poll_at,
      'its first poll queued in the same statement',
    );
    assert.deepEqual(await events(id), [
      { type: 'dgii.sending', status: 'sending', cause: 'attempt 1: sending to DGII reception' },
      { type: 'dgii.received', status: 'in_process', cause: 'DGII received it: trackId track-1' },
    ]);
  });

  it('records nothing when the lease passed to another worker while DGII answered', async () => {
    const id = await documentIn('31', { status: 'queued' });
    const delivery = deliveryWith({
      sendEcf: async (): Promise<SendEcfOutcome> => {
        await db().updateTable('documents').set({ send_lease_id: 'lse_another' }).where('id', '=', id).execute();
        return { kind: 'received', trackId: 'track-2' };
      },
    });
    await delivery.attempt(id);
    const after = await row(id);
    assert.equal(after.status, 'sending');
    assert.equal(after.track_id, null);
    assert.equal(after.send_lease_id, 'lse_another');
    assert.deepEqual(
      (await events(id)).map((event) => event.type),
      ['dgii.sending'],
    );
  });

  it('records an error of its own while sending as an uncertain attempt: counted, in the timeline, a failed job once attempts run out', async () => {
    const id = await documentIn('31', { status: 'queued' });
    const delivery = deliveryWith(
      {
        sendEcf: () => Promise.reject(new Error('the archive went away')),
        trackIds: () => Promise.resolve({ kind: 'not_found' }),
        statusByEncf: () => Promise.resolve({ kind: 'not_found' }),
      },
      { maxAttempts: 2, uncertainSettleMs: 0, retryDelayMs: 0 },
    );
    await delivery.attempt(id);
    const first = await row(id);
    assert.deepEqual([first.status, first.send_attempts, first.send_lease_id], ['sending', 1, null]);
    assert.deepEqual((await events(id)).at(-1), {
      type: 'dgii.uncertain',
      status: 'sending',
      cause:
        'DGII may have it (an error of this service: the archive went away); it is asked about the e-NCF before anything is sent again',
    });
    assert.equal(await openFailedJobs(id), 0);

    // Taken up again: DGII is asked first (it has nothing), the resend fails the same way, and attempts have run out.
    await db()
      .updateTable('documents')
      .set({ send_lease_until: new Date(Date.now() - 1_000), send_due_at: new Date(Date.now() - 1_000) })
      .where('id', '=', id)
      .execute();
    await delivery.attempt(id);
    const second = await row(id);
    assert.deepEqual([second.status, second.send_attempts], ['sending', 2]);
    assert.equal(await openFailedJobs(id), 1);
  });

  const terms = (leaseId: string, which: ClaimTerms['which']): ClaimTerms => ({
    target: documentSends,
    environment: world.app.config.fiscalEnv,
    now: new Date(),
    leaseId,
    leaseUntil: new Date(Date.now() + 60_000),
    which,
  });

  it('claims once: a second claim while the lease runs takes nothing, and the send falls due when the lease runs out', async () => {
    const id = await documentIn('31', { status: 'queued' });
    const [first] = await claimForSending(db(), terms('lse_first', { itemId: id }), '250000');
    assert.equal(first?.row?.previous_status, 'queued');
    assert.equal(first.attempts, 1);
    assert.ok(first.row.send_lease_until !== null);
    assert.deepEqual(
      (await queueRow(documentSends, id))?.due_at,
      first.row.send_lease_until,
      "a dead worker's document falls due when its lease runs out",
    );
    assert.deepEqual(await claimForSending(db(), terms('lse_second', { itemId: id }), '250000'), []);
    assert.ok(
      !(await claimForSending(db(), terms('lse_second', { limit: 1_000 }), '250000')).some(
        (claimed) => claimed.itemId === id,
      ),
    );
    await deliveryWith({}).attempt(id); // asked now while held: nothing happens
    assert.equal((await row(id)).send_lease_id, 'lse_first');
    assert.equal((await events(id)).length, 1);

    // Once the lease ran out, the document in `sending` is taken up, to ask DGII before sending anything.
    await db()
      .updateTable('outbound_work')
      .set({ due_at: new Date(Date.now() - 1_000) })
      .where('item_id', '=', id)
      .execute();
    const again = (await claimForSending(db(), terms('lse_third', { limit: 1_000 }), '250000')).find(
      (claimed) => claimed.itemId === id,
    );
    assert.equal(again?.row?.previous_status, 'sending');
    assert.equal(again.row.send_lease_id, 'lse_third');
    assert.equal(again.attempts, 2);
    assert.equal(
      (await events(id)).at(-1)?.cause,
      'DGII may already have it: asking about the e-NCF before anything is sent',
    );
  });

  it('claims the documents whose send is due in one statement, not those due later nor those a running lease holds', async () => {
    const past = new Date(Date.now() - 1_000);
    const due = [
      await documentIn('31', { status: 'queued' }, { dueAt: past }),
      await documentIn('31', { status: 'sending' }, { dueAt: past }),
    ];
    const later = await documentIn('31', { status: 'queued' }, { dueAt: new Date(Date.now() + 60_000) });
    const held = await documentIn(
      '31',
      { status: 'sending', send_lease_id: 'lse_held' },
      { dueAt: new Date(Date.now() + 60_000), leaseId: 'lse_held' },
    );
    statements = 0;
    const claimed = await claimForSending(db().withPlugin(counting), terms('lse_batch', { limit: 1_000 }), '250000');
    assert.equal(statements, 1);
    const ids = claimed.map((one) => one.itemId);
    assert.deepEqual(
      due.filter((id) => ids.includes(id)),
      due,
    );
    for (const id of [later, held]) assert.ok(!ids.includes(id), `claimed ${id}`);
    const taken = claimed
      .filter((one) => due.includes(one.itemId))
      .sort((a, b) => (a.row?.previous_status ?? '').localeCompare(b.row?.previous_status ?? ''));
    assert.deepEqual(
      taken.map(({ row: one }) => [
        one?.previous_status,
        one?.status,
        one?.send_lease_id,
        one?.signed_xml_blob_key !== null,
      ]),
      [
        ['queued', 'sending', 'lse_batch', true],
        ['sending', 'sending', 'lse_batch', true],
      ],
    );
    assert.equal((await row(held)).send_lease_id, 'lse_held');
  });

  it('claims no document that is not queued or sending: its queue row comes back alone, and the engine drops it', async () => {
    const id = await documentIn('31', {});
    await db()
      .insertInto('outbound_work')
      .values({
        target: documentSends,
        item_id: id,
        environment: world.app.config.fiscalEnv,
        due_at: new Date(),
        lease_id: null,
        attempts: 0,
        correlation_id: 'corr-not-sendable',
      })
      .execute();
    assert.deepEqual(await claimForSending(db(), terms('lse_x', { itemId: id }), '250000'), [
      { itemId: id, attempts: 1, correlationId: 'corr-not-sendable', row: undefined },
    ]);
    const after = await row(id);
    assert.equal(after.status, 'signed');
    assert.equal(after.send_route, null);
    assert.deepEqual(await events(id), []);
    await db().updateTable('outbound_work').set({ lease_id: null }).where('item_id', '=', id).execute();
    await deliveryWith({}).attempt(id);
    assert.equal(await queueRow(documentSends, id), undefined);
    assert.equal((await row(id)).status, 'signed');
  });

  it('routes a type 32 under DOP 250,000 as an RFCE, and from 250,000 to reception', async () => {
    const claim = async (montoTotal: string) => {
      const id = await documentIn('32', { status: 'queued', monto_total: montoTotal });
      return (await claimForSending(db(), terms('lse_route', { itemId: id }), '250000'))[0]?.row;
    };
    const under = await claim('249999.99');
    assert.equal(under?.send_route, 'rfce');
    assert.equal((await events(under.id)).at(-1)?.cause, 'attempt 1: sending to DGII as an RFCE');
    assert.equal((await claim('250000.00'))?.send_route, 'reception');
  });

  it('records a verdict from a poll in one statement after its claim, with its event, domain event and failed jobs closed', async () => {
    const id = await documentIn('31', {
      status: 'in_process',
      track_id: 'track-1',
      poll_count: 2,
      send_route: 'reception',
    });
    await db()
      .insertInto('failed_jobs')
      .values({
        id: `fjb_${id}`,
        company_id: world.companyId,
        environment: world.app.config.fiscalEnv,
        kind: 'document.send',
        document_id: id,
        reason: 'test',
        attempts: 8,
        opened_at: new Date(),
        closed_at: null,
        closed_because: null,
      })
      .execute();
    const delivery = deliveryWith({ result: () => Promise.resolve(accepted) });
    statements = 0;
    await delivery.pollNow(id);
    assert.equal(statements, 2, 'the claim, then the verdict');
    assert.equal(await queueRow(documentPolls, id), undefined, 'its poll settled with the verdict');
    const done = await row(id);
    assert.equal(done.status, 'accepted');
    assert.equal(done.dgii_estado, 'Aceptado');
    assert.equal(done.secuencia_utilizada, true);
    assert.ok(done.final_at !== null);
    assert.equal(done.next_poll_at, null);
    assert.deepEqual(await events(id), [
      { type: 'dgii.accepted', status: 'accepted', cause: "DGII's verdict for trackId track-1: Aceptado" },
    ]);
    assert.deepEqual(await domainEvents(id), ['document.signed', 'document.accepted']);
    assert.equal(await openFailedJobs(id), 0);
    const payload = (
      await sql<{
        payload: Record<string, unknown>;
      }>`select payload from domain_events where type = 'document.accepted' and payload->>'documentId' = ${id}`.execute(
        db(),
      )
    ).rows[0]?.payload;
    assert.deepEqual(payload, {
      documentId: id,
      eNCF: done.encf,
      ecfType: '31',
      status: 'accepted',
      estado: 'Aceptado',
      mensajes: [],
    });
  });

  it('changes nothing on a stale poll: another trackId, a document moved on, or a poll recorded since', async () => {
    const id = await documentIn('31', {
      status: 'in_process',
      track_id: 'track-new',
      poll_count: 1,
      send_route: 'reception',
    });
    const seen = await row(id);
    const release = () =>
      db().updateTable('outbound_work').set({ lease_id: null, due_at: new Date() }).where('item_id', '=', id).execute();
    /** A poll of the document as it was claimed, changed by `stale`. */
    const pollAs = async (delivery: Delivery, stale: (claimed: typeof seen) => typeof seen) => {
      const [claimed] = await delivery.polls.claimNow(id);
      assert.ok(claimed !== undefined, 'claimed');
      await delivery.polls.work({ ...claimed, item: stale(claimed.item) });
    };
    const verdict = deliveryWith({ result: () => Promise.resolve(accepted) });
    await pollAs(verdict, (claimed) => ({ ...claimed, track_id: 'track-old' }));
    await release();
    const waiting = deliveryWith({ result: () => Promise.resolve({ kind: 'in_process', trackId: 'track-new' }) });
    await pollAs(waiting, (claimed) => ({ ...claimed, poll_count: 0 }));
    const unchanged = await row(id);
    assert.equal(unchanged.status, 'in_process');
    assert.equal(unchanged.poll_count, 1);
    assert.deepEqual(unchanged.updated_at, seen.updated_at);
    assert.deepEqual(await events(id), []);
    assert.deepEqual(await domainEvents(id), ['document.signed']);

    // As seen, a poll is counted and the next question pushed back.
    await waiting.pollNow(id);
    const counted = await row(id);
    assert.equal(counted.poll_count, 2);
    assert.ok(counted.next_poll_at !== null && counted.next_poll_at > new Date());
    const queued = await queueRow(documentPolls, id);
    assert.deepEqual([queued?.due_at, queued?.lease_id, queued?.attempts], [counted.next_poll_at, null, 0]);

    // Moved on meanwhile: the poll's claim finds nothing to ask about, and its queue row goes.
    await db().updateTable('documents').set({ status: 'accepted' }).where('id', '=', id).execute();
    await verdict.pollNow(id);
    assert.deepEqual(await events(id), []);
    assert.deepEqual(await domainEvents(id), ['document.signed']);
    assert.equal(await queueRow(documentPolls, id), undefined);
  });

  it('queues with enviar: the state, its event, the outbox event, and its send due at once', async () => {
    const created = await world.create(ecfDocuments['31']);
    await world.send(created.id);
    const queued = await row(created.id);
    assert.equal(queued.status, 'queued');
    assert.equal(queued.send_route, null); // the route is fixed when a worker first takes it
    assert.deepEqual(await events(created.id), [
      { type: 'queued', status: 'queued', cause: 'queued for DGII (POST enviar)' },
    ]);
    assert.deepEqual(await domainEvents(created.id), ['document.signed', 'document.queued']);
    const work = await queueRow(documentSends, created.id);
    assert.ok(
      work !== undefined && work.due_at <= new Date() && work.lease_id === null && work.attempts === 0,
      `queued as ${JSON.stringify(work)}`,
    );
  });

  it('counts the documents on their way to DGII per status, in its own environment only (the health view)', async () => {
    const environment = world.app.config.fiscalEnv;
    const counts = async () =>
      Object.fromEntries(
        (await pendingCounts(db(), environment, [documentSends, documentPolls])).map((pending) => [
          pending.status,
          pending.count,
        ]),
      );
    const before = await counts();
    await documentIn('31', { status: 'queued' });
    await documentIn('31', { status: 'sending' });
    await documentIn('31', { status: 'in_process' });
    await documentIn('31', { status: 'in_process' });
    await documentIn('31', { status: 'accepted' });
    await documentIn('31', { status: 'queued', environment: environment === 'TEST' ? 'CERT' : 'TEST' });
    const after = await counts();
    const grown = (status: string) => (after[status] ?? 0) - (before[status] ?? 0);
    assert.deepEqual(
      { queued: grown('queued'), sending: grown('sending'), in_process: grown('in_process') },
      { queued: 1, sending: 1, in_process: 2 },
    );
    assert.ok(
      Object.keys(after).every((status) => ['queued', 'sending', 'in_process'].includes(status)),
      `counted ${JSON.stringify(after)}`,
    );
    for (const count of Object.values(after)) assert.equal(typeof count, 'number');
  });

  it('records the answers of documents in flight together: one statement for many, each only where its condition holds', async () => {
    const ids = await Promise.all(
      [1, 2, 3, 4, 5].map(() =>
        documentIn('31', { status: 'in_process', track_id: 'track-1', poll_count: 0, send_route: 'reception' }),
      ),
    );
    const delivery = deliveryWith({ result: () => Promise.resolve(accepted) });
    const claimed = (await Promise.all(ids.map((id) => delivery.polls.claimNow(id)))).flat();
    assert.equal(claimed.length, 5);
    statements = 0;
    await Promise.all(claimed.map((one) => delivery.polls.work(one)));
    assert.ok(
      statements <= 2,
      `${String(statements)} statements for 5 verdicts (the first goes at once, the others together)`,
    );
    for (const id of ids) {
      assert.equal((await row(id)).status, 'accepted');
      assert.deepEqual(
        (await events(id)).map((event) => event.type),
        ['dgii.accepted'],
      );
      assert.deepEqual(await domainEvents(id), ['document.signed', 'document.accepted']);
    }
  });

  it('applies a batch of changes each on its own condition, and two changes of one document one after the other', async () => {
    const [fresh, stale, other] = await Promise.all(
      [1, 2, 3].map(() => documentIn('31', { status: 'in_process', track_id: 'track-1', poll_count: 0 })),
    );
    if (fresh === undefined || stale === undefined || other === undefined) throw new Error('no documents');
    const at = new Date();
    const finalChange = (id: string, trackId: string): DocumentChange => ({
      id,
      expected: { status: 'in_process', trackId },
      change: {
        status: 'accepted',
        dgii_messages: [{ codigo: '0', valor: `ok ${id}` }],
        secuencia_utilizada: true,
        final_at: at,
        updated_at: at,
      },
      records: {
        event: { at, type: 'dgii.accepted', status: 'accepted', cause: `verdict for ${id}` },
        domainEvent: {
          companyId: world.companyId,
          environment: world.app.config.fiscalEnv,
          type: 'document.accepted',
          payload: {
            documentId: id,
            eNCF: 'E310000000001',
            ecfType: '31',
            status: 'accepted',
            estado: 'Aceptado',
            mensajes: [],
          },
          occurredAt: at,
        },
      },
    });
    statements = 0;
    const applied = await changeDocumentsIf(db().withPlugin(counting), [
      finalChange(fresh, 'track-1'),
      finalChange(stale, 'track-old'),
      finalChange(other, 'track-1'),
      // The same document again, as a second poll of it would: it sees the first change, so it no longer applies.
      finalChange(fresh, 'track-1'),
    ]);
    assert.deepEqual(applied, [true, false, true, false]);
    assert.equal(statements, 2, 'the distinct documents in one statement, the repeated one in a second');
    const done = await row(fresh);
    assert.equal(done.status, 'accepted');
    assert.deepEqual(done.dgii_messages, [{ codigo: '0', valor: `ok ${fresh}` }]);
    assert.deepEqual(done.final_at, at);
    assert.deepEqual(await events(fresh), [
      { type: 'dgii.accepted', status: 'accepted', cause: `verdict for ${fresh}` },
    ]);
    assert.deepEqual(await domainEvents(fresh), ['document.signed', 'document.accepted']);
    assert.equal((await row(other)).status, 'accepted');
    const untouched = await row(stale);
    assert.equal(untouched.status, 'in_process');
    assert.deepEqual(await events(stale), []);
    assert.deepEqual(await domainEvents(stale), ['document.signed']);
  });
});
