// poppler-utils and zbar-tools as independent oracles for the printed representation: what a PDF reader extracts,
// which fonts it finds embedded, the page size, and what a QR scanner reads from the rasterised page.
// A test that needs them asks requireTool or skipUnlessTools (./tools.ts) first, with pdfTools.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { assertToolInstalled } from './tools.js';

export const pdfTools = ['pdftotext', 'pdftoppm', 'pdfinfo', 'pdffonts', 'pdfimages', 'zbarimg'] as const;

const run = promisify(execFile);

export async function tool(command: (typeof pdfTools)[number], args: readonly string[]): Promise<string> {
  assertToolInstalled(command);
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
