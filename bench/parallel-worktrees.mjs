#!/usr/bin/env node
// Parallel agents, the product's own scenario (issue 42): 8 intents in progress, each branch grown
// to HISTORY commits first (hooks off: only the branches' length matters to the check), then 1, 2,
// 4 and 8 of their worktrees committing at once, ROUNDS governed commits each, every `git commit`
// timed by the worker itself. Prints one JSON line per width: per-commit latency (p50, p90) and
// throughput, and the ratio of each p50 to the one-worktree p50.
//
//   node bench/parallel-worktrees.mjs [HISTORY] [ROUNDS]   (default 300 20; needs `npm run build`)
import { mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { check, checkoutIntent, git, governRepo, isolatedRun, log, quantile, removeTree, spawnAsync, syntheticRepo } from './util.mjs';

const HISTORY = Number(process.argv[2] ?? 300);
const ROUNDS = Number(process.argv[3] ?? 20);
const WIDTHS = [1, 2, 4, 8];
const root = realpathSync(mkdtempSync(join(tmpdir(), 'intent-bench-parallel-')));

/** A worker's script: `n` commits in `dir` of worktree k, each timed (ns) into `times`; `args` before `commit`. */
const script = (k, n, start, times, args = '') => `set -e
i=${start}
while [ $i -lt ${start + n} ]; do
  printf 'export const v%s = %s;\\n' $i $i > src/w${k}/f$((i % 20)).ts
  git add -- src/w${k}
  s=$(date +%s%N)
  git ${args} commit -q -m "w${k} $i"
  e=$(date +%s%N)
  echo $((e - s)) >> ${times}
  i=$((i + 1))
done
`;

try {
  isolatedRun(root);
  const dir = join(root, 'repo');
  await syntheticRepo(dir, 100);
  const ids = Array.from({ length: 8 }, (_, k) => `W${k + 1}`);
  governRepo(dir, ids.map((id, k) => ({ id, scope: [`src/w${k + 1}/**`], status: 'IN_PROGRESS' })));
  const wts = ids.map((id) => checkoutIntent(dir, id));
  log(`growing 8 branches to ${HISTORY} commits each (hooks off) …`);
  await Promise.all(wts.map((wt, k) => spawnAsync('sh', ['-c', `mkdir -p src/w${k + 1} && ${script(k + 1, HISTORY, 0, '/dev/null', '-c core.hooksPath=/dev/null')}`], { cwd: wt })));
  let next = HISTORY;
  const rows = [];
  for (const width of WIDTHS) {
    log(`${width} worktree${width === 1 ? '' : 's'} × ${ROUNDS} governed commits at once …`);
    const times = wts.slice(0, width).map((_, k) => join(root, `times-${width}-${k}`));
    const t0 = performance.now();
    const res = await Promise.all(wts.slice(0, width).map((wt, k) => spawnAsync('sh', ['-c', script(k + 1, ROUNDS, next, times[k])], { cwd: wt })));
    const wall = performance.now() - t0;
    for (const [k, r] of res.entries()) check(r.status === 0, `worker ${k + 1} failed: ${r.stderr}`);
    next += ROUNDS;
    const lat = times.flatMap((f) => readFileSync(f, 'utf8').split('\n').filter(Boolean).map((x) => Number(x) / 1e6));
    rows.push({ width, commits: lat.length, p50: quantile(lat, 0.5), p90: quantile(lat, 0.9), perSecond: lat.length / (wall / 1000) });
  }
  // Every governed commit has its note.
  const noted = new Set(git(dir, ['notes', '--ref=intents', 'list']).stdout.trim().split('\n').filter(Boolean).map((l) => l.split(' ')[1]));
  // Worker k made ROUNDS governed commits at each width that included it: its branch's newest ones.
  const governed = wts.flatMap((wt, k) => git(wt, ['rev-list', '-n', String(ROUNDS * WIDTHS.filter((w) => w > k).length), 'HEAD']).stdout.trim().split('\n'));
  check(rows.reduce((n, r) => n + r.commits, 0) === ROUNDS * WIDTHS.reduce((a, b) => a + b, 0), 'every commit timed');
  const alone = rows[0].p50;
  for (const r of rows) process.stdout.write(JSON.stringify({ history: HISTORY, ...r, p50: Math.round(r.p50 * 10) / 10, p90: Math.round(r.p90 * 10) / 10, perSecond: Math.round(r.perSecond * 10) / 10, p50VsAlone: Math.round((r.p50 / alone) * 100) / 100 }) + '\n');
  process.stdout.write(JSON.stringify({ notedOfLastRounds: governed.filter((s) => noted.has(s)).length, checked: governed.length }) + '\n');
} finally {
  removeTree(root);
}
