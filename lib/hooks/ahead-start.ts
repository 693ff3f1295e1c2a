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
import { COMPILED_PATHSPECS as COMPILED } from '../mutation/languages.js';

/** At most this many staged TS/JS files are looked at (the classifier's own limit is 500). */
const MAX_FILES = 500;

/**
 * Starts the worker for the staged change when its TS/JS part looks refactor-like (only those
 * files make post-commit load the compiler); returns the worker's pid or null.
 */
export function startClassifyAhead(repo: Repo, env: NodeJS.ProcessEnv = process.env): number | null {
  if (env.INTENT_CLASSIFY_AHEAD === '0') return null;
  try {
    const parent = headOid(repo);
    if (!parent) return null;
    // A patch over 1 MB is not looked at (git is stopped there): a change that big is no quick win.
    const patch = stagedPatch(repo.root, COMPILED, 1_000_000);
    if (!predictsSyntax(patch) || patch.split('\ndiff --git ').length > MAX_FILES) return null;
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
