// Reads the hot path repeats on every request (an API key with its company's permissions, the issuing company with
// its certificate), kept in this process for a moment. A change made through this process forgets them at once;
// a change made by another process is seen within `ttlMs`: the staleness bound traded for a round trip per request.

/** How long a change made by another process (a revoked key, a suspended company, a new certificate) may take to
 * reach this one. */
export const recentReadMs = 2_000;

export class RecentReads<V> {
  private readonly entries = new Map<string, { value: V; until: number; group: string }>();

  /** `groupOf`: the group (a company) a value belongs to, for forgetGroup. */
  constructor(
    private readonly ttlMs: number,
    private readonly groupOf: (value: V) => string,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The value read under `key` less than ttlMs ago, else what `load` reads now (kept unless it is undefined). */
  async read(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const entry = this.entries.get(key);
    if (entry !== undefined && entry.until > this.now()) return entry.value;
    const started = this.now();
    const value = await load();
    if (value === undefined) this.entries.delete(key);
    else {
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      // Timed from before the read: a value is never kept longer than ttlMs after the database answered it.
      this.entries.set(key, { value, until: started + this.ttlMs, group: this.groupOf(value) });
    }
    return value;
  }

  forget(key: string): void {
    this.entries.delete(key);
  }

  forgetAll(): void {
    this.entries.clear();
  }

  /** Forgets every value read for `group` (a company). */
  forgetGroup(group: string): void {
    for (const [key, entry] of this.entries) if (entry.group === group) this.entries.delete(key);
  }
}
