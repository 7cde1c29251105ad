// ESLint flat config: typescript-eslint's recommended rules over the whole TypeScript tree.
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['node_modules/', 'data/', 'coverage/', '.tmp/'] },
  tseslint.configs.recommended,
  {
    rules: {
      // `_`-prefixed names mark parameters and bindings that are unused on purpose.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
    },
  },
  {
    // Migrations are written against Kysely<any>: they must not depend on the current schema types.
    files: ['src/db/migrations/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
