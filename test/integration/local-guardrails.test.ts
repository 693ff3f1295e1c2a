// The local tier of issue 12: guardrails that cost nothing and tell an honest agent at once.
// (They are not the security boundary: test/integration/authority.test.ts is.)
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkoutIntent, git, governedRepo, intent, noteOf, run, writeFiles } from '../helpers.js';

const NO_HOOKS = ['-c', 'core.hooksPath=/dev/null'];

function commit(wt: string, files: Record<string, string>, message: string, flags: string[] = []) {
  writeFiles(wt, files);
  git(wt, 'add', '-A');
  return run('git', [...flags, 'commit', '-q', '-m', message], wt);
}

describe('human-only commands refuse agent processes', () => {
  it('checkout, done and abandon say NOT_A_HUMAN and change nothing', () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }], { 'src/a.ts': 'a\n' });
    const registry = git(repo, 'show', 'HEAD:.orchestration/active_intents.yaml');
    for (const [args, env] of [
      [['checkout', 'INT-001', '--json'], { INTENT_AGENT: '1' }],
      [['checkout', 'INT-001', '--json'], { CLAUDECODE: '1' }],
      [['done', 'INT-001', '--json'], { CURSOR_TRACE_ID: 'x' }],
      [['abandon', 'INT-001', '--json'], { CLINE_CONNECTOR_CLI_LAUNCH: '{}' }],
    ] as const) {
      const r = intent(repo, [...args], env);
      expect(r.status).toBe(1);
      expect(JSON.parse(r.stdout).error.code).toBe('NOT_A_HUMAN');
    }
    expect(git(repo, 'worktree', 'list')).not.toContain('INT-001');
    expect(run('git', ['diff', '--quiet'], repo).status).toBe(0);
    expect(git(repo, 'show', 'HEAD:.orchestration/active_intents.yaml')).toBe(registry);
  });

  it('a human with agent CLIs\' settings exported (CLINE_DIR as docs/cline.md advises, COPILOT_HOME, CODEX_HOME) checks out', () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }], { 'src/a.ts': 'a\n' });
    const r = intent(repo, ['checkout', 'INT-001', '--json'], { CLINE_DIR: '/tmp/cline-home', CLINE_HUB_PORT: '25463', COPILOT_HOME: '/tmp/c', CODEX_HOME: '/tmp/x', OPENCODE_CONFIG: '/tmp/o.json' });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(git(repo, 'worktree', 'list')).toContain('INT-001');
  });
});

describe("an intent worktree's record, branch and registration must agree", () => {
  it('refuses a commit when the branch was renamed or switched, the record edited, or the worktree moved; passes when they agree', () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }, { id: 'INT-002', scope: ['docs/**'] }], { 'src/a.ts': 'a\n', 'docs/x.md': 'x\n' });
    const wt = checkoutIntent(repo, 'INT-001');
    git(wt, 'branch', '-m', 'intent/INT-001', 'intent/INT-002');
    let r = commit(wt, { 'docs/x.md': 'x\nrenamed\n' }, 'renamed branch');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('its record names INT-001, but its branch is intent/INT-002');
    git(wt, 'branch', '-m', 'intent/INT-002', 'intent/INT-001');
    git(wt, 'reset', '-q', '--hard');

    git(wt, 'switch', '-q', '-c', 'intent/INT-003');
    r = commit(wt, { 'src/a.ts': 'a\nother branch\n' }, 'on another intent branch');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('its record names INT-001, but its branch is intent/INT-003');
    git(wt, 'switch', '-q', '-f', 'intent/INT-001');
    git(wt, 'branch', '-q', '-D', 'intent/INT-003');

    // Moved by hand (not git worktree move): git's registration still points at the old place.
    const moved = `${wt}-moved`;
    renameSync(wt, moved);
    r = commit(moved, { 'src/a.ts': 'a\nmoved\n' }, 'moved worktree');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`git registers this worktree at ${wt}, not ${moved}`);
    renameSync(moved, wt);
    git(wt, 'reset', '-q', '--hard');

    const record = git(wt, 'rev-parse', '--path-format=absolute', '--git-path', 'intent-id').trim();
    writeFileSync(record, 'INT-002\n');
    r = commit(wt, { 'docs/x.md': 'x\nrecord\n' }, 'edited record');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('its record names INT-002, but its branch is intent/INT-001');
    writeFileSync(record, 'INT-001\n');
    git(wt, 'reset', '-q', '--hard');

    // Agreeing names: an honest commit and a rebase (HEAD detached, the rebased branch counts) pass.
    expect(commit(wt, { 'src/a.ts': 'a\nmine\n' }, 'mine').status).toBe(0);
    writeFiles(repo, { 'README.md': 'main moved\n' });
    git(repo, 'commit', '-q', '-am', 'main moves');
    git(wt, 'rebase', '-q', 'main');
    expect(noteOf(wt)?.record.metadata['dev.intent'].intent_id).toBe('INT-001');
    expect(intent(wt, ['verify', '--no-ledger']).status).toBe(0);
  });
});

describe('done --merge and verify check unmerged intent work', () => {
  it('verify covers intent/* branches by default; done --merge refuses a hook-free commit and merges nothing', () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }], { 'src/a.ts': 'a\n', 'docs/x.md': 'x\n' });
    const wt = checkoutIntent(repo, 'INT-001');
    expect(commit(wt, { 'src/a.ts': 'a\nb\n' }, 'honest').status).toBe(0);
    expect(commit(wt, { 'docs/x.md': 'x\nsneaky\n' }, 'hook-free', NO_HOOKS).status).toBe(0);
    const sneaky = git(wt, 'rev-parse', 'HEAD').trim();
    git(repo, 'commit', '-q', '-am', 'INT-001 in progress');
    const main = git(repo, 'rev-parse', 'main').trim();

    const v = intent(repo, ['verify', '--no-ledger']);
    expect(v.status).toBe(1);
    expect(v.stdout).toContain(`NOTE_MISSING`);
    expect(v.stdout).toContain(sneaky.slice(0, 12));

    expect(intent(wt, ['repair']).status).toBe(0); // a note now, listing its violation
    const d = intent(repo, ['done', 'INT-001', '--merge', '--json']);
    expect(d.status).toBe(1);
    const err = JSON.parse(d.stdout).error;
    expect(err.code).toBe('AUTHORITY_REFUSED');
    expect(err.message).toMatch(new RegExp(`SCOPE_VIOLATION ${sneaky.slice(0, 12)}`));
    expect(git(repo, 'rev-parse', 'main').trim()).toBe(main);
    expect(git(repo, 'show', ':.orchestration/active_intents.yaml')).toContain('IN_PROGRESS');
  });
});

describe('a planted or stale record.lock', () => {
  it('is taken over with a message, and the note is still written', () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }], { 'src/a.ts': 'a\n' });
    const wt = checkoutIntent(repo, 'INT-001');
    const lock = join(repo, '.git', 'intent', 'record.lock');
    for (const [planted, says] of [
      ['garbage\n', 'it names no process'],
      ['1\n', 'it names pid 1 without its start time'],
      ['999999999 12\n', 'its owner, pid 999999999, is not running'],
      [`${process.pid} 1\n`, `pid ${process.pid} is another process now`],
    ]) {
      writeFileSync(lock, planted);
      run('touch', ['-d', '2026-01-01T00:00:00Z', lock], repo); // planted a while ago
      const r = commit(wt, { 'src/a.ts': `a\n${says}\n` }, says);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr).toContain(`intent: took over the lock ${lock}: ${says}`);
      expect(noteOf(wt)?.record.vcs.revision).toBe(git(wt, 'rev-parse', 'HEAD').trim());
    }
  });
});
