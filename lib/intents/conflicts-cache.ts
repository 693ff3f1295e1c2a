import { mkdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { replaceFile } from '../core/files.js';
import { fileIdentity, keptRead, type Kept } from '../core/kept.js';
import { keptMap, keptStore } from '../core/hook-context.js';
import { stateDir, type Repo } from '../git/repo.js';

// What conflictsAhead (overlap.ts) learnt, kept so that a commit asks git only about the intent
// branches that moved since the last one, and of a branch that grew from a kept tip only about its
// new commits (the kept files stand: a commit's check does not grow with other branches' length). For HEAD `head`, each branch tip's entry lists the files
// its commits change that HEAD does not contain: a function of (tip, head) alone, which git's
// objects never change. One file per worktree (no two worktrees write the same file), in the state
// folder with the other caches (docs/threat-model.md).
//
// A commit C made on top of `head` (one parent) reaches everything `head` reaches, so what a tip
// has that C lacks is a part of what it has that `head` lacks: the kept sets can only be too big,
// never too small, and they are exact, since every kept tip was read before C existed and so does
// not contain it (unless one holds a byte-identical commit: same parent, tree, people, seconds
// and message; then the warning is one too many). post-commit moves `head` on
// (advanceConflictsCache); anything else (a merge, an amend, a reset, a checkout) leaves `head`
// behind, and the next pre-commit starts over. Not covered: history changed without changing
// commit ids (`git replace`, grafts, a shallow clone deepened) until HEAD or a tip moves.

/** The files changed on one branch since HEAD, for that branch's tip; null: too many to keep (ask git with the staged paths). */
export interface BranchFiles {
  tip: string;
  files: string[] | null;
}

interface CacheFile {
  version: 1;
  head: string;
  branches: Record<string, BranchFiles>;
}

/** Files kept for one branch at most: a bigger branch is kept as "too many" (ask with the staged paths). */
const MAX_BRANCH_PATHS = 5_000;
/** Files kept in all at most: past it the biggest branches are kept as "too many". */
const MAX_CACHED_PATHS = 50_000;
const OID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

function cacheFile(repo: Repo): string {
  return join(stateDir(repo), 'conflicts-ahead', `${repo.isMainWorktree ? '.main' : basename(repo.gitDir)}.json`);
}

/** In the hook server: per cache file, its identity and what it holds (read once, not per hook). */
const keptFiles = () => keptMap<string, Kept<CacheFile | null>>('conflicts-ahead');

function read(repo: Repo): CacheFile | null {
  const file = cacheFile(repo);
  const parse = (): CacheFile | null => {
    try {
      const c = JSON.parse(readFileSync(file, 'utf8')) as CacheFile;
      return c && c.version === 1 && typeof c.head === 'string' && OID.test(c.head) && c.branches && typeof c.branches === 'object' ? c : null;
    } catch {
      return null;
    }
  };
  const kept = keptFiles();
  return kept ? keptRead(kept, file, parse) : parse();
}

/** Writes the cache (a lost cache is a miss); a state folder it cannot write means no cache. */
function write(repo: Repo, c: CacheFile): void {
  try {
    mkdirSync(join(stateDir(repo), 'conflicts-ahead'), { recursive: true });
    const file = cacheFile(repo);
    replaceFile(file, JSON.stringify(c));
    // One writer per file (a worktree's hooks; git lets one commit at a time run in a worktree).
    const kept = keptFiles();
    const identity = kept ? fileIdentity(file) : null;
    if (kept && identity !== null) kept.set(file, { identity, value: c });
  } catch { /* no cache */ }
}

/** In the hook server: each kept entry's files as a set, made once. */
function fileSet(e: BranchFiles & { files: string[] }): Set<string> {
  const sets = keptStore()?.get('conflicts-ahead-sets', () => new WeakMap<BranchFiles, Set<string>>());
  let set = sets?.get(e);
  if (!set) {
    set = new Set(e.files);
    sets?.set(e, set);
  }
  return set;
}

/**
 * The cached entries for HEAD `head` whose tip is still `tips`' (by intent): `files`, and `big`,
 * the branches with too many files to keep, which git is asked about with the staged paths; and
 * `moved`, the kept entries of branches whose tip has moved since, from which the new tip's files
 * are found by reading only its new commits (overlap.ts).
 */
export function cachedBranchFiles(repo: Repo, head: string, tips: ReadonlyMap<string, string>): { files: Map<string, Set<string>>; big: Set<string>; moved: Map<string, { tip: string; files: Set<string> }> } {
  const files = new Map<string, Set<string>>();
  const big = new Set<string>();
  const moved = new Map<string, { tip: string; files: Set<string> }>();
  const c = read(repo);
  if (!c || c.head !== head) return { files, big, moved };
  for (const [id, tip] of tips) {
    const e = c.branches[id];
    if (!e || !OID.test(e.tip)) continue;
    if (e.tip !== tip) {
      if (Array.isArray(e.files)) moved.set(id, { tip: e.tip, files: fileSet(e as BranchFiles & { files: string[] }) });
      continue;
    }
    if (e.files === null) big.add(id);
    else if (Array.isArray(e.files)) files.set(id, fileSet(e as BranchFiles & { files: string[] }));
  }
  return { files, big, moved };
}

/**
 * Keeps, for HEAD `head` and the tips `tips`, the whole `files` of each branch (by intent), or
 * "too many" for a branch in `big`, with more than `maxPerBranch`, or among the biggest while
 * there are more than `maxInAll`. Never throws: a state folder it cannot write means no cache.
 */
export function keepBranchFiles(
  repo: Repo, head: string, tips: ReadonlyMap<string, string>, files: ReadonlyMap<string, ReadonlySet<string>>, big: ReadonlySet<string>,
  maxPerBranch = MAX_BRANCH_PATHS,
  maxInAll = MAX_CACHED_PATHS,
): void {
  const branches: Record<string, BranchFiles> = {};
  const listed: [string, number][] = [];
  for (const [id, tip] of tips) {
    const f = files.get(id);
    if (big.has(id) || (f && f.size > maxPerBranch)) branches[id] = { tip, files: null };
    else if (f) {
      branches[id] = { tip, files: [...f] };
      listed.push([id, f.size]);
    }
  }
  // Too many in all: the biggest branches become "too many" until the rest fits.
  let total = listed.reduce((n, [, size]) => n + size, 0);
  for (const [id, size] of listed.sort((a, b) => b[1] - a[1])) {
    if (total <= maxInAll) break;
    branches[id] = { tip: branches[id].tip, files: null };
    total -= size;
  }
  write(repo, { version: 1, head, branches });
}

/** post-commit: `commit` (one parent, `parent`) was made on top of the cache's HEAD: the cache holds for it too. Never throws. */
export function advanceConflictsCache(repo: Repo, commit: string, parents: readonly string[]): void {
  if (parents.length !== 1) return;
  const c = read(repo);
  if (c && c.head === parents[0] && OID.test(commit)) write(repo, { ...c, head: commit });
}

/** A commit the hook server recorded as its worktree's post-commit: the intent, its one parent, the paths it changed. */
interface MadeCommit {
  intent: string;
  parent: string;
  files: readonly string[];
}

/** Commits remembered at most (the oldest go first): a few hundred per agent for 8 agents. */
const MADE_MAX = 4096;
/** New commits read from what was remembered at most, per branch (a longer way asks git). */
const MADE_WALK = 1024;

/** In the hook server: the commits its post-commits recorded, by id (none outside it). */
const madeCommits = () => keptMap<string, MadeCommit>('made-commits');

/**
 * post-commit in the hook server: `commit`, made just now on intent `intent`'s worktree on top of
 * `parents` (one), changed `paths` (both sides of a rename). The
 * next check of another worktree finds what that branch changed since a kept tip from here, with
 * no git process (madeSince). Never throws.
 */
export function rememberMadeCommit(intent: string, commit: string, parents: readonly string[], paths: readonly string[]): void {
  const made = madeCommits();
  if (!made || parents.length !== 1 || !OID.test(commit)) return;
  made.delete(commit);
  made.set(commit, { intent, parent: parents[0], files: paths });
  for (const k of made.keys()) {
    if (made.size <= MADE_MAX) break;
    made.delete(k);
  }
}

/**
 * The files the commits from `before` (excluded) to `tip` of intent `intent`'s branch changed,
 * when every one of them was recorded by this server's post-commit in that intent's own worktree
 * (rememberMadeCommit), one parent each; null otherwise (not in the server, a commit made
 * elsewhere, pushed, rebased or merged in: `git log` is asked). The same files as
 * `git log tip --not before HEAD` lists: HEAD has moved since `before` was kept only by its own
 * worktree's commits (the cache's head, above), which are not another intent's; a branch reset
 * back and forward again around a HEAD that had its commits gives a warning too many, never one
 * too few.
 */
export function madeSince(intent: string, tip: string, before: string): Set<string> | null {
  const made = madeCommits();
  if (!made) return null;
  const files = new Set<string>();
  let at = tip;
  for (let n = 0; at !== before; n++) {
    const c = made.get(at);
    if (!c || c.intent !== intent || n >= MADE_WALK) return null;
    for (const f of c.files) files.add(f);
    at = c.parent;
  }
  return files;
}
