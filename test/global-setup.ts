import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
// @ts-expect-error: a plain ES module of the build, without types
import { sourceHash, STAMP } from '../scripts/source-hash.mjs';
import { removeTree } from './remove-tree.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The fingerprint dist/ was built from, or null when there is no build. */
function builtFrom(): string | null {
  try {
    return readFileSync(`${ROOT}/${STAMP}`, 'utf8').trim();
  } catch {
    return null;
  }
}

/**
 * Integration tests run dist/ (the installed hooks run dist/bin/hook.cjs, the CLI dist/bin/intent.js):
 * a dist/ built from other sources than lib/, cli/ and the build scripts would test old code and
 * pass. The build records the fingerprint of its inputs (scripts/source-hash.mjs); when it differs
 * from the sources', dist/ is rebuilt here, before any test runs, and a failed build fails the run.
 */
function ensureFreshBuild(): void {
  const want = sourceHash(ROOT) as string;
  const have = builtFrom();
  if (have === want && existsSync(`${ROOT}/dist/bin/hook.cjs`)) return;
  process.stderr.write(`global setup: dist/ ${have ? 'was built from other sources' : 'has no build record'}: running npm run build\n`);
  const r = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'], shell: process.platform === 'win32' });
  if (r.status !== 0) throw new Error(`npm run build failed (exit ${r.status ?? r.signal}): fix the build, then run the tests again.`);
  if (builtFrom() !== sourceHash(ROOT)) {
    throw new Error(`dist/ is still not built from the current sources after npm run build (${STAMP}): did a source change during the build?`);
  }
}

export default function setup(): () => void {
  ensureFreshBuild();
  // The run's own temporary folder (vitest.config.ts, test/temp-root.ts) goes with what tests left
  // in it (a tool's own temporary files, a hook server still running in a repository).
  return () => {
    const t = process.env.INTENT_TEST_TMP;
    if (t?.startsWith('made:')) removeTree(t.slice('made:'.length));
  };
}
