#!/usr/bin/env node
// `node bench/hook-floor.mjs <worktree> <rounds>`: the floor a governed commit cannot go under with
// git's hooks, measured in a worktree of a kept bench repository (BENCH_KEEP=1): pairs of a plain
// commit (hooks off) and a commit through a hooks folder of the same four hooks git runs for a
// governed commit (post-index-change only where the repository has one), first doing nothing
// (`exit 0`: what running four hook files costs), then doing
// only the git work intent's hooks need (pre-commit: `git diff --cached --raw`; post-commit:
// `git diff-tree` and a `git cat-file --batch`), no node. Prints the paired median ratios.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git, median, stageEdit } from './util.mjs';

const [wt, rounds = '21'] = process.argv.slice(2);
if (!wt) {
  console.error('usage: node bench/hook-floor.mjs <worktree> [rounds]');
  process.exit(2);
}
const HOOKS = ['pre-commit', 'prepare-commit-msg', 'commit-msg', 'post-commit'];
const root = mkdtempSync(join(tmpdir(), 'intent-hook-floor-'));
function folder(name, bodies) {
  const dir = join(root, name);
  mkdirSync(dir);
  for (const h of HOOKS) {
    writeFileSync(join(dir, h), `#!/bin/sh\n${bodies[h] ?? 'exit 0'}\n`);
    chmodSync(join(dir, h), 0o755);
  }
  return dir;
}
const nothing = folder('nothing', {});
const work = folder('work', {
  'pre-commit': 'git diff --cached --raw -z >/dev/null',
  'post-commit': 'git diff-tree -r -z HEAD >/dev/null\necho HEAD | git cat-file --batch >/dev/null',
});
const files = git(wt, ['ls-files', 'src']).stdout.trim().split('\n').slice(90, 93);
let seq = Date.now() % 100000;
const commit = (hooksPath) => git(wt, ['-c', `core.hooksPath=${hooksPath}`, 'commit', '-q', '-m', `floor ${seq}`]).ms;
try {
  for (const [label, dir] of [['four hooks doing nothing', nothing], ["four hooks doing only the hooks' git work", work]]) {
    const plain = [];
    const hooked = [];
    for (let i = -2; i < Number(rounds); i++) {
      let p = 0;
      let h = 0;
      for (const o of i % 2 ? ['h', 'p'] : ['p', 'h']) {
        stageEdit(wt, files, ++seq);
        if (o === 'p') p = commit('/dev/null');
        else h = commit(dir);
      }
      if (i >= 0) {
        plain.push(p);
        hooked.push(h);
      }
    }
    console.log(`${label}: plain ${median(plain).toFixed(1)} ms, with them ${median(hooked).toFixed(1)} ms, ratio (paired median) ${median(hooked.map((h, i) => h / plain[i])).toFixed(2)}×`);
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
