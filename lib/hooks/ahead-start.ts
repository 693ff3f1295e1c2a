/**
 * pre-commit's half of classifying ahead (lib/mutation/ahead.ts): when the staged patch looks
 * like a refactor, write the staged tree and start the worker (lib/hooks/classify-ahead.ts)
 * detached, so git does not wait for it. Never fails the commit: any error only means post-commit
 * classifies by itself.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { PKG_ROOT } from '../core/version.js';
import { stagedPaths, stagedPathsAndPatch } from '../git/diff.js';
import { gitRaw } from '../git/process.js';
import { headOid, stateDir, type Repo } from '../git/repo.js';
import { aheadDir, pendingAlive, predictsSyntax, writePending } from '../mutation/ahead.js';

/** Makes git diff only TS/JS files (what the prediction reads); shipped with the package. */
const COMPILED_ATTRIBUTES = join(PKG_ROOT, 'git-hooks', 'compiled.gitattributes');
/** A patch over this size is not looked at (git is stopped there): a change that big is no quick win. */
const MAX_PATCH_BYTES = 1_000_000;

/**
 * The staged paths, and with them (same git process) the staged patch of the TS/JS files when
 * classifying ahead is on and there is a parent commit; otherwise the paths alone.
 */
export function stagedForCommit(repo: Repo, env: NodeJS.ProcessEnv = process.env): { paths: string[]; patch: string | null } {
  if (env.INTENT_CLASSIFY_AHEAD === '0' || !headOid(repo)) return { paths: stagedPaths(repo.root), patch: null };
  return stagedPathsAndPatch(repo.root, COMPILED_ATTRIBUTES, MAX_PATCH_BYTES);
}

/**
 * Starts the worker for the staged change when the TS/JS part of its patch (`stagedForCommit`)
 * looks refactor-like (only those files make post-commit load the compiler); returns the worker's
 * pid or null.
 */
export function startClassifyAhead(repo: Repo, patch: string | null, env: NodeJS.ProcessEnv = process.env): number | null {
  if (env.INTENT_CLASSIFY_AHEAD === '0' || patch === null) return null;
  try {
    const parent = headOid(repo);
    if (!parent || !predictsSyntax(patch)) return null;
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
