import { appendFileSync, chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectRefused, git, hookServersStoppedAfterEach, servedIntent, servedLines, intent, noteOf, run, tempDir, until, writeFiles } from '../helpers.js';

// What the hook server reads ahead between the check (prepare-commit-msg in intent worktrees) and post-commit (lib/hooks/prefetch.ts):
// real commits through the installed hooks and the server. The note of a commit recorded from
// what was read ahead is the note post-commit writes on its own (in its own node) for that commit,
// and one that is not the commit the work was read for (an amend) is recorded from git's own diff of it.

// Each test's servers leave with its repositories (checked every second); stop them now.
const servers = hookServersStoppedAfterEach();

function setup(): { repo: string; wt: string; trace: string; env: Record<string, string> } {
  return servedIntent({
    'src/a.ts': 'export const a = 1;\n', 'src/old.ts': 'export const old = 1;\n', 'src/gone.md': 'bye\n', 'README.md': '# t\n',
  }, 'intent-read-ahead-');
}

/** The requests the server traced for `hook`, in order. */
const traced = (trace: string, hook: string) => servedLines<{ server: number; code: number; readAhead?: boolean; stagedInProcess?: boolean }>(trace, hook, servers);
const postCommits = (trace: string) => traced(trace, 'post-commit');

/** The parts of HEAD's note that are the same for two recordings of one commit. */
function stable(wt: string): unknown {
  const n = noteOf(wt)!;
  const { id: _id, timestamp: _t, ...rest } = n.record;
  return { summary: n.summary, rest };
}

/** Records HEAD again as post-commit does in its own node (no server, no read-ahead). */
function recordUnserved(repo: string, wt: string): void {
  const r = run(join(repo, '.git', 'intent', 'bin', 'hook'), ['post-commit'], wt, { INTENT_HOOK_SERVER: '0' });
  expect(r.status, r.stderr).toBe(0);
}

describe('reading ahead for post-commit in the hook server', () => {
  it('records every kind of change from what was read ahead, exactly as post-commit does on its own', async () => {
    const { repo, wt, trace, env } = setup();
    // The first commit starts the server; the next ones are served.
    writeFiles(wt, { 'src/a.ts': 'export const a = 2;\n' });
    git(wt, 'add', '-A');
    expect(run('git', ['commit', '-q', '-m', 'start'], wt, env).status).toBe(0);
    const steps: [string, () => void][] = [
      ['modify', () => writeFiles(wt, { 'src/a.ts': 'export const a = 3;\nexport const b = 4;\n' })],
      ['add, no newline at the end', () => writeFiles(wt, { 'src/new file ü.ts': 'export const n = 1;' })],
      ['delete', () => run('git', ['rm', '-q', 'src/gone.md'], wt)],
      ['rename', () => run('git', ['mv', 'src/old.ts', 'src/renamed.ts'], wt)],
      ['binary', () => writeFileSync(join(wt, 'src', 'blob.bin'), Buffer.from([0, 1, 2, 0, 255, 10]))],
      ['mode', () => chmodSync(join(wt, 'src', 'a.ts'), 0o755)],
      ['comment only', () => writeFiles(wt, { 'src/a.ts': '// a comment\nexport const a = 3;\nexport const b = 4;\n' })],
      ['rename a local', () => writeFiles(wt, { 'src/f.ts': 'export function f(x: number) {\n  const y = x + 1;\n  return y;\n}\n' })],
      ['rename a local (refactor)', () => writeFiles(wt, { 'src/f.ts': 'export function f(x: number) {\n  const next = x + 1;\n  return next;\n}\n' })],
      ['same tokens, new behaviour', () => writeFiles(wt, { 'src/f.ts': 'export function f(x: number) {\n  const next = x - 1;\n  return next;\n}\n' })],
    ];
    const classes: Record<string, string> = {};
    for (const [name, change] of steps) {
      const before = postCommits(trace).length;
      change();
      git(wt, 'add', '-A');
      const classTrace = join(tempDir('intent-read-ahead-classes-'), 'classes.jsonl');
      const c = run('git', ['commit', '-q', '-m', name], wt, { ...env, INTENT_CLASSIFY_TRACE: classTrace });
      expect(c.status, c.stderr).toBe(0);
      expect(c.stderr, name).not.toMatch(/WARNING/);
      await until(() => postCommits(trace).length > before, `the server traced the post-commit of "${name}"`);
      expect(postCommits(trace).at(-1)!.readAhead, `${name}: recorded from what was read ahead`).toBe(true);
      // From the second served commit on, pre-commit read the staged paths from the index in-process.
      if (name !== 'modify') expect(traced(trace, 'prepare-commit-msg').at(-1)!.stagedInProcess, `${name}: staged paths in-process`).toBe(true);
      const served = stable(wt);
      classes[name] = noteOf(wt)!.record.metadata['dev.intent'].mutation_class;
      const outcomes = existsSync(classTrace) ? readFileSync(classTrace, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l).outcome) : [];
      // A change that only reformats is settled in the server by its parse trees; a refactor-like
      // one by the syntax comparison, in the server too (no other process).
      if (name === 'comment only') expect(outcomes).toEqual(['same-tree']);
      if (name === 'modify') expect(outcomes).toEqual(['no-syntax']);
      if (name === 'rename a local (refactor)') expect(outcomes).toEqual(['syntax']);
      recordUnserved(repo, wt);
      expect(stable(wt), name).toEqual(served);
    }
    // The classes, the syntax comparison's included (decided in the read-ahead).
    expect(classes['comment only']).toBe('AST_REFACTOR');
    expect(classes['rename a local (refactor)']).toBe('AST_REFACTOR');
    expect(classes['same tokens, new behaviour']).toBe('INTENT_EVOLUTION');
    expect(classes.modify).toBe('INTENT_EVOLUTION');
    // `commit -a`: git commits from a temporary index, gone by post-commit; the server kept its own.
    const before = postCommits(trace).length;
    writeFiles(wt, { 'src/a.ts': 'export const a = 9;\n' });
    const all = run('git', ['commit', '-q', '-a', '-m', 'with -a'], wt, env);
    expect(all.status, all.stderr).toBe(0);
    await until(() => postCommits(trace).length > before, 'the server traced the post-commit of commit -a');
    expect(postCommits(trace).at(-1)!.readAhead).toBe(true);
    const served = stable(wt);
    recordUnserved(repo, wt);
    expect(stable(wt)).toEqual(served);
    const v = intent(repo, ['verify']);
    expect(v.status, v.stdout + v.stderr).toBe(0);
  });

  it('staged paths read in-process still refuse what leaves the scope, in the index git commits from (commit -a, commit -- path)', async () => {
    const { repo, wt, trace, env } = setup();
    for (const [i, v] of [[1, 2], [2, 3], [3, 4]]) {
      writeFiles(wt, { 'src/a.ts': `export const a = ${v};\n` });
      git(wt, 'add', '-A');
      expect(run('git', ['commit', '-q', '-m', `in scope ${i}`], wt, env).status).toBe(0);
      if (i === 1) await until(() => existsSync(join(repo, '.git', 'intent', 'server', 'pid')), 'the server runs');
    }
    await until(() => traced(trace, 'prepare-commit-msg').length > 0, 'a served prepare-commit-msg');
    expect(traced(trace, 'prepare-commit-msg').at(-1)!.stagedInProcess).toBe(true);
    const head = git(wt, 'rev-parse', 'HEAD').trim();
    // Staged outside the scope: refused, whichever index git names.
    writeFiles(wt, { 'README.md': '# changed\n', 'src/a.ts': 'export const a = 5;\n' });
    git(wt, 'add', 'README.md');
    const plain = run('git', ['commit', '-q', '-m', 'out'], wt, env);
    expect(plain.status).not.toBe(0);
    expect(plain.stderr).toMatch(/README\.md/);
    git(wt, 'reset', '-q', 'README.md');
    const all = run('git', ['commit', '-q', '-a', '-m', 'out -a'], wt, env);
    expect(all.status).not.toBe(0);
    expect(all.stderr).toMatch(/README\.md/);
    const paths = run('git', ['commit', '-q', '-m', 'out --', '--', 'README.md'], wt, env);
    expect(paths.status).not.toBe(0);
    expect(paths.stderr).toMatch(/README\.md/);
    expect(git(wt, 'rev-parse', 'HEAD').trim()).toBe(head);
    // And the in-scope part alone goes through, its paths read in-process.
    const ok = run('git', ['commit', '-q', '-m', 'in -- path', '--', 'src/a.ts'], wt, env);
    expect(ok.status, ok.stderr).toBe(0);
    expect(traced(trace, 'prepare-commit-msg').at(-1)!.stagedInProcess).toBe(true);
    expect(git(wt, 'show', '--name-only', '--format=', 'HEAD').trim()).toBe('src/a.ts');
  });

  it('the team\'s pre-commit staging more (it runs before intent\'s check): the commit is refused once when it is new, then recorded with what it staged', async () => {
    const { repo, wt, trace, env } = setup();
    writeFiles(wt, { 'src/a.ts': 'export const a = 2;\n' });
    git(wt, 'add', '-A');
    expect(run('git', ['commit', '-q', '-m', 'start'], wt, env).status).toBe(0);
    await until(() => existsSync(join(repo, '.git', 'intent', 'server', 'pid')), 'the server runs');
    // The repository's own pre-commit (intent's block, then the team's line) stages one more file.
    appendFileSync(join(repo, '.git', 'hooks', 'pre-commit'), '\necho "export const late = 1;" > src/late.ts && git add src/late.ts\n');
    writeFiles(wt, { 'src/a.ts': 'export const a = 5;\n' });
    git(wt, 'add', '-A');
    // git had passed pre-commit when prepare-commit-msg found it new: refused once.
    expectRefused(run('git', ['commit', '-q', '-m', 'with a late file'], wt, env), 'pre-commit hook is new to intent worktrees and did not run for this commit');
    const before = postCommits(trace).length;
    const c = run('git', ['commit', '-q', '-m', 'with a late file'], wt, env);
    expect(c.status, c.stderr).toBe(0);
    expect(git(wt, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n').sort()).toEqual(['src/a.ts', 'src/late.ts']);
    await until(() => postCommits(trace).length > before, 'the server traced the post-commit');
    expect(noteOf(wt)!.record.files.map((f: { path: string }) => f.path).sort()).toEqual(['src/a.ts', 'src/late.ts']);
    const served = stable(wt);
    recordUnserved(repo, wt);
    expect(stable(wt)).toEqual(served);
  });

  it('an amend right after a served commit (the same tree, another parent) is recorded from git\'s diff of it, and so is the next commit', async () => {
    const { repo, wt, trace, env } = setup();
    for (const v of [2, 3]) {
      writeFiles(wt, { 'src/a.ts': `export const a = ${v};\n` });
      git(wt, 'add', '-A');
      expect(run('git', ['commit', '-q', '-m', `in scope ${v}`], wt, env).status).toBe(0);
      if (v === 2) await until(() => existsSync(join(repo, '.git', 'intent', 'server', 'pid')), 'the server runs');
    }
    const first = git(wt, 'rev-parse', 'HEAD').trim();
    // The amend's index is the tree of HEAD: the read-ahead's tree, with HEAD as its parent; the
    // commit's parent is HEAD's parent, so the diff read ahead (against HEAD: nothing) is not its.
    const before = postCommits(trace).length;
    const amend = run('git', ['commit', '-q', '--amend', '-m', 'amended'], wt, env);
    expect(amend.status, amend.stderr).toBe(0);
    await until(() => postCommits(trace).length > before, 'the server traced the post-commit of the amend');
    expect(git(wt, 'rev-parse', 'HEAD^{tree}').trim()).toBe(git(wt, 'rev-parse', `${first}^{tree}`).trim());
    expect(postCommits(trace).at(-1)!.readAhead).toBe(false);
    expect(noteOf(wt)!.record.files.map((f: { path: string }) => f.path)).toEqual(['src/a.ts']);
    const served = stable(wt);
    recordUnserved(repo, wt);
    expect(stable(wt)).toEqual(served);
    // The next commit: its staged paths from git (HEAD's flat tree was not kept), out of scope refused.
    writeFiles(wt, { 'README.md': '# changed\n' });
    git(wt, 'add', 'README.md');
    const out = run('git', ['commit', '-q', '-m', 'out'], wt, env);
    expect(out.status).not.toBe(0);
    expect(out.stderr).toMatch(/README\.md/);
  });
});
