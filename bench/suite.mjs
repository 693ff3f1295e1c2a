// Item 10: the README's test command (`npm test`: build, then the whole vitest suite), timed once
// from start to exit, with vitest's own per-file times (its JSON reporter) for the slowest files.
// It runs in the package's own checkout with the user's environment (not the benchmark's pinned
// one): what a developer who types the README's command gets.
import { readFileSync, rmSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { run } from './util.mjs';

/** Runs `npm test` in `pkgDir`; `env` is the environment the benchmark started with. */
export function suiteTime(pkgDir, env, outFile) {
  rmSync(outFile, { force: true });
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const res = run(npm, ['test', '--', '--reporter=dot', '--reporter=json', `--outputFile.json=${outFile}`], { cwd: pkgDir, env, allowFail: true });
  let report = null;
  try {
    report = JSON.parse(readFileSync(outFile, 'utf8'));
  } catch { /* reported below: no per-file times */ }
  const files = (report?.testResults ?? []).map((t) => ({
    file: isAbsolute(t.name) ? relative(pkgDir, t.name) : t.name,
    ms: t.endTime - t.startTime,
    tests: t.assertionResults?.length ?? 0,
    status: t.status,
  })).sort((a, b) => b.ms - a.ms);
  return {
    status: res.status,
    ms: res.ms,
    cpu: res.cpu,
    files: files.length,
    tests: report?.numTotalTests ?? null,
    passed: report?.numPassedTests ?? null,
    failed: report?.numFailedTests ?? null,
    skipped: (report?.numPendingTests ?? 0) + (report?.numTodoTests ?? 0),
    slowest: files.slice(0, 10),
    tail: res.status === 0 ? '' : (res.stdout + res.stderr).slice(-2000),
  };
}

/** Where the JSON report goes (outside the checkout, so `git status` stays clean). */
export function suiteReportFile(root) {
  return join(root, 'vitest-report.json');
}
