// The pre-commit (and post-commit) hooks as installed by the real `intent init`, driven by real
// `git commit` in real repositories and in linked worktrees made by the real `intent checkout`.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  bypassCommit,
  checkoutIntent,
  git,
  governedRepo,
  ledgerLines,
  noteCount,
  noteOf,
  refusedCommit,
  registryYaml,
  run,
  writeFiles,
  type Run,
} from '../helpers.js';

const NO_INTENT = 'You must cite a valid active Intent ID.';
const violation = (path: string, id = 'INT-001'): string => `Scope Violation: ${id} is not authorized to edit ${path}`;

type Env = Record<string, string | undefined>;

function head(cwd: string): string {
  return git(cwd, 'rev-parse', 'HEAD').trim();
}


/** The `Scope Violation:` lines of a hook's output, in order. */
function violationLines(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l.startsWith('Scope Violation:'));
}

/**
 * Runs `git commit <args>` in `cwd` and asserts git refused it: non-zero exit, HEAD unchanged,
 * no new note, no new ledger line in the main worktree `repo`. Returns git's stderr.
 */
function refused(repo: string, cwd: string, args: string[], env: Env = {}): string {
  return refusedCommit(cwd, args, { repo, env });
}

/**
 * Runs `git commit <args>` in `cwd` and asserts it was made. With `governed` the new commit has
 * a note naming `intentId` and the ledger grew by one line; without, neither happened.
 */
function committed(repo: string, cwd: string, args: string[], env: Env = {}, governed: string | null = 'INT-001'): Run {
  const before = { head: head(cwd), notes: noteCount(cwd), ledger: ledgerLines(repo).length };
  const r = run('git', ['commit', ...args], cwd, env);
  expect(r.status, `git commit ${args.join(' ')} should succeed:\n${r.stdout}${r.stderr}`).toBe(0);
  expect(r.stderr).not.toContain('WARNING');
  const after = head(cwd);
  expect(after).not.toBe(before.head);
  if (governed) {
    const note = noteOf(cwd, after);
    expect(note, 'the new commit has a note').not.toBeNull();
    expect(note!.summary.startsWith(`${governed} `)).toBe(true);
    expect(note!.record.vcs.revision).toBe(after);
    expect(note!.record.metadata['dev.intent'].scope_violations).toEqual([]);
    expect(ledgerLines(repo)).toHaveLength(before.ledger + 1);
  } else {
    expect(noteOf(cwd, after)).toBeNull();
    expect(noteCount(cwd)).toBe(before.notes);
    expect(ledgerLines(repo)).toHaveLength(before.ledger);
  }
  return r;
}

/** Paths changed by commit `rev` (against its first parent). */
function changedIn(cwd: string, rev = 'HEAD'): string[] {
  return git(cwd, 'diff-tree', '-z', '--no-commit-id', '--name-only', '-r', '--no-renames', `${rev}^`, rev)
    .split('\0')
    .filter(Boolean)
    .sort();
}

/** Staged paths of the worktree's own index. */
function staged(cwd: string): string[] {
  return git(cwd, 'diff', '-z', '--cached', '--name-only').split('\0').filter(Boolean).sort();
}

const BASE_FILES = {
  'README.md': '# test\n',
  'src/auth/a.ts': 'export const a = 1;\n',
  'src/auth/b.ts': 'export const b = 1;\n',
  'src/other.ts': 'export const other = 1;\n',
  'docs/guide.md': '# guide\n',
};

/** A governed repository with INT-001 owning src/auth/** and its worktree checked out. */
function authRepo(scope: string[] = ['src/auth/**'], extra: Record<string, string> = {}): { repo: string; wt: string } {
  const repo = governedRepo([{ id: 'INT-001', name: 'JWT Authentication Migration', scope }], { ...BASE_FILES, ...extra });
  const wt = checkoutIntent(repo, 'INT-001');
  return { repo, wt };
}

describe('pre-commit in an intent worktree: the ways of committing', () => {
  it('git commit -a: in scope is recorded; out of scope is refused, every offending path listed once', () => {
    const { repo, wt } = authRepo();
    writeFiles(wt, { 'src/auth/a.ts': 'export const a = 2;\n' });
    committed(repo, wt, ['-q', '-a', '-m', 'in scope']);
    expect(changedIn(wt)).toEqual(['src/auth/a.ts']);

    writeFiles(wt, {
      'src/auth/a.ts': 'export const a = 3;\n',
      'src/other.ts': 'export const other = 2;\n',
      'docs/guide.md': '# guide, changed\n',
    });
    const err = refused(repo, wt, ['-q', '-a', '-m', 'mixed']);
    expect(violationLines(err).sort()).toEqual([violation('docs/guide.md'), violation('src/other.ts')]);
    expect(err).not.toContain('edit src/auth/a.ts');
    // `commit -a` used a temporary index: the worktree's own index is untouched.
    expect(staged(wt)).toEqual([]);
  });

  it('git commit -- <path>: only the named paths are checked, with the temporary index git uses', () => {
    const { repo, wt } = authRepo();
    // An out-of-scope file is staged, but the partial commit names only an in-scope path.
    writeFiles(wt, { 'src/other.ts': 'export const other = 2;\n', 'src/auth/a.ts': 'export const a = 2;\n' });
    git(wt, 'add', 'src/other.ts');
    committed(repo, wt, ['-q', '-m', 'partial, in scope', '--', 'src/auth/a.ts']);
    expect(changedIn(wt)).toEqual(['src/auth/a.ts']);
    expect(staged(wt)).toEqual(['src/other.ts']);

    // The reverse: an in-scope change is staged, but the commit names the out-of-scope path.
    git(wt, 'restore', '--staged', 'src/other.ts');
    writeFiles(wt, { 'src/auth/b.ts': 'export const b = 2;\n' });
    git(wt, 'add', 'src/auth/b.ts');
    const err = refused(repo, wt, ['-q', '-m', 'partial, out of scope', '--', 'src/other.ts']);
    expect(violationLines(err)).toEqual([violation('src/other.ts')]);
    // `--only` spelled out behaves the same; `--include` adds the named path to what is staged.
    refused(repo, wt, ['-q', '-m', 'only', '--only', 'src/other.ts']);
    const inc = refused(repo, wt, ['-q', '-m', 'include', '--include', 'src/other.ts']);
    expect(violationLines(inc)).toEqual([violation('src/other.ts')]);
    expect(staged(wt)).toEqual(['src/auth/b.ts']);
  });

  it('git add + git commit: staged in-scope changes pass, a staged new out-of-scope file is refused', () => {
    const { repo, wt } = authRepo();
    writeFiles(wt, { 'src/auth/new.ts': 'export const n = 1;\n' });
    git(wt, 'add', 'src/auth/new.ts');
    committed(repo, wt, ['-q', '-m', 'add in scope']);
    expect(changedIn(wt)).toEqual(['src/auth/new.ts']);

    writeFiles(wt, { 'src/new-outside.ts': 'x\n', 'src/auth/c.ts': 'c\n' });
    git(wt, 'add', '-A');
    const err = refused(repo, wt, ['-q', '-m', 'add out of scope']);
    expect(violationLines(err)).toEqual([violation('src/new-outside.ts')]);
  });

  it('git commit --amend: adding an out-of-scope file is refused, amending in scope is recorded', () => {
    const { repo, wt } = authRepo();
    writeFiles(wt, { 'src/auth/a.ts': 'export const a = 2;\n' });
    committed(repo, wt, ['-q', '-a', '-m', 'first']);
    const first = head(wt);

    writeFiles(wt, { 'src/other.ts': 'export const other = 2;\n' });
    git(wt, 'add', 'src/other.ts');
    const err = refused(repo, wt, ['-q', '--amend', '--no-edit']);
    expect(violationLines(err)).toEqual([violation('src/other.ts')]);
    expect(head(wt)).toBe(first);

    git(wt, 'restore', '--staged', 'src/other.ts');
    git(wt, 'checkout', '--', 'src/other.ts');
    writeFiles(wt, { 'src/auth/b.ts': 'export const b = 2;\n' });
    git(wt, 'add', 'src/auth/b.ts');
    committed(repo, wt, ['-q', '--amend', '--no-edit']);
    expect(head(wt)).not.toBe(first);
    expect(changedIn(wt)).toEqual(['src/auth/a.ts', 'src/auth/b.ts']);
    const files = noteOf(wt)!.record.files.map((f: { path: string }) => f.path).sort();
    expect(files).toEqual(['src/auth/a.ts', 'src/auth/b.ts']);
  });
});

describe('pre-commit: renames, deletions, negations, .intentignore, .orchestration/', () => {
  it('checks both sides of a rename', () => {
    const { repo, wt } = authRepo();
    // In scope -> out of scope: the new path offends.
    git(wt, 'mv', 'src/auth/a.ts', 'src/a.ts');
    let err = refused(repo, wt, ['-q', '-m', 'move out of scope']);
    expect(violationLines(err)).toEqual([violation('src/a.ts')]);
    git(wt, 'reset', '-q', '--hard');

    // Out of scope -> into scope: the old path offends.
    git(wt, 'mv', 'src/other.ts', 'src/auth/other.ts');
    err = refused(repo, wt, ['-q', '-m', 'move into scope']);
    expect(violationLines(err)).toEqual([violation('src/other.ts')]);
    git(wt, 'reset', '-q', '--hard');

    // Out of scope -> out of scope: both sides offend.
    git(wt, 'mv', 'docs/guide.md', 'docs/manual.md');
    err = refused(repo, wt, ['-q', '-m', 'move outside']);
    expect(violationLines(err).sort()).toEqual([violation('docs/guide.md'), violation('docs/manual.md')]);
    git(wt, 'reset', '-q', '--hard');

    // A rename inside the scope is fine.
    git(wt, 'mv', 'src/auth/a.ts', 'src/auth/renamed.ts');
    committed(repo, wt, ['-q', '-m', 'move inside scope']);
    expect(changedIn(wt)).toEqual(['src/auth/a.ts', 'src/auth/renamed.ts']);
  });

  it('refuses deleting an out-of-scope file (git rm and commit -a) and allows deleting in scope', () => {
    const { repo, wt } = authRepo();
    git(wt, 'rm', '-q', 'src/other.ts');
    let err = refused(repo, wt, ['-q', '-m', 'delete out of scope']);
    expect(violationLines(err)).toEqual([violation('src/other.ts')]);
    git(wt, 'reset', '-q', '--hard');

    rmSync(join(wt, 'docs', 'guide.md'));
    err = refused(repo, wt, ['-q', '-a', '-m', 'delete via -a']);
    expect(violationLines(err)).toEqual([violation('docs/guide.md')]);
    git(wt, 'reset', '-q', '--hard');

    git(wt, 'rm', '-q', 'src/auth/b.ts');
    committed(repo, wt, ['-q', '-m', 'delete in scope']);
    expect(changedIn(wt)).toEqual(['src/auth/b.ts']);
  });

  it('honours "!" negations in owned_scope', () => {
    const { repo, wt } = authRepo(['src/auth/**', '!src/auth/legacy/**'], { 'src/auth/legacy/old.ts': 'old\n' });
    writeFiles(wt, { 'src/auth/legacy/old.ts': 'old, changed\n', 'src/auth/legacy/deep/new.ts': 'n\n' });
    git(wt, 'add', '-A');
    const err = refused(repo, wt, ['-q', '-m', 'negated']);
    expect(violationLines(err).sort()).toEqual([violation('src/auth/legacy/deep/new.ts'), violation('src/auth/legacy/old.ts')]);
    git(wt, 'reset', '-q', '--hard');
    git(wt, 'clean', '-qfd');

    // A sibling that merely starts with "legacy" is not under the negated folder.
    writeFiles(wt, { 'src/auth/legacy-adapter.ts': 'ok\n', 'src/auth/a.ts': 'export const a = 2;\n' });
    git(wt, 'add', '-A');
    committed(repo, wt, ['-q', '-m', 'in scope next to the negation']);
  });

  it('refuses the twins a folding checkout takes for excluded paths: an excluded folder in another case, .ORCHESTRATION/, a .git folder', () => {
    const { repo, wt } = authRepo(['src/auth/**', '!src/auth/legacy/**']);
    writeFiles(wt, { 'src/auth/LEGACY/key.ts': 'k\n', 'src/auth/Legacy/x.ts': 'x\n', '.ORCHESTRATION/active_intents.yaml': 'active_intents: []\n' });
    git(wt, 'add', '-A');
    const err = refused(repo, wt, ['-q', '-m', 'twins']);
    expect(violationLines(err).sort()).toEqual([violation('.ORCHESTRATION/active_intents.yaml'), violation('src/auth/LEGACY/key.ts'), violation('src/auth/Legacy/x.ts')]);
  });

  it(".intentignore in the main worktree's .orchestration/ exempts paths; the worktree's copy does not govern", () => {
    const { repo, wt } = authRepo(['src/auth/**'], { 'package-lock.json': '{}\n' });
    // The template lists package-lock.json.
    writeFiles(wt, { 'package-lock.json': '{"lockfileVersion":3}\n', 'src/auth/a.ts': 'export const a = 2;\n' });
    committed(repo, wt, ['-q', '-a', '-m', 'lockfile with an in-scope change']);
    expect(changedIn(wt)).toEqual(['package-lock.json', 'src/auth/a.ts']);

    // The main worktree's file governs: without the entry the lockfile is out of scope.
    writeFiles(repo, { '.orchestration/.intentignore': '# nothing exempt\nyarn.lock\n' });
    writeFiles(wt, { 'package-lock.json': '{"lockfileVersion":4}\n' });
    git(wt, 'add', 'package-lock.json');
    let err = refused(repo, wt, ['-q', '-m', 'lockfile, no longer exempt']);
    expect(violationLines(err)).toEqual([violation('package-lock.json')]);

    // Widening the intent worktree's own copy (not even staged) changes nothing.
    writeFiles(wt, { '.orchestration/.intentignore': 'package-lock.json\n**\n' });
    err = refused(repo, wt, ['-q', '-m', 'lockfile, worktree copy edited']);
    expect(violationLines(err)).toEqual([violation('package-lock.json')]);

    writeFiles(repo, { '.orchestration/.intentignore': 'package-lock.json\n' });
    committed(repo, wt, ['-q', '-m', 'lockfile exempt again']);
  });

  it('refuses any change under .orchestration/ from an intent worktree, even with scope "**" and an .intentignore entry', () => {
    const { repo, wt } = authRepo(['**']);
    writeFiles(repo, { '.orchestration/.intentignore': '.orchestration/**\n' });
    writeFiles(wt, {
      '.orchestration/active_intents.yaml': registryYaml([{ id: 'INT-001', status: 'IN_PROGRESS', scope: ['**'] }]),
      '.orchestration/AGENT.md': '# rewritten\n',
    });
    let err = refused(repo, wt, ['-q', '-a', '-m', 'widen my own scope']);
    expect(violationLines(err).sort()).toEqual([
      violation('.orchestration/AGENT.md'),
      violation('.orchestration/active_intents.yaml'),
    ]);
    git(wt, 'reset', '-q', '--hard');

    writeFiles(wt, { '.orchestration/new-file.md': 'x\n' });
    git(wt, 'add', '-A');
    err = refused(repo, wt, ['-q', '-m', 'add a file there']);
    expect(violationLines(err)).toEqual([violation('.orchestration/new-file.md')]);
    git(wt, 'reset', '-q', '--hard');
    git(wt, 'clean', '-qfd');

    git(wt, 'rm', '-q', '.orchestration/AGENT.md');
    err = refused(repo, wt, ['-q', '-m', 'delete there']);
    expect(violationLines(err)).toEqual([violation('.orchestration/AGENT.md')]);
    git(wt, 'reset', '-q', '--hard');

    // Everything else is in a "**" scope.
    writeFiles(wt, { 'docs/guide.md': '# anything goes\n', 'new/dir/file.txt': 'x\n' });
    git(wt, 'add', '-A');
    committed(repo, wt, ['-q', '-m', 'anything but .orchestration']);
  });
});

describe('pre-commit: unusual path names', () => {
  const inScope = [
    'src/auth/ünï cödé.ts',
    'src/auth/with space.ts',
    'src/auth/"quoted" name.ts',
    "src/auth/it's.ts",
    'src/auth/[brackets] (1) {x}.ts',
    'src/auth/tab\there.ts',
  ];
  const outOfScope = ['docs/ünï cödé.md', 'my file.txt', 'src/"quoted".ts', 'src/[weird] *star*?.ts', 'src/日本語/ファイル.ts'];

  it('matches and reports paths with spaces, unicode, quotes and brackets verbatim', () => {
    const { repo, wt } = authRepo();
    writeFiles(wt, Object.fromEntries(inScope.map((p) => [p, `${p}\n`])));
    git(wt, 'add', '-A');
    committed(repo, wt, ['-q', '-m', 'odd names in scope']);
    expect(changedIn(wt)).toEqual([...inScope].sort());
    const noted = noteOf(wt)!.record.files.map((f: { path: string }) => f.path).sort();
    expect(noted).toEqual([...inScope].sort());

    writeFiles(wt, Object.fromEntries([...outOfScope, 'src/auth/ünï cödé.ts'].map((p) => [p, `${p} changed\n`])));
    git(wt, 'add', '-A');
    const err = refused(repo, wt, ['-q', '-m', 'odd names out of scope']);
    expect(violationLines(err).sort()).toEqual(outOfScope.map((p) => violation(p)).sort());

    // Renaming an odd in-scope name to an odd out-of-scope name names the new side.
    git(wt, 'reset', '-q', '--hard');
    git(wt, 'clean', '-qfd');
    git(wt, 'mv', 'src/auth/"quoted" name.ts', 'src/ünï "moved" [1].ts');
    const mv = refused(repo, wt, ['-q', '-m', 'odd rename']);
    expect(violationLines(mv)).toEqual([violation('src/ünï "moved" [1].ts')]);
  });
});

describe('pre-commit in the main worktree', () => {
  it('allows a human commit without an intent; requireIntent refuses it; INTENT_ID enforces that intent', () => {
    const repo = governedRepo(
      [
        { id: 'INT-001', status: 'IN_PROGRESS', scope: ['src/auth/**'] },
        { id: 'INT-002', status: 'PENDING', scope: ['src/**'] },
      ],
      BASE_FILES,
    );
    // A human, no intent named, no config: allowed and not governed.
    writeFiles(repo, { 'src/other.ts': 'export const other = 2;\n' });
    committed(repo, repo, ['-q', '-a', '-m', 'human'], {}, null);

    // requireIntent in an uncommitted .intentrc.json at the main worktree's root.
    writeFiles(repo, { '.intentrc.json': '{ "requireIntent": true }\n', 'src/other.ts': 'export const other = 3;\n' });
    let err = refused(repo, repo, ['-q', '-a', '-m', 'human, intent required']);
    expect(err).toContain(NO_INTENT);
    expect(err).toContain('.intentrc.json');

    // INTENT_ID names the intent: its scope is enforced.
    err = refused(repo, repo, ['-q', '-a', '-m', 'named, out of scope'], { INTENT_ID: 'INT-001' });
    expect(violationLines(err)).toEqual([violation('src/other.ts')]);
    git(repo, 'checkout', '--', 'src/other.ts');
    writeFiles(repo, { 'src/auth/a.ts': 'export const a = 2;\n' });
    committed(repo, repo, ['-q', '-a', '-m', 'named, in scope'], { INTENT_ID: 'INT-001' });
    expect(changedIn(repo)).toEqual(['src/auth/a.ts']);

    // An intent that is not IN_PROGRESS, or not in the registry, is no valid active intent.
    writeFiles(repo, { 'src/auth/a.ts': 'export const a = 3;\n' });
    err = refused(repo, repo, ['-q', '-a', '-m', 'pending intent'], { INTENT_ID: 'INT-002' });
    expect(err).toContain(NO_INTENT);
    err = refused(repo, repo, ['-q', '-a', '-m', 'unknown intent'], { INTENT_ID: 'INT-999' });
    expect(err).toContain(NO_INTENT);
    expect(err).not.toContain('Scope Violation');

    // Committed, the setting still applies (the human commits it bypassing the hook).
    git(repo, 'checkout', '--', 'src/auth/a.ts');
    git(repo, 'add', '.intentrc.json');
    const bypass = run('git', ['commit', '-q', '--no-verify', '-m', 'require intents'], repo);
    expect(bypass.status).toBe(0);
    expect(git(repo, 'ls-files', '.intentrc.json').trim()).toBe('.intentrc.json');
    writeFiles(repo, { 'README.md': '# changed by a human\n' });
    err = refused(repo, repo, ['-q', '-a', '-m', 'human again']);
    expect(err).toContain(NO_INTENT);
    writeFiles(repo, { 'src/auth/b.ts': 'export const b = 2;\n' });
    git(repo, 'add', 'src/auth/b.ts');
    git(repo, 'checkout', '--', 'README.md');
    committed(repo, repo, ['-q', '-m', 'named again'], { INTENT_ID: 'INT-001' });
  });

  it('refuses commits from a linked worktree that belongs to no intent', () => {
    const repo = governedRepo([{ id: 'INT-001', status: 'IN_PROGRESS', scope: ['src/auth/**'] }], BASE_FILES);
    const plain = join(repo, '..', 'plain');
    git(repo, 'worktree', 'add', '-q', '-b', 'feature', plain);
    writeFiles(plain, { 'src/other.ts': 'export const other = 2;\n' });
    const err = refused(repo, plain, ['-q', '-a', '-m', 'no intent in a linked worktree']);
    expect(err).toContain(NO_INTENT);
  });
});

describe('pre-commit: which intent is active', () => {
  it('refuses INTENT_ID naming a different intent inside an intent worktree', () => {
    const repo = governedRepo(
      [
        { id: 'INT-001', scope: ['src/auth/**'] },
        { id: 'INT-002', scope: ['src/**'] },
      ],
      BASE_FILES,
    );
    const wt = checkoutIntent(repo, 'INT-001');
    checkoutIntent(repo, 'INT-002');
    writeFiles(wt, { 'src/auth/a.ts': 'export const a = 2;\n' });
    const err = refused(repo, wt, ['-q', '-a', '-m', 'wrong intent'], { INTENT_ID: 'INT-002' });
    expect(err).toContain(NO_INTENT);
    expect(err).not.toContain('Scope Violation');
    // Repeating the worktree's own intent is fine.
    committed(repo, wt, ['-q', '-a', '-m', 'own intent'], { INTENT_ID: 'INT-001' });
  });

  it('refuses commits once the main registry says the intent is not IN_PROGRESS, or no longer lists it', () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/auth/**'] }], BASE_FILES);
    const wt = checkoutIntent(repo, 'INT-001');
    writeFiles(wt, { 'src/auth/a.ts': 'export const a = 2;\n' });
    for (const status of ['COMPLETED', 'BLOCKED', 'ABANDONED', 'PENDING']) {
      writeFiles(repo, { '.orchestration/active_intents.yaml': registryYaml([{ id: 'INT-001', status, scope: ['src/auth/**'] }]) });
      const err = refused(repo, wt, ['-q', '-a', '-m', `while ${status}`]);
      expect(err).toContain(NO_INTENT);
      expect(err).toContain(status);
    }
    writeFiles(repo, { '.orchestration/active_intents.yaml': registryYaml([{ id: 'INT-002', status: 'IN_PROGRESS', scope: ['**'] }]) });
    const gone = refused(repo, wt, ['-q', '-a', '-m', 'intent removed']);
    expect(gone).toContain(NO_INTENT);

    writeFiles(repo, { '.orchestration/active_intents.yaml': registryYaml([{ id: 'INT-001', status: 'IN_PROGRESS', scope: ['src/auth/**'] }]) });
    committed(repo, wt, ['-q', '-a', '-m', 'in progress again']);
  });

  it("the main worktree's registry governs: the intent worktree's copy does not widen or break anything", () => {
    const { repo, wt } = authRepo();
    // Widen the scope in the worktree's copy (never staged: that alone would be refused).
    writeFiles(wt, { '.orchestration/active_intents.yaml': registryYaml([{ id: 'INT-001', status: 'IN_PROGRESS', scope: ['**'] }]) });
    writeFiles(wt, { 'src/other.ts': 'export const other = 2;\n' });
    git(wt, 'add', 'src/other.ts');
    const err = refused(repo, wt, ['-q', '-m', 'widened locally']);
    expect(violationLines(err)).toEqual([violation('src/other.ts')]);
    expect(err).toContain('INT-001 owns: src/auth/**');
    git(wt, 'restore', '--staged', 'src/other.ts');

    // Break the worktree's copy: in-scope commits still go through.
    writeFiles(wt, { '.orchestration/active_intents.yaml': 'active_intents: [ {{{ not yaml\n' });
    writeFiles(wt, { 'src/auth/a.ts': 'export const a = 2;\n' });
    git(wt, 'add', 'src/auth/a.ts');
    committed(repo, wt, ['-q', '-m', 'in scope with a broken local copy']);
  });

  it('a malformed registry in the main worktree blocks commits with a message naming the file and line', () => {
    const { repo, wt } = authRepo();
    const file = join(repo, '.orchestration', 'active_intents.yaml');
    // Line 4 is indented deeper than its siblings.
    writeFiles(repo, {
      '.orchestration/active_intents.yaml':
        'active_intents:\n  - id: "INT-001"\n    name: "JWT"\n      status: "IN_PROGRESS"\n    owned_scope: ["src/auth/**"]\n',
    });
    writeFiles(wt, { 'src/auth/a.ts': 'export const a = 2;\n' });
    const err = refused(repo, wt, ['-q', '-a', '-m', 'registry broken']);
    expect(err).toContain(`Invalid intent registry ${file}`);
    expect(err).not.toContain('internal error');
    expect(err).toMatch(new RegExp(`${escapeRe(file)}:4\\b`));
  });
});

describe('pre-commit fails closed', () => {
  it('blocks the commit when the registry cannot be read (a directory) or the config is broken', () => {
    const { repo, wt } = authRepo();
    writeFiles(wt, { 'src/auth/a.ts': 'export const a = 2;\n' });
    const file = join(repo, '.orchestration', 'active_intents.yaml');
    rmSync(file);
    mkdirSync(file);
    let err = refused(repo, wt, ['-q', '-a', '-m', 'registry is a directory']);
    expect(err).toMatch(/EISDIR|directory/);

    // No registry at all.
    rmSync(file, { recursive: true });
    err = refused(repo, wt, ['-q', '-a', '-m', 'registry missing']);
    expect(err).toContain(file);
    writeFiles(repo, { '.orchestration/active_intents.yaml': registryYaml([{ id: 'INT-001', status: 'IN_PROGRESS', scope: ['src/auth/**'] }]) });

    // A .intentignore that cannot be read.
    const ignore = join(repo, '.orchestration', '.intentignore');
    rmSync(ignore);
    mkdirSync(ignore);
    err = refused(repo, wt, ['-q', '-a', '-m', 'intentignore is a directory']);
    expect(err).toMatch(/EISDIR|directory/);
    rmSync(ignore, { recursive: true });

    // A configuration file that does not parse, or has an unknown key.
    writeFiles(repo, { '.intentrc.json': '{ "requireIntent": tru' });
    err = refused(repo, wt, ['-q', '-a', '-m', 'config broken']);
    expect(err).toContain('.intentrc.json');
    writeFiles(repo, { '.intentrc.json': '{ "requireIntnet": true }\n' });
    err = refused(repo, wt, ['-q', '-a', '-m', 'config unknown key']);
    expect(err).toContain('requireIntnet');
    rmSync(join(repo, '.intentrc.json'));

    committed(repo, wt, ['-q', '-a', '-m', 'all repaired']);
  });
});

describe('commits that get past the checks', () => {
  it('--no-verify does not skip the scope check in an intent worktree; a commit past every hook is recorded (intent repair) with the violation in the note and the ledger', () => {
    const { repo, wt } = authRepo();
    writeFiles(wt, { 'src/other.ts': 'export const other = 2;\n', 'src/auth/a.ts': 'export const a = 2;\n' });
    const before = head(wt);
    const refused = run('git', ['commit', '-q', '-a', '--no-verify', '-m', 'bypass'], wt);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('Scope Violation: INT-001 is not authorized to edit src/other.ts');
    expect(head(wt)).toBe(before);
    bypassCommit(wt, ['-q', '-a', '-m', 'bypass']);
    expect(head(wt)).not.toBe(before);
    const note = noteOf(wt);
    expect(note).not.toBeNull();
    expect(note!.record.vcs.revision).toBe(head(wt));
    expect(note!.record.metadata['dev.intent'].scope_violations).toEqual(['src/other.ts']);
    expect(note!.summary).toMatch(/^INT-001 JWT Authentication Migration · .*SCOPE VIOLATION: 1 path outside INT-001/);
    const ledger = ledgerLines(repo);
    expect(ledger).toHaveLength(1);
    expect(JSON.parse(ledger[0]).metadata['dev.intent'].scope_violations).toEqual(['src/other.ts']);

    // An .orchestration/ change bypassing the hook is recorded as a violation too, even with "**".
    writeFiles(wt, { '.orchestration/AGENT.md': '# sneaky\n' });
    bypassCommit(wt, ['-q', '-a', '-m', 'bypass 2']);
    expect(noteOf(wt)!.record.metadata['dev.intent'].scope_violations).toEqual(['.orchestration/AGENT.md']);
    expect(noteOf(wt)!.summary).toContain('SCOPE VIOLATION: 1 path outside INT-001');
  });
});

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
