import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { chooseTempRoot } from './test/temp-root.js';

// The run's temporary folders (every test repository) go to a private folder on tmpfs when there
// is one: test/temp-root.ts says why and how; the global teardown removes it. The processes the
// run starts inherit TMPDIR. (The guard: vitest may evaluate this file more than once.)
if (!process.env.INTENT_TEST_TMP) {
  const root = chooseTempRoot(process.env);
  if (root) {
    process.env.TMPDIR = root.dir;
    process.env.INTENT_TEST_TMP = root.made ? `made:${root.dir}` : `given:${root.dir}`;
  }
}

// Test files run in parallel forks. vitest's default in a run is one fork less than the cores: a
// single fork on a 2-core machine, where most of a test's time is a git or node child process
// and the other core sat idle (about 11 minutes for the suite). One fork more than the cores keeps
// both busy while a file waits on its processes.
const forks = Math.max(2, availableParallelism() + 1);

// The files that take longest start first, so that no fork starts one of them late and holds up
// the end of the run. vitest orders by the durations of the last run when it has them, otherwise
// by file size, and the corpus files are small (the cases are in test/corpus/).
const FIRST = ['corpus.test.ts', 'corpus-files.test.ts', 'verify-scale.test.ts'];
class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = FIRST.findIndex((name) => f.moduleId.replaceAll('\\', '/').endsWith(`/integration/${name}`));
      return i === -1 ? FIRST.length : i;
    };
    const sorted = await super.sort(files);
    return sorted.map((f, i) => ({ f, i })).sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i).map(({ f }) => f);
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    poolOptions: { forks: { maxForks: forks, minForks: 1 } },
    sequence: { sequencer: SlowFirst },
    // Generous: a test's time is mostly git and node child processes, which a loaded machine slows
    // several-fold; a test asserts behaviour, never speed (benchmarks do that).
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
