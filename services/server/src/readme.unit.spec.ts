import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { settingsMarkdownTable } from '@packyard/platform';
import { REPO_ROOT } from '@packyard/testing';
import { ALL_MODULES } from './modules';

it('the README documents exactly the settings the program reads', () => {
  const readme = readFileSync(`${REPO_ROOT}/README.md`, 'utf8');
  expect(readme).toContain(settingsMarkdownTable(ALL_MODULES));
});
