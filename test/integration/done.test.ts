import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkoutIntent, fixture, git, governedRepo, intent, run, tempDir, writeFiles } from '../helpers.js';

// `intent done` and `intent abandon` as real processes: acceptance checks, merge, cleanup.

function registry(checks1: string[]): string {
  return `# hand-written registry
active_intents:
  - id: "INT-001"
    name: "Auth"
    status: "PENDING"   # checkout sets this
    owned_scope: ["src/auth/**"]
    acceptance_checks: ${JSON.stringify(checks1)}
  - id: "INT-002"
    name: "Billing"
    status: "PENDING"
    owned_scope:
      - "src/billing/**"
  - id: "INT-003"
    name: "Docs"
    status: "PENDING"
    owned_scope: ["docs/**"]
`;
}

/** A governed repository whose INT-001 has `checks`, checked out with one governed commit. */
function setup(checks: string[] = ['test -f src/auth/b.ts', 'echo checked; echo to-stderr >&2']): { repo: string; wt: string } {
  // Built once per set of checks in this file; each test gets a copy.
  return fixture(`setup ${JSON.stringify(checks)}`, () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/auth/**'] }], { 'README.md': '# r\n', 'src/auth/a.ts': 'a\n' });
    writeFiles(repo, { '.orchestration/active_intents.yaml': registry(checks) });
    git(repo, 'commit', '-q', '-am', 'hand-written registry');
    const wt = checkoutIntent(repo, 'INT-001');
    writeFiles(wt, { 'src/auth/b.ts': 'export const b = 1;\n' });
    git(wt, 'add', '-A');
    git(wt, 'commit', '-q', '-m', 'add b');
    return { repo, wt };
  });
}

const registryText = (repo: string) => readFileSync(join(repo, '.orchestration', 'active_intents.yaml'), 'utf8');
const statusOf = (repo: string, id: string) => new RegExp(`id: "${id}"\\n[^\\n]*\\n\\s+status: "([A-Z_]+)"`).exec(registryText(repo))?.[1];
const logDir = (repo: string) => join(repo, '.git', 'intent', 'checks', 'INT-001');
const logs = (repo: string) => (existsSync(logDir(repo)) ? readdirSync(logDir(repo)).sort() : []);
const head = (cwd: string, rev = 'HEAD') => git(cwd, 'rev-parse', rev).trim();
const branches = (repo: string) => git(repo, 'branch', '--list', '--format=%(refname:short)').split('\n').filter(Boolean).sort();
/** The clone's own lessons (intent's state folder): what intent learns by itself never dirties the tracked AGENT.md. */
const localLessons = (repo: string) => readFileSync(join(repo, '.git', 'intent', 'lessons.md'), 'utf8');

describe('intent done', () => {
  it('--merge lands a finished intent: checks pass, branch merged into main, worktree removed, branch kept, COMPLETED', () => {
    const { repo, wt } = setup();
    const tip = head(wt);
    const r = intent(repo, ['done', 'INT-001', '--merge']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain('[1/2] test -f src/auth/b.ts');
    expect(r.stdout).toContain('INT-001 is COMPLETED: all 2 acceptance checks passed.');
    expect(r.stdout).toContain('Merged intent/INT-001 into main');
    expect(r.stdout).toContain('commit .orchestration/active_intents.yaml to record it');

    expect(git(repo, 'show', 'HEAD:src/auth/b.ts')).toBe('export const b = 1;\n');
    expect(git(repo, 'log', '-1', '--format=%P').trim().split(' ')).toEqual([head(repo, 'HEAD~1'), tip]);
    expect(git(repo, 'log', '-1', '--format=%s').trim()).toBe("Merge branch 'intent/INT-001'");
    expect(existsSync(wt)).toBe(false);
    expect(git(repo, 'worktree', 'list', '--porcelain')).not.toContain('intent/INT-001');
    expect(branches(repo)).toContain('intent/INT-001');
    expect(head(repo, 'intent/INT-001')).toBe(tip);
    expect(statusOf(repo, 'INT-001')).toBe('COMPLETED');
    // The registry change is left for the human to commit; nothing else is dirty.
    expect(git(repo, 'status', '--porcelain')).toBe(' M .orchestration/active_intents.yaml\n');

    const files = logs(repo);
    expect(files).toHaveLength(2);
    expect(files[0]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z-1\.log$/);
    const second = readFileSync(join(logDir(repo), files[1]), 'utf8');
    expect(second).toContain('checked\n');
    expect(second).toContain('to-stderr\n');
    expect(second).toContain('# exit 0');
  });

  it('--json --delete-branch: reports every step and deletes the merged branch', () => {
    const { repo, wt } = setup();
    const r = intent(repo, ['done', 'INT-001', '--merge', '--delete-branch', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      intent: 'INT-001', status: 'COMPLETED',
      merged: { into: 'main', already: false },
      worktree: { path: wt, removed: true },
      branch: { name: 'intent/INT-001', deleted: true },
    });
    expect(out.checks.map((c: { passed: boolean; exit_code: number }) => [c.passed, c.exit_code])).toEqual([[true, 0], [true, 0]]);
    expect(out.merged.commit).toBe(head(repo));
    expect(branches(repo)).not.toContain('intent/INT-001');
    expect(r.stderr).toBe('');
  });

  it('without --merge: COMPLETED, but the unmerged worktree and branch are kept, and it says why', () => {
    const { repo, wt } = setup();
    const main = head(repo);
    const r = intent(repo, ['done', 'INT-001', '--delete-branch']);
    expect(r.status, r.stderr).toBe(0);
    expect(statusOf(repo, 'INT-001')).toBe('COMPLETED');
    expect(head(repo)).toBe(main);
    expect(existsSync(join(wt, 'src', 'auth', 'b.ts'))).toBe(true);
    expect(r.stdout).toContain(`Worktree ${wt}: kept: intent/INT-001 is not merged into main`);
    expect(r.stdout).toContain('Branch intent/INT-001: kept: not merged into main.');
    expect(branches(repo)).toContain('intent/INT-001');
    // A second done is refused: it is not IN_PROGRESS any more.
    const again = intent(repo, ['done', 'INT-001', '--json']);
    expect(again.status).toBe(1);
    expect(JSON.parse(again.stdout).error.code).toBe('INTENT_WRONG_STATUS');
  });

  it('refuses a worktree with an untracked file, naming it; nothing changes, no check runs', () => {
    const { repo, wt } = setup();
    writeFiles(wt, { 'src/auth/scratch.txt': 'notes\n' });
    const before = registryText(repo);
    const main = head(repo);
    const r = intent(repo, ['done', 'INT-001', '--merge', '--json']);
    expect(r.status).toBe(1);
    const err = JSON.parse(r.stdout).error;
    expect(err.code).toBe('WORKTREE_DIRTY');
    expect(err.message).toContain(wt);
    expect(err.message).toContain('?? src/auth/scratch.txt');
    expect(err.message).toContain('Nothing was changed');
    expect(registryText(repo)).toBe(before);
    expect(head(repo)).toBe(main);
    expect(logs(repo)).toEqual([]);
    expect(readFileSync(join(wt, 'src', 'auth', 'scratch.txt'), 'utf8')).toBe('notes\n');
  });

  it('--merge refuses a dirty main worktree before running any check', () => {
    const { repo } = setup();
    writeFiles(repo, { 'README.md': '# changed\n' });
    const before = registryText(repo);
    const r = intent(repo, ['done', 'INT-001', '--merge']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`the main worktree ${repo} has uncommitted or untracked files`);
    expect(r.stderr).toContain(' M README.md');
    expect(registryText(repo)).toBe(before);
    expect(logs(repo)).toEqual([]);
  });

  it('a failing check: exit 1 naming it and its log, lesson appended, status unchanged, nothing merged', () => {
    const { repo, wt } = setup(['true', 'echo out-line; echo err-line >&2; exit 3', 'touch never-run']);
    const before = registryText(repo);
    const main = head(repo);
    const r = intent(repo, ['done', 'INT-001', '--merge']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('Acceptance check 2 of 3 for INT-001 failed: `echo out-line; echo err-line >&2; exit 3` exited with 3');
    const files = logs(repo);
    expect(files).toHaveLength(2);
    const log = join(logDir(repo), files[1]);
    expect(r.stderr).toContain(`Its output is in ${log}`);
    expect(r.stderr).toContain('| err-line');
    expect(r.stderr).toContain('Not run: `touch never-run`.');
    expect(r.stderr).toContain('INT-001 stays IN_PROGRESS');
    expect(readFileSync(log, 'utf8')).toMatch(/out-line\nerr-line\n/);
    expect(localLessons(repo)).toContain('Acceptance check `echo out-line; echo err-line >&2; exit 3` failed for INT-001 (exit 3)');
    // The main worktree stays clean: the next intent done --merge is not stopped by a lesson nobody wrote.
    expect(git(repo, 'status', '--porcelain', '--', '.orchestration/AGENT.md')).toBe('');
    expect(intent(repo, ['context', 'INT-001']).stdout).toContain('failed for INT-001 (exit 3)');
    expect(registryText(repo)).toBe(before);
    expect(statusOf(repo, 'INT-001')).toBe('IN_PROGRESS');
    expect(head(repo)).toBe(main);
    expect(existsSync(join(wt, 'never-run'))).toBe(false);
    expect(existsSync(wt)).toBe(true);
  });

  it('a check that hangs is stopped at --timeout (with what it started); status unchanged', () => {
    const pidFile = join(tempDir(), 'pid');
    const { repo } = setup([`sleep 60 & echo $! > '${pidFile}'; wait`]);
    const before = registryText(repo);
    const started = Date.now();
    const r = intent(repo, ['done', 'INT-001', '--timeout', '1', '--json']);
    // Not a speed check: the check sleeps 60 s, so returning well before that proves it was stopped.
    expect(Date.now() - started).toBeLessThan(50_000);
    expect(r.status).toBe(1);
    const err = JSON.parse(r.stdout).error;
    expect(err.code).toBe('CHECK_FAILED');
    expect(err.message).toContain('did not finish within 1 s and was stopped');
    expect(err.message).toContain('--timeout');
    expect(err.data.check).toMatchObject({ timed_out: true, passed: false });
    expect(readFileSync(err.data.check.log, 'utf8')).toContain('timed out after 1 s');
    expect(localLessons(repo)).toContain('failed for INT-001 (timed out after 1 s)');
    expect(registryText(repo)).toBe(before);
    // The background sleep was killed with its process group.
    const pid = Number(readFileSync(pidFile, 'utf8'));
    let alive = true;
    for (let i = 0; i < 50 && alive; i++) {
      try { process.kill(pid, 0); run('sleep', ['0.1'], repo); } catch { alive = false; }
    }
    expect(alive).toBe(false);
    const bad = intent(repo, ['done', 'INT-001', '--timeout', 'soon']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--timeout must be a positive number of seconds');
  });

  it('a merge conflict is aborted: main, the branch and the worktree are as they were, status unchanged', () => {
    const { repo, wt } = setup();
    writeFiles(repo, { 'src/auth/a.ts': 'main side\n' });
    git(repo, 'add', 'src/auth/a.ts');
    git(repo, 'commit', '-q', '-m', 'main edits a');
    writeFiles(wt, { 'src/auth/a.ts': 'intent side\n' });
    git(wt, 'commit', '-q', '-am', 'intent edits a');
    const main = head(repo);
    const tip = head(wt);
    const before = registryText(repo);
    const r = intent(repo, ['done', 'INT-001', '--merge', '--json']);
    expect(r.status).toBe(1);
    const err = JSON.parse(r.stdout).error;
    expect(err.code).toBe('MERGE_CONFLICT');
    expect(err.message).toContain('Merging intent/INT-001 into main conflicts in: src/auth/a.ts');
    expect(err.message).toContain('The merge was aborted');
    expect(err.data).toMatchObject({ files: ['src/auth/a.ts'], aborted: true });
    expect(head(repo)).toBe(main);
    expect(run('git', ['rev-parse', '-q', '--verify', 'MERGE_HEAD'], repo).status).not.toBe(0);
    expect(readFileSync(join(repo, 'src', 'auth', 'a.ts'), 'utf8')).toBe('main side\n');
    expect(git(repo, 'status', '--porcelain')).toBe(' M .orchestration/active_intents.yaml\n');
    expect(registryText(repo)).toBe(before);
    expect(head(wt)).toBe(tip);
    expect(readFileSync(join(wt, 'src', 'auth', 'a.ts'), 'utf8')).toBe('intent side\n');
    expect(git(wt, 'status', '--porcelain')).toBe('');
  });

  it('refuses from inside its own worktree, an intent that is not IN_PROGRESS, an unknown intent, one without a worktree', () => {
    const { repo, wt } = setup();
    const before = registryText(repo);
    const inside = intent(join(wt, 'src'), ['done', 'INT-001', '--merge']);
    expect(inside.status).toBe(1);
    expect(inside.stderr).toContain("from inside INT-001's own worktree");
    expect(inside.stderr).toContain(`cd ${repo} && intent done INT-001`);

    const pending = intent(repo, ['done', 'INT-002', '--json']);
    expect(pending.status).toBe(1);
    const e = JSON.parse(pending.stdout).error;
    expect(e.code).toBe('INTENT_WRONG_STATUS');
    expect(e.message).toContain('Cannot finish INT-002: it is PENDING');
    expect(e.message).toContain('intent checkout INT-002');

    const unknown = intent(repo, ['done', 'INT-404']);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('Unknown intent INT-404');
    expect(unknown.stderr).toContain('INT-001, INT-002, INT-003');

    const wt2 = checkoutIntent(repo, 'INT-002');
    git(repo, 'worktree', 'remove', wt2);
    const noWt = intent(repo, ['done', 'INT-002']);
    expect(noWt.status).toBe(1);
    expect(noWt.stderr).toContain('Cannot finish INT-002: it has no worktree');
    expect(statusOf(repo, 'INT-002')).toBe('IN_PROGRESS');
    expect(statusOf(repo, 'INT-001')).toBe('IN_PROGRESS');
    expect(registryText(repo).replace(/(id: "INT-002"\n[^\n]*\n\s+status: )"IN_PROGRESS"/, '$1"PENDING"')).toBe(before);
    expect(logs(repo)).toEqual([]);
  });
});

describe('intent abandon', () => {
  it('marks ABANDONED, removes a clean worktree and keeps the branch with its commits', () => {
    const { repo } = setup();
    const wt2 = checkoutIntent(repo, 'INT-002');
    writeFiles(wt2, { 'src/billing/x.ts': 'x\n' });
    git(wt2, 'add', '-A');
    git(wt2, 'commit', '-q', '-m', 'unmerged work');
    const tip = head(wt2);
    const r = intent(repo, ['abandon', 'INT-002']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('INT-002 is ABANDONED.');
    expect(r.stdout).toContain('removed: it had no uncommitted or untracked files');
    expect(r.stdout).toContain('Branch intent/INT-002: kept');
    expect(r.stdout).toContain('commit .orchestration/active_intents.yaml to record it');
    expect(existsSync(wt2)).toBe(false);
    expect(head(repo, 'intent/INT-002')).toBe(tip);
    expect(statusOf(repo, 'INT-002')).toBe('ABANDONED');
    // Again: nothing more to do, said so.
    const again = intent(repo, ['abandon', 'INT-002', '--json']);
    expect(again.status, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ changed: false, status: 'ABANDONED', worktree: { path: null, removed: false } });
  });

  it('keeps a dirty worktree and says why; the branch too', () => {
    const { repo } = setup();
    const wt3 = checkoutIntent(repo, 'INT-003');
    writeFiles(wt3, { 'docs/draft.md': 'unsaved thoughts\n' });
    const r = intent(repo, ['abandon', 'INT-003', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ intent: 'INT-003', status: 'ABANDONED', changed: true, worktree: { path: wt3, removed: false }, branch: { name: 'intent/INT-003', deleted: false } });
    expect(out.worktree.reason).toContain('kept: it has uncommitted or untracked files (docs/draft.md)');
    expect(readFileSync(join(wt3, 'docs', 'draft.md'), 'utf8')).toBe('unsaved thoughts\n');
    expect(branches(repo)).toContain('intent/INT-003');
    expect(statusOf(repo, 'INT-003')).toBe('ABANDONED');
  });

  it('refuses from inside its own worktree, and a COMPLETED intent; nothing changes', () => {
    const { repo, wt } = setup();
    const before = registryText(repo);
    const inside = intent(wt, ['abandon', 'INT-001', '--json']);
    expect(inside.status).toBe(1);
    expect(JSON.parse(inside.stdout).error.code).toBe('CWD_IN_WORKTREE');
    expect(registryText(repo)).toBe(before);
    expect(existsSync(wt)).toBe(true);

    expect(intent(repo, ['done', 'INT-001', '--merge']).status).toBe(0);
    const done = registryText(repo);
    const completed = intent(repo, ['abandon', 'INT-001']);
    expect(completed.status).toBe(1);
    expect(completed.stderr).toContain('Cannot abandon INT-001: it is COMPLETED');
    expect(registryText(repo)).toBe(done);
  });
});
