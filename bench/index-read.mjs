#!/usr/bin/env node
// `node bench/index-read.mjs [sizes] [reps]` (after `npm run build`; not part of `npm run bench`):
// the staged paths of a commit read in-process (lib/git/index-file.ts: `readIndex` +
// `stagedPathsFrom` against HEAD's flat tree held in memory, as the hook server will) against one
// `git diff --cached --name-only -z` process, on synthetic repositories of 1k, 20k and 100k files
// (in the temporary folder, removed after) with 5 staged changes, index versions 2 and 4.
// HEAD's flat tree from `git ls-tree -r -t` (directories known: the walk skips those the index's
// cache tree shares) and from `git ls-tree -r` (every file compared). Also: `git ls-tree` and
// `parseLsTree` (the head's cost, paid in the background), the trees of the index built from its
// entries alone (lib/git/tree-build.ts: what the read-ahead keeps as HEAD after the commit; in full,
// and reusing HEAD's directories below which no entry differs), and what verifying the index's
// trailing SHA-1 would add. Prints medians (ms) as a Markdown table; the first in-process call
// (cold JIT) is shown apart.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { differingDirs, parseIndex, parseLsTree, readIndex, stagedPathsFrom } from '../dist/lib/git/index-file.js';
import { buildTrees } from '../dist/lib/git/tree-build.js';
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
const lsTree = (dir, dirs) => spawnSync('git', ['ls-tree', '-r', ...(dirs ? ['-t'] : []), '-z', '--full-tree', 'HEAD'], { cwd: dir, maxBuffer: 1 << 30 }).stdout;
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
    // What a pre-commit hook sees: `git commit` updates the cache tree before it runs the hooks.
    git(dir, ['write-tree']);
    const indexFile = join(dir, '.git', 'index');
    const flatOut = lsTree(dir, false);
    const dirsOut = lsTree(dir, true);
    const flat = parseLsTree(flatOut);
    const withDirs = parseLsTree(dirsOut);
    for (const version of ['2', '4']) {
      git(dir, ['update-index', '--index-version', version]);
      const bytes = readFileSync(indexFile);
      const viaGit = medianOf(() => spawnSync('git', DIFF, { cwd: dir, maxBuffer: 1 << 30 }).stdout);
      const cold = time(() => stagedPathsFrom(readIndex(indexFile), withDirs));
      const skip = medianOf(() => stagedPathsFrom(readIndex(indexFile), withDirs));
      const every = medianOf(() => stagedPathsFrom(readIndex(indexFile), flat));
      const read = medianOf(() => readFileSync(indexFile));
      const parse = medianOf(() => parseIndex(bytes));
      const walkSkip = medianOf(() => stagedPathsFrom(parse.out, withDirs));
      const walkEvery = medianOf(() => stagedPathsFrom(parse.out, flat));
      const checksum = medianOf(() => createHash('sha1').update(bytes.subarray(0, bytes.length - 20)).digest());
      const lsGit = medianOf(() => lsTree(dir, true));
      const lsParse = medianOf(() => parseLsTree(dirsOut));
      // The trees of the index from its entries alone, in full and reusing HEAD's unchanged directories.
      const full = medianOf(() => buildTrees(parse.out.entries));
      const reused = medianOf(() => buildTrees(parse.out.entries, { base: withDirs, changed: differingDirs(parse.out.entries, withDirs) }));
      const written = git(dir, ['write-tree']).stdout.trim();
      if (full.out.root !== written || reused.out.root !== written) throw new Error(`n=${n} v${version}: built ${full.out.root} / ${reused.out.root}, git wrote ${written}`);
      const expected = viaGit.out.toString('latin1').split('\0').filter(Boolean);
      for (const got of [skip.out, every.out]) {
        if (JSON.stringify(got) !== JSON.stringify(expected)) throw new Error(`n=${n} v${version}: ${JSON.stringify(got)} != git's ${JSON.stringify(expected)}`);
      }
      rows.push({
        files: n, version, indexKB: Math.round(bytes.length / 1024), git: viaGit.ms, skip: skip.ms, cold: cold.ms, every: every.ms,
        read: read.ms, parse: parse.ms, walkSkip: walkSkip.ms, walkEvery: walkEvery.ms, sha1: checksum.ms, lsGit: lsGit.ms, lsParse: lsParse.ms, full: full.ms, reused: reused.ms,
      });
    }
    removeTree(dir);
  }
} finally {
  removeTree(root);
}
const f = (x) => x.toFixed(2);
console.log(`medians of ${reps} (ms); node ${process.version}; in-process = readFileSync + parseIndex + walk`);
console.log('| files | index | git diff --cached | in-process (first call) | without ls-tree -t | readFileSync | parseIndex | walk (without -t) | SHA-1 of the index | git ls-tree -r -t | parseLsTree | trees built | trees built, HEAD\'s reused |');
console.log('|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const r of rows) {
  console.log(`| ${r.files} | v${r.version}, ${r.indexKB} KB | ${f(r.git)} | ${f(r.skip)} (${f(r.cold)}) | ${f(r.every)} | ${f(r.read)} | ${f(r.parse)} | ${f(r.walkSkip)} (${f(r.walkEvery)}) | ${f(r.sha1)} | ${f(r.lsGit)} | ${f(r.lsParse)} | ${f(r.full)} | ${f(r.reused)} |`);
}
