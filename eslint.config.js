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
    // The service reads time only through its injected clock (src/lib/clock.ts): the CI run with
    // the test clock in 2099 relies on it to leave out the files that cannot show a real-date read.
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.test.ts', 'src/lib/clock.ts', 'src/cli/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: 'Read the time from the injected clock (deps.clock.now()), not Date.now().',
        },
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'Read the time from the injected clock (deps.clock.now()), not new Date().',
        },
        {
          selector: "CallExpression[callee.name='Date']",
          message: 'Read the time from the injected clock (deps.clock.now()), not Date().',
        },
      ],
    },
  },
  {
    // Migrations are written against Kysely<any>: they must not depend on the current schema types.
    files: ['src/db/migrations/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
