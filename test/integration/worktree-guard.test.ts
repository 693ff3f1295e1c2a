// The guard of intent worktrees (their reference-transaction hook, lib/hooks/ref-check.ts): when an
// installer has replaced every hook of the folder that checks a commit before it is made (the real
// lefthook, the version in our package.json, with a config that names pre-commit,
// prepare-commit-msg and commit-msg, installed from inside the worktree), or rewritten
// prepare-commit-msg in place (same file, other bytes: its link still the same inode), no commit
// is made unchecked: the out-of-scope one is refused before its branch moves, the in-scope one is
// made and recorded at the first attempt, and what does not bring a commit (reset, a new branch)
// goes through.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PKG_ROOT, checkoutIntent, expectRefused, git, governedRepo, noteOf, refusedCommit, run, writeFiles } from '../helpers.js';

const LEFTHOOK = join(PKG_ROOT, 'node_modules', '.bin', 'lefthook');
/** The second line of every hook intent writes there (git-hooks/worktree-hook.sh). */
const OURS = '# intent: a hook of intent worktrees.';
const LEFTHOOK_YML = ['pre-commit', 'prepare-commit-msg', 'commit-msg'].map((h) => `${h}:\n  jobs:\n    - run: echo lefthook-${h}-ran\n`).join('');

function worktree(): { repo: string; wt: string; hooks: string } {
  const repo = governedRepo([{ id: 'INT-001', status: 'IN_PROGRESS', scope: ['src/auth/**'] }], {
    'README.md': '# test\n',
    'src/auth/a.ts': 'export const a = 1;\n',
    'src/other.ts': 'export const other = 1;\n',
    'lefthook.yml': LEFTHOOK_YML,
  });
  const wt = checkoutIntent(repo, 'INT-001');
  return { repo, wt, hooks: git(wt, 'rev-parse', '--path-format=absolute', '--git-path', 'hooks').trim() };
}

let n = 0;
function stage(wt: string, path: string): void {
  writeFiles(wt, { [path]: `export const v = ${++n};\n` });
  git(wt, 'add', path);
}

/** Out of scope: refused before its branch moves (HEAD, notes and ledger unchanged), by the guard or the restored hooks. */
function outOfScopeRefused(repo: string, wt: string): string {
  stage(wt, 'src/other.ts');
  const err = refusedCommit(wt, ['-q', '-m', 'outside'], { repo, message: 'Scope Violation: INT-001 is not authorized to edit src/other.ts' });
  git(wt, 'reset', '-q', '--hard');
  return err;
}

/** In scope: made at the first attempt, with its note. */
function inScopeRecorded(wt: string): string {
  stage(wt, 'src/auth/a.ts');
  const r = run('git', ['commit', '-q', '-m', 'inside'], wt);
  expect(r.status, r.stderr).toBe(0);
  expect(noteOf(wt)?.summary.startsWith('INT-001 ')).toBe(true);
  return r.stderr;
}

describe('the guard of intent worktrees (reference-transaction)', () => {
  it('lefthook installed in the worktree with every pre-commit hook configured: the out-of-scope commit is never on the branch', () => {
    const { repo, wt, hooks } = worktree();
    const install = run(LEFTHOOK, ['install'], wt);
    expect(install.status, install.stderr).toBe(0);
    // lefthook now owns the three hooks git runs before a commit exists (ours moved to .old).
    for (const h of ['pre-commit', 'prepare-commit-msg', 'commit-msg']) expect(readFileSync(join(hooks, h), 'utf8')).not.toContain(OURS);
    const err = outOfScopeRefused(repo, wt);
    expect(err).toContain('lefthook-prepare-commit-msg-ran');
    expect(err).toContain('changed by another installer (by lefthook)');
    expect(err).toContain('was made without intent\'s check');
    // The folder is intent's again: the next commits are checked as ever, at the first attempt.
    expect(readFileSync(join(hooks, 'prepare-commit-msg'), 'utf8')).toContain(OURS);
    outOfScopeRefused(repo, wt);
    expect(inScopeRecorded(wt)).not.toContain('changed by another installer');
  });

  it('lefthook installed again, then an in-scope commit: made and recorded at the first attempt, the guard saying it checked it', () => {
    const { wt } = worktree();
    expect(run(LEFTHOOK, ['install'], wt).status).toBe(0);
    const err = inScopeRecorded(wt);
    expect(err).toContain('this commit was checked before the branch moved: in scope');
    expect(err).not.toContain('WARNING');
  });

  it('prepare-commit-msg rewritten in place (same inode, so its link agrees): the guard reads its bytes and refuses', () => {
    const { repo, wt, hooks } = worktree();
    const file = join(hooks, 'prepare-commit-msg');
    const ino = statSync(file).ino;
    writeFileSync(file, '#!/bin/sh\necho rewritten-in-place\n');
    expect(statSync(file).ino).toBe(ino);
    const err = outOfScopeRefused(repo, wt);
    expect(err).toContain('rewritten-in-place');
    expect(err).toContain('Intent restored them');
    expect(readFileSync(file, 'utf8')).toContain(OURS);
    inScopeRecorded(wt);
  });

  it('with the folder changed, what brings no new commit goes through: a reset, a new branch at main', () => {
    const { repo, wt } = worktree();
    inScopeRecorded(wt);
    expect(run(LEFTHOOK, ['install'], wt).status).toBe(0);
    const r = run('git', ['reset', '-q', '--hard', 'HEAD~1'], wt);
    expect(r.status, r.stderr).toBe(0);
    expect(run('git', ['branch', 'elsewhere', 'main'], wt).status).toBe(0);
    expect(git(repo, 'branch', '--list', 'elsewhere')).toContain('elsewhere');
  });

  it('a plumbing commit (commit-tree, update-ref) out of scope while the folder is changed: refused by the guard', () => {
    const { wt } = worktree();
    expect(run(LEFTHOOK, ['install'], wt).status).toBe(0);
    stage(wt, 'src/other.ts');
    const tree = git(wt, 'write-tree').trim();
    const c = git(wt, 'commit-tree', tree, '-p', 'HEAD', '-m', 'plumbing').trim();
    const head = git(wt, 'rev-parse', 'HEAD').trim();
    expectRefused(run('git', ['update-ref', 'HEAD', c], wt), 'Scope Violation: INT-001 is not authorized to edit src/other.ts', 'git update-ref');
    expect(git(wt, 'rev-parse', 'HEAD').trim()).toBe(head);
  });
});
