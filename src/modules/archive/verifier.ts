// The archive verifier. It walks the records and the store side by side in the byte order of their keys, one slice
// at a time: a key both have is read and checked (artefact-check.ts), a record without its object is a missing blob,
// an object without a record, older than the grace period, an orphan. A slice ends where the shorter of the two
// listings ended, so each key is judged with both sides in view. Reads are paced to a byte rate, and a slice's
// verdicts are recorded together (findings.repo.ts) before the pass moves past it.
import { setTimeout as sleep } from 'node:timers/promises';
import { isoDateOf, startOfIsoDate } from '../../fiscal/dates.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import type { BlobStore, ListedBlob } from '../../platform/storage/index.js';
import type { XmlChecks } from '../../platform/xml-checks/index.js';
import { contentFailure, retentionFailure, type Failure } from './artefact-check.js';
import { checkOnThread, startCheckThread, type CheckedItem } from './check-thread.js';
import { recordVerdicts, type KeyVerdict } from './findings.repo.js';
import {
  prefixEnd,
  recordsAfter,
  recordsCreatedBetween,
  type ArchivedArtefact,
  type InventoryScope,
} from './inventory.repo.js';
import type { ArchiveTables } from './tables.js';

/** Which of `keys` were written for work that failed before recording them. */
async function abandonedAmong(db: Db<ArchiveTables>, keys: readonly string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const rows = await db.selectFrom('abandoned_blobs').select('key').where('key', 'in', keys).execute();
  return new Set(rows.map((row) => row.key));
}

export interface VerifierSettings {
  /** Reads are paced to this many bytes a second; undefined: as fast as the store answers. */
  bytesPerSecond: number | undefined;
  /** An object younger than this without a record is a write in progress, not an orphan. */
  orphanGraceMs: number;
  /** S3 with Object Lock required: each object must be locked this many days past its record's creation. */
  retentionDays: number | undefined;
  /** Keys per slice. */
  sliceSize: number;
  /** Objects read at once. */
  concurrency: number;
  /**
   * Filesystem: the threads that read and check the artefacts (check-thread.ts), the event loop only sending them
   * batches; 0: all on the event loop, `concurrency` reads at a time.
   */
  checkThreads?: number;
}

/** A pass's reach: a company's keys, of artefacts created in a period of GMT-4 days (both inclusive). */
export interface PassScope {
  companyId?: string;
  from?: string;
  to?: string;
}

export interface SliceResult {
  /** The last key the slice covered; undefined when it found nothing. */
  through: string | undefined;
  /** Nothing after this slice in the scope. */
  done: boolean;
  artefacts: number;
  bytes: number;
  storedObjects: number;
  /** Every failure found, one verdict per failing key. */
  failing: KeyVerdict[];
  opened: number;
  resolved: number;
}

export interface Verifier {
  /** Verifies the slice of `scope` after `position` (the last key done; undefined: from the start). */
  verifySlice(scope: PassScope, position: string | undefined, pacer: Pacer): Promise<SliceResult>;
  /** Checks up to `limit` artefacts created after `mark`, no later than `until`; returns them and their verdicts. */
  verifyRecent(
    mark: { createdAt: Date; key: string },
    until: Date,
    limit: number,
    pacer: Pacer,
  ): Promise<{ checked: ArchivedArtefact[]; failing: KeyVerdict[] }>;
  /** Stops the check threads (the next check starts them again). */
  close(): Promise<void>;
}

/** Artefacts a check thread takes at once: enough to make a message cheap beside the work, few enough to pace. */
const threadBatch = 32;

export function createVerifier(deps: {
  db: Db<ArchiveTables>;
  blobs: BlobStore;
  xmlChecks: XmlChecks;
  clock: Clock;
  settings: VerifierSettings;
}): Verifier {
  const { db, blobs, xmlChecks, clock, settings } = deps;
  const filePath = blobs.filePath?.bind(blobs);
  const threads =
    filePath === undefined ? [] : Array.from({ length: settings.checkThreads ?? 0 }, () => startCheckThread());

  /** The content checks of `artefacts` on the check threads, two batches in flight on each; pacing per batch. */
  async function checkedOnThreads(
    artefacts: readonly ArchivedArtefact[],
    pathOf: (key: string) => string,
    pacer: Pacer,
  ): Promise<{ failures: Failure[]; bytes: number }[]> {
    const batches: ArchivedArtefact[][] = [];
    for (let i = 0; i < artefacts.length; i += threadBatch) batches.push(artefacts.slice(i, i + threadBatch));
    let turn = 0;
    const done = await mapConcurrently(batches, threads.length * 2, async (batch) => {
      const thread = threads[turn++ % threads.length];
      let checked: CheckedItem[] | undefined;
      try {
        if (thread !== undefined)
          checked = await checkOnThread(
            thread,
            batch.map((artefact) => ({ artefact, path: pathOf(artefact.key) })),
          );
      } catch {
        // The thread failed under this batch (or died): it is checked here instead, the store read as usual.
        checked = undefined;
      }
      if (checked === undefined)
        return mapConcurrently(batch, settings.concurrency, (artefact) => failuresOf(artefact, pacer));
      await pacer(checked.reduce((sum, item) => sum + item.bytes, 0));
      return checked.map((item) => ({ failures: item.failure === undefined ? [] : [item.failure], bytes: item.bytes }));
    });
    return done.flat();
  }

  async function failuresOf(artefact: ArchivedArtefact, pacer: Pacer): Promise<{ failures: Failure[]; bytes: number }> {
    const bytes = await blobs.get(artefact.key);
    await pacer(bytes?.byteLength ?? 0);
    const failures: Failure[] = [];
    const content = await contentFailure(artefact, bytes, xmlChecks);
    if (content !== undefined) failures.push(content);
    if (bytes !== undefined && settings.retentionDays !== undefined && blobs.kind === 's3') {
      const retention = retentionFailure(artefact, await blobs.retentionOf(artefact.key), settings.retentionDays);
      if (retention !== undefined) failures.push(retention);
    }
    return { failures, bytes: bytes?.byteLength ?? 0 };
  }

  async function verdictsOf(
    artefacts: readonly ArchivedArtefact[],
    listed: ReadonlyMap<string, ListedBlob> | undefined,
    pacer: Pacer,
  ): Promise<{ verdicts: KeyVerdict[]; bytes: number }> {
    let bytes = 0;
    // In a slice the listing already says which objects are gone: no read needed to know it.
    const gone = (artefact: ArchivedArtefact) => listed !== undefined && !listed.has(artefact.key);
    const missing = (artefact: ArchivedArtefact): KeyVerdict => ({
      key: artefact.key,
      artefact,
      failures: [{ kind: 'missing_blob', detail: `The store has no object ${artefact.key}.` }],
    });
    if (threads.length > 0 && filePath !== undefined) {
      const present = artefacts.filter((artefact) => !gone(artefact));
      const checked = await checkedOnThreads(present, filePath, pacer);
      const byKey = new Map(present.map((artefact, index) => [artefact.key, checked[index]]));
      const verdicts = artefacts.map((artefact): KeyVerdict => {
        const result = byKey.get(artefact.key);
        if (result === undefined) return missing(artefact);
        bytes += result.bytes;
        return { key: artefact.key, artefact, failures: result.failures };
      });
      return { verdicts, bytes };
    }
    const verdicts = await mapConcurrently(artefacts, settings.concurrency, async (artefact): Promise<KeyVerdict> => {
      if (gone(artefact)) return missing(artefact);
      const checked = await failuresOf(artefact, pacer);
      bytes += checked.bytes;
      return { key: artefact.key, artefact, failures: checked.failures };
    });
    return { verdicts, bytes };
  }

  /** The listing a slice after `position` was read from: the records first, then the store's objects. */
  async function readListing(scope: PassScope, position: string | undefined): Promise<SliceListing | undefined> {
    const prefixes = prefixesOf(scope);
    // The prefix the position is in (or the first after it).
    const index = prefixes.findIndex(
      (prefix) => position === undefined || position < prefixEnd(prefix) || prefix === '',
    );
    const prefix = prefixes[index];
    if (prefix === undefined) return undefined;
    const after = position !== undefined && position >= prefix ? position : undefined;
    const size = settings.sliceSize;
    // Records first: an object is put before its record is written, so every record read here has its object
    // in the listing read after it.
    const records = await recordsAfter(db, { prefix, after }, inventoryScopeOf(scope), size);
    const objects = await blobs.list({ prefix, after, limit: size });
    const ends = [
      records.length === size ? records.at(-1)?.key : undefined,
      objects.length === size ? objects.at(-1)?.key : undefined,
    ].filter((key) => key !== undefined);
    const end = ends.length === 0 ? undefined : ends.reduce((a, b) => (a < b ? a : b));
    const within = (key: string) => end === undefined || key <= end;
    return {
      prefix,
      index,
      lastPrefix: index === prefixes.length - 1,
      after,
      end,
      slicedRecords: records.filter((record) => within(record.key)),
      slicedObjects: objects.filter((object) => within(object.key)),
    };
  }

  // One listing read ahead: the next slice's, started while the current slice's objects are read. It is used only
  // by the call it was read for (same scope, same position) and only while young: a listing read a little earlier
  // is as sound as one read now (its records were still read before its objects), and what was written since it
  // is checked by the recent check, as it is for any slice.
  let ahead: { key: string; at: number; listing: Promise<SliceListing | undefined> } | undefined;

  function prefetch(scope: PassScope, position: string | undefined): void {
    const listing = readListing(scope, position);
    // A failure is the next call's to report, when it reads again; none is left unhandled here.
    listing.catch(() => undefined);
    ahead = { key: listingKey(scope, position), at: performance.now(), listing };
  }

  function listingAfter(scope: PassScope, position: string | undefined): Promise<SliceListing | undefined> {
    const taken = ahead;
    ahead = undefined;
    if (
      taken !== undefined &&
      taken.key === listingKey(scope, position) &&
      performance.now() - taken.at < prefetchMaxAgeMs
    )
      return taken.listing.catch(() => readListing(scope, position));
    return readListing(scope, position);
  }

  return {
    async verifySlice(scope, position, pacer) {
      const listing = await listingAfter(scope, position);
      if (listing === undefined) return emptySlice(position);
      const { prefix, lastPrefix, after, slicedRecords, slicedObjects, end } = listing;
      const through = end ?? prefixEnd(prefix);
      const next = end ?? (lastPrefix ? (slicedRecords.at(-1)?.key ?? slicedObjects.at(-1)?.key ?? position) : through);
      const done = end === undefined && lastPrefix;
      // The next slice's records and listing are read while this one's objects are (they start where this ends).
      if (!done) prefetch(scope, next);
      const listed = new Map(slicedObjects.map((object) => [object.key, object]));
      const recorded = new Set(slicedRecords.map((record) => record.key));

      const { verdicts, bytes } = await verdictsOf(slicedRecords, listed, pacer);
      const now = clock.now();
      const unnamed = slicedObjects.filter((object) => !recorded.has(object.key));
      const abandoned = await abandonedAmong(
        db,
        unnamed.map((object) => object.key),
      );
      for (const object of unnamed) {
        // Written for work that failed before recording it, and said so (platform/storage/abandoned-writes.ts).
        if (abandoned.has(object.key)) continue;
        // No record names it: its size and write time, from the listing when it carries them, else from the store.
        const head =
          object.size !== undefined && object.modifiedAt !== undefined
            ? { size: object.size, modifiedAt: object.modifiedAt }
            : await blobs.head(object.key);
        // Gone since the listing: nothing to report.
        if (head === undefined || !inDateScope(object.key, head.modifiedAt, scope)) continue;
        if (now.getTime() - head.modifiedAt.getTime() < settings.orphanGraceMs) continue;
        verdicts.push({
          key: object.key,
          artefact: undefined,
          failures: [
            {
              kind: 'orphan_blob',
              detail: `No record names the object ${object.key} (${String(head.size)} bytes, written ${head.modifiedAt.toISOString()}).`,
            },
          ],
        });
      }
      const outcome = await recordVerdicts(db, verdicts, now, {
        after,
        through,
        listed: [...listed.keys()],
      });
      return {
        through: next,
        done,
        artefacts: slicedRecords.length,
        bytes,
        storedObjects: slicedObjects.length,
        failing: verdicts.filter((verdict) => verdict.failures.length > 0),
        opened: outcome.opened.length,
        resolved: outcome.resolved.length,
      };
    },

    async verifyRecent(mark, until, limit, pacer) {
      const checked = await recordsCreatedBetween(db, mark, until, limit);
      const { verdicts } = await verdictsOf(checked, undefined, pacer);
      await recordVerdicts(db, verdicts, clock.now());
      return { checked, failing: verdicts.filter((verdict) => verdict.failures.length > 0) };
    },

    async close() {
      await Promise.all(threads.map((thread) => thread.stop()));
    },
  };
}

/** A slice's share of the records and of the store's listing, both cut where the shorter listing ended. */
interface SliceListing {
  prefix: string;
  /** The prefix's place among the scope's; lastPrefix: it is the last. */
  index: number;
  lastPrefix: boolean;
  after: string | undefined;
  /** Where the slice ends; undefined: both listings ended before their limit. */
  end: string | undefined;
  slicedRecords: ArchivedArtefact[];
  slicedObjects: ListedBlob[];
}

/** How long a listing read ahead stays usable (see listingAfter). */
const prefetchMaxAgeMs = 30_000;

function listingKey(scope: PassScope, position: string | undefined): string {
  return JSON.stringify([scope.companyId, scope.from, scope.to, position]);
}

function emptySlice(position: string | undefined): SliceResult {
  return {
    through: position,
    done: true,
    artefacts: 0,
    bytes: 0,
    storedObjects: 0,
    failing: [],
    opened: 0,
    resolved: 0,
  };
}

/** The key prefixes a scope covers, in key order: a company's four families, or the whole store. */
function prefixesOf(scope: PassScope): string[] {
  if (scope.companyId === undefined) return [''];
  return ['annulments', 'certification', 'documents', 'received'].map(
    (family) => `${family}/${scope.companyId ?? ''}/`,
  );
}

export function inventoryScopeOf(scope: PassScope): InventoryScope {
  const createdFrom = scope.from === undefined ? undefined : startOfIsoDate(scope.from);
  const lastDay = scope.to === undefined ? undefined : startOfIsoDate(scope.to);
  return {
    ...(scope.companyId === undefined ? {} : { companyId: scope.companyId }),
    ...(createdFrom === undefined ? {} : { createdFrom }),
    ...(lastDay === undefined ? {} : { createdBefore: new Date(lastDay.getTime() + 86_400_000) }),
  };
}

/** An object's day: the one its key names (documents and received ones are filed by day), else when it was written. */
function inDateScope(key: string, modifiedAt: Date, scope: PassScope): boolean {
  if (scope.from === undefined && scope.to === undefined) return true;
  const named = key.split('/')[2];
  const day = named !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(named) ? named : isoDateOf(modifiedAt);
  return (scope.from === undefined || day >= scope.from) && (scope.to === undefined || day <= scope.to);
}

/** Waits as long as reading `bytes` more takes at the configured rate. */
export type Pacer = (bytes: number) => Promise<void>;

export function createPacer(bytesPerSecond: number | undefined): Pacer {
  const started = performance.now();
  let total = 0;
  return async (bytes) => {
    if (bytesPerSecond === undefined) return;
    total += bytes;
    const wait = started + (total / bytesPerSecond) * 1000 - performance.now();
    if (wait > 1) await sleep(wait);
  };
}

async function mapConcurrently<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  });
  await Promise.all(lanes);
  return results;
}
