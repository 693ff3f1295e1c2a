import { defineConfig } from 'vitest/config';

// The vitest configuration `npm run mutate` (stryker.config.mjs) runs. Stryker's sandbox holds an
// instrumented copy of lib/, so test/global-setup.ts would see sources that differ from dist/'s
// build record and rebuild dist/ from the instrumented code: it is left out here (`npm run mutate`
// builds first; the sandbox gets that dist/ as it is). Only the tests that run lib/ in-process can
// kill a mutant: the unit tests (test/unit/mutants-*.test.ts were written for this) and the
// integration file that calls the handshake directly. The rest drive the CLI and the hooks, which
// run dist/; test/integration/adapter.test.ts runs lib/ too, but commits through git in every
// test (minutes a mutant): test/unit/mutants-adapter.test.ts checks the same refusals without writing.
export default defineConfig({
  test: {
    include: [
      'test/unit/**/*.test.ts',
      'test/integration/handshake.test.ts',
    ],
    setupFiles: ['test/setup.ts'],
    pool: 'forks',
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
