// A worker thread that answers requests, one reply each, matched by id: started on first use and again after it
// dies; idle, it keeps nothing alive, busy, it keeps the process up; a thread that dies fails every request it held.
// The file writer (storage/fs-writer.ts) and the XML checks (xml-checks/xml-thread.ts) each run their own.
import type { Worker } from 'node:worker_threads';

/** What a thread posts back: the request's id, and its result or why it has none. */
export interface ThreadReply {
  id: number;
  result?: unknown;
  error?: string;
}

export class RequestThread {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();

  /** `spawn` starts the thread; `name` says which one in the error of a thread that died. */
  constructor(
    private readonly spawn: () => Worker,
    private readonly name: string,
  ) {}

  /** Requests sent and not answered yet. */
  get pending(): number {
    return this.waiting.size;
  }

  /** Posts `message` with an `id` of its own; resolves with the reply's result. */
  request(message: Readonly<Record<string, unknown>>): Promise<unknown> {
    const worker = this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ ...message, id });
      worker.ref();
    });
  }

  async stop(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker !== undefined) await worker.terminate();
  }

  private start(): Worker {
    if (this.worker !== undefined) return this.worker;
    const worker = this.spawn();
    worker.unref();
    worker.on('message', (reply: ThreadReply) => {
      const waiter = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      if (this.waiting.size === 0) worker.unref();
      if (reply.error === undefined) waiter?.resolve(reply.result);
      else waiter?.reject(new Error(reply.error));
    });
    const fail = (error: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const waiter of this.waiting.values()) waiter.reject(error);
      this.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      fail(new Error(`the ${this.name} thread exited with code ${String(code)}`));
    });
    this.worker = worker;
    return worker;
  }
}
