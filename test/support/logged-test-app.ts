// The real application, like startTestApp's, but with its logs captured line by line instead of written to
// stdout, so a test can check what reaches the log (correlation ids) and what never may (secrets).
import { startTestApp, type TestApp, type TestAppOptions } from './test-app.js';

/** Collects what pino writes, one JSON object per line. */
export class LogCapture {
  readonly lines: string[] = [];

  write(chunk: string): void {
    for (const line of chunk.split('\n')) if (line !== '') this.lines.push(line);
  }

  entries(): Record<string, unknown>[] {
    return this.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  /** The lines that contain `needle` anywhere. */
  linesWith(needle: string): string[] {
    return this.lines.filter((line) => line.includes(needle));
  }
}

export interface LoggedTestApp extends TestApp {
  logs: LogCapture;
}

/** The same real application as startTestApp's, with its logs captured (debug level unless told otherwise). */
export async function startLoggedTestApp(
  options: TestAppOptions & { logLevel?: 'debug' | 'info' | 'trace' } = {},
): Promise<LoggedTestApp> {
  const logs = new LogCapture();
  const testApp = await startTestApp({
    ...options,
    env: { LOG_LEVEL: options.logLevel ?? 'debug', ...options.env },
    logDestination: logs,
  });
  return { ...testApp, logs };
}
