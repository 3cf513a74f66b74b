/** Short-lived shared state (token caches, rate counters). Redis in production, memory when embedded. */
export interface Cache {
  readonly kind: 'redis' | 'memory';
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, ttlSeconds: number): Promise<void>;
  /** Sets only when absent; true when this call set it. */
  setIfAbsent(key: string, value: string, ttlSeconds: number): Promise<boolean>;
  delete(key: string): Promise<void>;
  /** Adds one and returns the new count; the first increment starts the TTL window. */
  increment(key: string, ttlSeconds: number): Promise<number>;
  probe(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}
