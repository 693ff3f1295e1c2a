// The hooks intent has none of (post-index-change, post-checkout, ...) are in the intent worktrees'
// hook folder only while the repository's own hooks folder has them: git then starts no shell for
// a post-index-change of nobody's on every index it writes (each `git add`, each commit). A hook the
// team adds is run in intent worktrees from the first hook of any kind that runs there after it
// was added (a commit's prepare-commit-msg): from then on at every index write; one it removes is no
// longer passed on to. pre-commit and commit-msg are among them: prepare-commit-msg makes their
// checks, and the repository's own are passed on to only when they are more than intent's block.
// An installer writing into the folder is still found and undone.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PKG_ROOT, checkoutIntent, expectRefused, git, governedRepo, intent, noteOf, run, spawnAsync, tempDir, writeFiles } from '../helpers.js';

/** The guard (lib/hooks/ref-check.ts) as git runs it for a commit's move of its branch. */
const GUARD = ['reference-transaction', 'reference-transaction'];
const CHAIN_ONLY = ['applypatch-msg', 'pre-applypatch', 'post-applypatch', 'pre-commit', 'commit-msg', 'pre-rebase', 'post-checkout', 'push-to-checkout', 'pre-auto-gc', 'sendemail-validate', 'post-index-change'];

/** The hooks git ran (GIT_TRACE2_EVENT child_start of class hook, of that git process) while running `git args` in `cwd`. */
function hooksRun(cwd: string, args: string[]): string[] {
  const trace = join(tempDir('intent-trace2-'), 'events');
  const r = run('git', args, cwd, { GIT_TRACE2_EVENT: trace });
  expect(r.status, `git ${args.join(' ')}: ${r.stderr}`).toBe(0);
  expect(r.stderr).not.toMatch(/NOT recorded|blocked|WARNING/);
  if (!existsSync(trace)) return [];
  return readFileSync(trace, 'utf8').split('\n').filter(Boolean)
    .map((l) => JSON.parse(l) as { event: string; sid: string; child_class?: string; hook_name?: string })
    // (Those of the git command itself: the git processes a hook starts, which write the note, have theirs.)
    .filter((e) => e.event === 'child_start' && e.child_class === 'hook' && !e.sid.includes('/')).map((e) => e.hook_name ?? '');
}

/** Changes `src/a.ts` in `wt` and stages it; returns the hooks `git add` ran. */
function add(wt: string, n: number): string[] {
  writeFiles(wt, { 'src/a.ts': `export const a = ${n};\n` });
  return hooksRun(wt, ['add', 'src/a.ts']);
}

/** Commits a change to `src/a.ts` in `wt` (add, then commit); returns the hooks the commit ran. */
function commit(wt: string, n: number): string[] {
  add(wt, n);
  return hooksRun(wt, ['commit', '-q', '-m', `change ${n}`]);
}

/** A hook of the repository's own that appends its name to `marks`. */
function markingHook(file: string, marks: string, name: string, mode = 0o755): void {
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, `#!/bin/sh\necho ${name} >> '${marks}'\n`);
  chmodSync(file, mode);
}

const marksOf = (marks: string) => (existsSync(marks) ? readFileSync(marks, 'utf8').split('\n').filter(Boolean) : []);
const folder = (repo: string) => join(repo, '.git', 'intent', 'hooks');
const refs = (repo: string) => join(repo, '.git', 'intent', 'hooks.ref');
const here = (repo: string, hook: string) => existsSync(join(folder(repo), hook)) || existsSync(join(refs(repo), hook));
const doctorFolder = (repo: string) => (JSON.parse(intent(repo, ['doctor', '--json']).stdout) as { checks: { subject: string; ok: boolean; message: string }[] }).checks.find((c) => c.subject === 'worktree hooks')!;

function setup(): { repo: string; wt: string; marks: string } {
  const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }]);
  const wt = checkoutIntent(repo, 'INT-001');
  return { repo, wt, marks: join(tempDir('intent-marks-'), 'marks') };
}

describe('hooks intent has none of, in the hook folder of intent worktrees', () => {
  it('a repository without them: none in the folder, and a commit runs two hooks and the guard (no pre-commit, commit-msg or post-index-change)', () => {
    const { repo, wt } = setup();
    // The repository's own pre-commit and commit-msg are intent's block alone: nothing to pass on to.
    expect(readFileSync(join(repo, '.git', 'hooks', 'pre-commit'), 'utf8')).toContain('intent_hook');
    for (const h of CHAIN_ONLY) expect(here(repo, h), h).toBe(false);
    expect(readdirSync(folder(repo)).sort()).toEqual(['post-commit', 'post-merge', 'post-rewrite', 'pre-merge-commit', 'pre-push', 'prepare-commit-msg', 'reference-transaction']);
    expect(add(wt, 1)).toEqual([]);
    const ran = hooksRun(wt, ['commit', '-q', '-m', 'change 1']);
    // (The guard, reference-transaction, runs for the branch's move: prepared, then committed.)
    expect(ran).toEqual(['prepare-commit-msg', ...GUARD, 'post-commit']);
    expect(here(repo, 'pre-commit')).toBe(false);
    expect(doctorFolder(repo).ok).toBe(true);
    // Still checked: out of scope is refused (by prepare-commit-msg), with --no-verify too.
    writeFiles(wt, { 'docs/out.md': 'out\n' });
    git(wt, 'add', 'docs/out.md');
    expectRefused(run('git', ['commit', '-q', '-m', 'out of scope'], wt), 'not authorized to edit docs/out.md');
    expectRefused(run('git', ['commit', '-q', '--no-verify', '-m', 'out of scope'], wt), 'not authorized to edit docs/out.md');
  });

  it('the team\'s own pre-commit and commit-msg: in the folder, run before intent\'s check, and gone when the team removes them', () => {
    const { repo, wt, marks } = setup();
    for (const h of ['pre-commit', 'commit-msg']) {
      const file = join(repo, '.git', 'hooks', h);
      writeFileSync(file, `${readFileSync(file, 'utf8')}echo team-${h} >> '${marks}'\n`);
    }
    // The first hook after the change (a commit's prepare-commit-msg) puts ours in; git had already
    // passed pre-commit, so that commit is refused once; the next one runs them.
    add(wt, 1);
    expectRefused(run('git', ['commit', '-q', '-m', 'change 1'], wt), 'pre-commit hook is new to intent worktrees and did not run for this commit');
    expect(marksOf(marks)).toEqual([]);
    expect(here(repo, 'pre-commit')).toBe(true);
    expect(here(repo, 'commit-msg')).toBe(true);
    expect(doctorFolder(repo).ok).toBe(true);
    expect(commit(wt, 2)).toEqual(['pre-commit', 'prepare-commit-msg', 'commit-msg', ...GUARD, 'post-commit']);
    expect(marksOf(marks).slice(-2)).toEqual(['team-pre-commit', 'team-commit-msg']);
    // intent's check still refuses, after the team's pre-commit ran.
    writeFiles(wt, { 'docs/out.md': 'out\n' });
    git(wt, 'add', 'docs/out.md');
    const before = marksOf(marks).length;
    expectRefused(run('git', ['commit', '-q', '-m', 'out of scope'], wt), 'not authorized to edit docs/out.md');
    expect(marksOf(marks).slice(before)).toEqual(['team-pre-commit']);
    git(wt, 'rm', '-q', '--cached', 'docs/out.md');
    // Back to intent's block alone (`intent init` rewrites a file it created): ours go at the next hook.
    for (const h of ['pre-commit', 'commit-msg']) rmSync(join(repo, '.git', 'hooks', h));
    expect(intent(repo, ['init']).status).toBe(0);
    commit(wt, 3);
    expect(here(repo, 'pre-commit')).toBe(false);
    expect(here(repo, 'commit-msg')).toBe(false);
    expect(commit(wt, 4)).toEqual(['prepare-commit-msg', ...GUARD, 'post-commit']);
  });

  it('.git/hooks: a post-index-change the team adds runs from the first hook after it on; removed, ours goes too', () => {
    const { repo, wt, marks } = setup();
    const own = join(repo, '.git', 'hooks', 'post-index-change');
    // Not executable: git would not run it, nor do we.
    markingHook(own, marks, 'post-index-change', 0o644);
    commit(wt, 1);
    expect(here(repo, 'post-index-change')).toBe(false);
    chmodSync(own, 0o755);
    // No hook has run since: `git add` runs none, so not yet.
    expect(add(wt, 2)).toEqual([]);
    expect(marksOf(marks)).toEqual([]);
    // The commit's prepare-commit-msg (the first hook) puts ours in; every index write from then on runs it.
    expect(hooksRun(wt, ['commit', '-q', '-m', 'change 2'])).toContain('prepare-commit-msg');
    expect(existsSync(join(folder(repo), 'post-index-change'))).toBe(true);
    expect(doctorFolder(repo).ok).toBe(true);
    const before = marksOf(marks).length;
    expect(add(wt, 3)).toEqual(['post-index-change']);
    expect(marksOf(marks)).toHaveLength(before + 1);
    commit(wt, 4);
    expect(marksOf(marks).length).toBeGreaterThan(before + 1);
    expect(marksOf(marks).every((m) => m === 'post-index-change')).toBe(true);

    // Removed: the next hook takes ours (and its link) out; git add runs no hook again.
    rmSync(own);
    const n = marksOf(marks).length;
    expect(add(wt, 5)).toEqual(['post-index-change']);
    expect(marksOf(marks)).toHaveLength(n);
    hooksRun(wt, ['commit', '-q', '-m', 'change 5']);
    expect(here(repo, 'post-index-change')).toBe(false);
    expect(add(wt, 6)).toEqual([]);
    expect(commit(wt, 7)).not.toContain('post-index-change');
    expect(marksOf(marks)).toHaveLength(n);
  });

  it('a core.hooksPath folder in the work tree: the same, and intent doctor --fix adds it at once', () => {
    const { repo, wt, marks } = setup();
    git(repo, 'config', 'core.hooksPath', '.githooks');
    markingHook(join(repo, '.githooks', 'post-index-change'), marks, 'githooks-post-index-change');
    // Before any hook ran: doctor names it, --fix puts it in.
    const check = doctorFolder(repo);
    expect(check.ok).toBe(false);
    expect(check.message).toContain('lacks post-index-change, which the repository\'s own hooks folder has');
    expect(intent(repo, ['doctor', '--fix']).status).toBe(0);
    expect(doctorFolder(repo).ok).toBe(true);
    expect(add(wt, 1)).toEqual(['post-index-change']);
    expect(marksOf(marks)).toEqual(['githooks-post-index-change']);
    // Another of those hooks, added: the next hook of any kind (here a commit's) puts it in.
    markingHook(join(repo, '.githooks', 'post-checkout'), marks, 'githooks-post-checkout');
    commit(wt, 2);
    expect(hooksRun(wt, ['checkout', '-q', '-b', 'side'])).toContain('post-checkout');
    expect(marksOf(marks)).toContain('githooks-post-checkout');
  });

  it('husky: its stubs are passed on to (post-checkout runs .husky/post-checkout), and a post-index-change it gains is followed', () => {
    const { repo, wt, marks } = setup();
    const r = run(process.execPath, [join(PKG_ROOT, 'node_modules', 'husky', 'bin.js')], repo);
    expect(r.status, r.stderr).toBe(0);
    expect(git(repo, 'config', 'core.hooksPath').trim()).toBe('.husky/_');
    expect(intent(repo, ['init']).status).toBe(0);
    markingHook(join(repo, '.husky', 'post-checkout'), marks, 'husky-post-checkout');
    commit(wt, 1);
    // husky writes stubs for these (not post-index-change): ours pass on to them.
    for (const h of ['post-checkout', 'pre-rebase', 'applypatch-msg', 'pre-auto-gc']) expect(existsSync(join(folder(repo), h)), h).toBe(true);
    expect(existsSync(join(folder(repo), 'post-index-change'))).toBe(false);
    expect(hooksRun(wt, ['checkout', '-q', '-b', 'side'])).toContain('post-checkout');
    expect(marksOf(marks)).toEqual(['husky-post-checkout']);
    // A husky-like stub for post-index-change, and the team's script it runs.
    writeFileSync(join(repo, '.husky', '_', 'post-index-change'), '#!/usr/bin/env sh\n. "$(dirname "$0")/h"', { mode: 0o755 });
    markingHook(join(repo, '.husky', 'post-index-change'), marks, 'husky-post-index-change');
    commit(wt, 2);
    expect(add(wt, 3)).toEqual(['post-index-change']);
    expect(marksOf(marks)).toContain('husky-post-index-change');
  });

  it('an installer writing into the folder is still found: its post-index-change is moved aside (the commit then checked, not refused blind), one deleting ours is undone', () => {
    const { repo, wt, marks } = setup();
    // An installer's post-index-change where the repository has none.
    markingHook(join(folder(repo), 'post-index-change'), marks, 'installer');
    writeFiles(wt, { 'src/a.ts': 'export const a = 1;\n' });
    git(wt, 'add', 'src/a.ts');
    const restored = run('git', ['commit', '-q', '-m', 'change 1'], wt);
    expect(restored.status, restored.stderr).toBe(0);
    expect(restored.stderr).toContain('were changed by another installer');
    expect(restored.stderr).toContain('post-index-change');
    expect(restored.stderr).toContain('checks this commit now');
    expect(here(repo, 'post-index-change')).toBe(false);
    expect(readdirSync(join(repo, '.git', 'intent', 'hooks.displaced')).some((f) => f.startsWith('post-index-change.'))).toBe(true);
    // The same with an out-of-scope path staged: checked, and refused as such.
    markingHook(join(folder(repo), 'post-index-change'), marks, 'installer');
    writeFiles(wt, { 'docs/out.md': 'out\n' });
    git(wt, 'add', 'docs/out.md');
    const outside = run('git', ['commit', '-q', '-m', 'outside'], wt);
    expectRefused(outside, 'not authorized to edit docs/out.md', 'an out-of-scope commit after an installer wrote into the folder');
    expect(outside.stderr).toContain('were changed by another installer');
    git(wt, 'reset', '-q', 'HEAD', '--', 'docs/out.md');
    rmSync(join(wt, 'docs/out.md'));
    add(wt, 11);
    expect(hooksRun(wt, ['commit', '-q', '-m', 'change 11'])).toContain('prepare-commit-msg');
    // One that replaces the hook of intent's that checks a commit: the guard (reference-transaction)
    // finds the folder changed before the branch moves, restores it and checks the commit: the
    // out-of-scope one is refused and never on the branch (lib/hooks/ref-check.ts).
    rmSync(join(folder(repo), 'prepare-commit-msg'));
    writeFileSync(join(folder(repo), 'prepare-commit-msg'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    writeFiles(wt, { 'docs/sneaked.md': 'out\n' });
    git(wt, 'add', 'docs/sneaked.md');
    const head = git(wt, 'rev-parse', 'HEAD');
    const guarded = run('git', ['commit', '-q', '-m', 'change 2'], wt);
    expectRefused(guarded, 'not authorized to edit docs/sneaked.md', 'the commit the guard checked');
    expect(guarded.stderr).toContain('were changed by another installer: prepare-commit-msg');
    expect(guarded.stderr).toContain('was made without intent\'s check');
    expect(git(wt, 'rev-parse', 'HEAD')).toBe(head);
    expect(readFileSync(join(folder(repo), 'prepare-commit-msg'), 'utf8')).toContain('intent_hook_run');
    writeFiles(wt, { 'docs/sneaked.md': 'again\n' });
    git(wt, 'add', 'docs/sneaked.md');
    expectRefused(run('git', ['commit', '-q', '-m', 'change 2b'], wt), 'not authorized to edit docs/sneaked.md');
    git(wt, 'reset', '-q', 'HEAD', '--', 'docs/sneaked.md');
    add(wt, 2);
    expect(hooksRun(wt, ['commit', '-q', '-m', 'change 2'])).toContain('prepare-commit-msg');

    // One that deletes ours while the repository has one: the next hook puts it back (nothing refused).
    markingHook(join(repo, '.git', 'hooks', 'post-index-change'), marks, 'own');
    commit(wt, 3);
    rmSync(join(folder(repo), 'post-index-change'));
    commit(wt, 4);
    expect(existsSync(join(folder(repo), 'post-index-change'))).toBe(true);
    const n = marksOf(marks).filter((m) => m === 'own').length;
    add(wt, 5);
    expect(marksOf(marks).filter((m) => m === 'own')).toHaveLength(n + 1);
    // With our post-index-change there, the next index write (git add) finds a replaced prepare-commit-msg
    // and restores it before any commit: intent's check runs.
    rmSync(join(folder(repo), 'prepare-commit-msg'));
    writeFileSync(join(folder(repo), 'prepare-commit-msg'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    writeFiles(wt, { 'docs/out.md': 'out\n' });
    const staged = run('git', ['add', 'docs/out.md'], wt);
    expect(staged.status).toBe(0);
    expect(staged.stderr).toContain('were changed by another installer: prepare-commit-msg');
    expect(readFileSync(join(folder(repo), 'prepare-commit-msg'), 'utf8')).toContain('intent_hook_run');
    expectRefused(run('git', ['commit', '-q', '-m', 'out of scope'], wt), 'not authorized to edit docs/out.md');
  });

  it('two intent worktrees committing at once after the team added one: both commits go through, the folder ends in line', async () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }, { id: 'INT-002', scope: ['lib/**'] }]);
    const wt1 = checkoutIntent(repo, 'INT-001');
    const r2 = intent(repo, ['checkout', 'INT-002', '--json']);
    expect(r2.status, r2.stderr).toBe(0);
    const wt2 = (JSON.parse(r2.stdout) as { path: string }).path;
    const marks = join(tempDir('intent-marks-'), 'marks');
    markingHook(join(repo, '.git', 'hooks', 'post-index-change'), marks, 'own');
    writeFiles(wt1, { 'src/a.ts': 'a\n' });
    writeFiles(wt2, { 'lib/b.ts': 'b\n' });
    git(wt1, 'add', '-A');
    git(wt2, 'add', '-A');
    const [c1, c2] = await Promise.all([spawnAsync('git', ['commit', '-q', '-m', 'one'], wt1), spawnAsync('git', ['commit', '-q', '-m', 'two'], wt2)]);
    expect(c1.code, c1.stderr).toBe(0);
    expect(c2.code, c2.stderr).toBe(0);
    expect(`${c1.stderr}${c2.stderr}`).not.toMatch(/another installer|WARNING/);
    expect(doctorFolder(repo).ok).toBe(true);
    expect(add(wt2, 1)).toEqual(['post-index-change']);
  });
});
