// Lint guards the architecture (STYLE.md §14): strict types, no floating promises, exhaustive switches,
// modules import each other only through index.ts, and fiscal/ stays pure.
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

// A sibling module's internals (`../other/x.js`) or any module's internals by a longer path.
const moduleBoundary = {
  regex: '^(\\.\\./(?!\\.\\.)[^/]+/(?!index\\.js$)[^/]+|.*modules/[^/]+/(?!index\\.js$)[^/]+)$',
  message: 'Import another module only through its index.ts.',
};

export default tseslint.config(
  // sdk/src/schema.ts: openapi-typescript's output, byte for byte (test/client-contract.test.ts), not ours to lint.
  { ignores: ['dist/', 'node_modules/', 'data/', 'coverage/', 'sdk/src/schema.ts'] },
  eslint.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['*.js', 'scripts/*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // A module's own files; src/modules/module.ts, the contract between app.ts and the modules, stands above them.
    files: ['src/modules/*/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [moduleBoundary] }] },
  },
  {
    files: ['src/platform/**/*.ts', 'src/dgii/**/*.ts', 'src/sandbox/**/*.ts', 'src/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '.*modules/[^/]+/(?!index\\.js$)[^/]+$', message: 'Import a module only through its index.ts.' },
          ],
        },
      ],
    },
  },
  {
    // Config sits under everything that reads it: it imports none of them (the import graph runs one way).
    files: ['src/config.ts', 'src/config/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/platform/**', '**/modules/**', '**/dgii/**', '**/sandbox/**', '**/app.js', '**/main.js'],
              message: 'config is read by the layers above it and imports none of them.',
            },
          ],
        },
      ],
    },
  },
  {
    // Product code only: the tests beside it use I/O for their independent oracles (xmllint, xmlsec1).
    files: ['src/fiscal/**/*.ts'],
    ignores: ['src/fiscal/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/platform/**', '**/modules/**', '**/dgii/**', '**/sandbox/**', '**/config.js'],
              message: 'fiscal/ is pure: no infrastructure, modules or config.',
            },
            {
              group: ['node:fs*', 'fs', 'fs/*', 'node:net', 'node:http*', 'node:child_process', 'node:worker_threads'],
              message: 'fiscal/ does no I/O.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.test.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      // node:test's describe/it return promises the runner awaits itself.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              name: ['describe', 'it', 'test', 'before', 'after', 'beforeEach', 'afterEach'],
              package: 'node:test',
            },
          ],
        },
      ],
    },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);
