// @ts-check
// Mutation testing of the modules that hold the guarantees (issue 42; `npm run mutate`; results in
// BENCHMARKS.md). Tests: test/mutation/vitest.stryker.config.ts (the tests that run lib/ in-process).
//
// Restricted ranges (the rest of those files is plumbing: git processes, output, options):
//   lib/agents/adapter.ts:326-406    the adapter's checks: outside/insideRoot/realTarget (the write
//                                    stays inside the worktree and out of .git) and checkFresh
//                                    (expectedSha256: the bytes read, or null = must not exist).
//   lib/guardrails/breaker.ts:1-164  the breaker itself (trip, window, loop, fail closed, reset);
//                                    not resetIntent (its human checks need a real worktree).
// Not mutated (see BENCHMARKS.md): lib/trace/record.ts, verify.ts, carry.ts, lib/authority/gate.ts.
// Their tests drive the CLI and the hooks, which run the built dist/, not Stryker's instrumented
// lib/: their mutants show no coverage (a first run: 2,900 of 3,745 mutants), and with them the
// run did not fit its time budget on 2 cores. Mutating them needs tests that call them in-process.
// No TypeScript checker: on hashing.ts it took about 10 s a mutant, against under 1 s without.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'test/mutation/vitest.stryker.config.ts' },
  coverageAnalysis: 'perTest',
  concurrency: 2,
  // Static mutants (module-level constants: the id and glob patterns, the breaker's defaults) run
  // every test for each mutant: about half the run's time for 3% of the mutants. Left out.
  ignoreStatic: true,
  // Error and log texts are not guarantees (the tests assert codes and data, not wording).
  mutator: { excludedMutations: ['StringLiteral'] },
  mutate: [
    'lib/intents/scope.ts',
    'lib/trace/hashing.ts',
    'lib/trace/ledger.ts',
    'lib/trace/carry-match.ts',
    'lib/agents/handshake.ts',
    'lib/agents/adapter.ts:326-406',
    'lib/guardrails/breaker.ts:1-164',
  ],
  ignorePatterns: ['test-output', 'coverage', '.stryker-tmp', 'reports'],
  reporters: ['clear-text', 'progress-append-only', 'json', 'html'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  timeoutMS: 60_000,
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
