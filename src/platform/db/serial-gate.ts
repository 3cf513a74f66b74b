/** A FIFO mutex: one holder at a time, the rest wait their turn. */
export class SerialGate {
  #tail: Promise<void> = Promise.resolve();

  /**
   * Waits for the turn; with `timeoutMs`, at most that long: then it throws `timedOut()` and hands its turn on as
   * soon as it comes, so those behind it are not held up.
   */
  async acquire(timeoutMs?: number, timedOut?: () => Error): Promise<() => void> {
    let release!: () => void;
    const turn = new Promise<void>((resolve) => {
      release = resolve;
    });
    const previous = this.#tail;
    this.#tail = previous.then(() => turn);
    if (timeoutMs === undefined) await previous;
    else {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => {
          resolve('late');
        }, timeoutMs);
      });
      const won = await Promise.race([previous.then(() => 'turn' as const), late]);
      clearTimeout(timer);
      if (won === 'late') {
        void previous.then(release);
        throw timedOut?.() ?? new Error(`waited over ${String(timeoutMs)} ms for the gate`);
      }
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      release();
    };
  }
}
