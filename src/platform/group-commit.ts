// Group commit: work asked for one item at a time, done a batch at a time. For each key, `parallel` batches run at
// once (one by default); the items asked for while they run wait and go together in the next. Alone when calls are
// few, dozens per batch under load: one statement (one lock, one WAL flush, one round trip) or one message to a
// writer thread serves them all, and nothing waits for a timer.

interface Waiting<Item, Output> {
  item: Item;
  resolve: (output: Output) => void;
  reject: (error: unknown) => void;
}

interface KeyState<Item, Output> {
  queue: Waiting<Item, Output>[];
  /** Batch runners started for the key (running, or about to at the end of the tick). */
  runners: number;
}

export interface GroupCommitOptions {
  /** Items a batch takes at most. */
  maxBatch?: number;
  /** Batches of one key that run at once (a pool of writer threads runs one each). */
  parallel?: number;
  /** The first batch starts at the end of the current tick, so the items a caller asks for in one go share it;
   * otherwise it starts at once with the first item. */
  gatherTick?: boolean;
  /** When a batch of several fails, each of its items runs again alone and settles with its own outcome: one bad
   * item (a row the database refuses) fails alone, not the callers it happened to share a batch with. Only for a
   * `run` that does all of a batch or none of it (one statement), so that running an item again is running it once. */
  isolateFailures?: boolean;
}

/**
 * Returns `ask(item, key?)`, which settles with the item's own output of the batch `run` did it in, in the order the
 * items were asked for; if `run` throws, every item of its batch rejects with that error and the next batch goes on.
 * Keys batch apart (items of different keys never share a batch; their batches run side by side).
 */
export function groupCommit<Item, Output>(
  run: (items: Item[]) => Promise<readonly Output[]>,
  options: GroupCommitOptions = {},
): (item: Item, key?: string) => Promise<Output> {
  const { maxBatch = 500, parallel = 1, gatherTick = false, isolateFailures = false } = options;
  // A key is here while its batches run; it goes once the last runner finds its queue empty, so idle keys cost nothing.
  const keys = new Map<string, KeyState<Item, Output>>();

  async function runBatches(state: KeyState<Item, Output>, key: string): Promise<void> {
    const { queue } = state;
    while (queue.length > 0) {
      const batch = queue.splice(0, maxBatch);
      try {
        const outputs = await run(batch.map((entry) => entry.item));
        if (outputs.length !== batch.length)
          throw new Error(
            `a group commit answered ${String(outputs.length)} outputs for ${String(batch.length)} items`,
          );
        batch.forEach((entry, i) => {
          entry.resolve(outputs[i] as Output);
        });
      } catch (error) {
        if (isolateFailures && batch.length > 1) await runAlone(batch);
        else for (const entry of batch) entry.reject(error);
      }
    }
    state.runners--;
    if (state.runners === 0) keys.delete(key);
  }

  async function runAlone(batch: readonly Waiting<Item, Output>[]): Promise<void> {
    for (const entry of batch) {
      try {
        const [output] = await run([entry.item]);
        entry.resolve(output as Output);
      } catch (error) {
        entry.reject(error);
      }
    }
  }

  return (item, key = '') =>
    new Promise<Output>((resolve, reject) => {
      let state = keys.get(key);
      if (state === undefined) {
        state = { queue: [], runners: 0 };
        keys.set(key, state);
      }
      state.queue.push({ item, resolve, reject });
      if (state.runners >= parallel) return; // a runner takes it when its batch is done
      state.runners++;
      const started = state;
      if (gatherTick) queueMicrotask(() => void runBatches(started, key));
      else void runBatches(started, key);
    });
}
