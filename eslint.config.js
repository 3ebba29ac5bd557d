import js from '@eslint/js';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['out/', 'dist/', 'node_modules/', 'coverage/', 'conformance-results/', 'bench-results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'smart'],
    },
  },
  {
    // Promises that nobody awaits, and promises where a plain value is expected: type-checked.
    files: ['**/*.{ts,tsx}'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  {
    files: ['src-server/**/*.ts'],
    rules: {
      // The service runs under plain Node and in a utility process: it must never pull in Electron.
      'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: 'src-server runs without Electron.' }] }],
    },
  },
  {
    files: ['src-server/xapi/**/*.ts'],
    rules: {
      // xapi/ holds the pure rules: no HTTP, no SQL.
      'no-restricted-imports': ['error', { patterns: ['fastify', 'sql.js', '**/storage/**', '**/http/**'] }],
    },
  },
  {
    files: ['src-renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  {
    files: ['src-renderer/features/**/*.{ts,tsx}'],
    rules: {
      // Features reach the service through the AdminClient only; the shell picks the transport.
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/http-transport', '**/ipc-transport', '**/ipc-desktop-controls', '**/src-main/preload'], message: 'Features use useAdminClient()/useDesktopControls(), never a transport.' }] },
      ],
    },
  },
);
