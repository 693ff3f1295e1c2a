/**
 * pre-commit's half of classifying ahead (lib/mutation/ahead.ts): when the staged patch looks
 * like a refactor, write the staged tree and start the worker (lib/hooks/classify-ahead.ts)
 * detached, so git does not wait for it. Never fails the commit: any error only means post-commit
 * classifies by itself.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { PKG_ROOT } from '../core/version.js';
import { stagedPatch } from '../git/diff.js';
import { gitRaw } from '../git/process.js';
import { headOid, stateDir, type Repo } from '../git/repo.js';
import { aheadDir, pendingAlive, predictsSyntax, writePending } from '../mutation/ahead.js';
import { syntaxOf } from '../mutation/languages.js';

/** At most this many staged paths are looked at (the classifier's own limit is 500). */
const MAX_PATHS = 500;

/** Starts the worker for the staged change when it looks refactor-like; returns its pid or null. */
export function startClassifyAhead(repo: Repo, paths: readonly string[], env: NodeJS.ProcessEnv = process.env): number | null {
  // Only TS and JS files make post-commit load the TypeScript compiler.
  if (!paths.length || paths.length > MAX_PATHS || env.INTENT_CLASSIFY_AHEAD === '0' || !paths.some((p) => syntaxOf(p))) return null;
  try {
    const parent = headOid(repo);
    if (!parent || !predictsSyntax(stagedPatch(repo.root))) return null;
    const res = gitRaw(['write-tree'], { cwd: repo.root, inheritRepoEnv: true });
    const tree = res.stdout.trim();
    if (res.status !== 0 || !/^[0-9a-f]{40,64}$/.test(tree)) return null;
    const dir = aheadDir(stateDir(repo));
    if (pendingAlive(dir, parent, tree)) return null;
    const childEnv = { ...env };
    for (const k of ['GIT_INDEX_FILE', 'GIT_DIR', 'GIT_WORK_TREE', 'GIT_PREFIX']) delete childEnv[k];
    const child = spawn(process.execPath, [join(PKG_ROOT, 'dist', 'bin', 'hook.js'), 'classify-ahead', parent, tree, stateDir(repo)], {
      cwd: repo.root, env: childEnv, detached: true, stdio: 'ignore',
    });
    child.on('error', () => { /* post-commit classifies by itself */ });
    child.unref();
    if (!child.pid) return null;
    writePending(dir, parent, tree, child.pid);
    return child.pid;
  } catch {
    return null;
  }
}
