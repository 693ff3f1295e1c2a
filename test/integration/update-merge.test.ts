// A merge of the base into a branch (lib/git/update-merge.ts), on real git: what it brings from
// the base as the base has it is the base's; a path it resolved, changed as neither side has it,
// or a revert dressed as a merge of an old base commit, is the branch's.
import { describe, expect, it } from 'vitest';
import { basePathsOfMerge, isBaseUpdate, mergeResult, takenFromOthers } from '../../lib/git/update-merge.js';
import { git, makeRepo, writeFiles } from '../helpers.js';

function commitAll(cwd: string, files: Record<string, string>, message: string): string {
  writeFiles(cwd, files);
  git(cwd, 'add', '-A');
  git(cwd, '-c', 'core.hooksPath=/dev/null', 'commit', '-q', '-m', message);
  return git(cwd, 'rev-parse', 'HEAD').trim();
}

/** A merge commit of `parents` whose tree is `tree`'s (no hooks, as a host or an attacker makes one). */
function mergeCommit(cwd: string, tree: string, parents: string[]): string {
  return git(cwd, 'commit-tree', `${tree}^{tree}`, ...parents.flatMap((p) => ['-p', p]), '-m', 'merge').trim();
}

describe('a merge of the base into a branch', () => {
  it("takes main's own changes as main's, and nothing a revert, a resolution or an evil edit makes", () => {
    const repo = makeRepo({ 'README.md': '# r\n', 'docs/x.md': 'x1\n', 'docs/secret.md': 's1\n', 'lib/l.ts': 'l1\n', 'src/a.ts': 'a1\n' });
    const old = git(repo, 'rev-parse', 'HEAD').trim();
    commitAll(repo, { 'docs/secret.md': 's2\n' }, 'main: secret v2');
    git(repo, 'checkout', '-q', '-b', 'intent/INT-001');
    const mine = commitAll(repo, { 'lib/l.ts': 'l2\n' }, 'intent work');
    git(repo, 'checkout', '-q', 'main');
    const mainB = commitAll(repo, { 'docs/x.md': 'x2\n', 'README.md': '# r\nmoved\n' }, 'main moves');
    git(repo, 'checkout', '-q', 'intent/INT-001');

    // The honest update: git's own merge of main.
    git(repo, '-c', 'core.hooksPath=/dev/null', 'merge', '-q', '--no-ff', '--no-edit', 'main');
    const honest = git(repo, 'rev-parse', 'HEAD').trim();
    expect([...takenFromOthers(repo, mine, [mainB], mergeResult(repo, mine, honest))].sort()).toEqual(['README.md', 'docs/x.md']);
    expect(isBaseUpdate(repo, honest, [mine, mainB], ['refs/heads/main'])).toBe(true);
    // Not from the base (another branch's tip): nothing is the base's.
    expect(basePathsOfMerge(repo, [mine, mainB], [old], () => mergeResult(repo, mine, honest)).size).toBe(0);

    // An evil merge: main's changes and an edit of src/a.ts that main does not have.
    writeFiles(repo, { 'src/a.ts': 'a-evil\n' });
    git(repo, 'add', '-A');
    const evilTree = git(repo, 'write-tree').trim();
    const evil = mergeCommit(repo, evilTree, [mine, mainB]);
    expect([...takenFromOthers(repo, mine, [mainB], mergeResult(repo, mine, evil))].sort()).toEqual(['README.md', 'docs/x.md']);
    expect(isBaseUpdate(repo, evil, [mine, mainB], ['refs/heads/main'])).toBe(false);
    git(repo, 'checkout', '-q', '--', '.');

    // A revert dressed as a merge of an old main commit: docs/secret.md back to s1 (the base's
    // first version) with `old` as the other parent. `old` is the fork point: it changed nothing.
    writeFiles(repo, { 'docs/secret.md': 's1\n' });
    git(repo, 'add', '-A');
    const revertTree = git(repo, 'write-tree').trim();
    const revert = mergeCommit(repo, revertTree, [honest, old]);
    expect(takenFromOthers(repo, honest, [old], mergeResult(repo, honest, revert)).has('docs/secret.md')).toBe(false);
    expect(isBaseUpdate(repo, revert, [honest, old], ['refs/heads/main'])).toBe(false);
    git(repo, 'checkout', '-q', '--', '.');
    git(repo, 'reset', '-q', '--hard', honest);

    // Both sides changed a path: the merge's result there is the branch's (a resolution).
    const both = commitAll(repo, { 'docs/x.md': 'x2\nmine too\n' }, 'intent edits docs/x.md');
    git(repo, 'checkout', '-q', 'main');
    const mainC = commitAll(repo, { 'docs/x.md': 'x3\n' }, 'main edits docs/x.md again');
    git(repo, 'checkout', '-q', 'intent/INT-001');
    const resolved = mergeCommit(repo, mainC, [both, mainC]); // the result takes main's docs/x.md wholesale
    expect(takenFromOthers(repo, both, [mainC], mergeResult(repo, both, resolved)).has('docs/x.md')).toBe(false);
  });
});
