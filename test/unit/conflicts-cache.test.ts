import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Repo } from '../../lib/git/repo.js';
import { advanceConflictsCache, cachedBranchFiles, keepBranchFiles, madeSince, rememberMadeCommit } from '../../lib/intents/conflicts-cache.js';
import { withHookContextSync } from '../../lib/core/hook-context.js';
import { KeptStore } from '../../lib/core/kept.js';

const H0 = 'a'.repeat(40);
const H1 = 'b'.repeat(40);
const T1 = '1'.repeat(40);
const T2 = '2'.repeat(40);
const dirs: string[] = [];
afterEach(() => { while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true }); });

/** A linked worktree's Repo whose state folder is a temporary directory. */
function repo(): Repo {
  const common = mkdtempSync(join(tmpdir(), 'intent-cc-'));
  dirs.push(common);
  mkdirSync(join(common, 'intent'));
  return { root: '/nonexistent', gitDir: join(common, 'worktrees', 'W1'), commonDir: common, mainRoot: '/nonexistent', isMainWorktree: false, branch: 'intent/W1' };
}
const tips = new Map([['A', T1], ['B', T2]]);
const sets = (o: Record<string, string[]>) => new Map(Object.entries(o).map(([k, v]) => [k, new Set(v)]));

describe('the conflicts-ahead cache', () => {
  it('keeps each branch\'s files for one HEAD; a branch over the limit as "ask with the paths"', () => {
    const r = repo();
    keepBranchFiles(r, H0, tips, sets({ A: ['x'], B: ['p', 'q', 'r'] }), new Set(), 2);
    const got = cachedBranchFiles(r, H0, tips);
    expect(got.files).toEqual(sets({ A: ['x'] }));
    expect(got.big).toEqual(new Set(['B']));
    // Another HEAD, or a tip that moved: nothing from the cache.
    expect(cachedBranchFiles(r, H1, tips)).toEqual({ files: new Map(), big: new Set(), moved: new Map() });
    expect(cachedBranchFiles(r, H0, new Map([['A', T2]])).files.size).toBe(0);
    // A tip that moved: its kept entry, to read only the new commits from (overlap.ts).
    expect(cachedBranchFiles(r, H0, new Map([['A', T2]])).moved).toEqual(new Map([['A', { tip: T1, files: new Set(['x']) }]]));
    // A branch kept as too big has no files to go on from.
    expect(cachedBranchFiles(r, H0, new Map([['B', T1]])).moved.size).toBe(0);
    // A branch kept as too big stays so while its tip does.
    keepBranchFiles(r, H0, tips, sets({ A: ['x'] }), new Set(['B']), 2);
    expect(cachedBranchFiles(r, H0, tips).big).toEqual(new Set(['B']));
  });

  it('moves HEAD on only for a commit whose one parent is the kept HEAD', () => {
    const r = repo();
    keepBranchFiles(r, H0, tips, sets({ A: ['x'], B: [] }), new Set());
    advanceConflictsCache(r, H1, [H0, T1]); // a merge
    expect(cachedBranchFiles(r, H1, tips).files.size).toBe(0);
    advanceConflictsCache(r, H1, [T1]); // not on the kept HEAD
    expect(cachedBranchFiles(r, H1, tips).files.size).toBe(0);
    advanceConflictsCache(r, H1, [H0]);
    expect(cachedBranchFiles(r, H1, tips).files).toEqual(sets({ A: ['x'], B: [] }));
    expect(cachedBranchFiles(r, H0, tips).files.size).toBe(0);
  });

  it('a garbled file is no cache; too many files in all make the biggest branches "too many"', () => {
    const r = repo();
    keepBranchFiles(r, H0, tips, sets({ A: ['x'] }), new Set());
    writeFileSync(join(r.commonDir, 'intent', 'conflicts-ahead', 'W1.json'), '{"version":1,"head":');
    expect(cachedBranchFiles(r, H0, tips).files.size).toBe(0);
    keepBranchFiles(r, H0, tips, sets({ A: ['x', 'y', 'z'], B: ['p', 'q'] }), new Set(), 10, 4);
    const got = cachedBranchFiles(r, H0, tips);
    expect(got.files).toEqual(sets({ B: ['p', 'q'] }));
    expect(got.big).toEqual(new Set(['A']));
  });

  it('a cache it cannot write is no cache, and no error', () => {
    const r = repo();
    // A file where the cache's folder would be: no write succeeds, whoever runs the test (even root).
    writeFileSync(join(r.commonDir, 'intent', 'conflicts-ahead'), '');
    expect(() => keepBranchFiles(r, H0, tips, sets({ A: ['x'] }), new Set())).not.toThrow();
    expect(() => keepBranchFiles(r, H0, tips, sets({ A: ['x', 'y'], B: ['p'] }), new Set(), 10, 1)).not.toThrow();
    expect(() => advanceConflictsCache(r, H1, [H0])).not.toThrow();
    expect(cachedBranchFiles(r, H0, tips)).toEqual({ files: new Map(), big: new Set(), moved: new Map() });
  });

  it('a branch\'s new commits the server recorded give their files with no git; one made elsewhere, by another intent or not reaching the kept tip gives null', () => {
    const C = (n: number) => String(n).repeat(40);
    const ctx = { env: {}, cwd: '/', warn: () => {}, kept: new KeptStore() };
    withHookContextSync(ctx, () => {
      rememberMadeCommit('B', C(3), [T2], ['src/b/x.ts']);
      rememberMadeCommit('B', C(4), [C(3)], ['src/b/y.ts', 'src/b/old.ts']);
      expect(madeSince('B', C(4), T2)).toEqual(new Set(['src/b/x.ts', 'src/b/y.ts', 'src/b/old.ts']));
      expect(madeSince('B', C(3), T2)).toEqual(new Set(['src/b/x.ts']));
      expect(madeSince('B', T2, T2)).toEqual(new Set());
      // Another intent's commit, a merge, one the server never saw: git is asked.
      expect(madeSince('A', C(4), T2)).toBeNull();
      rememberMadeCommit('B', C(5), [C(4), T1], ['m']);
      expect(madeSince('B', C(5), T2)).toBeNull();
      expect(madeSince('B', C(4), T1)).toBeNull();
    });
    // Outside the server: nothing remembered.
    rememberMadeCommit('B', C(6), [T2], ['z']);
    expect(madeSince('B', C(6), T2)).toBeNull();
  });
});
