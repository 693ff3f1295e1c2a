#!/usr/bin/env node
// `node bench/ab-commit.mjs <rounds> <ordinary|comment|round> <name>=<bench dir> <name>=<bench dir> …`:
// versions of intent against each other, interleaved in one run. Each bench dir is one that
// `BENCH_ONLY=11 BENCH_QUICK=1 BENCH_KEEP=1 node bench/run.mjs` kept, run from each version's
// checkout (its repository's hooks run that version's package copy). Each round makes, in each
// version's repository (the order alternating), a plain commit (hooks off, in a second worktree:
// plainTwin) and a governed one of the same kind of change in its BENCH worktree; prints per version the medians and the paired governed/plain ratio.
// AB_FILES=<n>: files per commit (default 3; the run of record, bench item 11, changes 10).
// Kinds: ordinary (a line added), comment (the first line's comment changed), round (item 11's
// ordinary change: four blocks of five lines rewritten).
import { join } from 'node:path';
import { git, median, stageEdit } from './util.mjs';
import { plainTwin } from './plain-vs-governed.mjs';

const [rounds, kind, ...versions] = process.argv.slice(2);
if (!versions.length || !['ordinary', 'comment', 'round'].includes(kind)) {
  console.error('usage: node bench/ab-commit.mjs <rounds> <ordinary|comment|round> <name>=<bench dir> …');
  process.exit(2);
}
const V = versions.map((s) => {
  const [name, dir] = s.split('=');
  const wt = join(dir, 'repo-1000.worktrees', 'BENCH');
  const env = { ...process.env, GIT_CONFIG_GLOBAL: join(dir, 'gitconfig'), GIT_CONFIG_NOSYSTEM: '1' };
  const files = git(wt, ['ls-files', 'src'], { env }).stdout.trim().split('\n').slice(80, 80 + (Number(process.env.AB_FILES) || 3));
  // Plain commits in a second worktree of the repository (plain-vs-governed.mjs plainTwin).
  const twin = plainTwin({ main: join(dir, 'repo-1000'), wt });
  return { name, wt, twin, env, files, plain: [], governed: [], ratio: [] };
});
let seq = Date.now() % 100000;
const commit = (v, cwd, extra) => git(cwd, [...extra, 'commit', '-q', '-m', `ab ${seq}`], { env: v.env }).ms;
for (let i = -2; i < Number(rounds); i++) {
  for (const v of i % 2 ? [...V].reverse() : V) {
    let p = 0;
    let g = 0;
    for (const o of i % 2 ? ['g', 'p'] : ['p', 'g']) {
      stageEdit(o === 'p' ? v.twin : v.wt, v.files, ++seq, kind);
      if (o === 'p') p = commit(v, v.twin, ['-c', 'core.hooksPath=/dev/null']);
      else g = commit(v, v.wt, []);
    }
    if (i < 0) continue; // two warm-up rounds
    v.plain.push(p);
    v.governed.push(g);
    v.ratio.push(g / p);
  }
}
for (const v of V) {
  console.log(`${kind} ${v.name}: plain ${median(v.plain).toFixed(1)} ms, governed ${median(v.governed).toFixed(1)} ms, ratio (paired median) ${median(v.ratio).toFixed(2)}×`);
}
