// The in-process note writer (lib/git/notes-write.ts) against real git: what it writes is what
// `git notes add` writes (the same tree, in a fanned-out notes tree too), fsck finds nothing, and
// every case it must not take leaves the repository as it was and says so (the caller asks git).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readObjects } from '../../lib/git/blobs.js';
import { noteObjectNames, writeNoteInProcess, zlibStored } from '../../lib/git/notes-write.js';
import { git, run, tempDir } from '../helpers.js';

const REF = 'refs/notes/intents';
const IDENT = { author: 'T <t@t> 1800000100 +0000', committer: 'T <t@t> 1800000100 +0000' };
const GIT_IDENT = { GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@t', GIT_AUTHOR_DATE: '1800000100 +0000', GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@t', GIT_COMMITTER_DATE: '1800000100 +0000' };

/** A repository of `n` commits on main, each with a note (fast-import: git's own fan-out), plus one more note added by git (its reflog). */
function notedRepo(n: number): { repo: string; shas: string[] } {
  const repo = join(tempDir('intent-notes-write-'), 'repo');
  git(tempDir(), 'init', '-q', '-b', 'main', repo);
  let s = '';
  for (let i = 1; i <= n; i++) {
    s += `commit refs/heads/main\nmark :${i}\ncommitter T <t@t> ${1700000000 + i} +0000\ndata 3\nc${i % 10}\n${i > 1 ? `from :${i - 1}\n` : ''}M 100644 inline f\ndata ${String(i).length}\n${i}\n`;
  }
  s += `commit ${REF}\ncommitter T <t@t> 1800000000 +0000\ndata 2\nn\n`;
  for (let i = 1; i <= n; i++) s += `N inline :${i}\ndata 3\nx${i % 10}\n`;
  const r = run('git', ['fast-import', '--quiet'], repo, {}, s);
  expect(r.status, r.stderr).toBe(0);
  const shas = git(repo, 'rev-list', '--reverse', 'main').trim().split('\n');
  expect(run('git', ['notes', `--ref=${REF}`, 'add', '-f', '-m', 'by git', shas[0]], repo, GIT_IDENT).status).toBe(0);
  return { repo, shas };
}

/** A new commit on main (no note). */
function newCommit(repo: string, n: number): string {
  const tree = git(repo, 'rev-parse', 'main^{tree}').trim();
  const sha = run('git', ['commit-tree', tree, '-p', 'main', '-m', `new ${n}`], repo, GIT_IDENT).stdout.trim();
  git(repo, 'update-ref', 'refs/heads/main', sha);
  return sha;
}

const write = (repo: string, sha: string, text: string, env: NodeJS.ProcessEnv = {}) =>
  writeNoteInProcess(join(repo, '.git'), env, REF, sha, text, readObjects(repo, noteObjectNames(REF, sha)), IDENT);

/** The same note written by `git notes add -f` in a copy: the notes tree it makes. */
function gitsTree(repo: string, sha: string, text: string): string {
  const copy = join(tempDir('intent-notes-copy-'), 'repo');
  cpSync(repo, copy, { recursive: true });
  const file = join(copy, '..', 'note');
  writeFileSync(file, text);
  const r = run('git', ['notes', `--ref=${REF}`, 'add', '-f', '-F', file, sha], copy, GIT_IDENT);
  expect(r.status, r.stderr).toBe(0);
  return git(copy, 'rev-parse', `${REF}^{tree}`).trim();
}

function fsckClean(repo: string): void {
  const r = run('git', ['fsck', '--full', '--strict', '--no-dangling'], repo);
  expect(r.status, r.stderr + r.stdout).toBe(0);
  expect(r.stdout + r.stderr).toBe('');
}

describe('writing a note in-process', () => {
  it('adds and replaces notes in a fanned-out notes tree exactly as git notes add does', () => {
    const { repo, shas } = notedRepo(3000);
    expect(git(repo, 'ls-tree', REF).trim().split('\n').every((l) => /^040000 tree [0-9a-f]{40}\t[0-9a-f]{2}$/.test(l))).toBe(true);
    const fresh = newCommit(repo, 1);
    const before = git(repo, 'rev-parse', REF).trim();
    const text = '{"a note":"written in-process"}\n';
    const expected = gitsTree(repo, fresh, text);
    expect(write(repo, fresh, text)).toBe(true);
    expect(git(repo, 'rev-parse', `${REF}^{tree}`).trim()).toBe(expected);
    expect(git(repo, 'notes', `--ref=${REF}`, 'show', fresh)).toBe(text);
    expect(git(repo, 'log', '-1', '--format=%P|%an <%ae>|%s', REF).trim()).toBe(`${before}|T <t@t>|Notes added by 'git notes add'`);
    expect(git(repo, 'reflog', 'show', '--format=%H %gs', '-n', '1', REF).trim()).toBe(`${git(repo, 'rev-parse', REF).trim()} notes: Notes added by 'git notes add'`);
    expect(git(repo, 'notes', `--ref=${REF}`, 'list').trim().split('\n')).toHaveLength(3001);

    // A note replaced: the same tree as git's, no second entry for the commit.
    const old = shas[1234];
    const again = 'replaced\n';
    const expected2 = gitsTree(repo, old, again);
    expect(write(repo, old, again)).toBe(true);
    expect(git(repo, 'rev-parse', `${REF}^{tree}`).trim()).toBe(expected2);
    expect(git(repo, 'notes', `--ref=${REF}`, 'show', old)).toBe(again);
    expect(git(repo, 'ls-tree', '-r', '--name-only', REF).split('\n').filter((p) => p.replace('/', '') === old)).toHaveLength(1);
    expect(existsSync(join(repo, '.git', `${REF}.lock`))).toBe(false);
    fsckClean(repo);
  });

  it('a small notes tree (no fan-out) gets the note at its root, as git does', () => {
    const { repo } = notedRepo(20);
    const fresh = newCommit(repo, 1);
    const expected = gitsTree(repo, fresh, 'small\n');
    expect(write(repo, fresh, 'small\n')).toBe(true);
    expect(git(repo, 'rev-parse', `${REF}^{tree}`).trim()).toBe(expected);
    fsckClean(repo);
  });

  it('note by note through git\'s fan-out threshold: the same tree as git notes add after every note, never a flat tree that only grows', () => {
    // Two identical repositories: one gets each note as post-commit writes it (in-process, or git
    // where the writer declines), the other from `git notes add`.
    const { repo: ours } = notedRepo(10);
    const theirs = join(tempDir('intent-notes-theirs-'), 'repo');
    cpSync(ours, theirs, { recursive: true });
    let declined = 0;
    for (let i = 1; i <= 160; i++) {
      const sha = newCommit(ours, i);
      expect(newCommit(theirs, i)).toBe(sha);
      const text = `note ${i}\n`;
      if (!write(ours, sha, text)) {
        declined++;
        expect(run('git', ['notes', `--ref=${REF}`, 'add', '-f', '-m', `note ${i}`, sha], ours, GIT_IDENT).status).toBe(0);
      }
      expect(run('git', ['notes', `--ref=${REF}`, 'add', '-f', '-m', `note ${i}`, sha], theirs, GIT_IDENT).status).toBe(0);
      expect(git(ours, 'rev-parse', `${REF}^{tree}`).trim(), `after note ${i}`).toBe(git(theirs, 'rev-parse', `${REF}^{tree}`).trim());
    }
    // git fanned the tree out on the way (the writer handed that note to git), and the rest went in-process.
    expect(git(ours, 'ls-tree', REF).trim().split('\n').every((l) => l.startsWith('040000 tree '))).toBe(true);
    expect(declined).toBeGreaterThan(0);
    expect(declined).toBeLessThan(3);
    fsckClean(ours);
  });

  it('a writer killed while it held the notes ref\'s lock: the next one removes that lock (its mark names a dead process and the lock\'s commit); any other lock stays', () => {
    const { repo } = notedRepo(20);
    const lock = join(repo, '.git', REF + '.lock');
    const mark = join(repo, '.git', 'intent', 'notes-lock-owner');
    const planted = 'c'.repeat(40);
    // A pid that is gone (a process that has exited) and one that runs (this one).
    const dead = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }).stdout.trim();
    const plant = (pid: string, start: string, held: string) => {
      mkdirSync(join(repo, '.git', 'intent'), { recursive: true });
      writeFileSync(mark, `${pid} ${start}\n${lock}\n${planted}\n`);
      writeFileSync(lock, held);
    };
    // A live owner (this process, its real start time unknown here: '-'): not touched.
    plant(String(process.pid), '-', `${planted}\n`);
    const one = newCommit(repo, 1);
    expect(write(repo, one, 'live\n')).toBe(false);
    expect(existsSync(lock)).toBe(true);
    // A dead owner, but the lock holds another commit (a git process's): not touched.
    plant(dead, '-', `${'d'.repeat(40)}\n`);
    expect(write(repo, one, 'other\n')).toBe(false);
    expect(readFileSync(lock, 'utf8')).toBe(`${'d'.repeat(40)}\n`);
    // A dead owner and its own commit in the lock: removed, and the note is written.
    plant(dead, '-', `${planted}\n`);
    expect(write(repo, one, 'after a crash\n')).toBe(true);
    expect(git(repo, 'notes', `--ref=${REF}`, 'show', one)).toBe('after a crash\n');
    expect(existsSync(lock)).toBe(false);
    // The mark is blanked in place, not removed nor truncated (the same file next time): it names no writer.
    const blanked = readFileSync(mark, 'utf8');
    expect(blanked.length).toBeGreaterThan(40);
    expect(blanked.trim()).toBe('');
    fsckClean(repo);
  });

  it('leaves every case it must not take to git, writing nothing git reads', () => {
    const { repo } = notedRepo(20);
    const fresh = newCommit(repo, 1);
    const tip = () => git(repo, 'rev-parse', REF).trim();
    const at = tip();

    // The ref moved after the objects were read (another writer).
    const read = readObjects(repo, noteObjectNames(REF, fresh));
    const other = newCommit(repo, 2);
    expect(run('git', ['notes', `--ref=${REF}`, 'add', '-m', 'meanwhile', other], repo, GIT_IDENT).status).toBe(0);
    const moved = tip();
    expect(writeNoteInProcess(join(repo, '.git'), {}, REF, fresh, 'late\n', read, IDENT)).toBe(false);
    expect(tip()).toBe(moved);
    expect(moved).not.toBe(at);

    // git's lock file held: not taken, not removed.
    const lock = join(repo, '.git', `${REF}.lock`);
    writeFileSync(lock, '');
    expect(write(repo, fresh, 'locked\n')).toBe(false);
    expect(existsSync(lock)).toBe(true);
    rmSync(lock);

    // No reflog (git decides whether to make one), an object directory from the environment.
    const log = join(repo, '.git', 'logs', REF);
    const saved = join(repo, '..', 'reflog');
    cpSync(log, saved);
    rmSync(log);
    expect(write(repo, fresh, 'no reflog\n')).toBe(false);
    cpSync(saved, log);
    expect(write(repo, fresh, 'quarantine\n', { GIT_OBJECT_DIRECTORY: join(repo, '.git', 'objects') })).toBe(false);
    expect(tip()).toBe(moved);

    // No notes ref yet: git makes the first note.
    const bare = join(tempDir('intent-notes-none-'), 'repo');
    git(tempDir(), 'init', '-q', '-b', 'main', bare);
    writeFileSync(join(bare, 'f'), 'x\n');
    git(bare, 'add', 'f');
    run('git', ['commit', '-qm', 'one'], bare, GIT_IDENT);
    const head = git(bare, 'rev-parse', 'HEAD').trim();
    expect(writeNoteInProcess(join(bare, '.git'), {}, REF, head, 'first\n', readObjects(bare, noteObjectNames(REF, head)), IDENT)).toBe(false);
    expect(run('git', ['rev-parse', '--verify', '-q', REF], bare).status).not.toBe(0);

    // And after all that, it still writes.
    expect(write(repo, fresh, 'at last\n')).toBe(true);
    expect(git(repo, 'notes', `--ref=${REF}`, 'show', fresh)).toBe('at last\n');
    fsckClean(repo);
  });
});

describe('zlibStored', () => {
  it('is a zlib stream zlib inflates to the same bytes, at every block boundary', () => {
    for (const n of [0, 1, 100, 5552, 5553, 65535, 65536, 65537, 200_001]) {
      const data = Buffer.alloc(n);
      for (let i = 0; i < n; i++) data[i] = (i * 7919 + (i >> 8)) & 0xff;
      expect(inflateSync(zlibStored(data)).equals(data), `${n} bytes`).toBe(true);
    }
  });
});
