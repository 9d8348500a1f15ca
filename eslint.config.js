// ESLint flat config: @eslint/js and typescript-eslint recommended, no `any`, Prettier owns layout (last).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

// Node's globals for the plain-JS files (scripts/*.mjs, the Node client-matrix programs); TypeScript files get
// theirs from @types/node, and typescript-eslint turns no-undef off for them.
const nodeGlobals = Object.fromEntries(
  [
    'AbortController',
    'AbortSignal',
    'Buffer',
    'TextDecoder',
    'TextEncoder',
    'URL',
    'URLSearchParams',
    'clearImmediate',
    'clearInterval',
    'clearTimeout',
    'console',
    'fetch',
    'global',
    'globalThis',
    'performance',
    'process',
    'queueMicrotask',
    'setImmediate',
    'setInterval',
    'setTimeout',
    'structuredClone',
  ].map((name) => [name, 'readonly']),
);

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.cache/**',
      'src/protocol/generated/**',
      '**/*.generated.ts',
      'test/clients/**/node_modules/**',
      // the client matrix's programs in other languages (Go, Java, Python, shell) are not ours to lint here
      'test/clients/{go,java,python,kcat}/**',
      'spec/**',
      'man/**',
      'completions/**',
      'docs/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: nodeGlobals },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      // every control character in our regexes is meant: ANSI escapes (\x1b) in terminal output, jopt's help text
      'no-control-regex': 'off',
      // `_name` marks a parameter or binding kept for its position (handler signatures, destructuring)
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { module: 'writable', require: 'readonly', __dirname: 'readonly' },
    },
  },
  prettier,
  {
    // After eslint-config-prettier (which turns max-len off): Prettier wraps code at 120 columns but never breaks a
    // string, so this only catches what Prettier cannot — long comments and code it was told to leave alone.
    rules: {
      'max-len': [
        'error',
        {
          code: 160,
          ignoreStrings: true,
          ignoreTemplateLiterals: true,
          ignoreRegExpLiterals: true,
          ignoreUrls: true,
        },
      ],
    },
  },
);
