// The configuration reference (docs/configuration.md) says what src/config.ts declares: every variable declared is documented and
// every one documented is declared, with the declared default; the table is the one scripts/config-table.ts makes.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { settings, type Setting } from '../src/config.js';
import { configDocPath, documentedTable, renderConfigTable } from '../scripts/config-table.js';

const regenerate =
  'run `npx tsx scripts/config-table.ts` after changing src/config.ts; the table is not edited by hand';

/** The table's rows as cells, read as Markdown (a `\|` is a pipe inside a cell). */
function rowsOf(table: string): string[][] {
  const lines = table.split('\n').filter((line) => line.startsWith('|'));
  assert.match(lines[0] ?? '', /^\| variable \| default \|/, 'the table starts with its header');
  return lines.slice(2).map((line) =>
    line
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim()),
  );
}

describe('docs/configuration.md documents the configuration src/config.ts declares', () => {
  const table = documentedTable(readFileSync(configDocPath, 'utf8'));
  const rows = rowsOf(table ?? '');
  const documented = new Map(rows.map(([variable = '', shown = '']) => [variable.replace(/^`|`$/g, ''), shown]));
  const declared = new Map<string, Setting>(Object.entries(settings));

  it('has the generated table between its markers', () => {
    assert.notEqual(table, undefined, 'docs/configuration.md has lost its config-table markers');
  });

  it('documents every declared variable, and declares every documented one', () => {
    assert.deepEqual(
      [...declared.keys()].filter((name) => !documented.has(name)),
      [],
      `declared but not in docs/configuration.md: ${regenerate}`,
    );
    assert.deepEqual(
      [...documented.keys()].filter((name) => !declared.has(name)),
      [],
      'in docs/configuration.md but not declared in src/config.ts (nothing reads it)',
    );
    assert.equal(rows.length, declared.size, 'one row per variable');
  });

  it('gives each variable its declared default', () => {
    for (const [name, setting] of declared) {
      const shown = documented.get(name);
      if (shown === undefined) continue;
      if (setting.default !== undefined)
        assert.ok(
          shown.startsWith(`\`${String(setting.default)}\``),
          `${name}: declared default ${String(setting.default)}, docs/configuration.md says ${shown}; ${regenerate}`,
        );
      else if (setting.defaultNote === undefined) assert.equal(shown, 'unset', `${name} has no default`);
      else assert.equal(shown, setting.defaultNote, `${name}: ${regenerate}`);
    }
  });

  it('is the table the declarations make, ranges and meanings included', () => {
    assert.equal(table, renderConfigTable(), regenerate);
  });
});
