import { describe, expect, it } from 'vitest';
import { checkoutIntent, git, governedRepo, intent, noteOf, run, writeFiles } from '../helpers.js';

// Commits git makes without pre-commit (cherry-pick, revert, `commit --no-verify`): in an intent
// worktree, prepare-commit-msg checks them, and refuses one that leaves the scope.

function setup() {
  const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }], { 'src/a.ts': 'a\n', 'docs/guide.md': '# guide\n' });
  const wt = checkoutIntent(repo, 'INT-001');
  return { repo, wt };
}

const head = (wt: string) => git(wt, 'rev-parse', 'HEAD').trim();
const findings = (wt: string) => JSON.parse(intent(wt, ['verify', '--json', '--no-ledger']).stdout).findings;

describe('commits without pre-commit in an intent worktree', () => {
  it('cherry-pick: an out-of-scope pick is refused and can be aborted; an in-scope pick is recorded', () => {
    const { repo, wt } = setup();
    writeFiles(repo, { 'docs/guide.md': '# guide, changed on main\n' });
    git(repo, 'commit', '-q', '-am', 'docs on main');
    const outside = head(repo);
    writeFiles(repo, { 'src/b.ts': 'b\n' });
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'src on main');
    const inside = head(repo);
    const before = head(wt);

    const r = run('git', ['cherry-pick', outside], wt);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('Scope Violation: INT-001 is not authorized to edit docs/guide.md');
    expect(r.stderr).toContain('git cherry-pick --abort');
    expect(head(wt)).toBe(before);
    expect(run('git', ['cherry-pick', '--abort'], wt).status).toBe(0);
    expect(git(wt, 'status', '--porcelain')).toBe('');

    const ok = run('git', ['cherry-pick', inside], wt);
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stderr).not.toMatch(/intent:/);
    expect(noteOf(wt)!.record.files.map((f: any) => f.path)).toEqual(['src/b.ts']);
    expect(findings(wt)).toEqual([]);
  });

  it('revert: reverting a commit outside the scope is refused', () => {
    const { wt } = setup();
    // The intent branch contains main's history; its first commit added docs/guide.md.
    const root = git(wt, 'rev-list', '--max-parents=0', 'HEAD').trim();
    const before = head(wt);
    const r = run('git', ['revert', '--no-edit', root], wt);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/Scope Violation: INT-001 is not authorized to edit (docs\/guide\.md|README\.md)/);
    expect(r.stderr).toContain('git reset --merge');
    expect(head(wt)).toBe(before);
    // a single revert leaves no revert in progress, only the staged change: reset --merge drops it
    expect(run('git', ['reset', '--merge'], wt).status).toBe(0);
    expect(git(wt, 'status', '--porcelain')).toBe('');
    expect(findings(wt)).toEqual([]);
  });

  it('commit --no-verify: still checked (out of scope refused, in scope recorded)', () => {
    const { wt } = setup();
    writeFiles(wt, { 'docs/guide.md': '# mine?\n' });
    const before = head(wt);
    const r = run('git', ['commit', '-q', '--no-verify', '-am', 'skip the hooks'], wt);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('Scope Violation: INT-001 is not authorized to edit docs/guide.md');
    expect(head(wt)).toBe(before);
    git(wt, 'checkout', '--', 'docs/guide.md');
    writeFiles(wt, { 'src/a.ts': 'a\nb\n' });
    const ok = run('git', ['commit', '-q', '--no-verify', '-am', 'in scope'], wt);
    expect(ok.status, ok.stderr).toBe(0);
    expect(noteOf(wt)!.record.files.map((f: any) => f.path)).toEqual(['src/a.ts']);
  });

  it("prepare-commit-msg checks every commit, also where an older version's pre-commit left its mark for this very process", () => {
    const { wt } = setup();
    writeFiles(wt, { 'docs/guide.md': '# staged out of scope\n' });
    git(wt, 'add', '-A');
    const gitDir = git(wt, 'rev-parse', '--absolute-git-dir').trim();
    const hook = `${git(wt, 'config', '--get', 'core.hooksPath').trim()}/prepare-commit-msg`;
    const env = { GIT_INDEX_FILE: `${gitDir}/index` };
    writeFiles(wt, { '.git-msg': 'm\n' });
    // The hook's parent is this sh: the mark an older pre-commit wrote meant "already checked".
    const same = run('sh', ['-c', `echo $$ >"${gitDir}/intent-pre-commit-ran"; "${hook}" .git-msg message`], wt, env);
    expect(same.status).toBe(1);
    expect(same.stderr).toContain('Scope Violation: INT-001 is not authorized to edit docs/guide.md');
    // A real commit passes, and runs no pre-commit (the repository has none of its own).
    git(wt, 'reset', '-q');
    writeFiles(wt, { 'src/a.ts': 'a\nc\n' });
    const r = run('git', ['commit', '-q', '-m', 'ordinary', '--', 'src/a.ts'], wt);
    expect(r.status, r.stderr).toBe(0);
    expect(noteOf(wt)!.record.files.map((f: any) => f.path)).toEqual(['src/a.ts']);
  });
});
