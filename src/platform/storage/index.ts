import type { Config } from '../../config.js';
import type { BlobStore } from './blob-store.js';
import { createFsBlobStore } from './fs-blob-store.js';
import { createS3BlobStore } from './s3-blob-store.js';

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
export { createS3BlobStore } from './s3-blob-store.js';

export function createBlobStore(storage: Config['storage']): BlobStore {
  switch (storage.kind) {
    case 'fs':
      return createFsBlobStore(storage.root);
    case 's3':
      return createS3BlobStore(storage.s3);
  }
}
