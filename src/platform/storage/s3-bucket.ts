// What the archive's bucket itself says of its protection: versioning, Object Lock and its default retention, read
// from the bucket's configuration (GetBucketVersioning, GetObjectLockConfiguration). Nothing is written: under
// Object Lock a probe object could never be deleted, and the archive verifier would report it as an orphan.
import { GetBucketVersioningCommand, GetObjectLockConfigurationCommand, type S3Client } from '@aws-sdk/client-s3';
import type { S3Config } from '../../config.js';
import { createS3Client, unavailableReason } from './s3-client.js';

export interface DefaultRetention {
  mode: 'COMPLIANCE' | 'GOVERNANCE' | undefined;
  /** One of the two, as the bucket's rule gives it. */
  days: number | undefined;
  years: number | undefined;
}

export type BucketProtection =
  | {
      kind: 'read';
      /** Off: never enabled (S3 answers no Status). */
      versioning: 'Enabled' | 'Suspended' | 'Off';
      objectLock: boolean;
      /** What S3 applies to an object written without a retention of its own; undefined: no default rule. */
      defaultRetention: DefaultRetention | undefined;
    }
  | { kind: 'failed'; reason: string };

export async function readBucketProtection(s3: S3Config): Promise<BucketProtection> {
  const client = createS3Client(s3);
  try {
    const versioning = await client.send(new GetBucketVersioningCommand({ Bucket: s3.bucket }));
    const lock = await objectLockOf(client, s3.bucket);
    const rule = lock?.Rule?.DefaultRetention;
    const mode = rule?.Mode;
    return {
      kind: 'read',
      versioning: versioning.Status ?? 'Off',
      objectLock: lock?.ObjectLockEnabled === 'Enabled',
      defaultRetention:
        rule === undefined
          ? undefined
          : {
              mode: mode === 'COMPLIANCE' || mode === 'GOVERNANCE' ? mode : undefined,
              days: rule.Days,
              years: rule.Years,
            },
    };
  } catch (error) {
    return { kind: 'failed', reason: failureReason(error, s3.bucket) };
  } finally {
    client.destroy();
  }
}

/** The bucket's Object Lock configuration; undefined for a bucket without Object Lock (S3 answers that 404). */
async function objectLockOf(client: S3Client, bucket: string) {
  try {
    return (await client.send(new GetObjectLockConfigurationCommand({ Bucket: bucket }))).ObjectLockConfiguration;
  } catch (error) {
    if (error instanceof Error && error.name === 'ObjectLockConfigurationNotFoundError') return undefined;
    throw error;
  }
}

function failureReason(error: unknown, bucket: string): string {
  const unavailable = unavailableReason(error);
  if (unavailable !== undefined) return unavailable;
  if (!(error instanceof Error)) return String(error);
  if (error.name === 'NoSuchBucket') return `the bucket ${bucket} does not exist (S3_BUCKET)`;
  if (error.name === 'AccessDenied')
    return `S3 denied reading the bucket's configuration: the credentials need s3:GetBucketVersioning and s3:GetBucketObjectLockConfiguration on ${bucket}`;
  return `S3 refused: ${error.name}: ${error.message}`;
}
