// The rolling pass over the archive (issue 31): a worker killed half-way leaves the pass where its last slice
// ended, and another continues from there once the lease runs out; two workers side by side never verify a slice
// at the same time, and together verify each artefact once; a verifier whose lease ran out starts no second pass
// (issue 46). On S3 with Object Lock required, an object without retention, or with one too short, is a finding.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { sql } from 'kysely';
import { systemClock } from '../src/platform/clock.js';
import { createLogger } from '../src/platform/observability/logger.js';
import { createArchiveService, createVerifier, type ArchiveService } from '../src/modules/archive/index.js';
import * as passes from '../src/modules/archive/passes.repo.js';
import { createXmlChecks } from '../src/platform/xml-checks/index.js';
import { startArchiveWorld, type ArchiveWorld } from './support/archive-world.js';
import { startS3rver, type S3rverInstance } from './support/s3rver.js';

interface SliceLog {
  holder: string;
  position: string | undefined;
  through: string | undefined;
  artefacts: number;
  started: number;
  ended: number;
}

describe('the rolling archive pass', () => {
  let world: ArchiveWorld;
  const xmlChecks = createXmlChecks({ schemas: undefined, xsdDir: undefined });
  before(async () => {
    world = await startArchiveWorld(6);
  });
  after(async () => {
    await xmlChecks.close();
    await world.app.close();
  });

  /** A worker of its own (a process, as far as the lease knows), its slices logged, dying after `dieAfter`. */
  function worker(
    holder: string,
    log: SliceLog[],
    options: { leaseMs: number; dieAfter?: number; tickBudgetMs?: number; inSlice?: () => Promise<void> },
  ): ArchiveService {
    const db = world.app.application.database.db;
    const inner = createVerifier({
      db,
      blobs: world.app.application.blobs,
      xmlChecks,
      clock: systemClock,
      settings: {
        bytesPerSecond: undefined,
        orphanGraceMs: 3_600_000,
        retentionDays: undefined,
        sliceSize: 4,
        concurrency: 2,
      },
    });
    let slices = 0;
    return createArchiveService({
      db,
      environment: 'TEST',
      clock: systemClock,
      log: createLogger('silent'),
      holder,
      verifier: {
        ...inner,
        async verifySlice(scope, position, pacer) {
          if (options.dieAfter !== undefined && slices >= options.dieAfter) throw new Error(`${holder} was killed`);
          slices++;
          const started = performance.now();
          await options.inSlice?.();
          const slice = await inner.verifySlice(scope, position, pacer);
          log.push({
            holder,
            position,
            through: slice.through,
            artefacts: slice.artefacts,
            started,
            ended: performance.now(),
          });
          return slice;
        },
      },
      rolling: {
        passIntervalMs: 86_400_000,
        bytesPerSecond: undefined,
        leaseMs: options.leaseMs,
        tickBudgetMs: options.tickBudgetMs ?? 60_000,
        settleMs: 60_000,
        recentBatch: 0,
      },
    });
  }

  async function rollingPass() {
    const row = await world.app.application.database.db
      .selectFrom('archive_passes')
      .selectAll()
      .where('origin', '=', 'rolling')
      .orderBy('started_at', 'desc')
      .executeTakeFirst();
    assert.ok(row !== undefined, 'a rolling pass has started');
    return row;
  }

  it('resumes a pass killed half-way from its last slice, after the lease runs out', async () => {
    const log: SliceLog[] = [];
    const killed = worker('worker-a', log, { leaseMs: 400, dieAfter: 2 });
    await assert.rejects(killed.rollingTick(), /worker-a was killed/);
    const halfway = await rollingPass();
    assert.equal(halfway.completed_at, null);
    assert.equal(halfway.position, log.at(-1)?.through);
    assert.equal(halfway.artefacts, 8, 'two slices of four');

    const next = worker('worker-b', log, { leaseMs: 400 });
    assert.equal(await next.rollingTick(), false, "the dead worker's lease still runs");
    await sleep(450);
    assert.equal(await next.rollingTick(), true);
    const done = await rollingPass();
    assert.ok(done.completed_at !== null);
    const taken = log.filter((slice) => slice.holder === 'worker-b');
    assert.equal(taken[0]?.position, halfway.position, 'worker-b starts where worker-a stopped');
    assert.equal(done.artefacts, 18, 'every artefact of six documents, once');
    assert.equal(done.recorded_artefacts, 18);
    assert.equal(done.findings, 0);
  });

  it('lets two workers side by side verify each slice once, never the same one at the same time', async () => {
    const db = world.app.application.database.db;
    await sql`delete from archive_passes`.execute(db);
    await sql`delete from outbound_work where target = 'archive.verifier'`.execute(db);
    const log: SliceLog[] = [];
    // worker-c's first slice waits at a gate, so worker-d surely tries while it is under way.
    let entered: () => void = () => undefined;
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let gated = true;
    // A tick budget of one slice: the pass takes several turns.
    const workers = [
      worker('worker-c', log, {
        leaseMs: 10_000,
        tickBudgetMs: 0,
        inSlice: async () => {
          if (!gated) return;
          gated = false;
          entered();
          await gate;
        },
      }),
      worker('worker-d', log, { leaseMs: 10_000, tickBudgetMs: 0 }),
    ];
    const [c, d] = workers as [ArchiveService, ArchiveService];
    const first = c.rollingTick();
    await inside;
    assert.equal(await d.rollingTick(), false, 'worker-d waits while worker-c holds the lease');
    open();
    assert.equal(await first, true);
    await c.release();
    assert.equal(await d.rollingTick(), true, 'worker-d takes over once worker-c lets go');
    assert.deepEqual(
      log.map((slice) => slice.holder),
      ['worker-c', 'worker-d'],
    );

    // Then both tick side by side, each letting go now and then, until the pass is complete.
    const run = async (service: ArchiveService, seed: number) => {
      for (let turn = 0; turn < 40; turn++) {
        await service.rollingTick();
        const passes = await sql<{
          done: boolean;
        }>`select completed_at is not null as done from archive_passes`.execute(db);
        if (passes.rows[0]?.done === true) return;
        if ((turn + seed) % 2 === 0) await service.release();
        await sleep(5 + ((turn * 7 + seed) % 11));
      }
    };
    await Promise.all(workers.map((service, index) => run(service, index)));
    const pass = await rollingPass();
    assert.ok(pass.completed_at !== null);
    assert.equal(pass.artefacts, 18);
    const ordered = [...log].sort((a, b) => a.started - b.started);
    for (let i = 1; i < ordered.length; i++) {
      const previous = ordered[i - 1] as SliceLog;
      const slice = ordered[i] as SliceLog;
      assert.ok(slice.started >= previous.ended, `${slice.holder}'s slice began before ${previous.holder}'s ended`);
      assert.equal(slice.position, previous.through, 'each slice continues where the last one ended');
    }
    assert.equal(
      ordered.reduce((sum, slice) => sum + slice.artefacts, 0),
      18,
    );
  });

  it('starts a rolling pass only under a running lease, never beside one under way, and completes it once', async () => {
    const db = world.app.application.database.db;
    await sql`delete from archive_passes`.execute(db);
    await sql`delete from outbound_work where target = 'archive.verifier'`.execute(db);
    const now = () => new Date();
    // A verifier whose lease ran out (a process paused past it) while another took it.
    assert.equal(await passes.takeLease(db, 'TEST', 'paused', now(), 50), true);
    await sleep(60);
    assert.equal(await passes.takeLease(db, 'TEST', 'current', now(), 10_000), true);
    assert.equal(await passes.startRollingPass(db, 'paused', now()), undefined, 'no pass without the lease');
    const started = await passes.startRollingPass(db, 'current', now());
    assert.ok(started !== undefined);
    assert.equal(await passes.startRollingPass(db, 'current', now()), undefined, 'no second pass beside it');
    await assert.rejects(
      db
        .insertInto('archive_passes')
        .values({ id: 'aps_second', origin: 'rolling', scope: '{}', started_at: now() })
        .execute(),
      /archive_passes_one_rolling/,
    );
    assert.equal(await passes.completePass(db, started.id, now(), 0, { holder: 'paused' }), false);
    assert.equal(await passes.completePass(db, started.id, now(), 0, { holder: 'current' }), true);
    assert.equal(await passes.completePass(db, started.id, now(), 0, { holder: 'current' }), false, 'completed once');
    const rows = await db.selectFrom('archive_passes').select(['id', 'completed_at']).execute();
    assert.deepEqual(
      rows.map((row) => [row.id, row.completed_at !== null]),
      [[started.id, true]],
    );
  });
});

describe('Object Lock retention on S3', () => {
  let s3: S3rverInstance;
  let world: ArchiveWorld;
  before(async () => {
    s3 = await startS3rver();
    world = await startArchiveWorld(2, {
      env: {
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
    await world.app.close();
    await s3.stop();
  });

  it('finds an object without retention and one locked too briefly, and nothing else', async () => {
    const archive = world.app.application.services.archive;
    const clean = await archive.runPass({});
    assert.equal(clean.pass.artefacts, 6);
    assert.deepEqual(clean.failing, []);

    // Two artefacts' records pointed at copies of their bytes written past the adapter: one with no lock, one
    // locked for a day.
    const db = world.app.application.database.db;
    const rows = await db
      .selectFrom('document_artefacts')
      .select(['blob_key', 'document_id', 'kind'])
      .where('document_id', '=', world.documents[0] ?? '')
      .where('kind', 'in', ['source-json', 'signed-xml'])
      .orderBy('kind')
      .execute();
    assert.equal(rows.length, 2);
    const copies: string[] = [];
    for (const [index, row] of rows.entries()) {
      const bytes = await world.app.application.blobs.get(row.blob_key);
      assert.ok(bytes !== undefined);
      const copy = `${row.blob_key}.copy`;
      await s3.client.send(
        new PutObjectCommand({
          Bucket: s3.bucket,
          Key: copy,
          Body: bytes,
          ContentMD5: createHash('md5').update(bytes).digest('base64'),
          ...(index === 0
            ? {}
            : { ObjectLockMode: 'COMPLIANCE', ObjectLockRetainUntilDate: new Date(Date.now() + 86_400_000) }),
        }),
      );
      await db.updateTable('document_artefacts').set({ blob_key: copy }).where('blob_key', '=', row.blob_key).execute();
      copies.push(copy);
    }

    const report = await archive.runPass({});
    const found = report.failing.flatMap((verdict) =>
      verdict.failures.map((failure) => `${failure.kind} ${verdict.key}`),
    );
    // The originals are now blobs no record names, but younger than the hour of grace: not orphans yet.
    assert.deepEqual(found.sort(), copies.map((copy) => `short_retention ${copy}`).sort());
    const details = report.failing.flatMap((verdict) => verdict.failures.map((failure) => failure.detail)).sort();
    assert.match(details.join('\n'), /has no Object Lock retention/);
    assert.match(details.join('\n'), /locked in COMPLIANCE mode until/);
  });
});
