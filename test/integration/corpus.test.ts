// The bad-input corpus, first half: registry, config, content and cli cases (test/corpus/driver.ts
// runs them; test/integration/corpus-files.test.ts has the other half).
import { describe, expect, it } from 'vitest';
import { corpusTests } from '../corpus/driver.js';
import { registryCases } from '../corpus/registry.js';
import { configCases } from '../corpus/config.js';
import { pathCases } from '../corpus/paths.js';
import { linkCases } from '../corpus/links.js';
import { contentCases } from '../corpus/content.js';
import { stagingCases } from '../corpus/staging.js';
import { historyCases } from '../corpus/history.js';
import { cliCases } from '../corpus/cli.js';

describe('the corpus itself', () => {
  it('has at least 50 cases with unique names', () => {
    const all = Object.entries({
      registry: registryCases, config: configCases, paths: pathCases, links: linkCases,
      content: contentCases, staging: stagingCases, history: historyCases, cli: cliCases,
    }).flatMap(([cat, cases]) => cases.map((c) => ({ cat, c })));
    const names = all.map(({ cat, c }) => `${cat}/${c.name}`);
    expect(new Set(names).size).toBe(names.length);
    expect(names.length).toBeGreaterThanOrEqual(50);
  });
});

corpusTests({ registry: registryCases, config: configCases, content: contentCases, cli: cliCases });
