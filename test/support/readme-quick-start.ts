// The README's quick start as its ```sh blocks, for the test that runs it as written and the footprint bench.
import assert from 'node:assert/strict';

/** What a fresh clone holds that `npm start` needs (node_modules is linked: `npm ci` is not under test here). */
export const committedSources = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'scripts',
  'src',
  'migrations',
  'console',
  'sdk',
];

export interface QuickStartBlock {
  commands: string;
  /** The README's comment lines after the last command: what the block prints, one line each. */
  printed: string[];
}

export function quickStartBlocks(readme: string): QuickStartBlock[] {
  const start = readme.indexOf('\n## Quick start\n');
  assert.notEqual(start, -1, 'README.md has a "## Quick start" section');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => {
    const lines = (match[1] ?? '').trimEnd().split('\n');
    let firstPrinted = lines.length;
    while (firstPrinted > 0 && lines[firstPrinted - 1]?.startsWith('# ')) firstPrinted--;
    return { commands: lines.join('\n'), printed: lines.slice(firstPrinted).map((line) => line.slice(2)) };
  });
}
