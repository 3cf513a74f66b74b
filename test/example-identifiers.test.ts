// Every RNC, cédula and e-NCF written as an example — in the code, the docs and the contract the app serves — is
// one the service itself would take: an example that fails its own check digit teaches integrators a 422.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { parseEncf } from '../src/fiscal/encf.js';
import { tiposECF } from '../src/fiscal/model/generated/catalogues.js';
import { isValidCedula, isValidRnc } from '../src/fiscal/taxpayer-id.js';
import { startTestApp, type TestApp } from './support/test-app.js';

/** Placeholders that are not examples, each with why. */
const notExamples = new Map<string, string>([
  ['000000000', 'received-ecf.ts: the RNCEmisor of a received file whose XML and name carry none'],
  ['E000000000000', 'received-ecf.ts: the eNCF of a received file whose XML and name carry none'],
]);

const ecfTypes = new Set(tiposECF.map((entry) => entry.code));

/** What is wrong with an identifier-looking token, or undefined when it passes its own check. */
function problemOf(token: string): string | undefined {
  if (notExamples.has(token)) return undefined;
  if (token.startsWith('E')) {
    const encf = parseEncf(token);
    if (encf === undefined || !ecfTypes.has(encf.ecfType)) return 'not an e-NCF of one of the ten e-CF types';
    return encf.sequence >= 1 ? undefined : 'sequence number 0';
  }
  const digits = token.replaceAll('-', '');
  if (digits.length === 9) return isValidRnc(digits) ? undefined : 'RNC check digit';
  return isValidCedula(digits) ? undefined : 'cédula check digit';
}

// 9 or 11 digits standing alone (an RNC, a cédula), a cédula written 001-1234567-8, an e-NCF.
const candidates = /(?<![\w.-])(\d{9}|\d{11}|\d{3}-\d{7}-\d|E\d{12})(?![\w.])/g;

function findProblems(text: string, where: (index: number) => string): string[] {
  const problems: string[] = [];
  for (const match of text.matchAll(candidates)) {
    const token = match[1] ?? '';
    const problem = problemOf(token);
    if (problem !== undefined) problems.push(`${where(match.index)}: ${token} (${problem})`);
  }
  return problems;
}

describe('example identifiers', () => {
  let testApp: TestApp;
  before(async () => {
    testApp = await startTestApp();
  });
  after(() => testApp.close());

  it('the checks catch what they must', () => {
    assert.deepEqual(
      findProblems(
        'RNCComprador 130000006, 130000001, 00114272362, 001-1427236-1, E310000000001, E990000000001',
        () => '-',
      ),
      [
        '-: 130000006 (RNC check digit)',
        '-: 001-1427236-1 (cédula check digit)',
        '-: E990000000001 (not an e-NCF of one of the ten e-CF types)',
      ],
    );
  });

  it('in the code and the docs: every tracked file but the tests', () => {
    const files = execFileSync('git', ['ls-files', '-z'], { encoding: 'utf8' })
      .split('\0')
      .filter((file) => file !== '' && !file.startsWith('test/') && !file.endsWith('.test.ts'))
      .filter((file) => !file.endsWith('package-lock.json') && !file.endsWith('.png'));
    assert.ok(files.includes('README.md') && files.some((file) => file.startsWith('docs/')), 'the docs are read');
    const problems = files.flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      return findProblems(text, (index) => `${file}:${String(text.slice(0, index).split('\n').length)}`);
    });
    assert.deepEqual(problems, []);
  });

  it('in the contract the app serves at /docs-json', async () => {
    const response = await testApp.app.inject({ url: '/docs-json' });
    assert.equal(response.statusCode, 200);
    const problems: string[] = [];
    const visit = (value: unknown, path: string): void => {
      if (typeof value === 'string' || typeof value === 'number')
        problems.push(...findProblems(String(value), () => path));
      else if (Array.isArray(value))
        value.forEach((item, i) => {
          visit(item, `${path}/${String(i)}`);
        });
      else if (value !== null && typeof value === 'object')
        for (const [key, item] of Object.entries(value)) visit(item, `${path}/${key}`);
    };
    visit(response.json(), '');
    assert.deepEqual(problems, []);
  });
});
