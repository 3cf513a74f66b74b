// The archive's store answers and, on S3, the bucket holds what the settings declare: versioning, and Object Lock
// with the retention S3_OBJECT_LOCK_DAYS asks for (or, where PRODUCTION_ALLOW=s3-without-object-lock says the
// bucket's own default retention locks every object, that default). Read from the bucket's configuration; nothing is
// written (platform/storage/s3-bucket.ts says why).
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import type { Config, S3Config } from '../config.js';
import { readBucketProtection, type DefaultRetention } from '../platform/storage/s3-bucket.js';
import { grouped, reasonOf, type CheckResult } from './check.js';
import { objectionResult, storageObjection, tenYearsDays } from './production-rules.js';

export async function checkStorage(config: Config): Promise<CheckResult[]> {
  const objection = storageObjection(config);
  const line =
    config.storage.kind === 'fs' ? await filesLine(config.storage.root) : await bucketLine(config, config.storage.s3);
  return [...objectionResult('storage', objection), line];
}

async function filesLine(root: string): Promise<CheckResult> {
  const result = (status: CheckResult['status'], line: string): CheckResult => ({ check: 'storage', status, line });
  try {
    if (!(await stat(root)).isDirectory()) return result('failure', `STORAGE_DIR ${root} is not a directory`);
    await access(root, constants.R_OK | constants.W_OK);
    return result('ok', `the archive's files are under ${root}, readable and writable`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return result('warning', `STORAGE_DIR ${root} does not exist yet: the first archived file makes it`);
    return result('failure', `STORAGE_DIR ${root} cannot be used: ${reasonOf(error)}`);
  }
}

function describeRetention(rule: DefaultRetention): string {
  const period = rule.years === undefined ? `${grouped(rule.days ?? 0)} days` : `${rule.years} years`;
  return `${rule.mode ?? 'no mode'} ${period}`;
}

/** COMPLIANCE (nobody, not even the account's root, shortens it) and ten years or more. */
function locksTenYears(rule: DefaultRetention | undefined): boolean {
  if (rule?.mode !== 'COMPLIANCE') return false;
  return rule.years === undefined ? (rule.days ?? 0) >= tenYearsDays : rule.years >= 10;
}

async function bucketLine(config: Config, s3: S3Config): Promise<CheckResult> {
  const result = (status: CheckResult['status'], line: string): CheckResult => ({ check: 'storage', status, line });
  const bucket = `the bucket ${s3.bucket}`;
  const read = await readBucketProtection(s3);
  if (read.kind === 'failed') return result('failure', read.reason);
  const days = s3.objectLockDays;
  if (!read.objectLock)
    return days !== undefined
      ? result(
          'failure',
          `${bucket} has no Object Lock, so S3 refuses every archive write that asks for S3_OBJECT_LOCK_DAYS=${days}: archive into a bucket created with Object Lock enabled`,
        )
      : result(
          config.fiscalEnv === 'PRODUCTION' ? 'failure' : 'ok',
          `${bucket} answers, without Object Lock (versioning ${read.versioning}): archived files can be deleted or overwritten by whoever holds the credentials${config.fiscalEnv === 'PRODUCTION' ? '; use a bucket created with Object Lock' : ''}`,
        );
  // S3 refuses to suspend versioning on a bucket with Object Lock; an S3-compatible server that lets it is caught here.
  if (read.versioning !== 'Enabled')
    return result(
      'failure',
      `${bucket} does not keep versions (versioning ${read.versioning}): an overwrite or a delete would lose an archived file; use a bucket created with Object Lock, which keeps versioning on`,
    );
  const rule = read.defaultRetention;
  if (days !== undefined)
    return result(
      'ok',
      `${bucket} answers, versioned, with Object Lock: each archived file is locked COMPLIANCE for ${grouped(days)} days`,
    );
  if (locksTenYears(rule))
    return result(
      'ok',
      `${bucket} answers, versioned, with Object Lock: its default retention (${describeRetention(rule as DefaultRetention)}) locks every archived file`,
    );
  return result(
    config.fiscalEnv === 'PRODUCTION' ? 'failure' : 'ok',
    `${bucket} answers, versioned, with Object Lock, but nothing locks the archived files: ${rule === undefined ? 'it has no default retention' : `its default retention is ${describeRetention(rule)}`} and S3_OBJECT_LOCK_DAYS is unset; set S3_OBJECT_LOCK_DAYS=${tenYearsDays}`,
  );
}
