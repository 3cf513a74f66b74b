// The webhook history is kept WEBHOOKS_RETENTION_DAYS (30 by default): the daily job deletes settled deliveries
// (with their attempts) and fanned-out events made before that, in this environment, and never a delivery still
// waiting, an event not yet fanned out, nor an event whose dedupe key keeps a once-only warning from repeating.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import type { FiscalEnvironment } from '../src/config.js';
import { webhookJobs } from '../src/modules/webhooks/index.js';
import { fixedClock } from '../src/platform/clock.js';
import type { WebhookDeliveryStatus } from '../src/modules/webhooks/tables.js';
import { startTestApp, type TestApp } from './support/test-app.js';

describe('webhook history purge', { timeout: 120_000 }, () => {
  const clock = fixedClock(new Date('2026-11-21T14:00:00Z'));
  const daysAgo = (days: number) => new Date(clock.now().getTime() - days * 86_400_000);
  let app: TestApp;
  let companyA: string;
  let companyB: string;
  const db = () => app.application.database.db;

  before(async () => {
    app = await startTestApp({ clock });
    companyA = await app.provisionCompany();
    companyB = await app.provisionCompany();
  });
  after(() => app.close());

  async function endpointOf(companyId: string, environment: FiscalEnvironment): Promise<string> {
    const id = `ep_${companyId}_${environment}`;
    await db()
      .insertInto('webhook_endpoints')
      .values({
        id,
        company_id: companyId,
        environment,
        url: 'https://example.com/hooks',
        description: null,
        event_types: null,
        status: 'enabled',
        disabled_reason: null,
        secret_sealed: 'sealed',
        previous_secret_sealed: null,
        previous_secret_until: null,
        failing_since: null,
        created_at: daysAgo(60),
        updated_at: daysAgo(60),
      })
      .execute();
    return id;
  }

  const delivery = (
    id: string,
    companyId: string,
    endpointId: string,
    environment: FiscalEnvironment,
    status: WebhookDeliveryStatus,
    ageDays: number,
  ) => ({
    id,
    endpoint_id: endpointId,
    company_id: companyId,
    environment,
    event_id: `evt_${id}`,
    event_type: 'document.accepted',
    body: '{}',
    status,
    next_attempt_at: null,
    last_error: null,
    created_at: daysAgo(ageDays),
    updated_at: daysAgo(ageDays),
  });

  const event = (
    id: string,
    companyId: string,
    environment: FiscalEnvironment,
    ageDays: number,
    dispatched: boolean,
    dedupeKey: string | null = null,
  ) => ({
    id,
    company_id: companyId,
    environment,
    type: 'document.accepted',
    payload: JSON.stringify({ documentId: id }),
    dedupe_key: dedupeKey,
    occurred_at: daysAgo(ageDays),
    dispatched_at: dispatched ? daysAgo(ageDays) : null,
  });

  it('deletes settled deliveries, their attempts and fanned-out events older than the retention, and keeps the rest', async () => {
    const a = await endpointOf(companyA, 'TEST');
    const aCert = await endpointOf(companyA, 'CERT');
    const b = await endpointOf(companyB, 'TEST');
    await db()
      .insertInto('webhook_deliveries')
      .values([
        delivery('msg_old_ok', companyA, a, 'TEST', 'succeeded', 40),
        delivery('msg_old_exhausted', companyA, a, 'TEST', 'exhausted', 31),
        delivery('msg_old_resent', companyA, a, 'TEST', 'pending', 40),
        delivery('msg_old_failed', companyA, a, 'TEST', 'failed', 40),
        delivery('msg_young_ok', companyA, a, 'TEST', 'succeeded', 29),
        delivery('msg_old_cert', companyA, aCert, 'CERT', 'succeeded', 40),
      ])
      .execute();
    // More than one batch of one company: the purge goes on after a full batch.
    const many = Array.from({ length: 5_001 }, (_, i) =>
      delivery(`msg_b${String(i)}`, companyB, b, 'TEST', 'succeeded', 45),
    );
    for (let from = 0; from < many.length; from += 1_000)
      await db()
        .insertInto('webhook_deliveries')
        .values(many.slice(from, from + 1_000))
        .execute();
    const attempt = (deliveryId: string) => ({
      delivery_id: deliveryId,
      attempted_at: daysAgo(40),
      status_code: 200,
      duration_ms: 5,
      error: null,
      response_excerpt: null,
    });
    await db()
      .insertInto('webhook_attempts')
      .values([
        attempt('msg_old_ok'),
        attempt('msg_old_ok'),
        attempt('msg_old_exhausted'),
        attempt('msg_old_resent'),
        attempt('msg_young_ok'),
        attempt('msg_b0'),
      ])
      .execute();
    await db()
      .insertInto('domain_events')
      .values([
        event('evt_old_sent', companyA, 'TEST', 40, true),
        event('evt_old_once', companyA, 'TEST', 40, true, `certificate.expiring:purge-test`),
        event('evt_old_waiting', companyA, 'TEST', 40, false),
        event('evt_young_sent', companyA, 'TEST', 29, true),
        event('evt_old_cert', companyA, 'CERT', 40, true),
        event('evt_old_b', companyB, 'TEST', 40, true),
      ])
      .execute();

    const job = webhookJobs({ db: db(), clock, environment: 'TEST', retentionMs: 30 * 86_400_000 }).purgeWebhookHistory;
    await job.handle({}, { jobId: 'job-1', correlationId: 'test', attempt: 1, log: pino({ level: 'silent' }) });

    const deliveries = await db()
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('company_id', 'in', [companyA, companyB])
      .orderBy('id')
      .execute();
    assert.deepEqual(
      deliveries.map((row) => row.id),
      ['msg_old_cert', 'msg_old_failed', 'msg_old_resent', 'msg_young_ok'],
    );
    const attempts = await db()
      .selectFrom('webhook_attempts')
      .select('delivery_id')
      .where('delivery_id', 'in', ['msg_old_ok', 'msg_old_exhausted', 'msg_old_resent', 'msg_young_ok', 'msg_b0'])
      .orderBy('delivery_id')
      .execute();
    assert.deepEqual(
      attempts.map((row) => row.delivery_id),
      ['msg_old_resent', 'msg_young_ok'],
    );
    const events = await db()
      .selectFrom('domain_events')
      .select('id')
      .where('id', 'like', 'evt\\_%')
      .where('company_id', 'in', [companyA, companyB])
      .orderBy('id')
      .execute();
    assert.deepEqual(
      events.map((row) => row.id),
      ['evt_old_cert', 'evt_old_once', 'evt_old_waiting', 'evt_young_sent'],
    );
  });
});
