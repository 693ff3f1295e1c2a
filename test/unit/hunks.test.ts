import { chmodSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitDiff } from '../../lib/git/diff.js';
import { recordPathOf } from '../../lib/git/paths.js';
import { parseHunkHeader, parseRawPatch, type FileChange, type Hunk } from '../../lib/git/hunks.js';
import { git, makeRepo, writeFiles, prng } from '../helpers.js';

const ZERO = '0'.repeat(40);

function hunk(oldStart: number, oldCount: number, newStart: number, newCount: number): Hunk {
  return { oldStart, oldCount, newStart, newCount };
}

function byPath(changes: FileChange[]): Record<string, FileChange> {
  return Object.fromEntries(changes.map((c) => [c.path, c]));
}

function oid(repo: string, rev: string): string {
  return git(repo, 'rev-parse', rev).trim();
}

describe('recordPathOf (paths as git prints them)', () => {
  it.each([
    ['plain/path.txt', 'plain/path.txt'],
    ['with space.txt', 'with space.txt'],
    ['"a\\"b.txt"', 'a"b.txt'],
    ['"back\\\\slash"', 'back\\slash'],
    ['"tab\\tx.txt"', 'tab\tx.txt'],
    ['"new\\nline"', 'new\nline'],
    ['"\\303\\274.txt"', 'ü.txt'],
    ['"dir/\\303\\244\\303\\266\\303\\274/\\"q\\".txt"', 'dir/äöü/"q".txt'],
    ['"\\346\\227\\245\\346\\234\\254"', '日本'],
    ['"\\360\\237\\230\\200"', '😀'],
    ['"\\a\\b\\f\\v\\r"', '\x07\b\f\v\r'],
    ['"\\001x"', '\x01x'],
    ['""', ''],
  ])('%s → %j', (quoted, want) => {
    expect(recordPathOf(quoted)).toBe(want);
  });
});

describe('parseHunkHeader', () => {
  it.each([
    ['@@ -1 +1 @@', hunk(1, 1, 1, 1)],
    ['@@ -0,0 +1,3 @@', hunk(0, 0, 1, 3)],
    ['@@ -5,2 +4,0 @@ function f() {', hunk(5, 2, 4, 0)],
    ['@@ -10,3 +12 @@', hunk(10, 3, 12, 1)],
    ['@@ -7 +0,0 @@', hunk(7, 1, 0, 0)],
    ['@@ -123456,789 +234567,890 @@ x @@ y', hunk(123456, 789, 234567, 890)],
  ])('%j', (line, want) => {
    expect(parseHunkHeader(line)).toEqual(want);
  });

  it.each([['@@@ -1,1 -1,1 +1,1 @@@'], [' @@ -1 +1 @@'], ['+@@ -1 +1 @@'], ['@@ -a +1 @@'], ['diff --git a/x b/x'], ['']])('rejects %j', (line) => {
    expect(parseHunkHeader(line)).toBeNull();
  });
});

describe('parseRawPatch', () => {
  it('pairs raw records with patches, a type change taking two', () => {
    const out = [
      `:100644 100644 ${'1'.repeat(40)} ${'2'.repeat(40)} M\tm.txt`,
      `:100644 120000 ${'3'.repeat(40)} ${'4'.repeat(40)} T\tt.txt`,
      `:100644 100644 ${'5'.repeat(40)} ${'6'.repeat(40)} R087\t"old \\303\\274"\tnew.txt`,
      '',
      'diff --git a/m.txt b/m.txt',
      '--- a/m.txt',
      '+++ b/m.txt',
      '@@ -2 +2,2 @@',
      '-x',
      '+diff --git a/fake b/fake',
      '+@@ -99 +99 @@',
      'diff --git a/t.txt b/t.txt',
      'deleted file mode 100644',
      '@@ -1,2 +0,0 @@',
      '-a',
      '-b',
      'diff --git a/t.txt b/t.txt',
      'new file mode 120000',
      '@@ -0,0 +1 @@',
      '+target',
      '\\ No newline at end of file',
      'diff --git "a/old \\303\\274" b/new.txt',
      'similarity index 87%',
      '@@ -3,0 +4 @@',
      '+z',
      '',
    ].join('\n');
    const changes = parseRawPatch(out);
    expect(changes.map((c) => [c.status, c.path, c.oldPath, c.similarity])).toEqual([
      ['M', 'm.txt', null, null],
      ['T', 't.txt', null, null],
      ['R', 'new.txt', 'old ü', 87],
    ]);
    expect(changes[0].hunks).toEqual([hunk(2, 1, 2, 2)]);
    expect(changes[1].hunks).toEqual([hunk(1, 2, 0, 0), hunk(0, 0, 1, 1)]);
    expect(changes[2].hunks).toEqual([hunk(3, 0, 4, 1)]);
    expect(changes[0]).toMatchObject({ oldMode: '100644', newMode: '100644', oldOid: '1'.repeat(40), newOid: '2'.repeat(40) });
  });

  it('returns nothing for empty output', () => {
    expect(parseRawPatch('')).toEqual([]);
  });

  it('refuses output whose patches cannot be paired with the raw records', () => {
    const out = `:100644 100644 ${'1'.repeat(40)} ${'2'.repeat(40)} M\ta\n\ndiff --git a/a b/a\n@@ -1 +1 @@\ndiff --git a/b b/b\n@@ -1 +1 @@\n`;
    expect(() => parseRawPatch(out)).toThrowError(/2 patches for 1 raw records/);
  });
});

describe('commitDiff on real git history', () => {
  it('diffs a root commit against the empty tree', () => {
    const repo = makeRepo({ 'a.txt': 'one\ntwo\nthree\n', 'empty.txt': '', 'nonl.txt': 'x\ny', 'dir/deep/b.md': '# b\n' });
    const d = commitDiff(repo, 'HEAD');
    expect(d.sha).toBe(oid(repo, 'HEAD'));
    expect(d.parents).toEqual([]);
    const c = byPath(d.changes);
    expect(Object.keys(c).sort()).toEqual(['a.txt', 'dir/deep/b.md', 'empty.txt', 'nonl.txt']);
    for (const ch of d.changes) {
      expect(ch.status).toBe('A');
      expect(ch.oldPath).toBeNull();
      expect(ch.oldMode).toBe('000000');
      expect(ch.newMode).toBe('100644');
      expect(ch.oldOid).toBe(ZERO);
      expect(ch.newOid).toBe(oid(repo, `HEAD:${ch.path}`));
    }
    expect(c['a.txt'].hunks).toEqual([hunk(0, 0, 1, 3)]);
    expect(c['empty.txt'].hunks).toEqual([]);
    expect(c['nonl.txt'].hunks).toEqual([hunk(0, 0, 1, 2)]);
    expect(c['dir/deep/b.md'].hunks).toEqual([hunk(0, 0, 1, 1)]);
  });

  it('reports adds, modifications, deletions, renames, copies, binaries, mode and type changes', () => {
    const ten = Array.from({ length: 10 }, (_, i) => `line ${i + 1}\n`).join('');
    const tenR = ten.replace(/line/g, 'renamed');
    const tenS = ten.replace(/line/g, 'source');
    const repo = makeRepo({
      'keep.txt': 'a\nb\nc\nd\ne\nf\ng\n',
      'del.txt': 'x\ny\n',
      'ren.txt': tenR,
      'renmod.txt': ten,
      'src.txt': tenS,
      'link.txt': 'l\n',
      'wasLink.txt': 'placeholder\n',
      'exec.sh': 'echo hi\n',
      'execmod.sh': 'echo 1\n',
      'bin.dat': Buffer.from([0, 1, 2, 3, 10, 4, 5]),
      'nonl.txt': 'p\nq',
    });
    // wasLink.txt becomes a symlink in a second base commit so the third can turn it back.
    rmSync(join(repo, 'wasLink.txt'));
    symlinkSync('keep.txt', join(repo, 'wasLink.txt'));
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'base');

    writeFiles(repo, {
      'keep.txt': 'a\nB\nc\nd\ne\nF\nG\ng\nh',
      'renmod.txt': ten.replace('line 5\n', 'line five\n'),
      'copy.txt': tenS,
      'bin.dat': Buffer.from([0, 1, 2, 9, 10, 4, 5, 6]),
      'nonl.txt': 'p\nq\n',
      'new.txt': 'n1\nn2\n',
      'execmod.sh': 'echo 2\n',
    });
    git(repo, 'rm', '-q', 'del.txt');
    git(repo, 'mv', 'ren.txt', 'renamed.txt');
    mkdirSync(join(repo, 'dir'));
    git(repo, 'mv', 'renmod.txt', 'dir/renmod2.txt');
    rmSync(join(repo, 'link.txt'));
    symlinkSync('keep.txt', join(repo, 'link.txt'));
    rmSync(join(repo, 'wasLink.txt'));
    writeFileSync(join(repo, 'wasLink.txt'), 'now a file\nline 2\n');
    chmodSync(join(repo, 'exec.sh'), 0o755);
    chmodSync(join(repo, 'execmod.sh'), 0o755);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'change everything');

    const d = commitDiff(repo, 'HEAD');
    expect(d.parents).toEqual([oid(repo, 'HEAD~1')]);
    const c = byPath(d.changes);
    const summary = d.changes.map((x) => [x.status, x.oldPath, x.path]);
    expect(summary).toEqual(expect.arrayContaining([
      ['M', null, 'keep.txt'],
      ['D', null, 'del.txt'],
      ['R', 'ren.txt', 'renamed.txt'],
      ['R', 'renmod.txt', 'dir/renmod2.txt'],
      ['A', null, 'copy.txt'], // no copy detection: a copy is an addition
      ['M', null, 'bin.dat'],
      ['M', null, 'exec.sh'],
      ['M', null, 'execmod.sh'],
      ['T', null, 'link.txt'],
      ['T', null, 'wasLink.txt'],
      ['M', null, 'nonl.txt'],
      ['A', null, 'new.txt'],
    ]));
    expect(d.changes).toHaveLength(12);

    // Modification: three hunks, the last adds a line without a trailing newline.
    expect(c['keep.txt'].hunks).toEqual([hunk(2, 1, 2, 1), hunk(6, 1, 6, 2), hunk(7, 0, 9, 1)]);
    // Deletion.
    expect(c['del.txt']).toMatchObject({ oldMode: '100644', newMode: '000000', newOid: ZERO, hunks: [hunk(1, 2, 0, 0)] });
    // Pure rename: no hunks, similarity 100, same blob.
    expect(c['renamed.txt']).toMatchObject({ similarity: 100, hunks: [] });
    expect(c['renamed.txt'].oldOid).toBe(c['renamed.txt'].newOid);
    // Rename with an edit.
    expect(c['dir/renmod2.txt'].similarity).toBeGreaterThanOrEqual(50);
    expect(c['dir/renmod2.txt'].similarity).toBeLessThan(100);
    expect(c['dir/renmod2.txt'].hunks).toEqual([hunk(5, 1, 5, 1)]);
    // Copy without copy detection.
    expect(c['copy.txt'].hunks).toEqual([hunk(0, 0, 1, 10)]);
    // Binary content is diffed as text (--text), so hunks exist.
    expect(c['bin.dat'].hunks.length).toBeGreaterThan(0);
    expect(c['bin.dat'].newOid).toBe(oid(repo, 'HEAD:bin.dat'));
    // Mode change only: same blob, no hunks.
    expect(c['exec.sh']).toMatchObject({ oldMode: '100644', newMode: '100755', hunks: [] });
    expect(c['exec.sh'].oldOid).toBe(c['exec.sh'].newOid);
    // Mode and content change.
    expect(c['execmod.sh']).toMatchObject({ oldMode: '100644', newMode: '100755', hunks: [hunk(1, 1, 1, 1)] });
    // Type change file → symlink: the deletion of the file, then the addition of the link.
    expect(c['link.txt']).toMatchObject({ oldMode: '100644', newMode: '120000', hunks: [hunk(1, 1, 0, 0), hunk(0, 0, 1, 1)] });
    // Type change symlink → file.
    expect(c['wasLink.txt']).toMatchObject({ oldMode: '120000', newMode: '100644', hunks: [hunk(1, 1, 0, 0), hunk(0, 0, 1, 2)] });
    // Only the trailing newline was added: one line replaced.
    expect(c['nonl.txt'].hunks).toEqual([hunk(2, 1, 2, 1)]);
    expect(c['new.txt'].hunks).toEqual([hunk(0, 0, 1, 2)]);
  });

  it('decodes quoted, unicode and otherwise unusual paths', () => {
    const names = [
      'ü "q".txt',
      'tab\tx.txt',
      'new\nline.txt',
      'back\\slash.txt',
      '日本/ファイル.ts',
      'with space/a b.txt',
      ' lead.txt',
      'a b/c d.txt',
      '-dash.txt',
      ':colon.txt',
      'src/[x].ts',
      '#hash.md',
    ];
    const repo = makeRepo();
    writeFiles(repo, Object.fromEntries(names.map((n, i) => [n, `content ${i}\n`])));
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'odd names');
    const d = commitDiff(repo, 'HEAD');
    expect(d.changes.map((c) => c.path).sort()).toEqual([...names].sort());
    for (const c of d.changes) {
      expect(c.status).toBe('A');
      expect(c.hunks).toEqual([hunk(0, 0, 1, 1)]);
    }
    // Rename between odd names keeps both sides decoded.
    git(repo, 'mv', 'ü "q".txt', 'ö\t"r".txt');
    git(repo, 'commit', '-q', '-m', 'rename');
    expect(commitDiff(repo, 'HEAD').changes.map((c) => [c.status, c.oldPath, c.path])).toEqual([['R', 'ü "q".txt', 'ö\t"r".txt']]);
  });

  it('diffs a merge commit against its first parent only', () => {
    const repo = makeRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    git(repo, 'checkout', '-q', '-b', 'side');
    writeFiles(repo, { 'b.txt': 'b\nside\n' });
    git(repo, 'commit', '-q', '-am', 'side');
    git(repo, 'checkout', '-q', 'main');
    writeFiles(repo, { 'a.txt': 'a\nmain\n' });
    git(repo, 'commit', '-q', '-am', 'main');
    git(repo, 'merge', '-q', '--no-ff', '-m', 'merge', 'side');
    const d = commitDiff(repo, 'HEAD');
    expect(d.parents).toEqual([oid(repo, 'HEAD^1'), oid(repo, 'HEAD^2')]);
    expect(d.changes.map((c) => [c.status, c.path, c.hunks])).toEqual([['M', 'b.txt', [hunk(1, 0, 2, 1)]]]);
  });

  it('is not confused by file content that looks like diff headers', () => {
    const repo = makeRepo({ 'x.txt': 'start\n' });
    writeFiles(repo, {
      'x.txt': 'start\ndiff --git a/y b/y\n@@ -1 +1 @@\n--- a/y\n+++ b/y\n:100644 100644 x y M\tz\n',
      'y.txt': 'diff --git a/x.txt b/x.txt\n',
    });
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'tricky');
    const c = byPath(commitDiff(repo, 'HEAD').changes);
    expect(Object.keys(c).sort()).toEqual(['x.txt', 'y.txt']);
    expect(c['x.txt'].hunks).toEqual([hunk(1, 0, 2, 5)]);
    expect(c['y.txt'].hunks).toEqual([hunk(0, 0, 1, 1)]);
  });

  it('ignores user diff configuration (prefixes, algorithm, external diff, renames, quotePath)', () => {
    const repo = makeRepo({ 'a.txt': 'a\nb\nc\n', 'ren.txt': 'r\ns\nt\nu\n' });
    const baseline = (() => {
      writeFiles(repo, { 'a.txt': 'a\nB\nc\nd\n', 'ü.txt': 'u\n' });
      git(repo, 'mv', 'ren.txt', 'moved.txt');
      git(repo, 'add', '-A');
      git(repo, 'commit', '-q', '-m', 'c');
      return commitDiff(repo, 'HEAD');
    })();
    for (const [k, v] of [
      ['diff.noprefix', 'true'],
      ['diff.mnemonicPrefix', 'true'],
      ['diff.algorithm', 'patience'],
      ['diff.external', 'false'],
      ['diff.renames', 'false'],
      ['core.quotePath', 'false'],
      ['diff.context', '5'],
      ['diff.relative', 'true'],
      ['color.diff', 'always'],
    ]) git(repo, 'config', k, v);
    expect(commitDiff(repo, 'HEAD')).toEqual(baseline);
    expect(baseline.changes.map((c) => [c.status, c.path])).toEqual(
      expect.arrayContaining([['M', 'a.txt'], ['R', 'moved.txt'], ['A', 'ü.txt']]),
    );
  });
});

const WORDS = ['foo', 'bar', 'baz', '', '}', '{', '  return x;', '--- a', '+++ b', '@@ -1 +1 @@', '-minus', '+plus', 'ü', '\\ backslash', 'x y z'];

/** The '+' and '-' lines of each hunk of git's own `git show -U0` for one file. */
function gitShowHunks(repo: string, sha: string): { header: Hunk; added: string[]; deleted: string[] }[] {
  const out = git(repo, 'show', '-U0', '--format=', sha);
  const res: { header: Hunk; added: string[]; deleted: string[] }[] = [];
  let inBody = false;
  for (const l of out.split('\n')) {
    if (l.startsWith('diff --git ')) { inBody = false; continue; }
    if (l.startsWith('@@ ')) {
      const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(l)!;
      res.push({ header: hunk(+m[1], m[2] === undefined ? 1 : +m[2], +m[3], m[4] === undefined ? 1 : +m[4]), added: [], deleted: [] });
      inBody = true;
      continue;
    }
    if (!inBody) continue;
    if (l.startsWith('+')) res[res.length - 1].added.push(l.slice(1));
    else if (l.startsWith('-')) res[res.length - 1].deleted.push(l.slice(1));
  }
  return res;
}

function linesOf(text: string): string[] {
  const ls = text.split('\n');
  if (text.endsWith('\n')) ls.pop();
  return text === '' ? [] : ls;
}

describe('commitDiff agrees with git on random edits (property)', () => {
  it('200 seeded random edits: hunk ranges and added/deleted lines equal git show -U0', () => {
    const rand = prng(0x1badcafe);
    const int = (n: number): number => Math.floor(rand() * n);
    const word = (): string => WORDS[int(WORDS.length)];
    let lines: string[] = Array.from({ length: 30 }, word);
    let trailingNewline = true;
    const render = (): string => lines.join('\n') + (trailingNewline && lines.length ? '\n' : '');
    const repo = makeRepo({ 'f.txt': render() });
    let prevText = render();
    let hunksSeen = 0;

    for (let iter = 0; iter < 200; iter++) {
      const ops = 1 + int(3);
      for (let o = 0; o < ops; o++) {
        const op = int(6);
        const at = int(lines.length + 1);
        if (op === 0) lines.splice(at, 0, ...Array.from({ length: 1 + int(4) }, word)); // insert
        else if (op === 1) lines.splice(at, 1 + int(3)); // delete
        else if (op === 2) lines.splice(at, 1 + int(3), ...Array.from({ length: 1 + int(3) }, word)); // replace
        else if (op === 3 && lines.length > 4) { // move a block
          const block = lines.splice(int(lines.length - 2), 1 + int(2));
          lines.splice(int(lines.length + 1), 0, ...block);
        } else if (op === 4) trailingNewline = !trailingNewline;
        else if (lines.length) lines[int(lines.length)] += word(); // edit within a line
      }
      if (render() === prevText) lines.push(`forced ${iter}`);
      const text = render();
      writeFileSync(join(repo, 'f.txt'), text);
      git(repo, 'commit', '-q', '-am', `edit ${iter}`);

      const d = commitDiff(repo, 'HEAD');
      expect(d.changes).toHaveLength(1);
      const ours = d.changes[0];
      expect(ours.status).toBe('M');
      const theirs = gitShowHunks(repo, d.sha);
      expect(ours.hunks, `iteration ${iter}`).toEqual(theirs.map((h) => h.header));
      const newLines = linesOf(text);
      const oldLines = linesOf(prevText);
      ours.hunks.forEach((h, k) => {
        expect(newLines.slice(h.newStart - 1, h.newStart - 1 + h.newCount), `iteration ${iter} hunk ${k} added`).toEqual(theirs[k].added);
        const oldFrom = h.oldCount === 0 ? h.oldStart : h.oldStart - 1;
        expect(oldLines.slice(oldFrom, oldFrom + h.oldCount), `iteration ${iter} hunk ${k} deleted`).toEqual(theirs[k].deleted);
        hunksSeen++;
      });
      prevText = text;
    }
    expect(hunksSeen).toBeGreaterThan(200);
  });
});
