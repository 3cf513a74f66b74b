// A worker thread that answers requests, one reply each, matched by id and in the order sent: started on first use
// and again after it dies; idle, it keeps nothing alive, busy, it keeps the process up; a thread that dies fails the
// requests it held. With a deadline, the request the thread is working on (the oldest: it answers in order) may take
// that long at most: past it the thread is stopped, that request fails, and the ones queued behind it go to a new
// thread. The file writer (storage/fs-writer.ts) and the XML checks (xml-checks/xml-thread.ts) each run their own.
import type { Worker } from 'node:worker_threads';

/** What a thread posts back: the request's id, and its result or why it has none. */
export interface ThreadReply {
  id: number;
  result?: unknown;
  error?: string;
}

interface Waiting {
  message: Readonly<Record<string, unknown>>;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

interface Running {
  worker: Worker;
  /** In the order sent, which is the order the thread answers. */
  waiting: Map<number, Waiting>;
  deadline: NodeJS.Timeout | undefined;
}

export interface RequestThreadOptions {
  /** Says which thread in the error of one that died. */
  name: string;
  /** How long the thread may work on one request. */
  deadlineMs?: number;
}

export class RequestThread {
  private running: Running | undefined;
  private nextId = 1;

  constructor(
    private readonly spawn: () => Worker,
    private readonly options: RequestThreadOptions,
  ) {}

  /** Requests sent and not answered yet. */
  get pending(): number {
    return this.running?.waiting.size ?? 0;
  }

  /** Posts `message` with an `id` of its own; resolves with the reply's result. */
  request(message: Readonly<Record<string, unknown>>): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.post(this.nextId++, { message, resolve, reject });
    });
  }

  async stop(): Promise<void> {
    const running = this.running;
    this.running = undefined;
    if (running !== undefined) {
      clearTimeout(running.deadline);
      await running.worker.terminate();
    }
  }

  private post(id: number, waiting: Waiting): void {
    const running = this.start();
    running.waiting.set(id, waiting);
    running.worker.postMessage({ ...waiting.message, id });
    running.worker.ref();
    if (running.waiting.size === 1) this.arm(running);
  }

  /** Starts the deadline of the oldest request, the one the thread is working on. */
  private arm(running: Running): void {
    clearTimeout(running.deadline);
    running.deadline = undefined;
    const oldest = running.waiting.keys().next();
    const { deadlineMs } = this.options;
    if (deadlineMs === undefined || oldest.done === true) return;
    running.deadline = setTimeout(() => {
      this.expire(running, oldest.value);
    }, deadlineMs);
    running.deadline.unref();
  }

  private expire(running: Running, id: number): void {
    if (this.running !== running) return;
    const late = running.waiting.get(id);
    running.waiting.delete(id);
    const queued = [...running.waiting];
    running.waiting.clear();
    this.running = undefined;
    void running.worker.terminate();
    late?.reject(new Error(`the ${this.options.name} thread took more than ${String(this.options.deadlineMs)} ms`));
    for (const [queuedId, waiting] of queued) this.post(queuedId, waiting);
  }

  private start(): Running {
    if (this.running !== undefined) return this.running;
    const running: Running = { worker: this.spawn(), waiting: new Map(), deadline: undefined };
    const { worker } = running;
    worker.unref();
    worker.on('message', (reply: ThreadReply) => {
      const waiting = running.waiting.get(reply.id);
      running.waiting.delete(reply.id);
      if (running.waiting.size === 0) worker.unref();
      this.arm(running);
      if (reply.error === undefined) waiting?.resolve(reply.result);
      else waiting?.reject(new Error(reply.error));
    });
    const fail = (error: Error) => {
      if (this.running === running) this.running = undefined;
      clearTimeout(running.deadline);
      for (const waiting of running.waiting.values()) waiting.reject(error);
      running.waiting.clear();
    };
    worker.on('error', fail);
    // A reply that cannot be read leaves its request unanswerable: the thread is stopped and its exit fails them all.
    worker.on('messageerror', () => {
      void worker.terminate();
    });
    worker.on('exit', (code) => {
      fail(new Error(`the ${this.options.name} thread exited with code ${String(code)}`));
    });
    this.running = running;
    return running;
  }
}
