/**
 * The worker that classifies a staged refactor-like change ahead of post-commit (the scheme is in
 * lib/mutation/ahead.ts): started detached by pre-commit as `hook.js classify-ahead <parent>
 * <tree> <state dir>`, it diffs the two trees the way post-commit will diff the commit, classifies, and
 * stores the result under the key post-commit will compute. Whatever happens, it removes its
 * pending marker, so post-commit stops waiting for it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readBlobs } from '../git/blobs.js';
import { treeDiffAsync } from '../git/diff.js';
import { openRepo, stateDir } from '../git/repo.js';
import { aheadDir, aheadKey, clearPending, pendingName, sweepAhead, writeAheadEntry } from '../mutation/ahead.js';
import { classifyChanges } from '../mutation/classify.js';
import { useTypeScriptCodeCache } from '../mutation/ts-cache.js';
import { preloadCompiler } from '../mutation/syntax.js';

const OID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/** Classifies `parent` → `tree` in the repository at `cwd` and stores the result. */
export async function classifyAhead(cwd: string, parent: string, tree: string, named?: string): Promise<void> {
  if (!OID.test(parent) || !OID.test(tree)) throw new Error('classify-ahead: expects a parent commit and a tree id');
  // pre-commit names the state folder; it is taken when its pending marker names this process
  // (else, e.g. before pre-commit wrote the marker, the repository is asked: one git process more).
  const state = named && ownMarker(aheadDir(named), parent, tree) ? named : stateDir(openRepo(cwd));
  const dir = aheadDir(state);
  try {
    useTypeScriptCodeCache(state);
    // pre-commit predicted a change for the compiler: load it while git diffs the trees.
    const diff = treeDiffAsync(cwd, parent, tree);
    diff.catch(() => { /* awaited below */ });
    preloadCompiler();
    const changes = await diff;
    const blobs = readBlobs(cwd, changes.flatMap((c) => [c.oldOid, c.newOid]));
    const classes = classifyChanges(changes, blobs);
    writeAheadEntry(dir, aheadKey(changes), classes, { pid: process.pid, wall_ms: Math.round(performance.now()), cpu_ms: cpuMs() });
  } finally {
    clearPending(dir, parent, tree);
    sweepAhead(dir);
  }
}

/** CPU time of this process and the git processes it waited for (Linux /proc), else its own. */
function cpuMs(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime, stime, cutime, cstime: fields 14-17, in clock ticks (100 per second on Linux).
    return [11, 12, 13, 14].reduce((n, i) => n + Number(f[i]), 0) * 10;
  } catch {
    const u = process.cpuUsage();
    return Math.round((u.user + u.system) / 1000);
  }
}

/** Whether the pending marker for `parent` → `tree` in `dir` names this process. */
function ownMarker(dir: string, parent: string, tree: string): boolean {
  try {
    const p = JSON.parse(readFileSync(join(dir, pendingName(parent, tree)), 'utf8')) as { pid?: unknown; parent?: unknown; tree?: unknown };
    return p.pid === process.pid && p.parent === parent && p.tree === tree;
  } catch {
    return false;
  }
}
