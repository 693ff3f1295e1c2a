// One truth in every clone: `intent report`, `intent status` and `intent blame` credit and count
// the same in the author's clone, in the author's clone after gc, and in a teammate's fresh clone
// (git fetch && intent sync), when the notes name a commit some clone lacks (a commit reset away,
// as intent's own warning advises for a bad commit, then gc).
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkoutIntent, git, governedRepo, intent, run, tempDir, writeFiles } from '../helpers.js';

function json(cwd: string, args: string[]): any {
  const r = intent(cwd, [...args, '--json']);
  expect(r.status, `intent ${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout);
}

/** What each reader says of INT-001 and of the two files, in one clone. */
function readings(cwd: string) {
  const report = json(cwd, ['report', '--out', join(tempDir(), 'r.html')]);
  const status = json(cwd, ['status']).intents.find((i: any) => i.intent === 'INT-001');
  const blame = (f: string) => json(cwd, ['blame', f]).lines.map((l: any) => [l.line, l.commit ?? null, l.intent ?? null, l.contributor ?? null]);
  return {
    lines_now: report.totals.lines_now,
    report_commits: report.commits.map((c: any) => c.sha).sort(),
    status: { commits: status.commits, changed_lines: status.changed_lines },
    blame: { a: blame('src/a.ts'), b: blame('src/b.ts') },
  };
}

describe('report, status and blame agree across clones', () => {
  it('in the author\'s clone, after gc, and in a teammate\'s clone, with a note of a commit reset away', () => {
    const remote = join(tempDir(), 'remote.git');
    git(dirname(remote), 'init', '-q', '--bare', '-b', 'main', remote);
    const a = governedRepo([{ id: 'INT-001', status: 'IN_PROGRESS', scope: ['src/**'] }], { 'README.md': '# r\n' });
    git(a, 'remote', 'add', 'origin', remote);
    git(a, 'push', '-q', '-u', 'origin', 'main');
    const initA = intent(a, ['init']);
    expect(initA.status).toBe(0);
    // INT-001 is in progress in the registry: open its worktree is what comes next.
    expect(initA.stdout).toContain('wt=$(intent checkout INT-001) && cd "$wt"');
    expect(initA.stdout).not.toContain('intent new INT-');
    const wt = checkoutIntent(a, 'INT-001');
    const commit = (files: Record<string, string>, msg: string) => {
      writeFiles(wt, files);
      git(wt, 'add', '-A');
      const r = run('git', ['commit', '-q', '-m', msg], wt);
      expect(r.status, r.stderr).toBe(0);
      return git(wt, 'rev-parse', 'HEAD').trim();
    };
    commit({ 'src/a.ts': 'export const a = 1;\nexport const b = 2;\n' }, 'a');
    commit({ 'src/b.ts': 'export const c = 3;\n' }, 'b');
    const lost = commit({ 'src/a.ts': 'export const a = 1;\nexport const b = 2;\nexport const oops = 3;\n' }, 'a mistake');
    // Undone after the fact; its note stays in this clone's refs/notes/intents (never sent: a
    // record travels only with its commit).
    git(wt, 'reset', '-q', '--hard', 'HEAD~1');
    expect(git(a, 'notes', '--ref=refs/notes/intents', 'list', lost).trim()).not.toBe('');
    const done = intent(a, ['done', 'INT-001', '--merge']);
    expect(done.status, done.stdout + done.stderr).toBe(0);
    git(a, 'add', '.orchestration');
    git(a, 'commit', '-q', '-m', 'INT-001 done');
    const push = intent(a, ['push']);
    expect(push.status, push.stdout + push.stderr).toBe(0);
    expect(run('git', ['notes', '--ref=refs/notes/intents', 'list', lost], remote).status, 'the record of a commit reset away stays home').not.toBe(0);

    // The host's way after a merge: the intent's branch deleted (and its worktree gone).
    if (git(a, 'worktree', 'list').includes('INT-001')) git(a, 'worktree', 'remove', '--force', wt);
    git(a, 'branch', '-D', 'intent/INT-001');
    const author = readings(a);
    // Every line now is credited (before the fix: none, when a note's commit was missing).
    expect(author.lines_now.total).toBe(3);
    expect(author.lines_now.unrecorded ?? 0).toBe(0);
    expect(author.status).toEqual({ commits: 2, changed_lines: 3 });
    expect(author.report_commits).not.toContain(lost);

    // A teammate's fresh clone, as the README says.
    const b = join(dirname(remote), 'B');
    git(dirname(remote), 'clone', '-q', remote, b);
    const init = intent(b, ['init']);
    expect(init.status).toBe(0);
    // Its "Next:" knows the registry came with the clone: INT-001 exists (COMPLETED), so the next id is suggested.
    expect(init.stdout).toContain('intent new INT-002 --name');
    expect(init.stdout).not.toContain('intent new INT-001');
    git(b, 'fetch', '-q');
    expect(intent(b, ['sync']).status).toBe(0);
    expect(run('git', ['cat-file', '-e', `${lost}^{commit}`], b).status).not.toBe(0);
    expect(readings(b)).toEqual(author);

    // The author's clone after gc: the commit reset away is gone from its objects too.
    git(a, 'reflog', 'expire', '--expire=now', '--all');
    git(a, 'gc', '-q', '--prune=now');
    expect(run('git', ['cat-file', '-e', `${lost}^{commit}`], a).status).not.toBe(0);
    expect(readings(a)).toEqual(author);
  }, 120_000);
});
