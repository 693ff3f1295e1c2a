#!/usr/bin/env node
// `node bench/index-read.mjs [sizes] [reps]` (after `npm run build`; not part of `npm run bench`):
// the staged paths of a commit read in-process (lib/git/index-file.ts: `readIndex` +
// `stagedPathsFrom` against HEAD's flat tree held in memory, as the hook server will) against one
// `git diff --cached --name-only -z` process, on synthetic repositories of 1k, 20k and 100k files
// (in the temporary folder, removed after) with 5 staged changes, index versions 2 and 4.
// Also: `parseLsTree` of `git ls-tree -r` (the head map's cost, paid in the background), and what
// verifying the index's trailing SHA-1 would add. Prints medians (ms); the first in-process call
// (cold JIT) is shown apart.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseIndex, parseLsTree, readIndex, stagedPathsFrom } from '../dist/lib/git/index-file.js';
import { GLOBAL_GITCONFIG, benchEnv, git, median, removeTree, setEnv, syntheticRepo, genPath } from './util.mjs';

const sizes = (process.argv[2] ?? '1000,20000,100000').split(',').map(Number);
const reps = Number(process.argv[3] ?? 31);
const root = mkdtempSync(join(tmpdir(), 'intent-index-read-'));
writeFileSync(join(root, 'gitconfig'), GLOBAL_GITCONFIG);
setEnv(benchEnv(join(root, 'gitconfig')));

const DIFF = ['-c', 'core.quotePath=true', 'diff', '--cached', '--name-only', '-z', '--no-renames', '--no-relative', '--ignore-submodules=none', '--no-ext-diff'];

function time(fn) {
  const t0 = process.hrtime.bigint();
  const out = fn();
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, out };
}

function medianOf(fn) {
  const xs = [];
  let out;
  for (let i = 0; i < reps; i++) {
    const r = time(fn);
    xs.push(r.ms);
    out = r.out;
  }
  return { ms: median(xs), out };
}

const rows = [];
try {
  for (const n of sizes) {
    const dir = join(root, `r${n}`);
    await syntheticRepo(dir, n, { checkout: false });
    // Five staged changes: two modified, one new, one deleted, one chmod.
    const blob = git(dir, ['rev-parse', `HEAD:${genPath(0)}`]).stdout.trim();
    git(dir, ['update-index', '--cacheinfo', `100644,${blob},${genPath(1)}`]);
    git(dir, ['update-index', '--cacheinfo', `100644,${blob},${genPath(n - 1)}`]);
    git(dir, ['update-index', '--add', '--cacheinfo', `100644,${blob},src/new.ts`]);
    git(dir, ['update-index', '--force-remove', genPath(2)]);
    const third = git(dir, ['rev-parse', `HEAD:${genPath(3)}`]).stdout.trim();
    git(dir, ['update-index', '--cacheinfo', `100755,${third},${genPath(3)}`]);
    const indexFile = join(dir, '.git', 'index');
    const lsTree = spawnSync('git', ['ls-tree', '-r', '-z', '--full-tree', 'HEAD'], { cwd: dir, maxBuffer: 1 << 30 }).stdout;
    const head = parseLsTree(lsTree);
    for (const version of ['2', '4']) {
      git(dir, ['update-index', '--index-version', version]);
      const bytes = readFileSync(indexFile);
      const viaGit = medianOf(() => spawnSync('git', DIFF, { cwd: dir, maxBuffer: 1 << 30 }).stdout);
      const cold = time(() => stagedPathsFrom(readIndex(indexFile), head));
      const inProcess = medianOf(() => stagedPathsFrom(readIndex(indexFile), head));
      const read = medianOf(() => readIndex(indexFile));
      const parse = medianOf(() => parseIndex(bytes));
      const compare = medianOf(() => stagedPathsFrom(read.out, head));
      const checksum = medianOf(() => createHash('sha1').update(bytes.subarray(0, bytes.length - 20)).digest());
      const ls = medianOf(() => parseLsTree(lsTree));
      const lsGit = medianOf(() => spawnSync('git', ['ls-tree', '-r', '-z', '--full-tree', 'HEAD'], { cwd: dir, maxBuffer: 1 << 30 }).stdout);
      const expected = viaGit.out.toString('latin1').split('\0').filter(Boolean);
      if (JSON.stringify(inProcess.out) !== JSON.stringify(expected)) throw new Error(`n=${n} v${version}: ${JSON.stringify(inProcess.out)} != git's ${JSON.stringify(expected)}`);
      rows.push({
        files: n, version, indexKB: Math.round(bytes.length / 1024), git: viaGit.ms, inProcess: inProcess.ms, cold: cold.ms,
        readFile: read.ms - parse.ms, parse: parse.ms, compare: compare.ms, sha1: checksum.ms, lsTreeParse: ls.ms, lsTreeGit: lsGit.ms,
      });
    }
    removeTree(dir);
  }
} finally {
  removeTree(root);
}
const f = (x) => x.toFixed(2);
console.log(`medians of ${reps} (ms); node ${process.version}`);
console.log('files    v  index KB  git diff --cached  in-process (first call)  = read + parse + compare   sha1 of index  git ls-tree + parseLsTree');
for (const r of rows) {
  console.log(`${String(r.files).padStart(6)}  ${r.version}  ${String(r.indexKB).padStart(8)}  ${f(r.git).padStart(17)}  ${f(r.inProcess).padStart(10)} (${f(r.cold).padStart(7)})    ${f(r.readFile)} + ${f(r.parse)} + ${f(r.compare)}   ${f(r.sha1).padStart(13)}  ${f(r.lsTreeGit).padStart(11)} + ${f(r.lsTreeParse)}`);
}
