// The archive's storage fails under load (issue 43): three clients create and send invoices while S3 stops answering
// for a few seconds, or while the files' disk refuses every write. Creations answer problem+json (503
// storage_unavailable with Retry-After, 507 storage_full), `/ready` names the storage while S3 is away and is 200
// again within 10 s of its return, the service creates again by itself, and nothing is lost or doubled
// (support/fault-load.ts): refused creations burn their numbers, their blobs are recorded as abandoned writes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FsBlobStore } from '../src/platform/storage/index.js';
import {
  assertNothingLostOrDoubled,
  injectCall,
  startLoad,
  unexpectedAnswers,
  type Load,
} from './support/fault-load.js';
import { startS3rver, type S3rverInstance } from './support/s3rver.js';
import { startSendingWorld, type SendingWorld } from './support/sending-kit.js';
import { until } from './support/until.js';

const faultEnv = {
  ARCHIVE_ORPHAN_GRACE_MINUTES: '0',
  SEND_RETRY_BASE_MS: '200',
  SEND_LEASE_SECONDS: '8',
  DGII_CONNECT_TIMEOUT_MS: '1000',
  DGII_RESPONSE_TIMEOUT_MS: '2500',
};

async function apiKeyOf(world: SendingWorld): Promise<string> {
  return (await world.app.issueKey(world.companyId, ['documents:create', 'documents:read', 'documents:send'])).apiKey;
}

/** Until a creation answered 201 in the load's current phase. */
function createdAgain(load: Load): Promise<unknown> {
  return until(
    () => Promise.resolve(load.answers.some((answer) => answer.phase === load.phase && answer.status === 201)),
    (made) => made,
    `a creation in phase ${load.phase}`,
    10_000,
  );
}

describe('S3 out of reach under load', { timeout: 180_000 }, () => {
  let s3: S3rverInstance;
  let world: SendingWorld;
  before(async () => {
    s3 = await startS3rver();
    world = await startSendingWorld({
      env: {
        ...faultEnv,
        STORAGE: 's3',
        S3_ENDPOINT: s3.endpoint,
        S3_BUCKET: s3.bucket,
        S3_ACCESS_KEY_ID: 'S3RVER',
        S3_SECRET_ACCESS_KEY: 'S3RVER',
        S3_OBJECT_LOCK_DAYS: '3653',
      },
    });
  });
  after(async () => {
    await world.close();
    await s3.stop();
  });

  it('answers 503 storage_unavailable while it is away, is ready again within 10 s, and loses and doubles nothing', async () => {
    const call = injectCall(world.app, await apiKeyOf(world));
    const load = startLoad(call, { clients: 3, retried: [503] });
    let readyAfterMs: number;
    try {
      await sleep(1_500);
      load.phase = 'away';
      await s3.halt();
      await sleep(1_000);
      const notReady = await call('GET', '/ready');
      assert.equal(notReady.status, 503, notReady.text);
      const checks = (JSON.parse(notReady.text) as { checks: Record<string, { status: string }> }).checks;
      assert.equal(checks['storage']?.status, 'down', notReady.text);
      assert.equal(checks['database']?.status, 'up', notReady.text);
      assert.equal((await call('GET', '/health')).status, 200);
      await sleep(2_000);
      load.phase = 'back';
      await s3.resume();
      const backAt = Date.now();
      await until(
        () => call('GET', '/ready'),
        (ready) => ready.status === 200,
        'ready again',
        10_000,
      );
      readyAfterMs = Date.now() - backAt;
      await createdAgain(load);
      await sleep(1_500);
    } finally {
      await load.stop();
    }

    assert.deepEqual(unexpectedAnswers(load, [201, 202, 503]), []);
    const refused = load.answers.filter((answer) => answer.status === 503);
    assert.ok(refused.length > 0, 'no request met the outage');
    assert.deepEqual([...new Set(refused.map((answer) => answer.problem))], ['storage_unavailable']);
    await assertNothingLostOrDoubled(world, load);
    console.log(
      `created ${String(load.created.size)}, answers ${String(load.answers.length)}, ` +
        `503s ${String(refused.length)}, ready again after ${String(readyAfterMs)} ms`,
    );
  });
});

describe('the files’ disk full under load', { timeout: 180_000 }, () => {
  let world: SendingWorld;
  before(async () => {
    world = await startSendingWorld({ env: faultEnv });
  });
  after(() => world.close());

  it('answers 507 storage_full while it is full, creates again once there is room, and loses and doubles nothing', async () => {
    const { blobs } = world.app.application;
    assert.equal(blobs.kind, 'fs');
    const disk = blobs as FsBlobStore;
    // The writer threads take up the fault program now, while no write is in flight (fs-writer.ts).
    await disk.failNextWrites(0);
    const load = startLoad(injectCall(world.app, await apiKeyOf(world)), { clients: 3, retried: [507] });
    try {
      await sleep(1_500);
      load.phase = 'full';
      await disk.failNextWrites(1_000_000);
      await sleep(3_000);
      load.phase = 'room';
      await disk.failNextWrites(0);
      await createdAgain(load);
      await sleep(1_500);
    } finally {
      await load.stop();
    }

    assert.deepEqual(unexpectedAnswers(load, [201, 202, 507]), []);
    const refused = load.answers.filter((answer) => answer.status === 507);
    assert.ok(refused.length > 0, 'no request met the full disk');
    assert.deepEqual([...new Set(refused.map((answer) => answer.problem))], ['storage_full']);
    await assertNothingLostOrDoubled(world, load);
  });
});
