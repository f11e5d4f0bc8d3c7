// One lint setup for the whole repository (typescript-eslint's recommended rules plus a few habits).
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '.data/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': ['error', { allow: ['warn', 'error'] }],
      eqeqeq: ['error', 'smart'],
    },
  },
  // Apps meet only through HTTP and @roost/events (docs/architecture.md): one app never imports another's code, and
  // packages import no app.
  ...['accounts', 'gateway', 'push', 'streaming'].map((app) => ({
    files: [`apps/${app}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `(^|/)(apps/)?(${['accounts', 'gateway', 'push', 'streaming'].filter((a) => a !== app).join('|')})/src(/|$)`,
              message: 'An app does not import another app: share it through a package under packages/.',
            },
          ],
        },
      ],
    },
  })),
  {
    files: ['packages/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)apps/|^(\\.\\./)+(accounts|gateway|push|streaming)/src(/|$)',
              message: 'A package does not import an app.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['scripts/**', 'bench/**', '**/cli.ts', '**/*.mjs'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['**/*.mjs', '**/*.cjs', '**/*.js'],
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', module: 'writable', require: 'readonly' },
    },
  },
)
