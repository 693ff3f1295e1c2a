#!/usr/bin/env node
// `node bench/ab-cpu.mjs <rounds> <ordinary|comment> <name>=<bench dir> <name>=<bench dir> …`: as
// bench/ab-commit.mjs (kept bench dirs, the same commits, interleaved), but the measure is CPU
// time, which a loaded machine moves far less than wall time: `perf stat -e task-clock` around
// each `git commit` counts git and every process it starts and waits for (the hooks' shells and
// what they run), not the hook server's own work. Prints per version the medians of a governed
// and a plain commit and of their difference, paired per round (what the hooks' shells cost).
// Needs `perf` (linux-perf) and permission to count (perf_event_paranoid ≤ 2 for one's own processes).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git, median, stageEdit } from './util.mjs';

const [rounds, kind, ...versions] = process.argv.slice(2);
if (!versions.length || !['ordinary', 'comment'].includes(kind)) {
  console.error('usage: node bench/ab-cpu.mjs <rounds> <ordinary|comment> <name>=<bench dir> …');
  process.exit(2);
}
const tmp = mkdtempSync(join(tmpdir(), 'intent-ab-cpu-'));
const out = join(tmp, 'perf.csv');
const V = versions.map((s) => {
  const [name, dir] = s.split('=');
  const wt = join(dir, 'repo-1000.worktrees', 'BENCH');
  const env = { ...process.env, GIT_CONFIG_GLOBAL: join(dir, 'gitconfig'), GIT_CONFIG_NOSYSTEM: '1' };
  const files = git(wt, ['ls-files', 'src'], { env }).stdout.trim().split('\n').slice(80, 83);
  return { name, wt, env, files, plain: [], governed: [], hooks: [] };
});
let seq = Date.now() % 100000;
/** CPU ms of one `git commit` and the processes it waited for. */
function cpu(v, extra) {
  stageEdit(v.wt, v.files, ++seq, kind);
  rmSync(out, { force: true });
  const r = spawnSync('perf', ['stat', '-x,', '-o', out, '-e', 'task-clock', 'git', ...extra, 'commit', '-q', '-m', `ab-cpu ${seq}`], { cwd: v.wt, env: v.env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`perf stat git commit failed (${r.status}): ${r.stderr}`);
  const line = readFileSync(out, 'utf8').split('\n').find((l) => l.includes('task-clock'));
  return Number(line.split(',')[0]);
}
try {
  for (let i = -2; i < Number(rounds); i++) {
    for (const v of i % 2 ? [...V].reverse() : V) {
      let p = 0;
      let g = 0;
      for (const o of i % 2 ? ['g', 'p'] : ['p', 'g']) {
        if (o === 'p') p = cpu(v, ['-c', 'core.hooksPath=/dev/null']);
        else g = cpu(v, []);
      }
      if (i < 0) continue; // two warm-up rounds
      v.plain.push(p);
      v.governed.push(g);
      v.hooks.push(g - p);
    }
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
for (const v of V) {
  console.log(`${kind} ${v.name}: CPU of a plain commit ${median(v.plain).toFixed(1)} ms, governed ${median(v.governed).toFixed(1)} ms, the hooks' own processes (paired median of the difference) ${median(v.hooks).toFixed(1)} ms`);
}
