// s3rver (a devDependency) plays S3 in the storage tests. Version 3.7.1 departs from AWS S3 in three ways those
// tests depend on, and all are corrected here, in the test server, never in the adapter:
//
// - Paging. s3rver makes ListObjectsV2 continuation tokens with single DES (lib/controllers/bucket.js
//   generateContinuationToken, decipherContinuationToken), which Node 20's OpenSSL 3 keeps in its legacy provider:
//   every listing with more keys than MaxKeys fails with 500 InternalError. s3rver gets triple DES with its three
//   keys equal instead, which is the same cipher and which OpenSSL 3 still has.
// - Listing order. S3 lists keys in UTF-8 byte order. s3rver walks its directory tree instead
//   (lib/stores/filesystem.js listObjects, lib/utils.js walk): it stores `a/x` as the file `a/x._S3rver_object`, so
//   it lists every key under `a/` before `a-b` and `a.b`, and `a` after `a-b`. Its pages then continue after the
//   last key listed, so keys can be skipped across pages too.
// - Object Lock. s3rver keeps only a fixed list of headers on PutObject (lib/models/object.js ALLOWED_METADATA,
//   lib/stores/filesystem.js putMetadata), so `x-amz-object-lock-mode` and `-retain-until-date` are dropped, and it
//   answers GetObjectRetention (`GET ?retention`) with 501 NotImplemented (lib/routes.js). A small middleware
//   below keeps the retention each PutObject asks for and answers GetObjectRetention with it, with the answers and
//   errors AWS S3 gives, including for a bucket created without Object Lock. It answers the bucket's own
//   configuration too, which s3rver answers 501 NotImplemented: GetBucketVersioning (Enabled for a bucket created
//   with Object Lock, which AWS turns versioning on for; never set otherwise), GetObjectLockConfiguration (404
//   ObjectLockConfigurationNotFoundError without Object Lock) and PutObjectLockConfiguration, for a bucket's default
//   retention (409 InvalidBucketState without Object Lock).
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// s3rver ships no type declarations; these are the parts of it (and of Koa, which it extends) used here.
interface KoaContext {
  method: string;
  req: NodeJS.ReadableStream & { resume(): void };
  path: string;
  query: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
  status: number;
  type: string;
  body: unknown;
  get(header: string): string;
}
type KoaMiddleware = (ctx: KoaContext, next: () => Promise<void>) => Promise<void>;
interface ListedObjects {
  objects: { key: string }[];
  commonPrefixes: string[];
  isTruncated: boolean;
}
interface ListOptions {
  delimiter?: string;
  startAfter?: string;
  prefix?: string;
  maxKeys?: number;
}
interface FilesystemStore {
  getBucket(bucket: string): Promise<object | null>;
  existsObject(bucket: string, key: string): Promise<boolean>;
  listObjects(bucket: string, options: ListOptions): Promise<ListedObjects>;
}
interface S3rverServer {
  /** Koa's middleware, in order; s3rver's router is the last one. */
  middleware: KoaMiddleware[];
  store: FilesystemStore;
  /** What `run` listens with; each run starts a new HTTP server from it. */
  serverOptions: { port: number };
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}
type S3rverConstructor = new (options: {
  address: string;
  port: number;
  silent: boolean;
  directory: string;
}) => S3rverServer;
const require = createRequire(import.meta.url);
const S3rver = require('s3rver') as S3rverConstructor;

type CipherFactory = (algorithm: string, key: Buffer, iv: Buffer | null, ...options: unknown[]) => unknown;
interface CipherFactories {
  createCipheriv: CipherFactory;
  createDecipheriv: CipherFactory;
}

/** Single DES through triple DES (K1 = K2 = K3, so EDE is one DES encryption), for s3rver's tokens. */
function desThroughTripleDes(): void {
  const crypto = require('node:crypto') as CipherFactories;
  try {
    crypto.createCipheriv('des', Buffer.alloc(8), Buffer.alloc(8));
    return;
  } catch {
    // OpenSSL 3 without the legacy provider.
  }
  const through =
    (original: CipherFactory): CipherFactory =>
    (algorithm, key, iv, ...options) =>
      algorithm === 'des'
        ? original('des-ede3-cbc', Buffer.concat([key, key, key]), iv, ...options)
        : original(algorithm, key, iv, ...options);
  crypto.createCipheriv = through(crypto.createCipheriv);
  crypto.createDecipheriv = through(crypto.createDecipheriv);
}

export interface S3rverInstance {
  port: number;
  endpoint: string;
  bucket: string;
  /** A plain client, for writing objects past the adapter. */
  client: S3Client;
  /** Stops answering, as an S3 out of reach: connections refused, the objects kept. */
  halt(): Promise<void>;
  /** Answers again on the same port, with the objects (and their retention) it had. */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

export interface S3rverOptions {
  /** Create the bucket with Object Lock enabled, as the archive's bucket is (default true). */
  objectLock?: boolean;
  /**
   * The most keys one ListObjectsV2 page holds, whatever MaxKeys asks: S3's (and s3rver's) 1,000, or fewer, to page
   * through a handful of keys as a client pages through thousands on S3.
   */
  pageSize?: number;
}

export const s3rverBucket = 'ecf-archive';

export async function startS3rver(options: S3rverOptions = {}): Promise<S3rverInstance> {
  desThroughTripleDes();
  const directory = await mkdtemp(join(tmpdir(), 'ecf-s3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
  // Its logger loses its transports when the server closes (halt); silent, winston does not complain of each line
  // a request that was still running logs, nor of any after resume.
  (server as unknown as { logger: { silent: boolean } }).logger.silent = true;
  listInByteOrder(server.store, options.pageSize ?? 1_000);
  server.middleware.splice(server.middleware.length - 1, 0, objectLockMiddleware(server.store));
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  await client.send(
    new CreateBucketCommand({ Bucket: s3rverBucket, ObjectLockEnabledForBucket: options.objectLock ?? true }),
  );
  let running = true;
  const halt = async () => {
    if (!running) return;
    running = false;
    const closed = server.close();
    // Its keep-alive connections too: a client that holds one open would otherwise go on being answered (and,
    // under load, keep close() from ever finishing).
    (server as unknown as { httpServer: Server }).httpServer.closeAllConnections();
    await closed;
  };
  return {
    port,
    endpoint,
    bucket: s3rverBucket,
    client,
    halt,
    async resume() {
      if (running) return;
      server.serverOptions.port = port;
      await server.run();
      running = true;
    },
    async stop() {
      client.destroy();
      await halt();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/**
 * Lists through s3rver's own walk (which applies the prefix and reads each object's metadata), then orders, starts
 * after and cuts the page as S3 does; s3rver makes the continuation token from the page's last key. A listing with a
 * delimiter keeps s3rver's order: no test asks for one.
 */
function listInByteOrder(store: FilesystemStore, pageSize: number): void {
  const walkOrder = store.listObjects.bind(store);
  store.listObjects = async (bucket, options) => {
    if (options.delimiter !== undefined && options.delimiter !== '') return walkOrder(bucket, options);
    const all = await walkOrder(bucket, { ...options, startAfter: undefined, maxKeys: Infinity });
    const startAfter = options.startAfter ?? '';
    const maxKeys = Math.min(options.maxKeys ?? Infinity, pageSize);
    const after = all.objects
      .filter((object) => compareBytes(object.key, startAfter) > 0)
      .sort((a, b) => compareBytes(a.key, b.key));
    return { objects: after.slice(0, maxKeys), commonPrefixes: [], isTruncated: after.length > maxKeys };
  };
}

interface Retention {
  mode: string;
  retainUntil: string;
}

/**
 * Object Lock as AWS S3 does it, for what the tests use: CreateBucket with `x-amz-bucket-object-lock-enabled: true`
 * turns it on for the bucket (and versioning with it); PutObject keeps the retention its headers ask for (both
 * headers or neither, and only in such a bucket); GetObjectRetention answers it, 404 NoSuchObjectLockConfiguration
 * for an object without one, 404 NoSuchKey for a missing object and 400 InvalidRequest in a bucket without Object
 * Lock. The bucket's versioning and Object Lock configuration (with a default retention once one is put) are
 * answered as AWS answers them. It runs before s3rver's router, so these requests skip s3rver's signature check
 * (which the tests do not exercise).
 */
function objectLockMiddleware(store: FilesystemStore): KoaMiddleware {
  const lockedBuckets = new Set<string>();
  const retentions = new Map<string, Retention>();
  /** Each locked bucket's default retention rule, as the XML PutObjectLockConfiguration gave it. */
  const defaultRules = new Map<string, string>();
  const xmlns = 'http://s3.amazonaws.com/doc/2006-03-01/';

  interface Answer {
    status: number;
    xml: string;
  }
  const s3Error = (status: number, code: string, message: string): Answer => ({
    status,
    xml: `<Error><Code>${code}</Code><Message>${message}</Message></Error>`,
  });
  const noLockInBucket = s3Error(400, 'InvalidRequest', 'Bucket is missing Object Lock Configuration');

  function send(ctx: KoaContext, answer: Answer): void {
    ctx.req.resume();
    ctx.status = answer.status;
    ctx.type = 'application/xml';
    ctx.body = `<?xml version="1.0" encoding="UTF-8"?>\n${answer.xml}`;
  }

  /** Why S3 would refuse this PutObject's Object Lock headers, if it would. */
  async function refusalOfPut(ctx: KoaContext, bucket: string, retention: Retention): Promise<Answer | undefined> {
    if (retention.mode === '' && retention.retainUntil === '') return undefined;
    // A missing bucket is left to s3rver, which answers NoSuchBucket.
    if ((await store.getBucket(bucket)) === null) return undefined;
    if (!lockedBuckets.has(bucket)) return noLockInBucket;
    if (retention.mode === '' || retention.retainUntil === '')
      return s3Error(
        400,
        'InvalidArgument',
        'x-amz-object-lock-retain-until-date and x-amz-object-lock-mode must both be supplied',
      );
    const checksummed =
      ctx.get('content-md5') !== '' || Object.keys(ctx.headers).some((name) => name.startsWith('x-amz-checksum-'));
    if (!checksummed)
      return s3Error(
        400,
        'InvalidRequest',
        'Content-MD5 OR x-amz-checksum- HTTP header is required for Put Object requests with Object Lock parameters',
      );
    return undefined;
  }

  /** GetBucketVersioning, GetObjectLockConfiguration and PutObjectLockConfiguration, as AWS S3 answers them. */
  async function bucketConfiguration(ctx: KoaContext, bucket: string, subresource: string): Promise<Answer> {
    if ((await store.getBucket(bucket)) === null)
      return s3Error(404, 'NoSuchBucket', 'The specified bucket does not exist');
    const locked = lockedBuckets.has(bucket);
    if (ctx.method === 'GET' && subresource === 'versioning')
      return {
        status: 200,
        xml: locked
          ? `<VersioningConfiguration xmlns="${xmlns}"><Status>Enabled</Status></VersioningConfiguration>`
          : `<VersioningConfiguration xmlns="${xmlns}"/>`,
      };
    if (!locked)
      return ctx.method === 'GET'
        ? s3Error(
            404,
            'ObjectLockConfigurationNotFoundError',
            'Object Lock configuration does not exist for this bucket',
          )
        : s3Error(
            409,
            'InvalidBucketState',
            "Versioning must be 'Enabled' on the bucket to apply a Object Lock configuration",
          );
    if (ctx.method === 'PUT') {
      const chunks: Buffer[] = [];
      for await (const chunk of ctx.req) chunks.push(Buffer.from(chunk));
      const rule = /<Rule>[\s\S]*<\/Rule>/.exec(Buffer.concat(chunks).toString('utf8'))?.[0];
      if (rule === undefined) defaultRules.delete(bucket);
      else defaultRules.set(bucket, rule);
      return { status: 200, xml: '' };
    }
    return {
      status: 200,
      xml: `<ObjectLockConfiguration xmlns="${xmlns}"><ObjectLockEnabled>Enabled</ObjectLockEnabled>${defaultRules.get(bucket) ?? ''}</ObjectLockConfiguration>`,
    };
  }

  async function retentionOf(bucket: string, key: string): Promise<Answer> {
    if ((await store.getBucket(bucket)) === null)
      return s3Error(404, 'NoSuchBucket', 'The specified bucket does not exist');
    if (!lockedBuckets.has(bucket)) return noLockInBucket;
    if (!(await store.existsObject(bucket, key))) return s3Error(404, 'NoSuchKey', 'The specified key does not exist.');
    const retention = retentions.get(`${bucket}/${key}`);
    if (retention === undefined)
      return s3Error(
        404,
        'NoSuchObjectLockConfiguration',
        'The specified object does not have a ObjectLock configuration',
      );
    const until = new Date(retention.retainUntil).toISOString();
    return {
      status: 200,
      xml:
        '<Retention xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
        `<Mode>${retention.mode}</Mode><RetainUntilDate>${until}</RetainUntilDate></Retention>`,
    };
  }

  return async (ctx, next) => {
    // Path-style requests: /bucket/ or /bucket/key. The SDK adds `x-id` (the operation's name) to some queries.
    const match = /^\/([^/]+)(?:\/(.*))?$/.exec(ctx.path);
    const subresources = Object.keys(ctx.query).filter((name) => name !== 'x-id');
    if (match === null) {
      await next();
      return;
    }
    const bucket = decodeURIComponent(match[1]!);
    const key = match[2] === undefined || match[2] === '' ? undefined : decodeURIComponent(match[2]);

    const [subresource] = subresources;
    const bucketLevel =
      (subresource === 'versioning' && ctx.method === 'GET') ||
      (subresource === 'object-lock' && (ctx.method === 'GET' || ctx.method === 'PUT'));
    if (key === undefined && subresources.length === 1 && subresource !== undefined && bucketLevel) {
      const answer = await bucketConfiguration(ctx, bucket, subresource);
      if (answer.xml === '') {
        ctx.status = answer.status;
        ctx.body = '';
      } else send(ctx, answer);
    } else if (key === undefined) {
      await next();
      if (ctx.method === 'PUT' && subresources.length === 0 && ctx.get('x-amz-bucket-object-lock-enabled') === 'true')
        lockedBuckets.add(bucket);
    } else if (ctx.method === 'PUT' && subresources.length === 0 && ctx.get('x-amz-copy-source') === '') {
      const retention = {
        mode: ctx.get('x-amz-object-lock-mode'),
        retainUntil: ctx.get('x-amz-object-lock-retain-until-date'),
      };
      const refusal = await refusalOfPut(ctx, bucket, retention);
      if (refusal !== undefined) {
        send(ctx, refusal);
        return;
      }
      await next();
      // A new version of the key: it has the retention this PUT asked for, or none.
      if (retention.mode === '') retentions.delete(`${bucket}/${key}`);
      else retentions.set(`${bucket}/${key}`, retention);
    } else if (ctx.method === 'GET' && subresources.length === 1 && subresources[0] === 'retention') {
      send(ctx, await retentionOf(bucket, key));
    } else {
      await next();
    }
  };
}
