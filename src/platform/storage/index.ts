import type { Config } from '../../config.js';
import type { BlobStore } from './blob-store.js';
import { createFsBlobStore } from './fs-blob-store.js';

export {
  BlobExistsError,
  compareKeys,
  InvalidBlobKeyError,
  readArchived,
  sha256Hex,
  StorageFullError,
  StorageUnavailableError,
} from './blob-store.js';
export type {
  BlobHead,
  BlobStore,
  ListedBlob,
  ListOptions,
  ObjectRetention,
  PutOptions,
  StoredBlob,
} from './blob-store.js';
export { createFsBlobStore, type FsBlobStore } from './fs-blob-store.js';

/** The configured store; the S3 adapter, and the AWS SDK with it (a tenth of the service's start-up), loaded only for S3. */
export async function createBlobStore(storage: Config['storage']): Promise<BlobStore> {
  switch (storage.kind) {
    case 'fs':
      return createFsBlobStore(storage.root);
    case 's3':
      return (await import('./s3-blob-store.js')).createS3BlobStore(storage.s3);
  }
}
