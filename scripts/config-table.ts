// The configuration reference's table (docs/configuration.md), generated from the declarations in
// src/config/settings.ts (by name: src/config.ts's `settings`) so that a default, a range or a meaning is written
// once. test/config-readme.test.ts fails when the table differs.
// Run: npx tsx scripts/config-table.ts   (rewrites the table in docs/configuration.md between its markers)
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { settings, type Setting } from '../src/config.js';

export const configDocPath = fileURLToPath(new URL('../docs/configuration.md', import.meta.url));
export const tableStart =
  '<!-- config-table: generated from src/config.ts by `npx tsx scripts/config-table.ts`; do not edit by hand -->';
export const tableEnd = '<!-- /config-table -->';

const code = (value: string | number) => `\`${String(value)}\``;

function alternatives(values: readonly string[]): string {
  const quoted = values.map(code);
  return quoted.length < 2 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} or ${String(quoted.at(-1))}`;
}

/** What a variable accepts, from how config/kinds.ts reads it. */
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

/** The table's default column: the declared value, what it is derived from, or unset. */
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

/** The table as it stands in the document: the lines between the markers. */
export function documentedTable(doc: string): string | undefined {
  const start = doc.indexOf(tableStart);
  const end = doc.indexOf(tableEnd);
  if (start === -1 || end < start) return undefined;
  return doc.slice(start + tableStart.length, end).trim();
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const doc = readFileSync(configDocPath, 'utf8');
  if (documentedTable(doc) === undefined)
    throw new Error(`docs/configuration.md has no ${tableStart} … ${tableEnd} section`);
  const start = doc.indexOf(tableStart) + tableStart.length;
  writeFileSync(
    configDocPath,
    `${doc.slice(0, start)}\n\n${renderConfigTable()}\n\n${doc.slice(doc.indexOf(tableEnd))}`,
  );
}
