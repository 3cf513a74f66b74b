import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { S3Config } from '../../config.js';
import { objectLockFor } from './s3-blob-store.js';
import {
  BlobExistsError,
  createBlobStore,
  createFsBlobStore,
  createS3BlobStore,
  InvalidBlobKeyError,
  type BlobStore,
  type StoredBlob,
} from './index.js';

// s3rver ships no type declarations, and a test file cannot declare an untyped module; load it through require
// with the small part of its API we use.
interface S3rverServer {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}
type S3rverConstructor = new (options: {
  address: string;
  port: number;
  silent: boolean;
  directory: string;
}) => S3rverServer;
const S3rver = createRequire(import.meta.url)('s3rver') as S3rverConstructor;

interface Harness {
  store: BlobStore;
  makeUnavailable(): Promise<void>;
  dispose(): Promise<void>;
}

const xml =
  '<?xml version="1.0" encoding="UTF-8"?><ECF><RazonSocialEmisor>Panadería Ñoño &amp; Cía, S.R.L. — Año 2025 ✓ 𝄞</RazonSocialEmisor></ECF>';

function expectedBlob(key: string, bytes: Uint8Array): StoredBlob {
  return { key, sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.byteLength };
}

function isBlobExists(key: string) {
  return (error: unknown) => error instanceof BlobExistsError && error.key === key;
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
      assert.deepEqual(await store.head(key), { size: 0, sha256: expectedBlob(key, new Uint8Array(0)).sha256 });
    });

    it('answers undefined for a missing key and for a key that is only a prefix of others', async () => {
      await store.put('cmp_prefix/doc_1/v1.xml', Buffer.from('<a/>'), { contentType: 'application/xml' });
      for (const key of ['cmp_abc/doc_999/signed-xml/v1.xml', 'cmp_prefix/doc_1', 'cmp_prefix']) {
        assert.equal(await store.get(key), undefined, key);
        assert.equal(await store.head(key), undefined, key);
      }
    });

    it('heads an object with its size and sha256', async () => {
      const key = 'cmp_abc/doc_head/signed-xml/v1.xml';
      const bytes = Buffer.from(xml.repeat(3), 'utf8');
      await store.put(key, bytes, { contentType: 'application/xml' });
      const { size, sha256 } = expectedBlob(key, bytes);
      assert.deepEqual(await store.head(key), { size, sha256 });
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
      assert.deepEqual(await store.head(key), { size, sha256 });
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
      });
    }

    it('probes successfully, repeatedly, when storage is up', async () => {
      await store.probe(5_000);
      await store.probe(5_000);
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
  };
}

function s3Config(port: number, overrides: Partial<S3Config> = {}): S3Config {
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket: 'ecf-archive',
    region: 'us-east-1',
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    forcePathStyle: true,
    objectLockDays: undefined,
    ...overrides,
  };
}

interface S3rverInstance {
  port: number;
  client: S3Client;
  stop(): Promise<void>;
}

async function startS3rver(): Promise<S3rverInstance> {
  const directory = await mkdtemp(join(tmpdir(), 'ecf-s3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
  const { port } = await server.run();
  const config = s3Config(port);
  const client = new S3Client({
    endpoint: config.endpoint,
    region: config.region,
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  await client.send(new CreateBucketCommand({ Bucket: config.bucket }));
  let running = true;
  return {
    port,
    client,
    async stop() {
      client.destroy();
      if (running) {
        running = false;
        await server.close();
      }
      await rm(directory, { recursive: true, force: true });
    },
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
    await s3rver.client.send(new PutObjectCommand({ Bucket: 'ecf-archive', Key: key, Body: bytes }));
    const store = createS3BlobStore(s3Config(s3rver.port));
    try {
      assert.deepEqual(await store.head(key), { size: bytes.byteLength, sha256: undefined });
      assert.deepEqual(await store.put(key, bytes, { contentType: 'application/xml' }), expectedBlob(key, bytes));
      await assert.rejects(store.put(key, Buffer.from('other'), { contentType: 'application/xml' }), isBlobExists(key));
    } finally {
      await store.close();
    }
  });

  it('writes with Object Lock parameters, whether given per put or configured as a number of days', async () => {
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
      const daysKey = 'cmp_abc/doc_locked_days/signed-xml/v1.xml';
      assert.deepEqual(
        await store.put(daysKey, bytes, { contentType: 'application/xml' }),
        expectedBlob(daysKey, bytes),
      );
      assert.deepEqual(await store.get(daysKey), bytes);
    } finally {
      await store.close();
    }
  });

  // s3rver ignores If-None-Match on PUT, so the answer AWS S3 gives a writer that lost the race is played by a stub.
  it('settles a put that S3 refuses with 412 by comparing with the object the other writer stored', async () => {
    const winner = Buffer.from(xml, 'utf8');
    const stub = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        if (request.method === 'HEAD') response.writeHead(404).end();
        else if (request.method === 'PUT') {
          response.writeHead(412, { 'content-type': 'application/xml' });
          response.end(
            '<?xml version="1.0" encoding="UTF-8"?><Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message></Error>',
          );
        } else
          response
            .writeHead(200, { 'content-type': 'application/xml', 'content-length': winner.byteLength })
            .end(winner);
      });
    });
    await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
    const { port } = stub.address() as { port: number };
    const store = createS3BlobStore(s3Config(port));
    try {
      const key = 'cmp_abc/doc_lost_race/signed-xml/v1.xml';
      assert.deepEqual(await store.put(key, winner, { contentType: 'application/xml' }), expectedBlob(key, winner));
      await assert.rejects(
        store.put(key, Buffer.from('<other/>'), { contentType: 'application/xml' }),
        isBlobExists(key),
      );
    } finally {
      await store.close();
      stub.closeAllConnections();
      await new Promise((resolve) => stub.close(resolve));
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

describe('createBlobStore', () => {
  it('chooses the filesystem adapter for STORAGE=fs and the S3 adapter for STORAGE=s3', async () => {
    const fsStore = createBlobStore({ kind: 'fs', root: join(tmpdir(), 'ecf-unused') });
    const s3Store = createBlobStore({ kind: 's3', s3: s3Config(9) });
    assert.deepEqual([fsStore.kind, s3Store.kind], ['fs', 's3']);
    await fsStore.close();
    await s3Store.close();
  });
});
