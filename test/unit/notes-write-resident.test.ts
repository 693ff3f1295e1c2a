// Writing a note in the hook server (a resident process): the notes ref's lock is a file made
// ahead, its bytes already on the disk, linked into place (lib/git/object-files.ts takeRefFile),
// and the ref file it replaces keeps a second name until the tidy-up (keepReplaced), so that ext4
// has neither a delayed allocation to carry out nor an inode to free on the rename. Real git reads
// every note written so; a lock that is held is left to its holder.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readObjects } from '../../lib/git/blobs.js';
import { noteObjectNames, writeNoteInProcess } from '../../lib/git/notes-write.js';
import { dropObjectFiles, makeObjectFiles, refFileReady } from '../../lib/git/object-files.js';
import { becomeResident } from '../../lib/core/resident.js';
import { git, run, tempDir, until } from '../helpers.js';

const REF = 'refs/notes/intents';
const IDENT = { author: 'T <t@t> 1800000100 +0000', committer: 'T <t@t> 1800000100 +0000' };
const GIT_IDENT = { GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@t', GIT_AUTHOR_DATE: '1800000100 +0000', GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@t', GIT_COMMITTER_DATE: '1800000100 +0000' };

function commitOn(repo: string, n: number): string {
  writeFileSync(join(repo, 'f'), `${n}\n`);
  git(repo, 'add', 'f');
  expect(run('git', ['commit', '-q', '-m', `c${n}`], repo, GIT_IDENT).status).toBe(0);
  return git(repo, 'rev-parse', 'HEAD').trim();
}

const write = (repo: string, sha: string, text: string) =>
  writeNoteInProcess(join(repo, '.git'), {}, REF, sha, text, readObjects(repo, noteObjectNames(REF, sha)), IDENT);

describe('writing a note in the hook server', () => {
  it('takes the notes ref\'s lock from a file made ahead and frees the replaced ref file later; git reads the notes; a held lock is left alone', async () => {
    becomeResident();
    const repo = join(tempDir('intent-notes-resident-'), 'repo');
    git(tempDir(), 'init', '-q', '-b', 'main', repo);
    const first = commitOn(repo, 1);
    // The notes ref and its reflog, as `intent init` leaves them once a note is there.
    expect(run('git', ['notes', `--ref=${REF}`, 'add', '-m', 'by git', first], repo, GIT_IDENT).status).toBe(0);
    const objects = join(repo, '.git', 'objects');
    const folder = join(repo, '.git', 'intent', 'object-files');
    const refFile = join(repo, '.git', REF);
    // The first note asks for files; they are made when a hook has its answer (makeObjectFiles).
    const two = commitOn(repo, 2);
    expect(write(repo, two, 'two\n')).toBe(true);
    makeObjectFiles();
    await until(() => refFileReady(objects), 'the ref lock made ahead, its bytes synced');
    const premade = readdirSync(folder).filter((n) => n.startsWith('tmp_ref_'));
    expect(premade).toHaveLength(1);
    expect(readFileSync(join(folder, premade[0]!), 'utf8')).toBe(`${'0'.repeat(40)}\n`);
    const made = statSync(join(folder, premade[0]!)).ino;
    const replaced = statSync(refFile).ino;
    const before = git(repo, 'rev-parse', REF).trim();

    const three = commitOn(repo, 3);
    expect(write(repo, three, 'three\n')).toBe(true);
    // The ref is the file made ahead (its inode), holding the new notes commit; the name it had is gone.
    expect(statSync(refFile).ino).toBe(made);
    expect(readFileSync(refFile, 'utf8')).toBe(`${git(repo, 'rev-parse', REF).trim()}\n`);
    expect(existsSync(join(folder, premade[0]!))).toBe(false);
    expect(existsSync(`${refFile}.lock`)).toBe(false);
    // The ref file it replaced: a second name until the tidy-up, then gone.
    const kept = readdirSync(folder).filter((n) => n.startsWith('old_ref_'));
    expect(kept).toHaveLength(1);
    expect(statSync(join(folder, kept[0]!)).ino).toBe(replaced);
    expect(readFileSync(join(folder, kept[0]!), 'utf8')).toBe(`${before}\n`);
    makeObjectFiles();
    expect(readdirSync(folder).filter((n) => n.startsWith('old_ref_'))).toEqual([]);
    for (const [sha, text] of [[two, 'two\n'], [three, 'three\n'], [first, 'by git\n']]) expect(git(repo, 'notes', `--ref=${REF}`, 'show', sha!)).toBe(text);
    expect(git(repo, 'reflog', 'show', '--format=%gs', '-n', '1', REF).trim()).toBe("notes: Notes added by 'git notes add'");

    // A lock someone holds (git's, a lock file of its own): the note is not written here, the lock
    // is left as it is, and the file made ahead is not left behind.
    await until(() => refFileReady(objects), 'the next ref lock made ahead');
    writeFileSync(`${refFile}.lock`, `${'e'.repeat(40)}\n`);
    const four = commitOn(repo, 4);
    expect(write(repo, four, 'four\n')).toBe(false);
    expect(readFileSync(`${refFile}.lock`, 'utf8')).toBe(`${'e'.repeat(40)}\n`);
    expect(readdirSync(folder).filter((n) => n.startsWith('tmp_ref_'))).toEqual([]);
    run('rm', ['-f', `${refFile}.lock`], repo);
    expect(write(repo, four, 'four\n')).toBe(true);
    expect(git(repo, 'notes', `--ref=${REF}`, 'show', four)).toBe('four\n');
    const fsck = run('git', ['fsck', '--full', '--strict', '--no-dangling'], repo);
    expect(fsck.status, fsck.stderr + fsck.stdout).toBe(0);

    // Leaving: nothing made ahead stays.
    dropObjectFiles();
    expect(readdirSync(folder)).toEqual([]);
  });
});
