// `intent status` as a real process: every intent with branch, worktree, progress from the notes,
// budget left, worktree state, breaker and overlaps.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkoutIntent, git, intent, makeRepo, run, writeFiles } from '../helpers.js';

const LONG_SCOPE = ['src/**', 'docs/a/very/long/folder/name/that/goes/on/**', 'more/**'];

const REGISTRY = `active_intents:
  - id: "INT-001"
    name: "Auth"
    status: "PENDING"
    owned_scope: ["src/auth/**"]
    budget:
      max_commits: 5
      max_changed_lines: 100
      expires_at: "2999-01-01T00:00:00Z"
  - id: "INT-002"
    name: "Everything"
    status: "PENDING"
    owned_scope: ${JSON.stringify(LONG_SCOPE)}
  - id: "INT-003"
    name: "Later"
    status: "PENDING"
    owned_scope: ["docs/**"]
`;

function setup(): { repo: string; wt1: string; wt2: string } {
  const repo = makeRepo({ 'README.md': '# r\n', 'src/auth/a.ts': 'a\n', 'src/x.ts': 'x\n', 'docs/d.md': 'd\n' });
  expect(intent(repo, ['init']).status).toBe(0);
  writeFiles(repo, { '.orchestration/active_intents.yaml': REGISTRY });
  git(repo, 'add', '.orchestration');
  git(repo, 'commit', '-q', '-m', 'registry');
  const wt1 = checkoutIntent(repo, 'INT-001');
  const wt2 = checkoutIntent(repo, 'INT-002');
  return { repo, wt1, wt2 };
}

function commitAll(cwd: string, msg: string): void {
  const r = run('git', ['commit', '-q', '-a', '-m', msg], cwd);
  expect(r.status, r.stderr).toBe(0);
}

describe('intent status', () => {
  it('--json: branch, worktree, commits and changed lines from the notes, budget left, state, breaker, overlaps', () => {
    const { repo, wt1, wt2 } = setup();
    writeFiles(wt1, { 'src/auth/a.ts': 'a\nb\nc\n' }); // +2
    commitAll(wt1, 'one');
    writeFiles(wt1, { 'src/auth/a.ts': 'A\nb\nc\n' }); // +1 -1
    commitAll(wt1, 'two');
    // An amended commit replaces its note; the old commit's note is not counted.
    writeFiles(wt1, { 'src/auth/a.ts': 'A\nb\nC\n' }); // +1 -1 on top of "two"
    expect(run('git', ['commit', '-q', '-a', '--amend', '--no-edit'], wt1).status).toBe(0);
    writeFiles(wt2, { 'src/x.ts': 'x2\n', 'src/new.ts': 'n\n' });
    writeFiles(wt2, { 'docs/d.md': 'dirty\n' });

    const r = intent(repo, ['status', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.registry).toBe(join(repo, '.orchestration', 'active_intents.yaml'));
    const [i1, i2, i3] = out.intents;
    expect(i1).toEqual({
      intent: 'INT-001',
      name: 'Auth',
      status: 'IN_PROGRESS',
      branch: 'intent/INT-001',
      worktree: wt1,
      state: 'clean',
      dirty_paths: 0,
      commits: 2,
      changed_lines: 6,
      budget: { max_commits: 5, max_changed_lines: 100, expires_at: '2999-01-01T00:00:00Z' },
      budget_left: { commits: 3, changed_lines: 94, expires_at: '2999-01-01T00:00:00Z', expired: false },
      breaker: { open: false, since: null, reason: null, recent_rejections: 0 },
      overlaps: [{ intent: 'INT-002', paths: ['src/auth/a.ts'], reason: '1 tracked file matches both scopes' }],
      scope: ['src/auth/**'],
      unhooked_sessions: [],
    });
    expect(i2).toMatchObject({
      intent: 'INT-002', status: 'IN_PROGRESS', branch: 'intent/INT-002', worktree: wt2, state: 'dirty', dirty_paths: 3,
      commits: 0, changed_lines: 0, budget: null, budget_left: null,
    });
    expect(i2.overlaps.map((o: { intent: string }) => o.intent)).toEqual(['INT-001']);
    expect(i3).toMatchObject({ intent: 'INT-003', status: 'PENDING', branch: null, worktree: null, state: null, commits: 0, overlaps: [] });

    // A refused commit shows up in the breaker column.
    writeFiles(wt1, { 'docs/d.md': 'out of scope\n' });
    expect(run('git', ['commit', '-q', '-a', '-m', 'bad'], wt1).status).not.toBe(0);
    git(wt1, 'checkout', '--', 'docs/d.md');
    const after = JSON.parse(intent(repo, ['status', '--json']).stdout).intents[0];
    expect(after.breaker).toEqual({ open: false, since: null, reason: null, recent_rejections: 1 });
  });

  it('prints one aligned table; long scopes are cut with …; works from any worktree', () => {
    const { repo, wt1 } = setup();
    writeFiles(wt1, { 'src/auth/a.ts': 'a\nb\n' });
    commitAll(wt1, 'one');
    const r = intent(repo, ['status']);
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    const header = lines[0];
    expect(header).toMatch(/^ID\s+STATUS\s+BRANCH\s+WORKTREE\s+STATE\s+COMMITS\s+LINES\s+BUDGET LEFT\s+BREAKER\s+OVERLAPS\s+SCOPE$/);
    // Every column starts at the same offset in every row (left-aligned text columns).
    for (const col of ['STATUS', 'BRANCH', 'WORKTREE', 'STATE', 'BREAKER', 'OVERLAPS', 'SCOPE']) {
      const at = header.indexOf(col);
      for (const row of lines.slice(1)) expect(row[at - 1], `${col} in ${row}`).toBe(' ');
      for (const row of lines.slice(1)) expect(row[at], `${col} in ${row}`).not.toBe(' ');
    }
    // Right-aligned numbers end where their header ends.
    const endCommits = header.indexOf('COMMITS') + 'COMMITS'.length;
    expect(lines[1].slice(0, endCommits)).toMatch(/ 1$/);
    expect(lines[1]).toContain('INT-001  IN_PROGRESS  intent/INT-001  ../repo.worktrees/INT-001');
    expect(lines[1]).toContain('4 commits, 99 lines, until 2999-01-01T00:00:00Z');
    expect(lines[2]).toMatch(/src\/\*\*, docs\/a\/very\/long\/folder\/name\/th…$/);
    expect(Array.from(lines[2].slice(lines[2].indexOf('src/**, docs'))).length).toBe(40);
    expect(lines[3]).toMatch(/^INT-003\s+PENDING\s+-\s+-\s+-\s+0\s+0\s+-\s+closed\s+-\s+docs\/\*\*$/);

    const fromWt = intent(join(wt1, 'src'), ['status', '--json']);
    expect(fromWt.status, fromWt.stderr).toBe(0);
    expect(JSON.parse(fromWt.stdout).intents.map((i: { intent: string; commits: number }) => [i.intent, i.commits])).toEqual([
      ['INT-001', 1], ['INT-002', 0], ['INT-003', 0],
    ]);
  });

  it('reports a worktree whose directory is gone as missing, and an empty registry plainly', () => {
    const { repo, wt2 } = setup();
    git(repo, 'worktree', 'remove', '--force', wt2);
    mkdirSync(dirname(wt2), { recursive: true });
    const rows = JSON.parse(intent(repo, ['status', '--json']).stdout).intents;
    expect(rows[1]).toMatchObject({ intent: 'INT-002', branch: 'intent/INT-002', worktree: null, state: null });

    writeFileSync(join(repo, '.orchestration', 'active_intents.yaml'), 'active_intents: []\n');
    const empty = intent(repo, ['status']);
    expect(empty.status).toBe(0);
    expect(empty.stdout).toBe(`No intents in ${join(repo, '.orchestration', 'active_intents.yaml')}.\n`);

    writeFileSync(join(repo, '.orchestration', 'active_intents.yaml'), 'active_intents:\n  - id: "X"\n    budget: { max_commits: nope }\n');
    const bad = intent(repo, ['status']);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('field budget.max_commits');
  });
});
