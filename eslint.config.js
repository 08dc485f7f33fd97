// ESLint (flat config) with typescript-eslint's recommended rules over the sources, scripts,
// tests and the dashboard. Rules that need type information (no-floating-promises and
// friends) are left out: they would make `npm run lint` cost a full type-check per run,
// and `tsc --noEmit` already runs in `npm test`.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    // generated code, build output, fixtures kept byte-exact, the example UI bundle, and .cache/ (the
    // tests' compiled copies in .cache/test-js, written while npm test lints beside the suites)
    ignores: [
      'generated/',
      'dist/',
      'dist.building-*/',
      'dist.previous-*/',
      'ui/dist/',
      'node_modules/',
      'data/',
      '.bench/',
      'test/**/fixtures/',
      'coverage/',
      '.cache/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: { ...globals.node },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // the contract's JSON is `any` in a few deliberate places (spec walking, codegen)
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      // a `let` read by a callback before its one assignment (a server's URL once it listens) stays a let
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      'max-len': [
        'error',
        { code: 160, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreUrls: true, ignoreComments: true, ignoreRegExpLiterals: true },
      ],
    },
  },
  {
    // CommonJS preloads (node --require)
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['ui/**', 'examples/ui/**'],
    languageOptions: { globals: { ...globals.browser } },
  },
);
