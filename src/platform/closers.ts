// What a process opened, closed once in reverse order: the last adapter opened is the first one closed, so
// nothing is closed while something opened after it still uses it.
export class Closers {
  private readonly closers: (() => Promise<void>)[] = [];
  private closed = false;

  add(close: () => unknown): void {
    this.closers.push(async () => {
      await close();
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const close of [...this.closers].reverse()) await close();
  }
}
