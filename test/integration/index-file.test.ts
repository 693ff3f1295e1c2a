// The index read in-process (lib/git/index-file.ts) against real git: for each kind of change,
// index version and extension, the staged paths computed from the index file and `git ls-tree`
// must be exactly what `git diff --cached` gives (stagedPaths), and every index this reader does
// not plainly support must give null.
import { spawnSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stagedPaths } from '../../lib/git/diff.js';
import { FlatTree, parseIndex, parseLsTree, readIndex, stagedPathsFrom } from '../../lib/git/index-file.js';
import { splitNulPaths } from '../../lib/git/paths.js';
import { git, makeRepo, prng, tempDir, writeFiles } from '../helpers.js';

/** Runs git with `env` added; stdout as bytes. */
function gitBytes(cwd: string, args: string[], env: Record<string, string> = {}): Buffer {
  const r = spawnSync('git', args, { cwd, env: { ...process.env, ...env } });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

/** HEAD's flat tree (empty before the first commit); with `dirs`, its directories' ids too (`-t`). */
function headTree(dir: string, dirs = false): FlatTree {
  const has = spawnSync('git', ['rev-parse', '-q', '--verify', 'HEAD^{tree}'], { cwd: dir, encoding: 'utf8' });
  expect(has.stderr).toBe('');
  if (has.status !== 0) return FlatTree.empty();
  const tree = parseLsTree(gitBytes(dir, ['ls-tree', '-r', ...(dirs ? ['-t'] : []), '-z', '--full-tree', 'HEAD']));
  expect(tree).not.toBeNull();
  return tree!;
}

/** What git says is staged, through an index file of its own (as a hook of `commit -a` sees it). */
function gitStaged(dir: string, indexFile: string): string[] {
  const args = ['-c', 'core.quotePath=true', 'diff', '--cached', '--name-only', '-z', '--no-renames', '--no-relative', '--ignore-submodules=none', '--no-ext-diff'];
  return splitNulPaths(gitBytes(dir, args, { GIT_INDEX_FILE: indexFile }));
}

/**
 * The staged paths from the index file and HEAD's tree; fails the test when the reader gives up,
 * or when the walk that skips directories known on both sides (HEAD's from `ls-tree -t`, the
 * index's from its cache tree) finds other paths than the one that compares every file.
 */
function ours(dir: string, indexFile = join(dir, '.git', 'index')): string[] | null {
  const index = readIndex(indexFile);
  expect(index, `readIndex(${indexFile}) gave null`).not.toBeNull();
  const every = stagedPathsFrom(index!, headTree(dir));
  expect(stagedPathsFrom(index!, headTree(dir, true)), 'with directories skipped').toEqual(every);
  return every;
}

/** Asserts the reader agrees with git (`stagedPaths`) and returns git's list. */
function agree(dir: string): string[] {
  const expected = stagedPaths(dir);
  expect(ours(dir)).toEqual(expected);
  return expected;
}

const indexOf = (dir: string) => join(dir, '.git', 'index');
const versionOf = (dir: string) => readFileSync(indexOf(dir)).readUInt32BE(4);
/** Whether the index file holds these bytes (an extension's signature). */
function hasBytes(dir: string, text: string): boolean {
  return readFileSync(indexOf(dir)).includes(Buffer.from(text, 'latin1'));
}

function commitAll(dir: string, msg = 'c'): void {
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '--no-verify', '-m', msg);
}

/** Branch `side` and main both change a.txt, and main merges side: a.txt is left conflicted. */
function conflict(dir: string): void {
  git(dir, 'checkout', '-q', '-b', 'side');
  writeFiles(dir, { 'a.txt': 'side\n' });
  commitAll(dir, 'side');
  git(dir, 'checkout', '-q', 'main');
  writeFiles(dir, { 'a.txt': 'main\n' });
  commitAll(dir, 'main');
  expect(spawnSync('git', ['merge', '-q', 'side'], { cwd: dir }).status).not.toBe(0);
}

describe('staged paths from the index file and HEAD', () => {
  it('adds, modifications and deletions, in git order', () => {
    const dir = makeRepo({ 'a.txt': 'a\n', 'b/c.txt': 'c\n', 'b/d.txt': 'd\n', 'z.txt': 'z\n' });
    expect(agree(dir)).toEqual([]);
    writeFiles(dir, { 'a.txt': 'a2\n', 'b/new.txt': 'n\n', 'a-b.txt': 'x\n' });
    rmSync(join(dir, 'b', 'd.txt'));
    rmSync(join(dir, 'z.txt'));
    git(dir, 'add', '-A');
    expect(agree(dir)).toEqual(['a-b.txt', 'a.txt', 'b/d.txt', 'b/new.txt', 'z.txt']);
    // Staged then unstaged back to HEAD's content: nothing.
    git(dir, 'reset', '-q');
    expect(agree(dir)).toEqual([]);
  });

  it('before the first commit (HEAD unborn: everything staged is added)', () => {
    const dir = tempDir();
    git(dir, 'init', '-q', '-b', 'main');
    writeFiles(dir, { 'b.txt': 'b\n', 'a/c.txt': 'c\n' });
    git(dir, 'add', '-A');
    expect(agree(dir)).toEqual(['a/c.txt', 'b.txt']);
    expect(stagedPathsFrom(readIndex(indexOf(dir))!, FlatTree.empty())).toEqual(['a/c.txt', 'b.txt']);
  });

  it('the executable bit, a symbolic link, a file that becomes a link with the same bytes', () => {
    const dir = makeRepo({ 'run.sh': 'echo\n', 'target.txt': 't\n', 'plain.txt': 'p\n', 'to-link': 'target.txt' });
    chmodSync(join(dir, 'run.sh'), 0o755);
    symlinkSync('target.txt', join(dir, 'link'));
    unlinkSync(join(dir, 'to-link'));
    symlinkSync('target.txt', join(dir, 'to-link')); // blob id unchanged, mode 100644 -> 120000
    git(dir, 'add', '-A');
    expect(agree(dir)).toEqual(['link', 'run.sh', 'to-link']);
    commitAll(dir);
    unlinkSync(join(dir, 'link'));
    symlinkSync('plain.txt', join(dir, 'link'));
    git(dir, 'add', 'link');
    git(dir, 'update-index', '--chmod=-x', 'run.sh');
    git(dir, 'update-index', '--chmod=+x', 'plain.txt');
    expect(agree(dir)).toEqual(['link', 'plain.txt', 'run.sh']);
  });

  it('a regular file committed with a mode git no longer writes (100664) compares as 100644', () => {
    const dir = makeRepo({ 'f.txt': 'f\n', 'g.txt': 'g\n' });
    const [f, g] = ['f.txt', 'g.txt'].map((p) => git(dir, 'rev-parse', `HEAD:${p}`).trim());
    // A tree written byte by byte (mktree would normalise the modes); git reads the modes back
    // as 100644 and 100755 (canon_mode), and so must the head map.
    const entry = (mode: string, name: string, oid: string) => Buffer.concat([Buffer.from(`${mode} ${name}\0`), Buffer.from(oid, 'hex')]);
    const raw = Buffer.concat([entry('100664', 'f.txt', f), entry('100775', 'g.txt', g)]);
    const odd = spawnSync('git', ['hash-object', '-t', 'tree', '--literally', '-w', '--stdin'], { cwd: dir, input: raw, encoding: 'utf8' }).stdout.trim();
    expect(odd).toMatch(/^[0-9a-f]{40}$/);
    expect(git(dir, 'cat-file', 'tree', odd)).toContain('100664 f.txt');
    const commit = run(dir, ['commit-tree', odd, '-p', 'HEAD', '-m', 'odd modes']).trim();
    git(dir, 'update-ref', 'HEAD', commit);
    expect(agree(dir)).toEqual(['g.txt']); // 100775 reads as 100755; the index holds 100644
  });

  it('a submodule gitlink: added, moved to another commit, replaced by a file', () => {
    const dir = makeRepo({ 'a.txt': 'a\n' });
    const head = git(dir, 'rev-parse', 'HEAD').trim();
    git(dir, 'update-index', '--add', '--cacheinfo', `160000,${head},sub`);
    expect(agree(dir)).toEqual(['sub']);
    const entries = readIndex(indexOf(dir))!.entries;
    expect(Array.from({ length: entries.size }, (_, i) => entries.entry(i))).toEqual([
      { path: 'a.txt', mode: 0o100644, oid: git(dir, 'rev-parse', 'HEAD:a.txt').trim() },
      { path: 'sub', mode: 0o160000, oid: head },
    ]);
    git(dir, 'commit', '-q', '--no-verify', '-m', 'sub');
    const second = git(dir, 'rev-parse', 'HEAD').trim();
    git(dir, 'update-index', '--cacheinfo', `160000,${second},sub`);
    expect(agree(dir)).toEqual(['sub']);
    git(dir, 'update-index', '--cacheinfo', `160000,${head},sub`);
    expect(agree(dir)).toEqual([]);
    // The same id as a blob's: only the mode differs.
    const blob = git(dir, 'rev-parse', 'HEAD:a.txt').trim();
    git(dir, 'update-index', '--add', '--cacheinfo', `160000,${blob},sub2`);
    git(dir, 'commit', '-q', '--no-verify', '-m', 'sub2');
    git(dir, 'update-index', '--force-remove', 'sub2');
    git(dir, 'update-index', '--add', '--cacheinfo', `100644,${blob},sub2`);
    expect(agree(dir)).toEqual(['sub2']);
  });

  it('a file that becomes a directory and a directory that becomes a file', () => {
    const dir = makeRepo({ a: 'file\n', 'a-b': 'x\n', 'a.c': 'x\n', a0: 'x\n', 'd/e/f': 'x\n', 'd-e': 'x\n' });
    rmSync(join(dir, 'a'));
    rmSync(join(dir, 'd'), { recursive: true });
    writeFiles(dir, { 'a/b': 'now a dir\n', 'a-b': 'y\n', 'a0': 'y\n', d: 'now a file\n' });
    git(dir, 'add', '-A');
    expect(agree(dir)).toEqual(['a', 'a-b', 'a/b', 'a0', 'd', 'd/e/f']);
    commitAll(dir);
    rmSync(join(dir, 'a'), { recursive: true });
    writeFiles(dir, { a: 'a file again\n' });
    git(dir, 'add', '-A');
    expect(agree(dir)).toEqual(['a', 'a/b']);
  });

  it('names with spaces, unicode, quotes, tab, newline, backslash and bytes that are not UTF-8', () => {
    const dir = makeRepo({ 'keep.txt': 'k\n', 'gone.txt': 'g\n' });
    const names: (string | Buffer)[] = [
      'with space.txt', 'café.txt', 'naïve/ü.txt', '"quoted".txt', 'in"side.txt', 'tab\there', 'new\nline', 'back\\slash',
      'z\u{e000}', 'z\u{1f600}', 'z\u{fffd}', 'é\u{ffff}',
      Buffer.from('latin1-caf\xe9.txt', 'latin1'), Buffer.from('ff-\xff', 'latin1'), Buffer.from('overlong-\xc0\xaf', 'latin1'),
      Buffer.from('surrogate-\xed\xa0\x80', 'latin1'), Buffer.from('cut-\xe2\x82', 'latin1'), Buffer.from('"bad-\xfe"', 'latin1'),
    ];
    for (const n of names) {
      if (typeof n === 'string') writeFiles(dir, { [n]: 'x\n' });
      else writeFileSync(Buffer.concat([Buffer.from(`${dir}/`), n]), 'x\n');
    }
    rmSync(join(dir, 'gone.txt')); // a deletion, so additions and deletions are merged into one order
    git(dir, 'add', '-A');
    const staged = agree(dir);
    expect(staged).toHaveLength(names.length + 1);
    expect(staged).toContain('"latin1-caf\\351.txt"');
    expect(staged).toContain('"\\"quoted\\".txt"');
    expect(staged.indexOf('z\u{e000}')).toBeLessThan(staged.indexOf('z\u{1f600}')); // UTF-8 order, not UTF-16's
    for (const version of ['4', '2']) {
      git(dir, 'update-index', '--index-version', version);
      expect(versionOf(dir)).toBe(Number(version));
      expect(ours(dir)).toEqual(staged);
    }
    // The same names in HEAD, deleted from the index.
    commitAll(dir);
    expect(agree(dir)).toEqual([]);
    git(dir, 'rm', '-rq', '--cached', '.');
    git(dir, 'add', 'keep.txt');
    expect(agree(dir)).toHaveLength(names.length);
  });

  it('names longer than 4095 bytes (past the length field) in index versions 2 and 4', () => {
    const dir = makeRepo({ 'a.txt': 'a\n' });
    const deep = Array.from({ length: 18 }, (_, i) => `${i}`.padEnd(240, 'd')).join('/');
    expect(deep.length).toBeGreaterThan(0xfff);
    // Past the file system's own path limit: staged by id, no file needed.
    const blob = git(dir, 'rev-parse', 'HEAD:a.txt').trim();
    for (const p of [`${deep}/x.txt`, `${deep}/y.txt`, `${deep.slice(0, 300)}/short.txt`]) git(dir, 'update-index', '--add', '--cacheinfo', `100644,${blob},${p}`);
    expect(agree(dir)).toEqual([`${deep.slice(0, 300)}/short.txt`, `${deep}/x.txt`, `${deep}/y.txt`]);
    git(dir, 'update-index', '--index-version', '4');
    expect(versionOf(dir)).toBe(4);
    expect(agree(dir)).toHaveLength(3);
  });

  it('index version 3 (skip-worktree entries are still committed) and version 4', () => {
    const dir = makeRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'src/x.ts': 'x\n', 'src/y.ts': 'y\n' });
    git(dir, 'update-index', '--skip-worktree', 'b.txt');
    expect(versionOf(dir)).toBe(3);
    expect(agree(dir)).toEqual([]);
    const blob = git(dir, 'rev-parse', 'HEAD:a.txt').trim();
    git(dir, 'update-index', '--cacheinfo', `100644,${blob},b.txt`); // a staged change of a skip-worktree entry
    git(dir, 'update-index', '--skip-worktree', 'b.txt');
    writeFiles(dir, { 'src/z.ts': 'z\n' });
    git(dir, 'add', 'src/z.ts');
    expect(versionOf(dir)).toBe(3);
    expect(agree(dir)).toEqual(['b.txt', 'src/z.ts']);
    git(dir, 'update-index', '--index-version', '4');
    expect(versionOf(dir)).toBe(4);
    expect(agree(dir)).toEqual(['b.txt', 'src/z.ts']);
    writeFiles(dir, { 'src/x.ts': 'x2\n' });
    git(dir, 'rm', '-q', '--cached', 'src/y.ts');
    git(dir, 'add', 'src/x.ts');
    expect(versionOf(dir)).toBe(4);
    expect(agree(dir)).toEqual(['b.txt', 'src/x.ts', 'src/y.ts', 'src/z.ts']);
  });

  it('an index of its own (GIT_INDEX_FILE), and the ones `commit -a` and `commit -- path` give the hook', () => {
    const dir = makeRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'd/e.txt': 'e\n', 'd/f.txt': 'f\n' });
    const other = join(dir, '.git', 'other-index');
    writeFiles(dir, { 'a.txt': 'a2\n', 'c.txt': 'c\n' });
    gitBytes(dir, ['read-tree', 'HEAD'], { GIT_INDEX_FILE: other });
    gitBytes(dir, ['add', 'c.txt'], { GIT_INDEX_FILE: other });
    expect(gitStaged(dir, other)).toEqual(['c.txt']);
    expect(ours(dir, other)).toEqual(['c.txt']);
    expect(agree(dir)).toEqual([]); // the repository's own index is untouched

    // A pre-commit hook that keeps the index it was given and what git said was staged.
    const keep = join(dir, '.git', 'kept');
    mkdirSync(keep);
    writeFileSync(join(dir, '.git', 'hooks', 'pre-commit'),
      `#!/bin/sh\nn=$(ls "${keep}" | grep -c '^index-')\ncp "$GIT_INDEX_FILE" "${keep}/index-$n"\n` +
      `git -c core.quotePath=true diff --cached --name-only -z --no-renames --no-relative --ignore-submodules=none > "${keep}/staged-$n"\n`, { mode: 0o755 });
    rmSync(join(dir, 'b.txt'));
    writeFiles(dir, { 'd/e.txt': 'e2\n' });
    git(dir, 'commit', '-q', '-a', '-m', 'all');
    writeFiles(dir, { 'a.txt': 'a3\n', 'c.txt': 'c\n', 'd.txt': 'd\n' });
    git(dir, 'add', 'c.txt', 'd.txt');
    git(dir, 'commit', '-q', '-m', 'partial', '--', 'a.txt', 'c.txt');
    const head1 = parseLsTree(gitBytes(dir, ['ls-tree', '-r', '-z', '--full-tree', 'HEAD~2']))!;
    const head2 = parseLsTree(gitBytes(dir, ['ls-tree', '-r', '-z', '--full-tree', 'HEAD~1']))!;
    const head1Dirs = parseLsTree(gitBytes(dir, ['ls-tree', '-r', '-t', '-z', '--full-tree', 'HEAD~2']))!;
    const head2Dirs = parseLsTree(gitBytes(dir, ['ls-tree', '-r', '-t', '-z', '--full-tree', 'HEAD~1']))!;
    const runs = [[head1, head1Dirs, ['a.txt', 'b.txt', 'd/e.txt']], [head2, head2Dirs, ['a.txt', 'c.txt']]] as const;
    runs.forEach(([head, headDirs, expected], n) => {
      const said = splitNulPaths(readFileSync(join(keep, `staged-${n}`)));
      expect(said).toEqual(expected);
      const index = readIndex(join(keep, `index-${n}`))!;
      expect(stagedPathsFrom(index, head)).toEqual(said);
      expect(stagedPathsFrom(index, headDirs)).toEqual(said);
    });
    // `commit -a` updated the cache tree before the hook: d/ known, with its new id.
    expect(readIndex(join(keep, 'index-0'))!.entries.dirs.get('d')?.oid).toBe(git(dir, 'rev-parse', 'HEAD~1:d').trim());
  });

  it('extensions are skipped: cache tree, untracked cache, end of index entries and its offset table, resolve-undo', () => {
    const dir = makeRepo({ 'a.txt': 'a\n', 'src/b.txt': 'b\n' });
    git(dir, 'config', 'core.untrackedCache', 'true');
    git(dir, 'config', 'index.recordEndOfIndexEntries', 'true');
    git(dir, 'config', 'index.recordOffsetTable', 'true');
    git(dir, 'config', 'index.threads', '2');
    writeFiles(dir, { 'untracked.txt': 'u\n', 'src/c.txt': 'c\n' });
    git(dir, 'add', 'src/c.txt');
    git(dir, 'write-tree'); // fills the cache tree
    git(dir, 'update-index', '--force-write-index');
    git(dir, 'status', '--porcelain'); // writes the untracked cache
    for (const ext of ['TREE', 'UNTR', 'EOIE', 'IEOT']) expect(hasBytes(dir, ext), ext).toBe(true);
    expect(agree(dir)).toEqual(['src/c.txt']);

    // A conflict resolved by `git add` leaves its stages in the resolve-undo extension.
    git(dir, 'commit', '-q', '--no-verify', '-m', 'c');
    conflict(dir);
    expect(readIndex(indexOf(dir))).toBeNull(); // unmerged entries
    writeFiles(dir, { 'a.txt': 'both\n' });
    git(dir, 'add', 'a.txt');
    expect(hasBytes(dir, 'REUC')).toBe(true);
    expect(agree(dir)).toEqual(['a.txt', 'untracked.txt']);
  });
});

describe('directories known on both sides (the cache tree and `ls-tree -t`)', () => {
  it('are skipped as git skips them: an entry changed behind a valid cache tree is not seen by git, nor by the walk', () => {
    const dir = makeRepo({ 'a.txt': 'a\n', 'd/x.txt': 'x\n', 'd/y.txt': 'y\n', 'e/z.txt': 'z\n' });
    expect(hasBytes(dir, 'TREE')).toBe(true);
    const index = readIndex(indexOf(dir))!;
    expect(index.entries.dirs.has('')).toBe(false); // git skips below the root only
    expect(index.entries.dirs.get('d')).toEqual({ oid: git(dir, 'rev-parse', 'HEAD:d').trim(), start: -1, count: 2 });
    expect(headTree(dir, true).dirs.get('d')).toEqual({ oid: git(dir, 'rev-parse', 'HEAD:d').trim(), start: 1, count: 2 });
    // A doctored index: the id of d/x.txt (and of a.txt) changed, the cache tree left valid.
    const doctored = readFileSync(indexOf(dir));
    for (const name of ['d/x.txt', 'a.txt']) {
      const at = doctored.indexOf(`${name}\0`) - 62 + 40;
      doctored[at] ^= 0xff;
    }
    writeFileSync(indexOf(dir), doctored);
    expect(git(dir, 'ls-files', '-s', 'd/x.txt')).not.toContain(git(dir, 'rev-parse', 'HEAD:d/x.txt').trim());
    expect(stagedPaths(dir)).toEqual(['a.txt']); // git trusts the cache tree of d/
    const read = readIndex(indexOf(dir))!;
    expect(stagedPathsFrom(read, headTree(dir, true))).toEqual(['a.txt']);
    expect(stagedPathsFrom(read, headTree(dir))).toEqual(['a.txt', 'd/x.txt']); // every file compared
  });

  it('an invalidated directory is compared file by file; so is one whose count differs from HEAD\'s', () => {
    const dir = makeRepo({ 'a.txt': 'a\n', 'd/x.txt': 'x\n', 'd/y.txt': 'y\n', 'e/z.txt': 'z\n' });
    writeFiles(dir, { 'd/x.txt': 'x2\n' });
    git(dir, 'add', 'd/x.txt');
    const index = readIndex(indexOf(dir))!;
    expect(index.entries.dirs.has('d')).toBe(false);
    expect(index.entries.dirs.has('e')).toBe(true);
    expect(agree(dir)).toEqual(['d/x.txt']);
    // e/z.txt's id changed behind e's valid cache tree: skipped, as git does; then the cache
    // tree's count for "e" made wrong (1 -> 2): e is compared file by file.
    const whole = readFileSync(indexOf(dir));
    whole[whole.indexOf('e/z.txt\0') - 62 + 40] ^= 0xff;
    writeFileSync(indexOf(dir), whole);
    expect(stagedPaths(dir)).toEqual(['d/x.txt']);
    expect(stagedPathsFrom(parseIndex(whole)!, headTree(dir, true))).toEqual(['d/x.txt']);
    const tree = whole.indexOf('TREE');
    const e = whole.indexOf('e\x001 0\n', tree);
    expect(e).toBeGreaterThan(tree);
    whole.write('2', e + 2, 'latin1');
    const read = parseIndex(whole);
    expect(read?.entries.dirs.get('e')?.count).toBe(2);
    expect(stagedPathsFrom(read!, headTree(dir, true))).toEqual(['d/x.txt', 'e/z.txt']);
  });

  it('a directory with a new id is compared file by file, also where the cache tree is valid (as `git commit` leaves it for the hooks)', () => {
    const dir = makeRepo({ 'a.txt': 'a\n', 'd/x.txt': 'x\n', 'd/y.txt': 'y\n', 'd/sub/s.txt': 's\n', 'e/z.txt': 'z\n' });
    writeFiles(dir, { 'd/x.txt': 'x2\n' });
    git(dir, 'add', 'd/x.txt');
    git(dir, 'write-tree');
    const index = readIndex(indexOf(dir))!;
    expect(index.entries.dirs.get('d')?.oid).not.toBe(git(dir, 'rev-parse', 'HEAD:d').trim());
    expect(index.entries.dirs.get('d/sub')?.oid).toBe(git(dir, 'rev-parse', 'HEAD:d/sub').trim());
    expect(agree(dir)).toEqual(['d/x.txt']);
  });

  it('a directory whose cache tree claims HEAD\'s id but whose files do not line up is compared file by file', () => {
    const dir = makeRepo({ 'a.txt': 'a\n', 'd/x.txt': 'x\n', 'd/y.txt': 'y\n' });
    const headD = git(dir, 'rev-parse', 'HEAD:d').trim();
    git(dir, 'rm', '-q', '--cached', 'd/y.txt');
    writeFiles(dir, { 'd/z.txt': 'z\n' });
    git(dir, 'add', 'd/z.txt');
    git(dir, 'write-tree');
    const whole = readFileSync(indexOf(dir));
    const node = whole.indexOf('d\x002 0\n', whole.indexOf('TREE'));
    expect(node).toBeGreaterThan(0);
    Buffer.from(headD, 'hex').copy(whole, node + 6);
    const read = parseIndex(whole)!;
    expect(read.entries.dirs.get('d')).toEqual({ oid: headD, start: -1, count: 2 });
    expect(stagedPathsFrom(read, headTree(dir, true))).toEqual(['d/y.txt', 'd/z.txt']);
  });
});

describe('what the reader leaves to git (null)', () => {
  it('a split index, an intent-to-add entry, a sparse index, a conflict', () => {
    const dir = makeRepo({ 'a.txt': 'a\n', 'x/1.txt': '1\n', 'y/2.txt': '2\n' });
    git(dir, 'update-index', '-q', '--refresh'); // a copied repository's stat data is stale
    expect(readIndex(indexOf(dir))).not.toBeNull();
    git(dir, 'update-index', '--split-index');
    expect(hasBytes(dir, 'link')).toBe(true);
    expect(readIndex(indexOf(dir))).toBeNull();
    git(dir, 'update-index', '--no-split-index');
    expect(readIndex(indexOf(dir))).not.toBeNull();

    writeFiles(dir, { 'new.txt': 'n\n' });
    git(dir, 'add', '-N', 'new.txt');
    expect(readIndex(indexOf(dir))).toBeNull();
    git(dir, 'rm', '-q', '--cached', 'new.txt');
    expect(readIndex(indexOf(dir))).not.toBeNull();

    git(dir, 'sparse-checkout', 'init', '--cone', '--sparse-index');
    git(dir, 'sparse-checkout', 'set', 'x');
    expect(hasBytes(dir, 'sdir')).toBe(true);
    expect(git(dir, 'ls-files', '-s', '--sparse')).toMatch(/^040000 \S+ 0\ty\/$/m);
    expect(readIndex(indexOf(dir))).toBeNull();
    git(dir, 'sparse-checkout', 'disable');
    expect(readIndex(indexOf(dir))).not.toBeNull();
  });

  it('a sparse index without its extension is refused for its directory entry; non-cone sparse checkout is read', () => {
    const dir = makeRepo({ 'a.txt': 'a\n', 'x/1.txt': '1\n', 'y/2.txt': '2\n' });
    git(dir, 'update-index', '-q', '--refresh');
    git(dir, 'sparse-checkout', 'init', '--cone', '--sparse-index');
    git(dir, 'sparse-checkout', 'set', 'x');
    const buf = readFileSync(indexOf(dir));
    const sdir = buf.indexOf('sdir');
    expect(sdir).toBeGreaterThan(0);
    // Rename the extension to an optional one: the directory entry (040000) alone must refuse.
    const renamed = Buffer.from(buf);
    renamed.write('SDIR', sdir, 'latin1');
    expect(parseIndex(renamed)).toBeNull();
    git(dir, 'sparse-checkout', 'disable');
    git(dir, 'sparse-checkout', 'init', '--no-cone');
    git(dir, 'sparse-checkout', 'set', '/x/');
    expect(readIndex(indexOf(dir))).not.toBeNull();
    expect(agree(dir)).toEqual([]);
  });

  it('truncated, garbage, a missing file, an unknown version or required extension, a bad mode', () => {
    const dir = makeRepo({ 'a.txt': 'a\n', 'b/c.txt': 'c\n' });
    git(dir, 'update-index', '--skip-worktree', 'a.txt'); // version 3, an extended entry
    const whole = readFileSync(indexOf(dir));
    expect(parseIndex(whole)).not.toBeNull();
    for (let n = 0; n < whole.length; n += 7) expect(parseIndex(whole.subarray(0, n)), `cut at ${n}`).toBeNull();
    expect(parseIndex(Buffer.from('not an index at all, just some text of some length'))).toBeNull();
    const rnd = prng(7);
    expect(parseIndex(Buffer.from(Array.from({ length: 400 }, () => Math.floor(rnd() * 256))))).toBeNull();
    expect(readIndex(join(dir, '.git', 'no-such-index'))).toBeNull();
    const edit = (at: number, write: (b: Buffer) => void) => {
      const b = Buffer.from(whole);
      write(b);
      return parseIndex(b);
    };
    expect(edit(4, (b) => b.writeUInt32BE(5, 4))).toBeNull();
    expect(edit(4, (b) => b.writeUInt32BE(1, 4))).toBeNull();
    // An extension with a lower-case signature git would have to understand.
    const withExt = Buffer.concat([whole.subarray(0, whole.length - 20), Buffer.from('abcd\0\0\0\0'), whole.subarray(whole.length - 20)]);
    expect(parseIndex(withExt)).toBeNull();
    const optional = Buffer.concat([whole.subarray(0, whole.length - 20), Buffer.from('ABCD\0\0\0\x02xy'), whole.subarray(whole.length - 20)]);
    expect(parseIndex(optional)).not.toBeNull();
    // The first entry's mode (offset 12 + 24) as one git never writes.
    expect(edit(36, (b) => b.writeUInt32BE(0o100664, 36))).toBeNull();
    expect(edit(36, (b) => b.writeUInt32BE(0o100755, 36))?.entries.modes[0]).toBe(0o100755);
    // Version 4: a prefix to drop that no path has, in a varint worth 2^31 + 127 (0xffffff, then
    // one more byte: past 32-bit shifts).
    git(dir, 'update-index', '--index-version', '4');
    const v4 = readFileSync(indexOf(dir));
    expect(parseIndex(v4)?.entries.size).toBe(2);
    const varint = v4.indexOf('b/c.txt\0') - 1; // drop all 5 bytes of "a.txt"
    expect(v4[varint]).toBe(5);
    const flagsAt = varint - 2; // b/c.txt has no extended flags
    const huge = Buffer.concat([v4.subarray(0, varint), Buffer.from([0x86, 0xfe, 0xfe, 0xff, 0x7f]), v4.subarray(varint + 1)]);
    huge.writeUInt16BE(huge.readUInt16BE(flagsAt) | 0x0fff, flagsAt);
    expect(parseIndex(huge)).toBeNull();
    // 200,000 entries that each repeat a 2,000-byte path: 400 MB of paths from a 14 MB file.
    const long = 'p'.repeat(2000);
    const entry = (drop: number, suffix: string) => {
      const head = Buffer.alloc(62);
      head.writeUInt32BE(0o100644, 24);
      head.writeUInt16BE(long.length + 6, 60);
      return Buffer.concat([head, Buffer.from([drop]), Buffer.from(`${suffix}\0`, 'latin1')]);
    };
    const many = 200_000;
    const parts = [Buffer.from('DIRC\0\0\0\x04', 'latin1'), Buffer.alloc(4), entry(0, `${long}000000`)];
    parts[1].writeUInt32BE(many);
    for (let k = 1; k < many; k++) parts.push(entry(6, String(k).padStart(6, '0')));
    parts.push(Buffer.alloc(20));
    expect(parseIndex(Buffer.concat(parts))).toBeNull();
    const fewer = Buffer.concat([...parts.slice(0, 1002), Buffer.alloc(20)]);
    fewer.writeUInt32BE(1000, 8);
    expect(parseIndex(fewer)?.entries.size).toBe(1000); // the same file, shorter, is read
    const dropOne = Buffer.from(v4);
    dropOne[varint] = 6; // one more than the path before has
    expect(parseIndex(dropOne)).toBeNull();
    // A stage in the first entry's flags; an unknown extended flag.
    expect(edit(12 + 60, (b) => b.writeUInt16BE(b.readUInt16BE(72) | 0x1000, 72))).toBeNull();
  });

  it("an index or a listing out of git's order, a listing with a tree or a bad line, a lone unmerged entry", () => {
    const dir = makeRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n' });
    const whole = readFileSync(indexOf(dir));
    const head = headTree(dir);
    expect(stagedPathsFrom(parseIndex(whole)!, head)).toEqual([]);
    // The entries of a.txt and b.txt (same length: 72 bytes each) swapped.
    const swapped = Buffer.from(whole);
    whole.copy(swapped, 12, 12 + 72, 12 + 144);
    whole.copy(swapped, 12 + 72, 12, 12 + 72);
    expect(swapped.toString('latin1', 12 + 62, 12 + 67)).toBe('b.txt');
    const index = parseIndex(swapped);
    expect(index).not.toBeNull(); // well formed, so only the walk can tell
    expect(stagedPathsFrom(index!, head)).toBeNull();
    expect(stagedPathsFrom(index!, FlatTree.empty())).toBeNull();
    // The same entry twice.
    const twice = Buffer.from(whole);
    whole.copy(twice, 12 + 72, 12, 12 + 72);
    expect(stagedPathsFrom(parseIndex(twice)!, head)).toBeNull();

    const ls = gitBytes(dir, ['ls-tree', '-r', '-z', '--full-tree', 'HEAD']);
    const lines = ls.toString('latin1').split('\0').filter(Boolean);
    expect(parseLsTree(ls)?.size).toBe(3);
    expect(parseLsTree(Buffer.from(`${[lines[1], lines[0], lines[2]].join('\0')}\0`, 'latin1'))).toBeNull();
    expect(parseLsTree(gitBytes(dir, ['ls-tree', '-r', '-t', '-z', '--full-tree', 'HEAD']))).not.toBeNull(); // no tree in this one
    writeFiles(dir, { 'd/e.txt': 'e\n' });
    commitAll(dir);
    const withDirs = parseLsTree(gitBytes(dir, ['ls-tree', '-r', '-t', '-z', '--full-tree', 'HEAD']));
    expect(withDirs?.size).toBe(4); // the tree line is a directory, not a file
    expect(withDirs?.dirs.get('d')).toEqual({ oid: git(dir, 'rev-parse', 'HEAD:d').trim(), start: 3, count: 1 });
    expect(parseLsTree(Buffer.from(lines[0].replace(/ blob [0-9a-f]/, ' blob g'), 'latin1'))).toBeNull();
    expect(parseLsTree(Buffer.from(lines[0].replace('100644', '10064'), 'latin1'))).toBeNull();
    expect(parseLsTree(Buffer.alloc(0))?.size).toBe(0);

    // One entry at stage 1 and nothing else for its path: only the stage says it is unmerged.
    const blob = git(dir, 'rev-parse', 'HEAD:a.txt').trim();
    run(dir, ['update-index', '--index-info'], `100644 ${blob} 1\tz.txt\n`);
    expect(git(dir, 'ls-files', '-s', 'z.txt')).toMatch(/ 1\tz\.txt/);
    expect(readIndex(indexOf(dir))).toBeNull();
  });

  it('a conflicted merge', () => {
    const dir = makeRepo({ 'a.txt': 'a\n' });
    expect(readIndex(indexOf(dir))).not.toBeNull();
    conflict(dir);
    expect(git(dir, 'ls-files', '-u')).toContain('a.txt');
    expect(readIndex(indexOf(dir))).toBeNull();
  });
});

describe('randomised against git', () => {
  it('150 random operations over a small tree (seed 28), compared after each', async () => {
    const dir = makeRepo({ 'a/x.txt': 'x\n', 'a/y.txt': 'y\n', 'b.txt': 'b\n', 'c/d/e.txt': 'e\n' });
    const rnd = prng(28);
    const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)];
    const names = ['a', 'b.txt', 'a/x.txt', 'a/y.txt', 'a/z', 'a-b', 'a.c', 'c/d/e.txt', 'c/d', 'c', 'é', 'sp ace', 'z'];
    const head = git(dir, 'rev-parse', 'HEAD').trim();
    const tracked = () => splitNulPaths(gitBytes(dir, ['ls-files', '-z'])).filter((p) => !p.startsWith('"'));
    const clear = (p: string) => {
      // Whatever is in the way of `p`: a file or link at one of its parents, anything at `p`.
      const parts = p.split('/');
      for (let i = 1; i < parts.length; i++) {
        const at = join(dir, ...parts.slice(0, i));
        if (!lstatSync(at, { throwIfNoEntry: false })?.isDirectory()) rmSync(at, { force: true }); // a dangling link too
      }
      rmSync(join(dir, p), { recursive: true, force: true });
    };
    let seen = 0;
    for (let step = 0; step < 150; step++) {
      // (A turn of the event loop: vitest's worker answers its runner, which gives up on a worker silent for 60 s.)
      await new Promise((r) => setImmediate(r));
      const op = Math.floor(rnd() * 12);
      const p = pick(names);
      const label = `step ${step}: op ${op} on ${p}`;
      switch (op) {
        case 0: case 1: { // write a file (maybe replacing a directory or a file in the way) and stage it
          clear(p);
          writeFiles(dir, { [p]: `${Math.floor(rnd() * 3)}\n` });
          git(dir, 'add', '--sparse', '-A');
          break;
        }
        case 2: { // delete a tracked path
          const t = tracked();
          if (t.length) git(dir, 'rm', '-q', '--sparse', '--cached', pick(t));
          break;
        }
        case 3: { // flip the executable bit of a tracked regular file
          const t = git(dir, 'ls-files', '-s').split('\n').filter((l) => l.startsWith('1006')).map((l) => l.split('\t')[1]).filter((x) => !x.startsWith('"'));
          if (t.length) git(dir, 'update-index', '--chmod', rnd() < 0.5 ? '+x' : '-x', pick(t));
          break;
        }
        case 4: { // a symbolic link
          clear(p);
          mkdirSync(join(dir, p, '..'), { recursive: true });
          symlinkSync(pick(['b.txt', '0\n', 'nowhere']), join(dir, p));
          git(dir, 'add', '--sparse', '-A');
          break;
        }
        case 5: { // a gitlink
          const t = tracked();
          const at = pick(['g', 'a/g', 'sub']);
          if (!t.some((x) => x.startsWith(`${at}/`) || at.startsWith(`${x}/`))) git(dir, 'update-index', '--add', '--cacheinfo', `160000,${rnd() < 0.5 ? head : git(dir, 'rev-parse', 'HEAD').trim()},${at}`);
          break;
        }
        case 6: // commit (HEAD moves)
          git(dir, 'commit', '-q', '--no-verify', '--allow-empty', '-m', label);
          break;
        case 7: { // unstage one path back to HEAD
          const t = tracked();
          if (t.length) git(dir, 'reset', '-q', '--', pick(t));
          break;
        }
        case 8: // another index version
          git(dir, 'update-index', '--index-version', pick(['2', '3', '4']));
          break;
        case 9: { // skip-worktree on or off
          const t = tracked().filter((x) => !/^(g|a\/g|sub)$/.test(x));
          if (t.length) git(dir, 'update-index', rnd() < 0.5 ? '--skip-worktree' : '--no-skip-worktree', pick(t));
          break;
        }
        case 10: // restage everything from the work tree
          git(dir, 'add', '--sparse', '-A');
          break;
        case 11: // the cache tree brought up to date, as `git commit` does before its hooks
          git(dir, 'write-tree');
          break;
      }
      const expected = stagedPaths(dir);
      expect(ours(dir), label).toEqual(expected);
      seen += expected.length;
    }
    expect(seen).toBeGreaterThan(50); // the walk did stage changes
  });
});

/** Runs git with `input` on its standard input; throws on failure. */
function run(cwd: string, args: string[], input?: string): string {
  const r = spawnSync('git', args, { cwd, input, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}
