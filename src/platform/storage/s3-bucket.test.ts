// The bucket's protection as S3 reports it (versioning, Object Lock, default retention), read without writing, on
// s3rver answering as AWS S3 does for buckets made with and without Object Lock.
import { CreateBucketCommand, PutObjectLockConfigurationCommand } from '@aws-sdk/client-s3';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { S3Config } from '../../config.js';
import { startS3rver, type S3rverInstance } from '../../../test/support/s3rver.js';
import { readBucketProtection } from './s3-bucket.js';

describe("readBucketProtection: the bucket's own configuration", () => {
  let s3: S3rverInstance;
  const configOf = (bucket: string): S3Config => ({
    endpoint: s3.endpoint,
    bucket,
    region: 'us-east-1',
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    forcePathStyle: true,
    objectLockDays: undefined,
    connectTimeoutMs: 1_000,
    requestTimeoutMs: 2_000,
  });
  before(async () => {
    s3 = await startS3rver();
    await s3.client.send(new CreateBucketCommand({ Bucket: 'unlocked' }));
  });
  after(() => s3.stop());

  it('reads versioning and Object Lock of a bucket created with Object Lock, then its default retention once set', async () => {
    assert.deepEqual(await readBucketProtection(configOf(s3.bucket)), {
      kind: 'read',
      versioning: 'Enabled',
      objectLock: true,
      defaultRetention: undefined,
    });
    await s3.client.send(
      new PutObjectLockConfigurationCommand({
        Bucket: s3.bucket,
        ObjectLockConfiguration: {
          ObjectLockEnabled: 'Enabled',
          Rule: { DefaultRetention: { Mode: 'COMPLIANCE', Years: 10 } },
        },
      }),
    );
    assert.deepEqual(await readBucketProtection(configOf(s3.bucket)), {
      kind: 'read',
      versioning: 'Enabled',
      objectLock: true,
      defaultRetention: { mode: 'COMPLIANCE', days: undefined, years: 10 },
    });
  });

  it('reads a bucket created without Object Lock as unversioned and unlocked', async () => {
    assert.deepEqual(await readBucketProtection(configOf('unlocked')), {
      kind: 'read',
      versioning: 'Off',
      objectLock: false,
      defaultRetention: undefined,
    });
    await assert.rejects(
      s3.client.send(
        new PutObjectLockConfigurationCommand({
          Bucket: 'unlocked',
          ObjectLockConfiguration: {
            ObjectLockEnabled: 'Enabled',
            Rule: { DefaultRetention: { Mode: 'COMPLIANCE', Days: 3653 } },
          },
        }),
      ),
      { name: 'InvalidBucketState' },
    );
  });

  it('says why it could not read: a missing bucket, then S3 out of reach', async () => {
    assert.deepEqual(await readBucketProtection(configOf('missing')), {
      kind: 'failed',
      reason: 'the bucket missing does not exist (S3_BUCKET)',
    });
    await s3.halt();
    try {
      assert.deepEqual(await readBucketProtection(configOf(s3.bucket)), {
        kind: 'failed',
        reason: 'S3 cannot be reached (ECONNREFUSED)',
      });
    } finally {
      await s3.resume();
    }
  });
});
