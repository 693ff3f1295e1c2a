/**
 * A merge that brings the base into a branch ("Update branch" on a host, `git merge origin/main` in
 * an intent's worktree): which of its paths are the base's, not the branch's work. For each other
 * parent P (reachable from the base), a path is P's when P changed it since the fork point
 * B = merge-base(first parent, P), the first parent did not, and the merge result has it exactly
 * as P has it: the merge brings a change the base already made, nothing of its own. A path the
 * merge resolved (both sides changed it), or changed as neither side has it, stays the branch's.
 * Reverting the base (an "other parent" that is an old base commit) brings nothing: B is then that
 * commit, which changed nothing since itself.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { reachableFrom } from './commits.js';
import { gitRaw } from './process.js';

/**
 * The paths of `result` (path → its blob in the merge result, null: deleted; only paths that
 * differ from `first`) that the merge takes from one of `others` as it has them.
 */
export function takenFromOthers(cwd: string, first: string, others: string[], result: Map<string, string | null>): Set<string> {
  const out = new Set<string>();
  for (const other of others) {
    const fork = gitRaw(['merge-base', first, other], { cwd });
    if (fork.status !== 0) continue;
    const base = fork.stdout.trim();
    const theirs = changedSince(cwd, base, other);
    const ours = changedSince(cwd, base, first);
    for (const [path, oid] of result) {
      if (out.has(path) || ours.has(path) || !theirs.has(path)) continue;
      if (theirs.get(path) === oid) out.add(path);
    }
  }
  return out;
}

/** The paths that differ from `first` in commit `merge`, with their blob there (null: deleted). */
export function mergeResult(cwd: string, first: string, merge: string): Map<string, string | null> {
  return changedSince(cwd, first, merge);
}

/** The staged paths that differ from HEAD, with their blob in the index (null: deleted). */
export function stagedResult(cwd: string): Map<string, string | null> {
  const r = gitRaw(['diff-index', '--cached', '-r', '-z', '--no-renames', '--no-abbrev', 'HEAD'], { cwd });
  return r.status === 0 ? parseRaw(r.stdout) : new Map();
}

/** Whether every one of `others` is reachable from one of `baseTips` (a merge of the base into a branch). */
export function othersFromBase(cwd: string, others: string[], baseTips: string[]): boolean {
  if (!others.length || !baseTips.length) return false;
  const reached = reachableFrom(cwd, others, baseTips);
  return others.every((o) => reached.has(o));
}

/** The base tips a local check knows: `main` and every remote's `main`. */
export function localBaseTips(cwd: string): string[] {
  const r = gitRaw(['for-each-ref', '--format=%(objectname)', 'refs/heads/main', 'refs/remotes/*/main'], { cwd });
  return r.stdout.split('\n').filter(Boolean);
}

/**
 * The merge heads of a merge in progress in the worktree at `cwd`, whose git dir is `gitDir`
 * (none: not merging; no git process then): MERGE_HEAD
 * once git stopped (`--no-commit`, a conflict), else, in the pre-merge-commit hook of a merge git
 * commits itself (it writes no MERGE_HEAD then), the revisions `git merge` was given, as git
 * names them in GIT_REFLOG_ACTION ("merge origin/main"). A name that does not resolve: none.
 */
export function mergeHeads(cwd: string, gitDir: string, env: NodeJS.ProcessEnv = {}): string[] {
  const file = join(gitDir, 'MERGE_HEAD');
  if (existsSync(file)) return readFileSync(file, 'utf8').split('\n').map((l) => l.trim()).filter((l) => /^[0-9a-f]{40,64}$/.test(l));
  const action = /^merge (.+)$/.exec(env.GIT_REFLOG_ACTION ?? '');
  if (!action) return [];
  const names = action[1].trim().split(/\s+/);
  if (names.some((n) => n.startsWith('-'))) return [];
  const out: string[] = [];
  for (const n of names) {
    const r = gitRaw(['rev-parse', '--verify', '--quiet', `${n}^{commit}`], { cwd });
    if (r.status !== 0) return [];
    out.push(r.stdout.trim());
  }
  return out;
}

function changedSince(cwd: string, from: string, to: string): Map<string, string | null> {
  const r = gitRaw(['diff-tree', '-r', '-z', '--no-renames', '--no-abbrev', from, to], { cwd });
  if (r.status !== 0) throw new Error(`git diff-tree ${from} ${to}: ${r.stderr.trim()}`);
  return parseRaw(r.stdout);
}

/** `:<mode> <mode> <old> <new> <status>\0<path>\0` records → path → new blob (null: deleted). */
function parseRaw(text: string): Map<string, string | null> {
  const out = new Map<string, string | null>();
  const t = text.split('\0');
  for (let i = 0; i + 1 < t.length; i += 2) {
    const m = /^:\d+ \d+ [0-9a-f]+ ([0-9a-f]+) ([A-Z])/.exec(t[i]);
    if (!m) continue;
    out.set(t[i + 1], m[2] === 'D' ? null : m[1]);
  }
  return out;
}

/** A merge result as a commit's changes against its first parent give it (renames as a deletion and an addition). */
export function resultOfChanges(changes: readonly { status: string; path: string; oldPath: string | null; newOid: string }[]): Map<string, string | null> {
  const out = new Map<string, string | null>();
  for (const c of changes) {
    if (c.oldPath && c.status.startsWith('R')) out.set(c.oldPath, null);
    out.set(c.path, c.status === 'D' ? null : c.newOid);
  }
  return out;
}

/**
 * The paths of merge commit `sha` (parents `parents`) that are the base's, when its other parents
 * are reachable from `baseTips`; empty for any other commit.
 */
export function basePathsOfMerge(cwd: string, parents: string[], baseTips: string[], result: () => Map<string, string | null>): Set<string> {
  if (parents.length < 2 || !othersFromBase(cwd, parents.slice(1), baseTips)) return new Set();
  return takenFromOthers(cwd, parents[0], parents.slice(1), result());
}

/** Whether merge commit `sha` brings only what the base already had (it then needs no record of its own). */
export function isBaseUpdate(cwd: string, sha: string, parents: string[], baseTips: string[]): boolean {
  if (parents.length < 2) return false;
  const result = mergeResult(cwd, parents[0], sha);
  const taken = basePathsOfMerge(cwd, parents, baseTips, () => result);
  return result.size > 0 ? [...result.keys()].every((p) => taken.has(p)) : othersFromBase(cwd, parents.slice(1), baseTips);
}
