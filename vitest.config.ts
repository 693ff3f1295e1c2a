import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Test files run in parallel forks. vitest's default in a run is one fork less than the cores: a
// single fork on a 2-core machine, where most of a test's time is a git or node child process
// and the other core sat idle (about 11 minutes for the suite). One fork more than the cores keeps
// both busy while a file waits on its processes.
const forks = Math.max(2, availableParallelism() + 1);

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    poolOptions: { forks: { maxForks: forks, minForks: 1 } },
    // Generous: a test's time is mostly git and node child processes, which a loaded machine slows
    // several-fold; a test asserts behaviour, never speed (benchmarks do that).
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
