// A fresh intent worktree runs the project (lib/lifecycle/worktree-setup.ts), on a project shaped
// like uuid's: npm dependencies in a lockfile, lefthook (the real one, the version in our
// package.json) installed by `prepare`, an acceptance check that needs node_modules and runs
// `npm pack` (which runs `prepare` again). Installing in a worktree and every acceptance check
// leave every intent worktree's scope check on: an out-of-scope commit is refused right after each.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PKG_ROOT, git, intent, run, tempDir, until, writeFiles } from '../helpers.js';

const BIN = join(PKG_ROOT, 'node_modules', '.bin');
/** lefthook on PATH, as a project's devDependency puts it there for its scripts. */
const ENV = { PATH: `${BIN}:${process.env.PATH}` };

const REGISTRY = (check: string) => `active_intents:
  - id: "INT-001"
    name: "Parser"
    status: "IN_PROGRESS"
    owned_scope: ["src/**"]
    acceptance_checks: [${JSON.stringify(check)}]
  - id: "INT-002"
    name: "Docs"
    status: "IN_PROGRESS"
    owned_scope: ["docs/**"]
`;

/** The project: a local dependency with a bin (npm ci links it, no network), lefthook by prepare, a lockfile. */
function project(check: string): string {
  const repo = join(tempDir('intent-setup-'), 'proj');
  git(tempDir(), 'init', '-q', '-b', 'main', repo);
  writeFiles(repo, {
    'package.json': JSON.stringify({ name: 'proj', version: '1.0.0', scripts: { prepare: 'lefthook install', test: 'dep-tool' }, dependencies: { dep: 'file:./vendor/dep' }, files: ['src'] }, null, 2) + '\n',
    'vendor/dep/package.json': JSON.stringify({ name: 'dep', version: '1.0.0', bin: { 'dep-tool': 'cli.js' } }) + '\n',
    'vendor/dep/cli.js': '#!/usr/bin/env node\nconsole.log("dep-tool ran");\n',
    'lefthook.yml': 'pre-commit:\n  commands:\n    mark:\n      run: echo lefthook-pre-commit-ran\n',
    '.gitignore': 'node_modules/\n*.tgz\n',
    'src/a.ts': 'export const a = 1;\n',
    'docs/x.md': '# x\n',
    '.orchestration/active_intents.yaml': REGISTRY(check),
  });
  const lock = run('npm', ['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'], repo, ENV);
  expect(lock.status, lock.stderr).toBe(0);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'project');
  // The main worktree's own install, as a teammate runs it (lefthook into .git/hooks), then intent init (which chains to it).
  expect(run('npm', ['ci', '--no-audit', '--no-fund'], repo, ENV).status).toBe(0);
  expect(intent(repo, ['init'], ENV).status).toBe(0);
  git(repo, 'add', '-A');
  run('git', ['commit', '-q', '-m', 'intent init'], repo, ENV);
  return repo;
}

/** An out-of-scope change committed in `wt`: refused by intent's pre-commit (and nothing committed). */
function outOfScopeRefused(wt: string, path: string): void {
  const head = git(wt, 'rev-parse', 'HEAD');
  writeFiles(wt, { [path]: `out of scope ${Math.random()}\n` });
  git(wt, 'add', path);
  const r = run('git', ['commit', '-q', '-m', 'outside'], wt, ENV);
  expect(r.status, `${path} was committed in ${wt}: ${r.stdout}${r.stderr}`).not.toBe(0);
  expect(r.stderr).toContain('Scope Violation');
  expect(git(wt, 'rev-parse', 'HEAD')).toBe(head);
  git(wt, 'reset', '-q', '--', path);
  git(wt, 'checkout', '--', path);
}

describe('the worktree intent checkout makes runs the project', () => {
  it('installs the lockfile\'s dependencies in a new worktree; its prepare (lefthook install) leaves the scope check on; --no-setup and worktreeSetup: false skip it', async () => {
    const packs = mkdtempSync(join(tmpdir(), 'intent-packs-'));
    const repo = project(`test -d node_modules/dep && npm test && npm pack --pack-destination ${packs}`);
    const co = intent(repo, ['checkout', 'INT-001', '--json'], ENV);
    expect(co.status, co.stderr).toBe(0);
    const out = JSON.parse(co.stdout);
    expect(out.setup).toMatchObject({ source: 'default', failed: null, ran: [{ command: 'npm ci', exit_code: 0 }] });
    expect(co.stderr).toContain('intent: preparing the worktree: npm ci');
    const wt = out.path as string;
    expect(existsSync(join(wt, 'node_modules', 'dep', 'cli.js'))).toBe(true);
    // prepare ran lefthook install during the set-up: into a folder of its own, not over intent's hooks.
    outOfScopeRefused(wt, 'docs/x.md');
    expect(intent(repo, ['doctor', '--json'], ENV).stdout).not.toContain('"ok": false, "subject": "worktree hooks"');

    const other = JSON.parse(intent(repo, ['checkout', 'INT-002', '--no-setup', '--json'], ENV).stdout);
    expect(other.setup).toMatchObject({ source: 'off' });
    expect(existsSync(join(other.path, 'node_modules'))).toBe(false);

    // The acceptance check needs node_modules and runs npm pack (prepare: lefthook install again).
    writeFiles(wt, { 'src/a.ts': 'export const a = 2;\n' });
    git(wt, 'add', 'src/a.ts');
    expect(run('git', ['commit', '-q', '-m', 'in scope'], wt, ENV).status).toBe(0);
    const done = intent(repo, ['done', 'INT-001', '--json'], ENV);
    expect(done.status, done.stdout + done.stderr).toBe(0);
    expect(JSON.parse(done.stdout).checks[0]).toMatchObject({ passed: true });
    expect(readFileSync(JSON.parse(done.stdout).checks[0].log, 'utf8')).toContain('dep-tool ran');
    // Every other intent worktree's check is still on.
    outOfScopeRefused(other.path, 'src/a.ts');
  }, 180_000);

  it('npm ci run by hand in a worktree (prepare: lefthook install rewrites the hooks folder): the next out-of-scope commit is still refused', () => {
    const repo = project('true');
    const co = intent(repo, ['checkout', 'INT-001', '--no-setup', '--json'], ENV);
    const wt = JSON.parse(co.stdout).path as string;
    const ci = run('npm', ['ci', '--no-audit', '--no-fund'], wt, ENV);
    expect(ci.status, ci.stderr).toBe(0);
    // lefthook moved intent's pre-commit aside; intent's prepare-commit-msg finds it, puts the folder back and checks the commit.
    outOfScopeRefused(wt, 'docs/x.md');
    // Again, and an in-scope commit: checked and made at the first attempt, with its note, the project's own lefthook hook run too.
    expect(run('npm', ['ci', '--no-audit', '--no-fund'], wt, ENV).status).toBe(0);
    writeFiles(wt, { 'src/a.ts': 'export const a = 3;\n' });
    git(wt, 'add', 'src/a.ts');
    const ok = run('git', ['commit', '-q', '-m', 'in scope after npm ci'], wt, ENV);
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stderr).toContain('prepare-commit-msg checks this commit now');
    expect(ok.stdout + ok.stderr).toContain('lefthook-pre-commit-ran');
    expect(git(wt, 'log', '-1', '--format=%s')).toBe('in scope after npm ci\n');
    expect(git(wt, 'notes', '--ref=refs/notes/intents', 'list', 'HEAD').trim()).not.toBe('');
  }, 120_000);

  it('a failed set-up keeps the worktree and says how to finish it; a failed check in an unprepared worktree says what to install', async () => {
    const repo = project('npm test');
    writeFiles(repo, { '.intentrc.json': JSON.stringify({ worktreeSetup: { copy: ['vendor/dep/cli.js', 'missing.env'], run: ['exit 3'] } }) + '\n' });
    git(repo, 'add', '.intentrc.json');
    git(repo, 'commit', '-q', '-m', 'setup that fails');
    const co = intent(repo, ['checkout', 'INT-001', '--json'], ENV);
    expect(co.status, co.stderr).toBe(0);
    const out = JSON.parse(co.stdout);
    expect(out.setup).toMatchObject({ source: 'config', failed: 'exit 3', ran: [{ command: 'exit 3', exit_code: 3 }], copied: [] });
    expect(existsSync(out.path)).toBe(true);
    // Printed (without --json): what failed and how to finish.
    const co2 = intent(repo, ['checkout', 'INT-002'], ENV);
    expect(co2.status, co2.stderr).toBe(0);
    expect(co2.stderr).toContain('intent: warning: preparing the worktree failed: `exit 3` exited 3');
    expect(co2.stderr).toContain(`cd ${co2.stdout.trim()} && exit 3`);
    const done = intent(repo, ['done', 'INT-001'], ENV);
    expect(done.status).toBe(1);
    expect(done.stderr).toContain(`The worktree has no node_modules: install the dependencies there (cd ${out.path} && npm ci)`);
  }, 180_000);

  it('refuses a worktreeSetup that is not false or {copy, run}, or that copies from outside the worktree', () => {
    const repo = project('true');
    for (const [value, says] of [[true, 'must be false or an object'], [{ run: 5 }, '"run" must be a list'], [{ copy: ['../x'] }, 'not a path inside'], [{ sh: 'x' }, 'unknown key "sh"']] as const) {
      writeFiles(repo, { '.intentrc.json': JSON.stringify({ worktreeSetup: value }) + '\n' });
      const r = intent(repo, ['checkout', 'INT-001', '--json'], ENV);
      expect(r.status, JSON.stringify(value)).toBe(1);
      expect(JSON.parse(r.stdout).error).toMatchObject({ code: 'CONFIG_INVALID' });
      expect(JSON.parse(r.stdout).error.message).toContain(says);
    }
  });
});

describe('a set-up command that does not finish', () => {
  it('is stopped at its bound, with everything it started, and reported as failed', async () => {
    const { prepareWorktree } = await import('../../lib/lifecycle/worktree-setup.js');
    const { openRepo } = await import('../../lib/git/repo.js');
    const repo = join(tempDir('intent-setup-bound-'), 'r');
    git(tempDir(), 'init', '-q', '-b', 'main', repo);
    writeFiles(repo, { 'a.txt': 'a\n' });
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'a');
    const pidFile = join(repo, 'child.pid');
    const r = await prepareWorktree(openRepo(repo), repo, { copy: [], run: [`sleep 60 & echo $! > ${pidFile}; wait`] }, { timeoutMs: 500 });
    expect(r.failed).toBe(`sleep 60 & echo $! > ${pidFile}; wait`);
    expect(r.ran[0].exit_code).toBeNull();
    // The grandchild (sleep) went with the group.
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await until(() => { try { process.kill(pid, 0); return false; } catch { return true; } }, 'the set-up\'s sleep is gone', 10_000);
  });
});
