import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { blobBytes, changesSince, snapshotWorktree } from '../../lib/git/snapshot.js';
import { git, makeRepo } from '../helpers.js';

describe('worktree snapshot (what a shell command changed)', () => {
  it('finds new, changed and deleted files, not untouched dirty ones, and not a commit of what was there', () => {
    const repo = makeRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n' });
    writeFileSync(join(repo, 'a.txt'), 'a dirty\n'); // dirty before, untouched by the "command"
    writeFileSync(join(repo, 'b.txt'), 'b dirty\n'); // dirty before, changed again
    const snap = snapshotWorktree(repo);
    expect(Object.keys(snap.files).sort()).toEqual(['a.txt', 'b.txt']);

    writeFileSync(join(repo, 'b.txt'), 'b dirty\nmore\n');
    rmSync(join(repo, 'c.txt'));
    writeFileSync(join(repo, 'new.txt'), 'n\n');
    const changes = changesSince(repo, snap);
    expect(changes.map((c) => [c.path, c.exists])).toEqual([['b.txt', true], ['c.txt', false], ['new.txt', true]]);
    // The bytes before the command, for the line credit.
    expect(blobBytes(repo, changes[0].before)!.toString()).toBe('b dirty\n');
    expect(blobBytes(repo, changes[1].before)!.toString()).toBe('c\n');
    expect(changes[2].before).toBeNull();

    // A command that commits what was dirty changes no file's content.
    const again = snapshotWorktree(repo);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'by the command');
    expect(changesSince(repo, again)).toEqual([]);
    // A checkout that reverts a committed file is a change (back to the old bytes).
    const third = snapshotWorktree(repo);
    git(repo, 'checkout', 'HEAD~1', '--', 'c.txt');
    expect(changesSince(repo, third).map((c) => c.path)).toEqual(['c.txt']);
    // Over the limit nothing is hashed, and nothing is claimed.
    const big = snapshotWorktree(repo, 0);
    expect(big).toMatchObject({ files: {}, tooMany: 1 });
    writeFileSync(join(repo, 'new.txt'), 'changed\n');
    expect(changesSince(repo, big)).toEqual([]);
  });
});
