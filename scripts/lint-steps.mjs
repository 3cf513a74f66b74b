// The checks of `npm run lint`, declared once: scripts/lint.mjs runs them one after the other, and `npm test`
// (scripts/test.mjs --lint) runs them beside the test files, where their CPU fills the time the tests spend waiting.
import { join } from 'node:path';

const bin = (name) => join(import.meta.dirname, '..', 'node_modules', '.bin', name);
const sourceGlobs = [
  'src/**/*.ts',
  'test/**/*.ts',
  'bench/**/*.ts',
  'scripts/**/*.ts',
  'sdk/**/*.ts',
  'console/src/**/*.ts',
  'console/src/**/*.tsx',
];

/** Each check: a name for the report, and the program with its arguments, run at the project's root. */
export const lintSteps = [
  {
    name: 'lint: types and eslint',
    command: process.execPath,
    args: [join(import.meta.dirname, 'check-types-and-lint.mjs')],
  },
  { name: 'lint: format (prettier)', command: bin('prettier'), args: ['--check', '.'] },
  {
    name: 'lint: import cycles (dpdm)',
    command: bin('dpdm'),
    args: ['--no-tree', '--no-warning', '--exit-code', 'circular:1', ...sourceGlobs],
  },
  {
    name: 'lint: table owners',
    command: process.execPath,
    args: [join(import.meta.dirname, 'check-table-owners.mjs')],
  },
];
