import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkoutIntent, git, governedRepo, intent, noteOf, run, writeFiles } from '../helpers.js';

// `git merge` in an intent worktree: git runs pre-merge-commit and post-merge, not pre-commit and
// post-commit. A merge commit is governed like any commit of the intent.

function findings(cwd: string, range: string[] = []): { code: string; commit: string | null }[] {
  const v = intent(cwd, ['verify', '--json', '--no-ledger', ...range]);
  return JSON.parse(v.stdout).findings;
}

function setup() {
  const repo = governedRepo(
    [{ id: 'INT-001', scope: ['src/auth/**'] }, { id: 'INT-002', scope: ['src/billing/**'] }],
    { 'README.md': '# r\n', 'src/auth/a.ts': 'a\n', 'src/billing/b.ts': 'b\n' },
  );
  const wt = checkoutIntent(repo, 'INT-001');
  return { repo, wt };
}

describe('merge commits in an intent worktree', () => {
  it('a merge inside the scope is checked and recorded: the merge commit gets a note of its first-parent diff; verify is clean', () => {
    const { wt } = setup();
    git(wt, 'checkout', '-q', '-b', 'side');
    writeFiles(wt, { 'src/auth/side.ts': 'side 1\nside 2\n' });
    git(wt, 'add', '-A');
    git(wt, 'commit', '-q', '-m', 'side work');
    git(wt, 'checkout', '-q', 'intent/INT-001');
    writeFiles(wt, { 'src/auth/main-line.ts': 'main line\n' });
    git(wt, 'add', '-A');
    git(wt, 'commit', '-q', '-m', 'intent work');
    const before = git(wt, 'rev-parse', 'HEAD').trim();

    const r = run('git', ['merge', '--no-ff', '-m', 'merge side', 'side'], wt);
    expect(r.status, r.stderr).toBe(0);
    const parents = git(wt, 'rev-list', '--parents', '-n', '1', 'HEAD').trim().split(' ').slice(1);
    expect(parents).toHaveLength(2);
    expect(parents[0]).toBe(before);
    const note = noteOf(wt);
    expect(note, 'the merge commit has a note').not.toBeNull();
    expect(note!.record.metadata['dev.intent'].intent_id).toBe('INT-001');
    expect(note!.record.files.map((f: any) => f.path)).toEqual(['src/auth/side.ts']);
    expect(findings(wt)).toEqual([]);
    expect(existsSync(join(git(wt, 'rev-parse', '--absolute-git-dir').trim(), 'intent-merge-pending'))).toBe(false);
  });

  it("merging main brings main's work as main's: accepted and recorded, verify clean (lib/git/update-merge.ts)", () => {
    const { repo, wt } = setup();
    writeFiles(repo, { 'src/billing/b.ts': 'b changed on main\n' });
    git(repo, 'commit', '-q', '-am', 'billing change on main');
    const r = run('git', ['merge', '--no-ff', '-m', 'merge main', 'main'], wt);
    expect(r.status, r.stderr).toBe(0);
    expect(git(wt, 'rev-list', '--parents', '-n', '1', 'HEAD').trim().split(' ')).toHaveLength(3);
    const note = noteOf(wt);
    expect(note!.record.metadata['dev.intent'].scope_violations).toEqual([]);
    expect(note!.summary).not.toContain('SCOPE VIOLATION');
    expect(findings(wt)).toEqual([]);
  });

  it("merging another branch's out-of-scope work is refused before the commit, with the way out; nothing is left half-done", () => {
    const { repo, wt } = setup();
    git(repo, 'checkout', '-q', '-b', 'stray');
    writeFiles(repo, { 'src/billing/b.ts': 'b changed on a stray branch\n' });
    git(repo, '-c', 'core.hooksPath=/dev/null', 'commit', '-q', '-m', 'billing change, not on main', 'src/billing/b.ts');
    git(repo, 'checkout', '-q', 'main');
    const before = git(wt, 'rev-parse', 'HEAD').trim();

    const r = run('git', ['merge', '--no-ff', '-m', 'merge stray', 'stray'], wt);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('Scope Violation: INT-001 is not authorized to edit src/billing/b.ts');
    expect(r.stderr).toContain('git rebase');
    expect(git(wt, 'rev-parse', 'HEAD').trim()).toBe(before);
    // git leaves the merge staged (as after a conflict); --abort gives the worktree back
    expect(run('git', ['merge', '--abort'], wt).status).toBe(0);
    expect(git(wt, 'status', '--porcelain')).toBe('');
    expect(findings(wt)).toEqual([]);
  });

  it('a fast-forward merge makes no commit and records nothing; a later ordinary commit is recorded as usual', () => {
    const { wt } = setup();
    git(wt, 'checkout', '-q', '-b', 'ahead');
    writeFiles(wt, { 'src/auth/ff.ts': 'ff\n' });
    git(wt, 'add', '-A');
    git(wt, 'commit', '-q', '-m', 'ahead');
    const ahead = git(wt, 'rev-parse', 'HEAD').trim();
    git(wt, 'checkout', '-q', 'intent/INT-001');
    const r = run('git', ['merge', '--ff-only', 'ahead'], wt);
    expect(r.status, r.stderr).toBe(0);
    expect(git(wt, 'rev-parse', 'HEAD').trim()).toBe(ahead);
    writeFiles(wt, { 'src/auth/after.ts': 'after\n' });
    git(wt, 'add', '-A');
    git(wt, 'commit', '-q', '-m', 'after');
    expect(noteOf(wt)!.record.files.map((f: any) => f.path)).toEqual(['src/auth/after.ts']);
    expect(findings(wt)).toEqual([]);
  });

  it('merging an intent branch into main from the main worktree is not governed: no note, no refusal', () => {
    const { repo, wt } = setup();
    writeFiles(wt, { 'src/auth/x.ts': 'x\n' });
    git(wt, 'add', '-A');
    git(wt, 'commit', '-q', '-m', 'x');
    writeFiles(repo, { 'README.md': '# r, diverged\n' });
    git(repo, 'commit', '-q', '-am', 'main moves on');
    const r = run('git', ['merge', '--no-ff', '-m', 'merge INT-001', 'intent/INT-001'], repo);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/intent:/);
    expect(noteOf(repo)).toBeNull();
    expect(findings(repo)).toEqual([]);
  });
});
