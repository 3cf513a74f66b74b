// Group commit: work asked for one item at a time, done a batch at a time. For each key, one batch runs at once; the
// items asked for while it runs wait and go together in the next. Alone when calls are few, dozens per batch under
// load: one statement (one lock, one WAL flush, one round trip) serves them all, and nothing waits for a timer.

interface Waiting<Item, Output> {
  item: Item;
  resolve: (output: Output) => void;
  reject: (error: unknown) => void;
}

/**
 * Returns `ask(item, key?)`, which settles with the item's own output of the batch `run` did it in, in the order the
 * items were asked for; if `run` throws, every item of its batch rejects with that error and the next batch goes on.
 * Keys batch apart (items of different keys never share a batch; their batches run side by side).
 */
export function groupCommit<Item, Output>(run: (items: Item[]) => Promise<readonly Output[]>, maxBatch = 500): (item: Item, key?: string) => Promise<Output> {
  // A key is here while its batches run; it goes once its queue is empty, so idle keys cost nothing.
  const queues = new Map<string, Waiting<Item, Output>[]>();

  async function drain(queue: Waiting<Item, Output>[], key: string): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.splice(0, maxBatch);
      try {
        const outputs = await run(batch.map((entry) => entry.item));
        if (outputs.length !== batch.length) throw new Error(`a group commit answered ${String(outputs.length)} outputs for ${String(batch.length)} items`);
        batch.forEach((entry, i) => {
          entry.resolve(outputs[i] as Output);
        });
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    queues.delete(key);
  }

  return (item, key = '') =>
    new Promise<Output>((resolve, reject) => {
      const queue = queues.get(key);
      if (queue !== undefined) {
        queue.push({ item, resolve, reject });
        return;
      }
      const started = [{ item, resolve, reject }];
      queues.set(key, started);
      void drain(started, key);
    });
}
