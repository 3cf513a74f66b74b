// Every value of every e-CF fixture replaced, one at a time, by a value of the wrong shape (null, a huge number, an
// empty or null-holding list, an object, text, a boolean): the document pipeline a POST /api/v1/documentos runs
// before taking a number (compose, the fiscal rules, the build) answers with findings, never an exception, and so
// does its preview. Issue 27 found a `null` item throwing in the totals; this walks every place such a value can sit.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildEcf } from '../src/fiscal/build/index.js';
import { checkDocument } from '../src/modules/documents/check-document.js';
import type { IssuerProfile } from '../src/modules/documents/compose-document.js';
import { previewOf } from '../src/modules/documents/document-preview.js';
import { ecfDocuments, issuerRnc, ownedFieldsFor } from './support/ecf-documents.js';

type Path = (string | number)[];
const hostileValues: unknown[] = [null, 1e40, -1e40, [], [null], {}, 'x', true];
const issuer: IssuerProfile = {
  rnc: issuerRnc,
  legalName: 'Emisor de prueba',
  tradeName: null,
  address: 'Calle 1',
  municipality: '010100',
  province: '010000',
};
const now = new Date('2026-11-26T12:00:00Z');

/** Every path to a value of `value`, containers included, the root left out. */
function pathsOf(value: unknown, prefix: Path = []): Path[] {
  if (typeof value !== 'object' || value === null) return [];
  const entries: [string | number, unknown][] = Array.isArray(value)
    ? value.map((item, index) => [index, item])
    : Object.entries(value);
  return entries.flatMap(([key, item]) => [[...prefix, key], ...pathsOf(item, [...prefix, key])]);
}

function replaced(document: unknown, path: Path, value: unknown): unknown {
  const copy = structuredClone(document) as Record<string | number, unknown>;
  let parent = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  parent[path[path.length - 1] as string | number] = value;
  return copy;
}

/**
 * What the create route does before it takes a number: compose, validate, and build what validation accepts; and
 * what the preview route answers of the same body.
 */
function runPipeline(body: unknown, type: keyof typeof ecfDocuments): 'refused' | 'built' {
  const checked = checkDocument(body, issuer, now);
  previewOf(checked);
  if (!checked.composed || !checked.acceptable) return 'refused';
  return buildEcf(checked.document, ownedFieldsFor(type)).ok ? 'built' : 'refused';
}

describe('e-CF bodies of the wrong shape anywhere', () => {
  for (const type of ['31', '32', '46', '47'] as const) {
    it(`e-CF ${type}: every value replaced by null, 1e40, [], [null], {}, text or a boolean gives findings, never a throw`, () => {
      const document = ecfDocuments[type];
      assert.equal(runPipeline(document, type), 'built', 'the fixture itself builds');
      const paths = pathsOf(document);
      assert.ok(paths.length > 30, `${paths.length} paths`);
      let refused = 0;
      for (const path of paths) {
        for (const value of hostileValues) {
          let outcome: string;
          try {
            outcome = runPipeline(replaced(document, path, value), type);
          } catch (error) {
            assert.fail(
              `/${path.join('/')} = ${JSON.stringify(value)} threw ${error instanceof Error ? error.stack : String(error)}`,
            );
          }
          if (outcome === 'refused') refused++;
        }
      }
      // Most replacements make the document wrong, and it is refused rather than built.
      assert.ok(refused > paths.length * 4, `${refused} of ${paths.length * hostileValues.length} refused`);
    });
  }
});
