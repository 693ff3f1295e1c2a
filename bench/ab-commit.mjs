#!/usr/bin/env node
// `node bench/ab-commit.mjs <rounds> <ordinary|comment> <name>=<bench dir> <name>=<bench dir>`:
// two versions of intent against each other, interleaved in one run. Each bench dir is one that
// `BENCH_ONLY=11 BENCH_QUICK=1 BENCH_KEEP=1 node bench/run.mjs` kept, run from each version's
// checkout (its repository's hooks run that version's package copy). Each round makes, in each
// version's BENCH worktree (the order alternating), a plain commit (hooks off) and a governed one of
// the same kind of change; prints per version the medians and the paired governed/plain ratio.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
const [rounds, kind, ...vs] = process.argv.slice(2);
const V = vs.map((s) => { const [name, dir] = s.split('='); const wt = join(dir, 'repo-1000.worktrees', 'BENCH'); return { name, wt, env: { ...process.env, GIT_CONFIG_GLOBAL: join(dir, 'gitconfig'), GIT_CONFIG_NOSYSTEM: '1' }, files: execFileSync('git', ['ls-files', 'src'], { cwd: wt, encoding: 'utf8' }).trim().split('\n').slice(80, 83), R: [], P: [], G: [] }; });
let seq = Date.now() % 100000;
function stage(v) {
  seq++;
  for (const f of v.files) { const p = join(v.wt, f); const l = readFileSync(p, 'utf8').split('\n'); if (kind === 'comment') l[0] = `// c ${seq}`; else l.splice(3, 0, `export const k${seq} = ${seq};`); writeFileSync(p, l.join('\n')); }
  execFileSync('git', ['add', '--', ...v.files], { cwd: v.wt, env: v.env });
}
function commit(v, extra) {
  const t = process.hrtime.bigint();
  const r = spawnSync('git', [...extra, 'commit', '-q', '-m', `m ${seq}`], { cwd: v.wt, env: v.env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return Number(process.hrtime.bigint() - t) / 1e6;
}
for (let i = -2; i < Number(rounds); i++) {
  const order = i % 2 ? [...V].reverse() : V;
  for (const v of order) {
    let p, g;
    for (const o of i % 2 ? ['g', 'p'] : ['p', 'g']) { stage(v); if (o === 'p') p = commit(v, ['-c', 'core.hooksPath=/dev/null']); else g = commit(v, []); }
    if (i >= 0) { v.P.push(p); v.G.push(g); v.R.push(g / p); }
  }
}
const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };
for (const v of V) console.log(`${kind} ${v.name}: plain ${med(v.P).toFixed(1)} ms, governed ${med(v.G).toFixed(1)} ms, ratio (paired median) ${med(v.R).toFixed(2)}×`);
