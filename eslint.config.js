// @ts-check
import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import { readFileSync } from 'node:fs';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** The runtime's floors (packages/runtime/floors.json): each folder may import from its own floor and those below. */
const { floors } = JSON.parse(readFileSync(new URL('./packages/runtime/floors.json', import.meta.url), 'utf8'));
const floorZones = floors.flatMap((/** @type {{ name: string, folders: string[] }} */ floor, index) =>
  floor.folders.map((folder) => ({
    target: `./packages/runtime/src/${folder}`,
    from: floors.slice(index + 1).flatMap((/** @type {{ folders: string[] }} */ above) => above.folders.map((name) => `./packages/runtime/src/${name}`)),
    message: `runtime/src/${folder} is on the floor "${floor.name}": it may import only from its own floor and those below (packages/runtime/floors.json)`,
  })),
);

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/.turbo/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: {
        projectService: { allowDefaultProject: ['*.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { 'import-x': importX },
    settings: {
      // Without these, import-x cannot parse the TypeScript files an import leads to, and no-cycle sees nothing.
      'import-x/extensions': importX.flatConfigs.typescript.settings['import-x/extensions'],
      'import-x/parsers': importX.flatConfigs.typescript.settings['import-x/parsers'],
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: ['packages/*/tsconfig.json', 'apps/*/tsconfig.json', 'test/tsconfig.json'], noWarnOnMultipleProjects: true })],
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      // A switch over a union names every member (or says why not with a default), so a new phase or status cannot slip through.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'import-x/no-cycle': 'error',
      'import-x/no-self-import': 'error',
      'no-restricted-syntax': ['error', { selector: 'ExportAllDeclaration', message: 'Named exports only: list what a module makes public.' }],
    },
  },
  // The layers, one way: the core is pure policy over the protocol; the tier apps reach Redis only through the runtime.
  {
    files: ['packages/core/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@tierflow/*', '!@tierflow/protocol'], message: 'The core imports only @tierflow/protocol.' },
            { group: ['bullmq', 'ioredis'], message: 'The core does no I/O.' },
          ],
        },
      ],
    },
  },
  {
    files: ['apps/{monitor,architect,dispatcher,fleet}/src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['bullmq', 'ioredis'], message: 'A tier app reaches Redis through @tierflow/runtime and @tierflow/beads.' }] }],
    },
  },
  {
    files: ['packages/runtime/src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: { 'import-x/no-restricted-paths': ['error', { zones: floorZones.filter((zone) => zone.from.length > 0) }] },
  },
  // Plain JS (launchers, scripts, this file) is not in a TypeScript project: lint it without types.
  { files: ['**/*.js'], ...tseslint.configs.disableTypeChecked },
);
