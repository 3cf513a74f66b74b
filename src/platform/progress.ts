// How a long command (an import, an archive check or export) shows it is alive: a redrawn bar with rows/s and ETA on a terminal, one plain line every few
// seconds otherwise (logs, CI, cron mail), where carriage returns would only make noise.

export interface ImportProgress {
  rows: number;
  bytes: number;
  totalBytes: number | undefined;
}

export interface ProgressSink {
  update(progress: ImportProgress): void;
  finish(progress: ImportProgress): void;
}

export interface ProgressOptions {
  write: (text: string) => void;
  /** A terminal: redraw one line in place. */
  tty: boolean;
  /** Milliseconds; injected so tests control time. */
  now?: () => number;
  /** Least time between two draws (default 100 ms on a terminal, 5 s otherwise). */
  intervalMs?: number;
  /** Width of the bar in characters. */
  width?: number;
  /** What the plain lines start with (default `taxpayers import`). */
  label?: string;
  /** What `rows` counts (default `rows`). */
  unit?: string;
}

const grouped = new Intl.NumberFormat('en-US');

export function formatDuration(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = whole % 60;
  return h > 0
    ? `${h}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`
    : `${m}:${String(s).padStart(2, '0')}`;
}

interface Figures {
  fraction: number | undefined;
  rate: number;
  eta: number | undefined;
}

function figures(progress: ImportProgress, elapsedSeconds: number): Figures {
  const fraction =
    progress.totalBytes === undefined || progress.totalBytes === 0
      ? undefined
      : Math.min(1, progress.bytes / progress.totalBytes);
  const rate = elapsedSeconds > 0 ? progress.rows / elapsedSeconds : 0;
  // Bytes, not rows, drive the ETA: the row count is unknown until the end, the byte count is not.
  const eta = fraction === undefined || fraction === 0 ? undefined : (elapsedSeconds * (1 - fraction)) / fraction;
  return { fraction, rate, eta };
}

export function createProgress(options: ProgressOptions): ProgressSink {
  const now = options.now ?? (() => performance.now());
  const interval = options.intervalMs ?? (options.tty ? 100 : 5_000);
  const width = options.width ?? 30;
  const started = now();
  let lastDraw = Number.NEGATIVE_INFINITY;

  function line(progress: ImportProgress, final: boolean): string {
    const elapsed = (now() - started) / 1_000;
    const { fraction, rate, eta } = figures(progress, elapsed);
    const percent = fraction === undefined ? '' : `${Math.floor((final ? 1 : fraction) * 100)}%`;
    const unit = options.unit ?? 'rows';
    const parts = [`${grouped.format(progress.rows)} ${unit}`, `${grouped.format(Math.round(rate))} ${unit}/s`];
    if (final) parts.push(`in ${formatDuration(elapsed)}`);
    else if (eta !== undefined) parts.push(`ETA ${formatDuration(eta)}`);
    if (options.tty) {
      const filled = fraction === undefined ? 0 : Math.round((final ? 1 : fraction) * width);
      const bar =
        fraction === undefined ? '' : `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${percent.padStart(4)}  `;
      return `\r\x1b[K${bar}${parts.join('  ')}${final ? '\n' : ''}`;
    }
    return `${options.label ?? 'taxpayers import'}: ${percent === '' ? '' : `${percent}, `}${parts.join(', ')}\n`;
  }

  return {
    update(progress) {
      const at = now();
      if (at - lastDraw < interval) return;
      // The first plain line waits a full interval: a quick import prints only its final line.
      if (!options.tty && lastDraw === Number.NEGATIVE_INFINITY) {
        lastDraw = at;
        return;
      }
      lastDraw = at;
      options.write(line(progress, false));
    },
    finish(progress) {
      options.write(line(progress, true));
    },
  };
}
