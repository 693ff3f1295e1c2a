// Attacks on the staged paths the hook server reads in-process (lib/git/index-file.ts readIndex,
// stagedPathsFrom; lib/hooks/prefetch.ts; the trees kept as HEAD: test/integration/tree-build.test.ts): an agent that writes its worktree's index
// itself, as `git update-index` and a few bytes let it. The in-process list must never hold fewer
// paths than git finds staged in the same index, or an out-of-scope path would pass pre-commit.
// Real git, real hooks through the server.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FlatTree, parseIndex, parseLsTree, readIndex, stagedPathsFrom } from '../../lib/git/index-file.js';
import { git, hookServersStoppedAfterEach, servedCommits, servedIntent, servedLines, makeRepo, run, until, writeFiles } from '../helpers.js';

// Each test's servers leave with its repositories (checked every second); stop them now.
const servers = hookServersStoppedAfterEach();

const traced = (trace: string, hook: string) => servedLines<{ server: number; stagedInProcess?: boolean }>(trace, hook, servers);

describe('an index whose cache tree lies, committed through the hook server', () => {
  it('does not leave the server a HEAD that is not the commit\'s: the path staged next is still refused', async () => {
    const { repo, wt, trace, env } = servedIntent({
      'src/a.ts': 'export const a = 1;\n', 'other/o.txt': 'o\n', 'other/p.txt': 'p\n', 'README.md': '# t\n',
    }, 'intent-index-attack-');
    await servedCommits(repo, wt, env, [2, 3, 4]);
    await until(() => traced(trace, 'prepare-commit-msg').length > 0, 'a served prepare-commit-msg');
    expect(traced(trace, 'prepare-commit-msg').at(-1)!.stagedInProcess).toBe(true);

    // An honest in-scope change, and other/o.txt's entry pointed at new content in place: the cache
    // tree still says other/ is HEAD's tree, so git (diff --cached, commit) does not see it.
    const indexFile = git(wt, 'rev-parse', '--path-format=absolute', '--git-path', 'index').trim();
    writeFiles(wt, { 'src/a.ts': 'export const a = 5;\n' });
    git(wt, 'add', 'src/a.ts');
    const blob = run('git', ['hash-object', '-w', '--stdin'], wt, {}, 'out of scope\n').stdout.trim();
    const bytes = readFileSync(indexFile);
    const at = bytes.indexOf('other/o.txt\0') - 62 + 40;
    Buffer.from(blob, 'hex').copy(bytes, at);
    writeFileSync(indexFile, bytes);
    expect(git(wt, 'ls-files', '-s', 'other/o.txt')).toContain(blob);
    expect(git(wt, 'diff', '--cached', '--name-only').trim()).toBe('src/a.ts'); // git trusts the cache tree
    const lie = run('git', ['commit', '-q', '-m', 'in scope 5'], wt, env);
    expect(lie.status, lie.stderr).toBe(0);
    expect(git(wt, 'show', '--name-only', '--format=', 'HEAD').trim()).toBe('src/a.ts'); // what git committed
    expect(git(wt, 'rev-parse', 'HEAD:other/o.txt').trim()).not.toBe(blob);

    // The cache tree of other/ invalidated (the same entry staged again): git now sees other/o.txt.
    git(wt, 'update-index', '--cacheinfo', `100644,${blob},other/o.txt`);
    expect(git(wt, 'diff', '--cached', '--name-only').trim()).toBe('other/o.txt');
    const head = git(wt, 'rev-parse', 'HEAD').trim();
    const out = run('git', ['commit', '-q', '-m', 'out of scope'], wt, env);
    expect(out.stderr).toMatch(/other\/o\.txt/);
    expect(out.status).not.toBe(0);
    expect(git(wt, 'rev-parse', 'HEAD').trim()).toBe(head);
  }, 60_000);
});

/** A version-2 index file's entries as raw byte chunks, and its extensions. */
function chunks(buf: Buffer): { entries: Buffer[]; ext: Buffer } {
  const count = buf.readUInt32BE(8);
  const entries: Buffer[] = [];
  let pos = 12;
  for (let i = 0; i < count; i++) {
    const nul = buf.indexOf(0, pos + 62);
    const next = pos + ((nul - pos + 8) & ~7);
    entries.push(buf.subarray(pos, next));
    pos = next;
  }
  return { entries, ext: buf.subarray(pos, buf.length - 20) };
}

/** An index file of these entries (and extensions), with its count and checksum right. */
function assemble(entries: Buffer[], ext: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(12);
  head.write('DIRC', 0, 'latin1');
  head.writeUInt32BE(2, 4);
  head.writeUInt32BE(entries.length, 8);
  const body = Buffer.concat([head, ...entries, ext]);
  return Buffer.concat([body, createHash('sha1').update(body).digest()]);
}

const pathOfChunk = (e: Buffer) => e.toString('latin1', 62, e.indexOf(0, 62));

describe('crafted index files: the in-process list is never shorter than git\'s', () => {
  it('duplicated entries, entries out of order, a lying cache tree with other entries, an empty name', () => {
    const dir = makeRepo({ 'a.txt': 'a\n', 'd/x.txt': 'x\n', 'd/y.txt': 'y\n', 'e/z.txt': 'z\n' });
    git(dir, 'update-index', '--index-version', '2');
    const indexFile = join(dir, '.git', 'index');
    const blob = run('git', ['hash-object', '-w', '--stdin'], dir, {}, 'changed\n').stdout.trim();
    const base = readFileSync(indexFile);
    const { entries, ext } = chunks(base);
    expect(entries.map(pathOfChunk)).toEqual(['a.txt', 'd/x.txt', 'd/y.txt', 'e/z.txt']);
    const changed = (e: Buffer) => {
      const c = Buffer.from(e);
      Buffer.from(blob, 'hex').copy(c, 40);
      return c;
    };
    const [a, x, y, z] = entries;
    const head = parseLsTree(spawnSync('git', ['ls-tree', '-r', '-t', '-z', '--full-tree', 'HEAD'], { cwd: dir }).stdout);
    expect(head).not.toBeNull();
    // git reads each of these (duplicates and disorder included); what the reader gives is noted.
    const cases: [string, Buffer, string[] | null][] = [
      ['a duplicated entry, the second changed', assemble([a, x, changed(x), y, z]), null],
      ['a duplicated entry, the first changed', assemble([a, changed(x), x, y, z]), null],
      ['entries out of order', assemble([a, y, changed(x), z]), null],
      ['out of order across directories', assemble([a, changed(z), x, y]), null],
      // git trusts d/'s cache tree (diff --cached and commit: d/ is HEAD's), and so does the walk.
      ['a changed entry under the valid cache tree of d/', assemble([a, changed(x), y, z], ext), []],
      // d/ with one entry where its cache tree counts two: git sees nothing, the walk compares.
      ['the cache tree of another index (d/ with 1 entry)', assemble([a, changed(x), z], ext), ['d/x.txt', 'd/y.txt']],
    ];
    for (const [name, bytes, expected] of cases) {
      writeFileSync(indexFile, bytes);
      const g = run('git', ['diff', '--cached', '--name-only', '-z', '--no-renames'], dir);
      const theirs = g.status === 0 ? g.stdout.split('\0').filter(Boolean) : null;
      const read = parseIndex(bytes);
      const ours = read && head ? stagedPathsFrom(read, head) : null;
      expect(ours, name).toEqual(expected);
      // null: the caller asks git; else every path git finds staged is in ours.
      if (ours !== null && theirs !== null) for (const p of theirs) expect(ours, `${name}: git stages ${p}`).toContain(p);
      if (theirs === null) expect(ours, `${name}: git refuses the index (${g.stderr.trim()})`).toBeNull();
    }
  });
});
