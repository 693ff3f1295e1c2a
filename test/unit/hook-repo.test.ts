import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openHookRepo, openRepo } from '../../lib/git/repo.js';
import { git, makeRepo, tempDir } from '../helpers.js';

// A hook reads its repository from the files git follows (lib/git/repo.ts, openHookRepo); it must
// find what `git rev-parse` finds, and leave whatever is unusual to it.

const clean: NodeJS.ProcessEnv = {};

describe('openHookRepo', () => {
  it('finds what git rev-parse finds in a main worktree, a linked worktree (GIT_DIR set, as git sets it) and on a branch-less HEAD', () => {
    const main = makeRepo();
    const linked = join(tempDir(), 'wt');
    git(main, 'worktree', 'add', '-q', '-b', 'feature', linked);
    expect(openHookRepo(main, clean)).toEqual(openRepo(main));
    const fromLinked = openHookRepo(linked, { GIT_DIR: join(main, '.git', 'worktrees', 'wt') });
    expect(fromLinked).toEqual(openRepo(linked));
    expect(fromLinked).toMatchObject({ isMainWorktree: false, mainRoot: main, branch: 'feature', commonDir: join(main, '.git') });
    // intent worktrees carry per-worktree config (core.hooksPath): read as well
    git(main, 'config', 'extensions.worktreeConfig', 'true');
    git(linked, 'config', '--worktree', 'core.hooksPath', join(main, '.git', 'hooks'));
    expect(openHookRepo(linked, clean)).toEqual(openRepo(linked));
    git(linked, 'checkout', '-q', '--detach');
    expect(openHookRepo(linked, clean)).toEqual(openRepo(linked));
    expect(openHookRepo(linked, clean).branch).toBeNull();
  });

  it('a relative gitdir: file (a submodule-like layout) resolves as git resolves it', () => {
    const top = tempDir();
    const store = join(top, 'store');
    git(top, 'init', '-q', '--separate-git-dir', store, 'work');
    writeFileSync(join(top, 'work', '.git'), 'gitdir: ../store\n');
    const work = join(top, 'work');
    expect(openHookRepo(work, clean)).toEqual(openRepo(work));
  });

  it('leaves GIT_DIR naming another repository, GIT_WORK_TREE, core.worktree and a subfolder to git', () => {
    const a = makeRepo();
    const b = makeRepo();
    // GIT_DIR elsewhere: git decides (openRepo runs git without the caller's GIT_DIR: it finds a's).
    expect(openHookRepo(a, { GIT_DIR: join(b, '.git') })).toEqual(openRepo(a));
    expect(openHookRepo(a, { GIT_WORK_TREE: b })).toEqual(openRepo(a));
    mkdirSync(join(a, 'sub'));
    expect(openHookRepo(join(a, 'sub'), clean)).toEqual(openRepo(join(a, 'sub')));
    const c = makeRepo();
    const other = tempDir();
    git(c, 'config', 'core.worktree', other);
    expect(openHookRepo(c, clean)).toEqual(openRepo(c));
    expect(openHookRepo(c, clean).root).toBe(other);
    // the same set for one worktree only
    const d = makeRepo();
    const wt = join(tempDir(), 'wt');
    git(d, 'worktree', 'add', '-q', wt);
    git(d, 'config', 'extensions.worktreeConfig', 'true');
    git(wt, 'config', '--worktree', 'core.worktree', other);
    expect(openHookRepo(wt, clean)).toEqual(openRepo(wt));
    expect(openHookRepo(wt, clean).root).toBe(other);
  });
});
