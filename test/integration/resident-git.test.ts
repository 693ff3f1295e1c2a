// The hook server's resident git processes (lib/git/resident.ts): `git diff-tree --stdin` asked
// for tree diffs (lib/git/diff.ts residentTreeDiff) and `git cat-file --batch` for objects
// (lib/git/blobs.ts readObjectsResident, lib/git/loose.ts readObjectsPreferLooseAsync). Each
// answer is the one a fresh git gives, one process answers many requests, and any trouble (a bad
// id, a process killed, changed settings) gives null or a fresh process, never a wrong answer.
// Real git in temporary repositories, run from this process; and through real commits and the server.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, readlinkSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readObjects, readObjectsResident } from '../../lib/git/blobs.js';
import { residentTreeDiff, treeDiff } from '../../lib/git/diff.js';
import { readObjectsPreferLooseAsync } from '../../lib/git/loose.js';
import { stopResidents } from '../../lib/git/resident.js';
import { checkoutIntent, git, governedRepo, hookServersStoppedAfterEach, intent, makeRepo, run, servedLines, tempDir, until, writeFiles } from '../helpers.js';

const servers = hookServersStoppedAfterEach();
afterEach(() => stopResidents());

const where = (dir: string) => ({ cwd: dir, commonDir: join(dir, '.git'), gitDir: join(dir, '.git') });
const treeOf = (dir: string, rev: string) => git(dir, 'rev-parse', `${rev}^{tree}`).trim();

/** Running (not zombie) processes matching `keep`, from /proc. */
function processes(keep: (p: { pid: number; ppid: number; argv: string[]; cwd: string }) => boolean): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z') continue;
      const argv = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      let cwd = '';
      try {
        cwd = readlinkSync(`/proc/${name}/cwd`);
      } catch { /* another user's */ }
      if (keep({ pid: Number(name), ppid: Number(fields[1]), argv, cwd })) out.push(Number(name));
    } catch { /* gone */ }
  }
  return out;
}

/** This process's resident git children running `command` (diff-tree --stdin, cat-file --batch). */
const children = (command: 'diff-tree' | 'cat-file') =>
  processes((p) => p.ppid === process.pid && p.argv.includes(command) && p.argv.some((a) => a === '--stdin' || a === '--batch'));

const gone = (pid: number) => processes((p) => p.pid === pid).length === 0;

/** A repository with a series of commits: changes, a rename, a binary, a mode change, deletions, a diff of more than 1 MB. */
function history(): { dir: string; commits: string[] } {
  const dir = makeRepo({ 'a.txt': 'a\n', 'old.ts': 'export const old = 1;\nexport const two = 2;\nexport const three = 3;\n', 'gone/g.txt': 'g\n', 'run.sh': '#!/bin/sh\n' });
  const commits = [git(dir, 'rev-parse', 'HEAD').trim()];
  const step = (message: string, change: () => void) => {
    change();
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '--allow-empty', '-m', message);
    commits.push(git(dir, 'rev-parse', 'HEAD').trim());
  };
  step('modify, add', () => writeFiles(dir, { 'a.txt': 'a2\n', 'new file ü.txt': 'n' }));
  step('rename with an edit', () => {
    git(dir, 'mv', 'old.ts', 'renamed.ts');
    writeFiles(dir, { 'renamed.ts': 'export const old = 1;\nexport const two = 2;\nexport const three = 4;\n' });
  });
  step('binary', () => writeFileSync(join(dir, 'blob.bin'), Buffer.from([0, 1, 2, 0, 255, 10, 35, 105, 10])));
  step('mode', () => chmodSync(join(dir, 'run.sh'), 0o755));
  step('deletions', () => git(dir, 'rm', '-q', '-r', 'gone', 'a.txt'));
  const big = (k: number) => Array.from({ length: 40_000 }, (_, i) => `line ${i} of a large file, version ${k}`).join('\n') + '\n';
  step('large', () => writeFiles(dir, { 'large.txt': big(1) }));
  step('large, every line changed', () => writeFiles(dir, { 'large.txt': big(2) }));
  step('nothing', () => {});
  return { dir, commits };
}

describe('residentTreeDiff: git diff-tree --stdin kept running', () => {
  it('answers every pair as a fresh git diff-tree does, one process for all, large answers included', async () => {
    const { dir, commits } = history();
    const pairs: [string, string][] = [];
    for (let i = 1; i < commits.length; i++) pairs.push([treeOf(dir, commits[i - 1]), treeOf(dir, commits[i])]);
    pairs.push([treeOf(dir, commits[0]), treeOf(dir, commits.at(-1)!)], [treeOf(dir, commits.at(-1)!), treeOf(dir, commits[0])]);
    let pid = 0;
    for (const [from, to] of pairs) {
      const theirs = treeDiff(dir, from, to);
      const ours = await residentTreeDiff(where(dir), from, to);
      expect(ours, `${from}..${to}`).toEqual(theirs);
      const running = children('diff-tree');
      if (from !== to) {
        expect(running, 'one resident').toHaveLength(1);
        pid ||= running[0];
        expect(running[0], 'the same resident').toBe(pid);
      }
    }
    const large = pairs[6];
    expect(spawnSync('git', ['diff-tree', '-r', '-p', ...large], { cwd: dir, maxBuffer: 64 * 1024 * 1024 }).stdout.length, 'the large diff').toBeGreaterThan(1024 * 1024);
    // Requests at once: each gets its own answer.
    const all = await Promise.all(pairs.map(([from, to]) => residentTreeDiff(where(dir), from, to)));
    all.forEach((ours, k) => expect(ours, `request ${k}`).toEqual(treeDiff(dir, ...pairs[k])));
    expect(children('diff-tree')).toEqual([pid]);
  });

  it('a tree that is not there, or not a tree: null, from the same process, which answers the next request; commit ids: null or git\'s answer', async () => {
    const { dir, commits } = history();
    const [from, to] = [treeOf(dir, commits[0]), treeOf(dir, commits[1])];
    expect(await residentTreeDiff(where(dir), from, to)).toEqual(treeDiff(dir, from, to));
    const [pid] = children('diff-tree');
    const missing = '1234567890123456789012345678901234567890';
    const blobId = git(dir, 'rev-parse', `${commits[0]}:a.txt`).trim();
    for (const [a, b] of [[missing, to], [from, missing], [blobId, to], [from, blobId]]) {
      expect(await residentTreeDiff(where(dir), a, b), `${a} ${b}`).toBeNull();
      // No timeout stopped it: the same process is there (a stopped one is replaced), and answers.
      expect(children('diff-tree'), `${a} ${b}`).toEqual([pid]);
      expect(await residentTreeDiff(where(dir), from, to)).toEqual(treeDiff(dir, from, to));
    }
    // Commit ids where trees are asked for (git reads `<commit> <parent>` lines as commits): null or git's own answer, never another.
    const [c0, c1] = commits;
    for (const [a, b] of [[c1, c0], [c0, to], [from, c1], [c1, from]]) {
      const ours = await residentTreeDiff(where(dir), a, b);
      if (ours !== null) expect(ours, `${a} ${b}`).toEqual(treeDiff(dir, a, b));
    }
    expect(await residentTreeDiff(where(dir), from, to)).toEqual(treeDiff(dir, from, to));
    const [last] = children('diff-tree');
    // Not an object id at all: not asked.
    expect(await residentTreeDiff(where(dir), 'HEAD', to)).toBeNull();
    expect(await residentTreeDiff(where(dir), `${from}\n${to}`, to)).toBeNull();
    expect(children('diff-tree')).toEqual([last]);
  });

  it('killed between requests: null or a right answer, then a new process; killed during one: null', async () => {
    const { dir, commits } = history();
    const pairs = commits.slice(1).map((c, i) => [treeOf(dir, commits[i]), treeOf(dir, c)] as [string, string]);
    const ask = (k: number) => residentTreeDiff(where(dir), ...pairs[k]);
    expect(await ask(0)).toEqual(treeDiff(dir, ...pairs[0]));
    // Killed, and asked at once (its end not seen yet) or after it is gone.
    for (const waitForIt of [false, true]) {
      const [pid] = children('diff-tree');
      process.kill(pid, 'SIGKILL');
      if (waitForIt) await until(() => gone(pid), `the resident ${pid} is gone`);
      const answer = await ask(1);
      if (answer !== null) expect(answer).toEqual(treeDiff(dir, ...pairs[1]));
      expect(await ask(2)).toEqual(treeDiff(dir, ...pairs[2]));
      const [next] = children('diff-tree');
      expect(next).toBeDefined();
      expect(next).not.toBe(pid);
    }
    // During a request: stopped (SIGSTOP) before it is asked, so it cannot have answered; then killed.
    for (const k of [5, 6]) {
      const [pid] = children('diff-tree');
      process.kill(pid, 'SIGSTOP');
      const pending = ask(k);
      process.kill(pid, 'SIGKILL');
      expect(await pending, `request ${k}`).toBeNull();
      expect(await ask(k)).toEqual(treeDiff(dir, ...pairs[k]));
    }
    // Killed right after a large request is sent: null, or the whole right answer if it came first.
    const [pid] = children('diff-tree');
    const pending = ask(6);
    process.kill(pid, 'SIGKILL');
    const answer = await pending;
    if (answer !== null) expect(answer).toEqual(treeDiff(dir, ...pairs[6]));
  });

  it('another setting (diff.renameLimit in the repository\'s config, in a file it includes, on a branch only): a new process, which answers with it', async () => {
    const dir = makeRepo(Object.fromEntries(Array.from({ length: 4 }, (_, k) => [`src/f${k}.txt`, Array.from({ length: 20 }, (_, i) => `file ${k} line ${i}\n`).join('')])));
    const from = treeOf(dir, 'HEAD');
    // Each file moved under another name and edited: inexact renames, which diff.renameLimit bounds.
    mkdirSync(join(dir, 'moved'));
    for (let k = 0; k < 4; k++) {
      git(dir, 'mv', `src/f${k}.txt`, `moved/g${k}.txt`);
      writeFiles(dir, { [`moved/g${k}.txt`]: Array.from({ length: 20 }, (_, i) => `file ${k} line ${i}${i === 3 ? ' edited' : ''}\n`).join('') });
    }
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'moved');
    const to = treeOf(dir, 'HEAD');
    const before = await residentTreeDiff(where(dir), from, to);
    expect(before).toEqual(treeDiff(dir, from, to));
    expect(before!.filter((c) => c.status.startsWith('R'))).toHaveLength(4);
    const [pid] = children('diff-tree');
    git(dir, 'config', 'diff.renameLimit', '1');
    const after = await residentTreeDiff(where(dir), from, to);
    expect(after).toEqual(treeDiff(dir, from, to));
    expect(after!.filter((c) => c.status.startsWith('R'))).toHaveLength(0);
    await until(() => gone(pid), `the old resident ${pid} is gone`);
    expect(children('diff-tree')).toHaveLength(1);
    expect(children('diff-tree')[0]).not.toBe(pid);
    // The setting in a file the config includes (include.path, relative to the config; includeIf), changed there.
    git(dir, 'config', '--unset', 'diff.renameLimit');
    writeFiles(dir, { '.git/more.cfg': '[diff]\n\trenameLimit = 1000\n', 'elsewhere/deeper.cfg': '[diff]\n\trenames = true\n' });
    git(dir, 'config', 'include.path', 'more.cfg');
    git(dir, 'config', `includeIf.gitdir:${dir}/.path`, join(dir, 'elsewhere', 'deeper.cfg'));
    expect((await residentTreeDiff(where(dir), from, to))!.filter((c) => c.status.startsWith('R'))).toHaveLength(4);
    const [withInclude] = children('diff-tree');
    writeFiles(dir, { 'elsewhere/deeper.cfg': '[diff]\n\trenames = true\n[include]\n\tpath = deepest.cfg\n', 'elsewhere/deepest.cfg': '[diff]\n\trenameLimit = 1000\n' });
    expect(await residentTreeDiff(where(dir), from, to)).toEqual(treeDiff(dir, from, to));
    const [nested] = children('diff-tree');
    expect(nested, 'an included file changed: a new process').not.toBe(withInclude);
    // Each file changed to a limit that stops rename detection (the last one git reads wins).
    for (const [file, text] of [['.git/more.cfg', '[diff]\n\trenameLimit = 1\n'], ['elsewhere/deepest.cfg', '[diff]\n\trenameLimit = 2\n']]) {
      writeFiles(dir, { 'elsewhere/deepest.cfg': '[diff]\n\trenames = true\n', '.git/more.cfg': '[diff]\n\trenameLimit = 1000\n' });
      expect((await residentTreeDiff(where(dir), from, to))!.filter((c) => c.status.startsWith('R')), file).toHaveLength(4);
      writeFiles(dir, { [file]: text });
      const ours = await residentTreeDiff(where(dir), from, to);
      expect(ours, file).toEqual(treeDiff(dir, from, to));
      expect(ours!.filter((c) => c.status.startsWith('R')), file).toHaveLength(0);
    }
    // A file included on a branch only (a quoted path): another branch checked out, another process.
    writeFiles(dir, { '.git/more.cfg': '[diff]\n\trenameLimit = 1000\n', 'elsewhere/deepest.cfg': '[diff]\n\trenames = true\n', '.git/branch.cfg': '[diff]\n\trenameLimit = 1\n' });
    writeFileSync(join(dir, '.git', 'config'), `${readFileSync(join(dir, '.git', 'config'), 'utf8')}[includeIf "onbranch:other"]\n\tpath = "branch.cfg" ; on other only\n`);
    expect((await residentTreeDiff(where(dir), from, to))!.filter((c) => c.status.startsWith('R'))).toHaveLength(4);
    git(dir, 'checkout', '-q', '-b', 'other');
    const onOther = await residentTreeDiff(where(dir), from, to);
    expect(onOther).toEqual(treeDiff(dir, from, to));
    expect(onOther!.filter((c) => c.status.startsWith('R'))).toHaveLength(0);
    // An include this reading does not follow (an escape in its path): no resident, git runs as a process of its own.
    stopResidents();
    writeFileSync(join(dir, '.git', 'config'), `${readFileSync(join(dir, '.git', 'config'), 'utf8')}[include]\n\tpath = "odd\\\\name.cfg"\n`);
    expect(git(dir, 'config', '--get-all', 'include.path')).toContain('odd\\name.cfg');
    expect(await residentTreeDiff(where(dir), from, to)).toBeNull();
    expect(children('diff-tree')).toEqual([]);
  });
});

describe('readObjectsResident: git cat-file --batch kept running', () => {
  it('packed objects as readObjects gives them (large ones included), missing ones left out, one process', async () => {
    const { dir, commits } = history();
    git(dir, 'gc', '-q');
    expect(readdirSync(join(dir, '.git', 'objects')).filter((d) => /^[0-9a-f]{2}$/.test(d)), 'every object packed').toEqual([]);
    const names = [
      ...commits, ...commits.map((c) => treeOf(dir, c)),
      ...git(dir, 'rev-list', '--objects', '--all').split('\n').filter(Boolean).map((l) => l.slice(0, 40)),
      '1234567890123456789012345678901234567890', '0'.repeat(40), `${commits[1]}:a.txt`,
      // Names with spaces, one missing: its line is `<name> missing`, and the answers after it are read right.
      `${commits[0]}:no such file.txt`, `${commits[1]}:new file ü.txt`, `${commits[0]}:a b`,
    ];
    names.push(...names.slice(0, 3));
    names.splice(3, 0, `${commits[0]}:no such file.txt`);
    const theirs = readObjects(dir, names);
    const ours = await readObjectsResident(where(dir), names);
    expect(ours).not.toBeNull();
    expect([...ours!.keys()].sort()).toEqual([...theirs.keys()].sort());
    for (const [k, o] of theirs) {
      expect(ours!.get(k)!.oid, k).toBe(o.oid);
      expect(ours!.get(k)!.type, k).toBe(o.type);
      expect(ours!.get(k)!.data.equals(o.data), k).toBe(true);
    }
    expect(ours!.has('1234567890123456789012345678901234567890')).toBe(false);
    expect(ours!.has(`${commits[0]}:no such file.txt`)).toBe(false);
    expect(ours!.get(`${commits[1]}:new file ü.txt`)!.data.toString()).toBe('n');
    // Every object is the one its name names.
    for (const [k, o] of ours!) if (/^[0-9a-f]{40}$/.test(k)) expect(o.oid).toBe(k);
    for (const [k, o] of theirs) if (/^[0-9a-f]{40}$/.test(k)) expect(o.oid).toBe(k);
    expect(theirs.size).toBe(new Set(names).size - 4);
    expect(Math.max(...[...ours!.values()].map((o) => o.data.length)), 'a large object').toBeGreaterThan(1024 * 1024);
    const [pid] = children('cat-file');
    expect(pid).toBeDefined();
    // Again, and loose objects mixed in (read in-process), from the same process.
    writeFiles(dir, { 'loose.txt': 'loose\n' });
    const loose = git(dir, 'hash-object', '-w', 'loose.txt').trim();
    const mixed = await readObjectsPreferLooseAsync({ root: dir, commonDir: join(dir, '.git'), gitDir: join(dir, '.git') }, [loose, ...names.slice(0, 5)], process.env);
    const expected = readObjects(dir, [loose, ...names.slice(0, 5)]);
    expect([...mixed.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [k, o] of expected) expect(mixed.get(k)!.data.equals(o.data), k).toBe(true);
    expect(children('cat-file')).toEqual([pid]);
  });
});

describe('a resident\'s life', () => {
  it('is replaced after 500 requests', async () => {
    const dir = makeRepo({ 'x.txt': 'x\n' });
    const head = git(dir, 'rev-parse', 'HEAD').trim();
    const pids: number[] = [];
    for (let k = 0; k < 501; k++) {
      expect((await readObjectsResident(where(dir), [head]))!.get(head)!.type).toBe('commit');
      if (k === 0 || k === 499 || k === 500) pids.push(children('cat-file')[0]);
    }
    expect(pids[1], 'the 500th request: the first process').toBe(pids[0]);
    expect(pids[2], 'the 501st: a new one').not.toBe(pids[0]);
    await until(() => gone(pids[0]), 'the first process is gone');
    expect(children('cat-file')).toEqual([pids[2]]);
  });
});

describe('git that cannot start', () => {
  it('not on PATH, or spawn() refusing: null (the caller runs git), no throw', async () => {
    const { dir, commits } = history();
    const [from, to] = [treeOf(dir, commits[0]), treeOf(dir, commits[1])];
    const path = process.env.PATH;
    process.env.PATH = join(dir, 'no-git-here');
    try {
      expect(await residentTreeDiff(where(dir), from, to)).toBeNull();
      expect(await readObjectsResident(where(dir), [commits[0]])).toBeNull();
    } finally {
      process.env.PATH = path;
    }
    // spawn() throws at once for a working folder it cannot pass to the system.
    expect(await residentTreeDiff({ ...where(dir), cwd: `${dir}\0x` }, from, to)).toBeNull();
    expect(children('diff-tree')).toEqual([]);
    expect(await residentTreeDiff(where(dir), from, to)).toEqual(treeDiff(dir, from, to));
  });
});

describe('stopResidents', () => {
  it('leaves no git process behind', async () => {
    const { dir, commits } = history();
    expect(await residentTreeDiff(where(dir), treeOf(dir, commits[0]), treeOf(dir, commits[1]))).not.toBeNull();
    expect(await readObjectsResident(where(dir), [commits[0]])).not.toBeNull();
    const other = makeRepo({ 'x.txt': 'x\n' });
    expect(await readObjectsResident(where(other), [git(other, 'rev-parse', 'HEAD').trim()])).not.toBeNull();
    const running = [...children('diff-tree'), ...children('cat-file')];
    expect(running).toHaveLength(3);
    stopResidents();
    await until(() => running.every(gone), 'every resident git is gone');
    // And the next request starts a new one.
    expect(await residentTreeDiff(where(dir), treeOf(dir, commits[0]), treeOf(dir, commits[1]))).toEqual(treeDiff(dir, treeOf(dir, commits[0]), treeOf(dir, commits[1])));
  });
});

describe('through the hook server', () => {
  const traced = (trace: string, hook: string) => servedLines<{ server: number; readAhead?: boolean; ahead?: { residentDiff?: boolean } }>(trace, hook, servers);
  /** The resident git processes working in `wt` (any parent). */
  const residentsIn = (wt: string) => processes((p) => p.cwd === wt && p.argv[0] === 'git' && (p.argv.includes('--stdin') || p.argv.includes('--batch')));

  for (const ending of ['intent uninstall', 'the server sent SIGTERM', 'the server killed (SIGKILL)'] as const) {
    it(`served commits use a resident diff-tree; after ${ending} none of the repository's git processes remains`, async () => {
      const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }], { 'src/a.ts': 'export const a = 1;\n', 'README.md': '# t\n' });
      const wt = realpathSync(checkoutIntent(repo, 'INT-001'));
      const trace = join(tempDir('intent-resident-'), 'trace.jsonl');
      const env = { INTENT_HOOK_SERVER: '1', INTENT_HOOK_SERVER_MS: '60000', INTENT_HOOK_SERVER_TRACE: trace };
      for (let v = 2; v <= 6; v++) {
        const before = traced(trace, 'post-commit').length;
        writeFiles(wt, { 'src/a.ts': `export const a = ${v};\n`, [`src/f${v}.ts`]: `export const f = ${v};\n` });
        git(wt, 'add', '-A');
        const c = run('git', ['commit', '-q', '-m', `in scope ${v}`], wt, env);
        expect(c.status, c.stderr).toBe(0);
        if (v > 2) await until(() => traced(trace, 'post-commit').length > before, `the post-commit of commit ${v}`);
      }
      const posts = traced(trace, 'post-commit');
      expect(posts.at(-1)!.readAhead).toBe(true);
      expect(posts.at(-1)!.ahead?.residentDiff, 'the diff came from the resident').toBe(true);
      const running = residentsIn(wt);
      expect(running.length, 'a resident diff-tree runs in the worktree').toBeGreaterThan(0);
      const server = posts.at(-1)!.server;
      if (ending === 'intent uninstall') {
        const un = intent(repo, ['uninstall', '--json']);
        expect(un.status, un.stderr).toBe(0);
      } else {
        process.kill(server, ending === 'the server sent SIGTERM' ? 'SIGTERM' : 'SIGKILL');
      }
      await until(() => gone(server), 'the server is gone');
      // Their input ends with the server: they leave, with nothing to wait for.
      await until(() => residentsIn(wt).length === 0, 'no resident git process of the worktree remains');
    }, 90_000);
  }
});
