// The README's configuration table, generated from the declarations in src/config.ts so that a default, a range
// or a meaning is written once. test/config-readme.test.ts fails when the README's table differs from this.
// Run: npx tsx scripts/config-table.ts   (rewrites the table in README.md between its markers)
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { settings, type Setting } from '../src/config.js';

export const readmePath = fileURLToPath(new URL('../README.md', import.meta.url));
export const tableStart =
  '<!-- config-table: generated from src/config.ts by `npx tsx scripts/config-table.ts`; do not edit by hand -->';
export const tableEnd = '<!-- /config-table -->';

const code = (value: string | number) => `\`${String(value)}\``;

function alternatives(values: readonly string[]): string {
  const quoted = values.map(code);
  return quoted.length < 2 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} or ${String(quoted.at(-1))}`;
}

/** What a variable accepts, from how config.ts reads it. */
export function accepts(setting: Setting): string {
  switch (setting.kind) {
    case 'integer':
      return `${setting.min} to ${setting.max}`;
    case 'flag':
      return alternatives(['true', 'false', '1', '0']);
    case 'choice':
      return alternatives(setting.values);
    case 'text':
      return setting.minLength === undefined ? (setting.shape ?? 'text') : `at least ${setting.minLength} characters`;
    case 'url':
      return `${alternatives(setting.protocols)} URL`;
    case 'cron':
      return 'a five-field cron expression';
    case 'key':
      return '32 bytes, as 64 hex characters or base64';
  }
}

/** The README's default column: the declared value, what it is derived from, or unset. */
export function shownDefault(setting: Setting): string {
  if (setting.default === undefined) return setting.defaultNote ?? 'unset';
  return setting.defaultNote === undefined
    ? code(setting.default)
    : `${code(setting.default)} (${setting.defaultNote})`;
}

const cell = (text: string) => text.replaceAll('|', '\\|');

export function renderConfigTable(): string {
  const rows = Object.entries(settings).map(
    ([name, setting]: [string, Setting]) =>
      `| ${code(name)} | ${cell(shownDefault(setting))} | ${cell(accepts(setting))} | ${cell(setting.doc)} |`,
  );
  return ['| variable | default | accepts | meaning |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

/** The README's table as it stands: the lines between the markers. */
export function readmeTable(readme: string): string | undefined {
  const start = readme.indexOf(tableStart);
  const end = readme.indexOf(tableEnd);
  if (start === -1 || end < start) return undefined;
  return readme.slice(start + tableStart.length, end).trim();
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const readme = readFileSync(readmePath, 'utf8');
  const current = readmeTable(readme);
  if (current === undefined) throw new Error(`README.md has no ${tableStart} … ${tableEnd} section`);
  const start = readme.indexOf(tableStart) + tableStart.length;
  writeFileSync(
    readmePath,
    `${readme.slice(0, start)}\n\n${renderConfigTable()}\n\n${readme.slice(readme.indexOf(tableEnd))}`,
  );
}
