import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { S3Config } from '../../config.js';
import { s3rverBucket, startS3rver, type S3rverInstance } from '../../../test/support/s3rver.js';
import { createS3BlobStore, objectLockFor } from './s3-blob-store.js';
import {
  BlobExistsError,
  createBlobStore,
  createFsBlobStore,
  InvalidBlobKeyError,
  StorageFullError,
  StorageUnavailableError,
  type BlobHead,
  type BlobStore,
  type StoredBlob,
} from './index.js';

interface Harness {
  store: BlobStore;
  makeUnavailable(): Promise<void>;
  dispose(): Promise<void>;
  /** What lies under `_probe/`, read past the adapter, by key; undefined where the directory was never made (fs). */
  probeObjects(): Promise<Map<string, string> | undefined>;
}

const xml =
  '<?xml version="1.0" encoding="UTF-8"?><ECF><RazonSocialEmisor>Panadería Ñoño &amp; Cía, S.R.L. — Año 2025 ✓ 𝄞</RazonSocialEmisor></ECF>';

function expectedBlob(key: string, bytes: Uint8Array): StoredBlob {
  return { key, sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.byteLength };
}

function isBlobExists(key: string) {
  return (error: unknown) => error instanceof BlobExistsError && error.key === key;
}

/** A head's size and hash (its write time is checked apart). */
function sizeAndHash(head: BlobHead | undefined): { size: number; sha256: string | undefined } | undefined {
  return head === undefined ? undefined : { size: head.size, sha256: head.sha256 };
}

function blobStoreContract(kind: BlobStore['kind'], open: () => Promise<Harness>): void {
  describe(`${kind} blob store`, () => {
    let store: BlobStore;
    let harness: Harness;
    before(async () => {
      harness = await open();
      store = harness.store;
    });
    after(async () => {
      await harness.dispose();
    });

    it(`reports its kind as ${kind}`, () => {
      assert.equal(store.kind, kind);
    });

    it('returns the exact bytes of a UTF-8 XML document with non-ASCII text, with its sha256 and size', async () => {
      const key = 'cmp_abc/doc_123/signed-xml/v1.xml';
      const bytes = Buffer.from(xml, 'utf8');
      const stored = await store.put(key, bytes, { contentType: 'application/xml; charset=utf-8' });
      assert.deepEqual(stored, expectedBlob(key, bytes));
      const read = await store.get(key);
      assert.deepEqual(read, bytes);
      assert.equal(read.toString('utf8'), xml);
    });

    it('returns the exact bytes of binary content, including every byte value and invalid UTF-8', async () => {
      const key = 'cmp_abc/doc_123/pdf/v1.bin';
      const bytes = new Uint8Array([
        ...Array.from({ length: 256 }, (_, i) => i),
        0xc3,
        0x28,
        0xff,
        0xfe,
        0x00,
        ...randomBytes(200_000),
      ]);
      const stored = await store.put(key, bytes, { contentType: 'application/octet-stream' });
      assert.deepEqual(stored, expectedBlob(key, bytes));
      assert.deepEqual(await store.get(key), Buffer.from(bytes));
    });

    it('stores an empty object', async () => {
      const key = 'cmp_abc/doc_123/empty/v1.txt';
      const stored = await store.put(key, new Uint8Array(0), { contentType: 'text/plain' });
      assert.deepEqual(stored, expectedBlob(key, new Uint8Array(0)));
      assert.deepEqual(await store.get(key), Buffer.alloc(0));
      assert.deepEqual(sizeAndHash(await store.head(key)), {
        size: 0,
        sha256: expectedBlob(key, new Uint8Array(0)).sha256,
      });
    });

    it('answers undefined for a missing key and for a key that is only a prefix of others', async () => {
      await store.put('cmp_prefix/doc_1/v1.xml', Buffer.from('<a/>'), { contentType: 'application/xml' });
      for (const key of ['cmp_abc/doc_999/signed-xml/v1.xml', 'cmp_prefix/doc_1', 'cmp_prefix']) {
        assert.equal(await store.get(key), undefined, key);
        assert.equal(await store.head(key), undefined, key);
      }
    });

    it('heads an object with its size, sha256 and write time', async () => {
      const key = 'cmp_abc/doc_head/signed-xml/v1.xml';
      const bytes = Buffer.from(xml.repeat(3), 'utf8');
      const putFrom = Date.now();
      await store.put(key, bytes, { contentType: 'application/xml' });
      const putTo = Date.now();
      const { size, sha256 } = expectedBlob(key, bytes);
      const head = await store.head(key);
      assert.deepEqual(sizeAndHash(head), { size, sha256 });
      // S3 keeps whole seconds.
      const time = head?.modifiedAt.getTime() ?? Number.NaN;
      assert.ok(time >= Math.floor(putFrom / 1000) * 1000 && time <= putTo + 1000, String(time));
    });

    it('accepts the same bytes again as an idempotent success', async () => {
      const key = 'cmp_abc/doc_again/signed-xml/v1.xml';
      const bytes = Buffer.from(xml, 'utf8');
      const first = await store.put(key, bytes, { contentType: 'application/xml' });
      const second = await store.put(key, Buffer.from(xml, 'utf8'), { contentType: 'application/xml' });
      assert.deepEqual(second, first);
      assert.deepEqual(second, expectedBlob(key, bytes));
      assert.deepEqual(await store.get(key), bytes);
    });

    it('refuses different bytes under an existing key and keeps the original', async () => {
      const key = 'cmp_abc/doc_once/signed-xml/v1.xml';
      const original = Buffer.from(xml, 'utf8');
      await store.put(key, original, { contentType: 'application/xml' });
      const changed = Buffer.from(xml.replace('Ñoño', 'Nono'), 'utf8');
      await assert.rejects(store.put(key, changed, { contentType: 'application/xml' }), isBlobExists(key));
      assert.deepEqual(await store.get(key), original);
      const { size, sha256 } = expectedBlob(key, original);
      assert.deepEqual(sizeAndHash(await store.head(key)), { size, sha256 });
    });

    it('lets exactly one of several concurrent puts with different bytes win', async () => {
      const key = 'cmp_abc/doc_race/signed-xml/v1.xml';
      const candidates = Array.from({ length: 6 }, (_, i) => Buffer.from(`${xml}<!-- writer ${i} -->`, 'utf8'));
      const results = await Promise.allSettled(
        candidates.map((bytes) => store.put(key, bytes, { contentType: 'application/xml' })),
      );
      const winners = results.flatMap((result, i) => (result.status === 'fulfilled' ? [i] : []));
      assert.equal(winners.length, 1);
      const winner = winners[0]!;
      assert.deepEqual(results[winner], { status: 'fulfilled', value: expectedBlob(key, candidates[winner]!) });
      for (const result of results) {
        if (result.status === 'rejected') assert.ok(isBlobExists(key)(result.reason), String(result.reason));
      }
      assert.deepEqual(await store.get(key), candidates[winner]);
    });

    it('lets every concurrent put of the same bytes succeed with the same result', async () => {
      const key = 'cmp_abc/doc_same_race/signed-xml/v1.xml';
      const bytes = Buffer.from(xml, 'utf8');
      const results = await Promise.all(
        Array.from({ length: 6 }, () => store.put(key, bytes, { contentType: 'application/xml' })),
      );
      assert.deepEqual(
        results,
        Array.from({ length: 6 }, () => expectedBlob(key, bytes)),
      );
      assert.deepEqual(await store.get(key), bytes);
    });

    it('writes fresh keys (several into one new directory at once) with the same results, and still refuses different bytes over one', async () => {
      const keys = ['source-json.v1.json', 'source-xml.v1.xml', 'signed-xml.v1.xml'].map(
        (name) => `documents/cmp_abc/doc_fresh/${name}`,
      );
      const contents = keys.map((key) => Buffer.from(`${xml}<!-- ${key} -->`, 'utf8'));
      const results = await Promise.all(
        keys.map((key, i) => store.put(key, contents[i]!, { contentType: 'application/xml', fresh: true })),
      );
      assert.deepEqual(
        results,
        keys.map((key, i) => expectedBlob(key, contents[i]!)),
      );
      for (const [i, key] of keys.entries()) assert.deepEqual(await store.get(key), contents[i]);
      await assert.rejects(
        store.put(keys[0]!, Buffer.from('other'), { contentType: 'application/xml', fresh: true }),
        isBlobExists(keys[0]!),
      );
      assert.deepEqual(
        await store.put(keys[1]!, contents[1]!, { contentType: 'application/xml', fresh: true }),
        results[1],
      );
      assert.deepEqual(await store.get(keys[0]!), contents[0]);
    });

    it('accepts a key of exactly 512 characters', async () => {
      const key = `${'a'.repeat(100)}/`.repeat(5) + 'b'.repeat(7);
      assert.equal(key.length, 512);
      const bytes = Buffer.from('long key');
      assert.deepEqual(await store.put(key, bytes, { contentType: 'text/plain' }), expectedBlob(key, bytes));
      assert.deepEqual(await store.get(key), bytes);
    });

    const invalidKeys = [
      ['empty', ''],
      ['leading slash', '/cmp_abc/doc.xml'],
      ['parent segment', 'cmp_abc/../doc.xml'],
      ['bare parent', '..'],
      ['double dot inside a name', 'cmp_abc/doc..xml'],
      ['current segment', './cmp_abc/doc.xml'],
      ['empty segment', 'cmp_abc//doc.xml'],
      ['trailing slash', 'cmp_abc/doc/'],
      ['space', 'cmp abc/doc.xml'],
      ['non-ASCII letter', 'cmp_año/doc.xml'],
      ['backslash', 'cmp_abc\\doc.xml'],
      ['query character', 'cmp_abc/doc.xml?v=1'],
      ['percent', 'cmp_abc/%2e%2e/doc.xml'],
      ['longer than 512', `${'a'.repeat(100)}/`.repeat(5) + 'b'.repeat(8)],
      ['segment longer than 200', 'c'.repeat(201)],
    ] as const;
    for (const [reason, key] of invalidKeys) {
      it(`rejects an invalid key (${reason}) on put, get and head`, async () => {
        const isInvalid = (error: unknown) => error instanceof InvalidBlobKeyError && error.key === key;
        await assert.rejects(store.put(key, Buffer.from('x'), { contentType: 'text/plain' }), isInvalid);
        await assert.rejects(store.get(key), isInvalid);
        await assert.rejects(store.head(key), isInvalid);
        await assert.rejects(store.retentionOf(key), isInvalid);
      });
    }

    describe('list', () => {
      // Byte order: '.' (2E) sorts before '/' (2F), so `a.b` comes before every key under `a/`, and `a/…` before
      // `a0`. `_probe.txt` and `_probes/x` only look like the probe's keys, which live under `_probe/`.
      const sorted = [
        'Z',
        '_probe.txt',
        '_probes/x',
        '_x',
        'a-b',
        'a.b',
        'a/x',
        'a/y/z',
        'a0',
        'ab',
        'b.txt',
        'cmp_abc/doc_1/v1.xml',
      ];
      const bytesOf = (key: string) => (key === 'b.txt' ? Buffer.alloc(0) : Buffer.from(`listed ${key}`));
      const keysOf = (blobs: readonly { key: string }[]) => blobs.map((blob) => blob.key);
      let listing: Harness;
      let listed: BlobStore;
      let putFrom: number;
      let putTo: number;
      before(async () => {
        listing = await open();
        listed = listing.store;
        await listed.probe(5_000);
        putFrom = Date.now();
        for (const key of sorted.toReversed()) await listed.put(key, bytesOf(key), { contentType: 'text/plain' });
        putTo = Date.now();
        await listed.probe(5_000);
      });
      after(async () => {
        await listing.dispose();
      });

      it(`lists every key in byte order${kind === 's3' ? ' with its size and write time' : ''}, never the probe's`, async () => {
        const all = await listed.list({ limit: 100 });
        assert.deepEqual(keysOf(all), sorted);
        for (const blob of all) {
          // The filesystem's listing reads no file's details (ListedBlob); S3's carries them.
          if (kind === 'fs') {
            assert.deepEqual(blob, { key: blob.key });
            continue;
          }
          assert.equal(blob.size, bytesOf(blob.key).byteLength, blob.key);
          assert.ok(blob.modifiedAt instanceof Date, blob.key);
          // S3 keeps whole seconds.
          const time = blob.modifiedAt.getTime();
          assert.ok(time >= Math.floor(putFrom / 1000) * 1000 && time <= putTo + 1000, `${blob.key} ${time}`);
        }
      });

      const prefixCases = [
        ['a', ['a-b', 'a.b', 'a/x', 'a/y/z', 'a0', 'ab']],
        ['a/', ['a/x', 'a/y/z']],
        ['a/y', ['a/y/z']],
        ['a.', ['a.b']],
        ['_probe', ['_probe.txt', '_probes/x']],
        ['_probe/', []],
        ['cmp_abc/doc_1/v1.xml', ['cmp_abc/doc_1/v1.xml']],
        ['nothing', []],
      ] as const;
      for (const [prefix, expected] of prefixCases) {
        it(`lists only the keys that start with "${prefix}"`, async () => {
          assert.deepEqual(keysOf(await listed.list({ prefix, limit: 100 })), expected);
        });
      }

      const afterCases = [
        ['Z', 'an existing key', sorted.slice(1)],
        ['a.b', 'the key just before a directory', sorted.slice(sorted.indexOf('a/x'))],
        ['a', 'a directory name without its slash', sorted.slice(sorted.indexOf('a-b'))],
        ['a/', 'a directory', sorted.slice(sorted.indexOf('a/x'))],
        ['a/y', 'a directory inside one, without its slash', sorted.slice(sorted.indexOf('a/y/z'))],
        ['a/y/z', 'the last key of a directory', sorted.slice(sorted.indexOf('a0'))],
        ['a/w', 'a missing key inside a directory', sorted.slice(sorted.indexOf('a/x'))],
        ['a/zz', 'a missing key past a directory', sorted.slice(sorted.indexOf('a0'))],
        ['_probe/~', "a key among the probe's", sorted.slice(sorted.indexOf('_probes/x'))],
        ['A', 'a missing key before all', sorted],
        ['cmp_abc/doc_1/v1.xml', 'the last key', []],
        ['zzz', 'a missing key after all', []],
      ] as const;
      for (const [afterKey, what, expected] of afterCases) {
        it(`lists only the keys after "${afterKey}" (${what})`, async () => {
          assert.deepEqual(keysOf(await listed.list({ after: afterKey, limit: 100 })), expected);
        });
      }

      it('combines prefix and after', async () => {
        assert.deepEqual(keysOf(await listed.list({ prefix: 'a/', after: 'a/x', limit: 100 })), ['a/y/z']);
        assert.deepEqual(keysOf(await listed.list({ prefix: 'a/', after: 'a', limit: 100 })), ['a/x', 'a/y/z']);
        assert.deepEqual(keysOf(await listed.list({ prefix: 'a/', after: 'a0', limit: 100 })), []);
        assert.deepEqual(keysOf(await listed.list({ prefix: 'a', after: 'a.b', limit: 2 })), ['a/x', 'a/y/z']);
      });

      it('stops at the limit, and pages through everything by listing after the last key', async () => {
        assert.deepEqual(keysOf(await listed.list({ limit: 1 })), ['Z']);
        assert.deepEqual(keysOf(await listed.list({ limit: 3 })), sorted.slice(0, 3));
        assert.deepEqual(await listed.list({ limit: 0 }), []);
        for (const limit of [1, 2, 5]) {
          const seen: string[] = [];
          for (;;) {
            const page = await listed.list({ after: seen.at(-1), limit });
            assert.ok(page.length <= limit);
            if (page.length === 0) break;
            seen.push(...keysOf(page));
          }
          assert.deepEqual(seen, sorted, `pages of ${limit}`);
        }
      });
    });

    it(`reports ${kind === 'fs' ? 'no retention at all' : 'an empty retention'} for an object written without Object Lock, and undefined for a missing key`, async () => {
      const key = 'cmp_abc/doc_unlocked/signed-xml/v1.xml';
      await store.put(key, Buffer.from(xml, 'utf8'), { contentType: 'application/xml' });
      assert.deepEqual(
        await store.retentionOf(key),
        kind === 'fs' ? undefined : { mode: undefined, retainUntil: undefined },
      );
      assert.equal(await store.retentionOf('cmp_abc/doc_unlocked/missing.xml'), undefined);
    });

    it('probes successfully, repeatedly, when storage is up', async () => {
      const seen: (Map<string, string> | undefined)[] = [await harness.probeObjects()];
      for (let probe = 0; probe < 2; probe++) {
        await store.probe(5_000);
        seen.push(await harness.probeObjects());
      }
      // Each probe wrote and read back an object of its own under _probe/, and none of them piles up there:
      // the filesystem's is deleted after it, S3's one per process is overwritten.
      if (kind === 'fs') {
        assert.deepEqual(seen, [undefined, new Map(), new Map()]);
      } else {
        assert.deepEqual(seen[0], new Map());
        const [first, second] = [[...(seen[1] ?? [])], [...(seen[2] ?? [])]];
        assert.equal(first.length, 1);
        assert.equal(second.length, 1);
        assert.equal(second[0]?.[0], first[0]?.[0], 'the same key');
        assert.match(first[0]?.[1] ?? '', /^probe [0-9a-f-]{36}$/);
        assert.notEqual(second[0]?.[1], first[0]?.[1], 'written anew');
      }
    });

    it('rejects the probe with a short reason when storage is unavailable', async () => {
      const broken = await open();
      try {
        await broken.store.probe(5_000);
        await broken.makeUnavailable();
        await assert.rejects(broken.store.probe(2_000), (error: unknown) => {
          assert.ok(error instanceof Error);
          assert.match(error.message, /^storage probe (failed: .+|timed out after 2000 ms)$/);
          assert.ok(error.message.length < 300, error.message);
          return true;
        });
      } finally {
        await broken.dispose();
      }
    });
  });
}

async function openFsHarness(): Promise<Harness> {
  const root = await mkdtemp(join(tmpdir(), 'ecf-blobs-'));
  return {
    store: createFsBlobStore(root),
    async makeUnavailable() {
      await rm(root, { recursive: true, force: true });
      await writeFile(root, 'not a directory');
    },
    async dispose() {
      await rm(root, { recursive: true, force: true });
    },
    async probeObjects() {
      const dir = join(root, '_probe');
      let names: string[];
      try {
        names = await readdir(dir);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
      return new Map(
        await Promise.all(
          names.map(async (name) => [`_probe/${name}`, await readFile(join(dir, name), 'utf8')] as const),
        ),
      );
    },
  };
}

function s3Config(port: number, overrides: Partial<S3Config> = {}): S3Config {
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket: s3rverBucket,
    region: 'us-east-1',
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    forcePathStyle: true,
    objectLockDays: undefined,
    connectTimeoutMs: 3_000,
    requestTimeoutMs: 10_000,
    ...overrides,
  };
}

async function openS3Harness(): Promise<Harness> {
  const s3rver = await startS3rver();
  const store = createS3BlobStore(s3Config(s3rver.port));
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await s3rver.stop();
  };
  return {
    store,
    makeUnavailable: stop,
    async dispose() {
      await store.close();
      await stop();
    },
    async probeObjects() {
      const listed = await s3rver.client.send(new ListObjectsV2Command({ Bucket: s3rverBucket, Prefix: '_probe/' }));
      const keys = (listed.Contents ?? []).map((object) => object.Key ?? '');
      return new Map(
        await Promise.all(
          keys.map(async (key) => {
            const read = await s3rver.client.send(new GetObjectCommand({ Bucket: s3rverBucket, Key: key }));
            return [key, (await read.Body?.transformToString()) ?? ''] as const;
          }),
        ),
      );
    },
  };
}

blobStoreContract('fs', openFsHarness);
blobStoreContract('s3', openS3Harness);

describe('s3 blob store specifics', () => {
  let s3rver: S3rverInstance;
  before(async () => {
    s3rver = await startS3rver();
  });
  after(async () => {
    await s3rver.stop();
  });

  it('heads an object written without our metadata as having no sha256, and accepts the same bytes over it', async () => {
    const key = 'cmp_abc/doc_foreign/v1.xml';
    const bytes = Buffer.from(xml, 'utf8');
    await s3rver.client.send(new PutObjectCommand({ Bucket: s3rverBucket, Key: key, Body: bytes }));
    const store = createS3BlobStore(s3Config(s3rver.port));
    try {
      assert.deepEqual(sizeAndHash(await store.head(key)), { size: bytes.byteLength, sha256: undefined });
      assert.deepEqual(await store.put(key, bytes, { contentType: 'application/xml' }), expectedBlob(key, bytes));
      await assert.rejects(store.put(key, Buffer.from('other'), { contentType: 'application/xml' }), isBlobExists(key));
    } finally {
      await store.close();
    }
  });

  it('writes COMPLIANCE retention until the given date, or for the configured days, and reads it back', async () => {
    const store = createS3BlobStore(s3Config(s3rver.port, { objectLockDays: 3_650 }));
    try {
      const bytes = Buffer.from(xml, 'utf8');
      const key = 'cmp_abc/doc_locked/signed-xml/v1.xml';
      const retainUntil = new Date('2035-06-30T00:00:00Z');
      assert.deepEqual(
        await store.put(key, bytes, { contentType: 'application/xml', retainUntil }),
        expectedBlob(key, bytes),
      );
      assert.deepEqual(await store.get(key), bytes);
      assert.deepEqual(await store.retentionOf(key), { mode: 'COMPLIANCE', retainUntil });

      const daysKey = 'cmp_abc/doc_locked_days/signed-xml/v1.xml';
      const before = Date.now();
      assert.deepEqual(
        await store.put(daysKey, bytes, { contentType: 'application/xml' }),
        expectedBlob(daysKey, bytes),
      );
      const after = Date.now();
      assert.deepEqual(await store.get(daysKey), bytes);
      const retention = await store.retentionOf(daysKey);
      assert.equal(retention?.mode, 'COMPLIANCE');
      const until = retention.retainUntil?.getTime() ?? Number.NaN;
      const days = 3_650 * 86_400_000;
      // S3 may keep whole seconds.
      assert.ok(until >= before + days - 1_000 && until <= after + days, `${retention.retainUntil?.toISOString()}`);
    } finally {
      await store.close();
    }
  });

  it('reports an empty retention for an object put past the adapter without Object Lock, and undefined for a missing key', async () => {
    const key = 'cmp_abc/doc_raw_unlocked/signed-xml/v1.xml';
    await s3rver.client.send(new PutObjectCommand({ Bucket: s3rverBucket, Key: key, Body: Buffer.from(xml, 'utf8') }));
    const store = createS3BlobStore(s3Config(s3rver.port, { objectLockDays: 3_650 }));
    try {
      assert.deepEqual(await store.retentionOf(key), { mode: undefined, retainUntil: undefined });
      assert.equal(await store.retentionOf('cmp_abc/doc_never_written/signed-xml/v1.xml'), undefined);
      // A key that is only a prefix of others names no object.
      assert.equal(await store.retentionOf('cmp_abc/doc_raw_unlocked'), undefined);
    } finally {
      await store.close();
    }
  });

  it('reports an empty retention in a bucket without Object Lock, where S3 refuses a put that asks for one', async () => {
    const plain = await startS3rver({ objectLock: false });
    const store = createS3BlobStore(s3Config(plain.port, { objectLockDays: 3_650 }));
    try {
      const key = 'cmp_abc/doc_plain/signed-xml/v1.xml';
      await plain.client.send(new PutObjectCommand({ Bucket: s3rverBucket, Key: key, Body: Buffer.from(xml, 'utf8') }));
      assert.deepEqual(await store.retentionOf(key), { mode: undefined, retainUntil: undefined });
      assert.equal(await store.retentionOf('cmp_abc/doc_plain/signed-xml/missing.xml'), undefined);
      await assert.rejects(
        store.put('cmp_abc/doc_plain/signed-xml/v2.xml', Buffer.from(xml, 'utf8'), { contentType: 'application/xml' }),
        (error: unknown) => error instanceof Error && error.name === 'InvalidRequest',
      );
    } finally {
      await store.close();
      await plain.stop();
    }
  });

  it('pages through listings that S3 cuts short of MaxKeys, including pages that hold only probe keys', async () => {
    // S3 returns at most 1,000 keys a request; a page size of 4 pages through 17 keys the same way.
    const paged = await startS3rver({ pageSize: 4 });
    const store = createS3BlobStore(s3Config(paged.port));
    try {
      const keys = Array.from({ length: 11 }, (_, i) => `bulk/${String(i).padStart(4, '0')}`);
      const probeKeys = Array.from({ length: 5 }, (_, i) => `_probe/other-process-${i}`);
      for (const Key of [...probeKeys, ...keys]) {
        await paged.client.send(new PutObjectCommand({ Bucket: s3rverBucket, Key, Body: Key }));
      }
      await store.probe(5_000);
      const keysOf = (blobs: readonly { key: string }[]) => blobs.map((blob) => blob.key);
      const everything = await store.list({ limit: 100 });
      assert.deepEqual(keysOf(everything), keys);
      assert.ok(everything.every((blob) => blob.size === 9));
      assert.deepEqual(keysOf(await store.list({ limit: 6 })), keys.slice(0, 6));
      assert.deepEqual(keysOf(await store.list({ after: 'bulk/0003', limit: 100 })), keys.slice(4));
      assert.deepEqual(keysOf(await store.list({ prefix: 'bulk/', after: 'bulk/0003', limit: 5 })), keys.slice(4, 9));
      // Six probe keys lead the bucket: with a limit of 2 the first three pages hold nothing to return.
      assert.deepEqual(keysOf(await store.list({ limit: 2 })), keys.slice(0, 2));
    } finally {
      await store.close();
      await paged.stop();
    }
  });

  async function withStub(
    answer: (request: { method: string; url: string }) => { status: number; body?: string },
    run: (store: BlobStore) => Promise<void>,
    overrides: Partial<S3Config> = {},
  ): Promise<void> {
    const stub = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        const { status, body } = answer({ method: request.method ?? '', url: request.url ?? '' });
        response.writeHead(status, { 'content-type': 'application/xml' }).end(body);
      });
    });
    await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
    const { port } = stub.address() as { port: number };
    const store = createS3BlobStore(s3Config(port, overrides));
    try {
      await run(store);
    } finally {
      await store.close();
      stub.closeAllConnections();
      await new Promise((resolve) => stub.close(resolve));
    }
  }
  const s3Error = (code: string) =>
    `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${code}</Message></Error>`;

  it('refuses a listing that S3 returns out of key byte order rather than pass it on', async () => {
    const listing = (keys: string[]) =>
      '<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
      `<Name>${s3rverBucket}</Name><IsTruncated>false</IsTruncated>` +
      keys.map((key) => `<Contents><Key>${key}</Key><Size>1</Size></Contents>`).join('') +
      '</ListBucketResult>';
    await withStub(
      () => ({ status: 200, body: listing(['a/x', 'a.b']) }),
      async (store) => {
        await assert.rejects(
          store.list({ limit: 10 }),
          /S3 listed a\.b after a\/x: the listing is not in key byte order/,
        );
      },
    );
    await withStub(
      () => ({ status: 200, body: listing(['a.b', 'a/x']) }),
      async (store) => {
        await assert.rejects(store.list({ after: 'a0', limit: 10 }), /S3 listed a\.b after a0/);
      },
    );
  });

  it('reads a refusal of GetObjectRetention as a missing object only when a HEAD finds none', async () => {
    // S3 answers 405 MethodNotAllowed for a key whose current version is a delete marker.
    await withStub(
      ({ method }) => (method === 'HEAD' ? { status: 404 } : { status: 405, body: s3Error('MethodNotAllowed') }),
      async (store) => {
        assert.equal(await store.retentionOf('cmp_abc/doc_deleted/v1.xml'), undefined);
      },
    );
    await withStub(
      ({ method }) => (method === 'HEAD' ? { status: 200 } : { status: 403, body: s3Error('AccessDenied') }),
      async (store) => {
        await assert.rejects(
          store.retentionOf('cmp_abc/doc_denied/v1.xml'),
          (error: unknown) => error instanceof Error && error.name === 'AccessDenied',
        );
      },
    );
  });

  const isUnavailable = (pattern: RegExp) => (error: unknown) => {
    assert.ok(error instanceof StorageUnavailableError, String(error));
    assert.match(error.message, pattern);
    assert.ok(error.cause instanceof Error, 'the S3 error is kept as the cause');
    return true;
  };

  it('fails every call with StorageUnavailableError while S3 is out of reach, and serves again once it is back', async () => {
    const s3 = await startS3rver();
    const store = createS3BlobStore(s3Config(s3.port));
    try {
      const kept = Buffer.from('<kept/>');
      await store.put('outage/kept.xml', kept, { contentType: 'application/xml' });
      await s3.halt();
      const refused = isUnavailable(/: S3 cannot be reached \(ECONNREFUSED\)$/);
      await assert.rejects(
        store.put('outage/new.xml', Buffer.from('<new/>'), { contentType: 'application/xml' }),
        refused,
      );
      await assert.rejects(store.get('outage/kept.xml'), refused);
      await assert.rejects(store.head('outage/kept.xml'), refused);
      await assert.rejects(store.list({ limit: 10 }), refused);
      await assert.rejects(store.retentionOf('outage/kept.xml'), refused);

      await s3.resume();
      await store.put('outage/new.xml', Buffer.from('<new/>'), { contentType: 'application/xml' });
      assert.deepEqual(await store.get('outage/kept.xml'), kept);
      const listed = await store.list({ prefix: 'outage/', limit: 10 });
      assert.deepEqual(
        listed.map((blob) => blob.key),
        ['outage/kept.xml', 'outage/new.xml'],
      );
    } finally {
      await store.close();
      await s3.stop();
    }
  });

  it('fails a call S3 answers with 5xx or 429 with StorageUnavailableError, and leaves a refusal as it is', async () => {
    for (const [status, body] of [
      [503, s3Error('SlowDown')],
      [500, s3Error('InternalError')],
      [502, '<html><body>Bad Gateway</body></html>'],
      [429, s3Error('TooManyRequests')],
    ] as const) {
      await withStub(
        () => ({ status, body }),
        async (store) => {
          // The put's first call is a HEAD, whose answer has no body to name the error.
          await assert.rejects(
            store.put('cmp_abc/doc_5xx/v1.xml', Buffer.from('<x/>'), { contentType: 'application/xml' }),
            isUnavailable(new RegExp(`^could not write cmp_abc/doc_5xx/v1.xml: S3 answered ${String(status)} `)),
          );
          await assert.rejects(
            store.get('cmp_abc/doc_5xx/v1.xml'),
            isUnavailable(new RegExp(`^could not read cmp_abc/doc_5xx/v1.xml: S3 answered ${String(status)} `)),
          );
        },
      );
    }
    await withStub(
      () => ({ status: 503, body: s3Error('SlowDown') }),
      async (store) => {
        await assert.rejects(store.get('cmp_abc/doc_5xx/v1.xml'), isUnavailable(/S3 answered 503 SlowDown$/));
      },
    );
    await withStub(
      () => ({ status: 403, body: s3Error('AccessDenied') }),
      async (store) => {
        await assert.rejects(
          store.get('cmp_abc/doc_denied/v1.xml'),
          (error: unknown) => error instanceof Error && error.name === 'AccessDenied',
        );
      },
    );
  });

  it('gives up on an S3 that takes the connection and never answers, within its request timeout', async () => {
    const held: Socket[] = [];
    const silent = createTcpServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    const store = createS3BlobStore(s3Config(port, { connectTimeoutMs: 300, requestTimeoutMs: 300 }));
    try {
      const started = Date.now();
      await assert.rejects(
        store.put('cmp_abc/doc_silent/v1.xml', Buffer.from('<x/>'), { contentType: 'application/xml' }),
        isUnavailable(/: S3 did not answer in time$/),
      );
      // Three attempts of 300 ms and the SDK's backoff between them.
      const took = Date.now() - started;
      assert.ok(took < 5_000, `gave up after ${String(took)} ms`);
    } finally {
      await store.close();
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  const now = new Date('2025-03-01T12:00:00Z');
  const retainUntil = new Date('2036-01-01T00:00:00Z');
  const lockCases = [
    ['no retention asked or configured', undefined, undefined, {}],
    [
      'the configured days from now',
      undefined,
      3_650,
      { ObjectLockMode: 'COMPLIANCE', ObjectLockRetainUntilDate: new Date('2035-02-27T12:00:00Z') },
    ],
    [
      'the given date over configured days',
      retainUntil,
      3_650,
      { ObjectLockMode: 'COMPLIANCE', ObjectLockRetainUntilDate: retainUntil },
    ],
    [
      'the given date with no days configured',
      retainUntil,
      undefined,
      { ObjectLockMode: 'COMPLIANCE', ObjectLockRetainUntilDate: retainUntil },
    ],
  ] as const;
  for (const [name, until, days, expected] of lockCases) {
    it(`asks for COMPLIANCE retention until ${name}`, () => {
      assert.deepEqual(objectLockFor(until, days, now), expected);
    });
  }
});

describe('fs blob store on a full disk', () => {
  it('fails a write the disk has no room for with StorageFullError and keeps nothing of it, then writes again', async () => {
    const root = await mkdtemp(join(tmpdir(), 'ecf-blobs-full-'));
    const store = createFsBlobStore(root);
    try {
      await store.failNextWrites(2);
      const bytes = Buffer.from(xml.repeat(40));
      // A fresh key is written in place, another through a temporary name: neither may leave a partial file.
      for (const [key, fresh] of [
        ['cmp_abc/2025-03-01/doc_full.signed-xml.v1.xml', true],
        ['cmp_abc/2025-03-01/doc_full.rfce-xml.v1.xml', false],
      ] as const) {
        await assert.rejects(store.put(key, bytes, { contentType: 'application/xml', fresh }), (error: unknown) => {
          assert.ok(error instanceof StorageFullError, String(error));
          assert.equal((error.cause as NodeJS.ErrnoException).code, 'ENOSPC');
          return true;
        });
        assert.equal(existsSync(store.filePath(key)), false, `${key} left a file behind`);
      }
      assert.deepEqual(await readdir(join(root, 'cmp_abc', '2025-03-01')), []);
      assert.deepEqual(await store.list({ limit: 10 }), []);

      const key = 'cmp_abc/2025-03-01/doc_full.signed-xml.v1.xml';
      assert.deepEqual(
        await store.put(key, bytes, { contentType: 'application/xml', fresh: true }),
        expectedBlob(key, bytes),
      );
      assert.deepEqual(await store.get(key), bytes);
    } finally {
      await store.close();
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('createBlobStore', () => {
  it('chooses the filesystem adapter for STORAGE=fs and the S3 adapter for STORAGE=s3', async () => {
    const fsStore = await createBlobStore({ kind: 'fs', root: join(tmpdir(), 'ecf-unused') });
    const s3Store = await createBlobStore({ kind: 's3', s3: s3Config(9) });
    assert.deepEqual([fsStore.kind, s3Store.kind], ['fs', 's3']);
    await fsStore.close();
    await s3Store.close();
  });
});
