// The embedded setup's disk fills up under load (issue 43): `npm start`'s PGlite under DATA_DIR, three clients
// creating and sending invoices, and the disk under its reserve for a few seconds. Requests that write answer 507
// database_full problem+json (reads go on), nothing hangs, and once there is room the service writes again by
// itself; nothing is lost or doubled (support/fault-load.ts), the blobs of refused creations recorded as abandoned.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { injectDiskFull, type DiskFull } from './support/disk-full.js';
import { assertNothingLostOrDoubled, injectCall, startLoad, unexpectedAnswers } from './support/fault-load.js';
import { startSendingWorld, type SendingWorld } from './support/sending-kit.js';
import { until } from './support/until.js';

describe('the embedded database’s disk full under load', { timeout: 180_000 }, () => {
  let world: SendingWorld;
  let disk: DiskFull;
  let apiKey: string;
  before(async () => {
    world = await startSendingWorld({
      embeddedOnDisk: true,
      // A send whose outcome could not be recorded is taken up when its lease runs out (asking DGII first).
      env: {
        ARCHIVE_ORPHAN_GRACE_MINUTES: '0',
        SEND_RETRY_BASE_MS: '200',
        SEND_LEASE_SECONDS: '8',
        DGII_CONNECT_TIMEOUT_MS: '1000',
        DGII_RESPONSE_TIMEOUT_MS: '2500',
      },
    });
    disk = injectDiskFull(world.app.dataDir);
    apiKey = (await world.app.issueKey(world.companyId, ['documents:create', 'documents:read', 'documents:send']))
      .apiKey;
  });
  after(async () => {
    disk.restore();
    await world.close();
  });

  it('answers 507 while it is full, writes again by itself, and loses and doubles nothing', async () => {
    const call = injectCall(world.app, apiKey);
    const load = startLoad(call, { clients: 3, retried: [503, 507] });
    let createdBefore: number;
    try {
      await sleep(1_500);
      createdBefore = load.created.size;
      load.phase = 'full';
      disk.lowOnSpace(100 * 1_048_576);
      await sleep(1_000);
      // Reads go on while writes wait.
      const [someone] = load.created.values();
      assert.ok(someone !== undefined);
      const read = await call('GET', `/api/v1/documentos/${someone.id}`);
      assert.equal(read.status, 200, read.text);
      await sleep(2_000);
      load.phase = 'room';
      disk.free();
      const roomAt = Date.now();
      await until(
        () => Promise.resolve(load.answers.filter((answer) => answer.phase === 'room' && answer.status === 201)),
        (made) => made.length > 0,
        'a creation after the disk had room',
        10_000,
      );
      // Writes are checked at each statement: the first after the room goes through.
      assert.ok(Date.now() - roomAt < 5_000);
      load.phase = 'after';
      await sleep(1_500);
    } finally {
      await load.stop();
    }

    assert.deepEqual(unexpectedAnswers(load, [201, 202, 507]), []);
    const refused = load.answers.filter((answer) => answer.status === 507);
    assert.ok(refused.length > 0, 'no request met the full disk');
    assert.deepEqual([...new Set(refused.map((answer) => answer.problem))], ['database_full']);
    assert.ok(refused.every((answer) => answer.phase === 'full' || answer.phase === 'room'));
    assert.ok(load.created.size > createdBefore, 'no document was created after the disk had room');
    await assertNothingLostOrDoubled(world, load);
  });
});
