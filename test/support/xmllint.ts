// xmllint (libxml2's CLI) as an independent oracle for the fiscal tests: canonical form and XSD validity.
// fiscal/ may not do I/O itself (lint), so its tests come here for it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { officialXsdDir } from './dgii-files.js';
import { assertToolInstalled } from './tools.js';

// A test that needs xmllint asks requireTool (./tools.ts) first.

function withTempDir<T>(work: (dir: string) => T): T {
  assertToolInstalled('xmllint');
  const dir = mkdtempSync(join(tmpdir(), 'ecf-xmllint-'));
  try {
    return work(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `xmllint --c14n`: Canonical XML 1.0 without comments of the whole document. */
export function canonicalizeWithXmllint(xml: string): string {
  return withTempDir((dir) => {
    const file = join(dir, 'doc.xml');
    writeFileSync(file, xml);
    const result = spawnSync('xmllint', ['--c14n', file], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`xmllint --c14n failed: ${result.stderr}`);
    return result.stdout;
  });
}

/**
 * The in-memory repairs of ../shared/dgii/README.md ("Known defects"), applied to a temporary copy: trimmed type
 * names (e-CF-31), `(?:` → `(` (RFCE, ACECF), patterns unwrapped from `^...$` (e-CF-33/34 Alfa20Type).
 * Written apart from the product's repairSchema on purpose: the oracle must not share the code it checks.
 */
export function repairedXsd(text: string): string {
  return text
    .replace(/name="\s+([^"]*?)\s*"/g, 'name="$1"')
    .replaceAll('(?:', '(')
    .replace(/(<xs:pattern\s+value=")\^([^"]*)\$"/g, '$1$2"');
}

export interface SchemaResult {
  valid: boolean;
  errors: string;
}

export function validateWithOfficialXsd(xsdFile: string, xml: string): SchemaResult {
  return withTempDir((dir) => {
    const schema = join(dir, xsdFile);
    writeFileSync(schema, repairedXsd(readFileSync(join(officialXsdDir, xsdFile), 'utf8')));
    const doc = join(dir, 'doc.xml');
    writeFileSync(doc, xml);
    const result = spawnSync('xmllint', ['--noout', '--schema', schema, doc], { encoding: 'utf8' });
    return { valid: result.status === 0, errors: result.stderr };
  });
}
