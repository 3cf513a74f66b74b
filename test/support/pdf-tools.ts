// poppler-utils and zbar-tools as independent oracles for the printed representation: what a PDF reader extracts,
// which fonts it finds embedded, the page size, and what a QR scanner reads from the rasterised page.
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';

const tools = ['pdftotext', 'pdftoppm', 'pdfinfo', 'pdffonts', 'pdfimages', 'zbarimg'] as const;
const absent = tools.filter((tool) => spawnSync(tool, ['-v']).error !== undefined);

/** Why a test is skipped when the tools are missing: loud, so a green run without the oracles is not mistaken. */
export const pdfToolsMissing =
  absent.length === 0
    ? false
    : `${absent.join(', ')} not installed (apt-get install poppler-utils zbar-tools): the printed-representation oracle tests did not run`;

const run = promisify(execFile);

export async function tool(command: (typeof tools)[number], args: readonly string[]): Promise<string> {
  const { stdout } = await run(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

/** At most `limit` of the tasks at a time (poppler and zbar are CPU-bound; the machine has two cores). */
export async function inPool<T>(limit: number, tasks: readonly (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = new Array<T>(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await tasks[index]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}
