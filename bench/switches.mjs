#!/usr/bin/env node
// `node bench/switches.mjs <rounds> <ordinary|comment|round> <bench dir> [NAME=VAR=VALUE[,VAR=VALUE] …]`:
// the commit path's on/off switches against each other in one repository, in one run (issue 42:
// each mechanism measured with a switch). <bench dir> is one that
// `BENCH_ONLY=11 BENCH_QUICK=1 BENCH_KEEP=1 node bench/run.mjs` kept. Each round makes a plain
// commit (hooks off, in a second worktree: plainTwin) and, for each variant, a governed commit of
// the same kind of change with that variant's environment (the hook server reads the settings of
// each hook's environment), the order rotating from round to round; two warm-up rounds are not
// counted. Prints per variant the median, the paired ratio to the plain commit, and the median
// paired difference to "all on". Without variants: all on, INTENT_NOTES_IN_PROCESS=0,
// INTENT_READ_AHEAD=0 and both off.
// AB_FILES=<n>: files per commit (default 10, as bench item 11).
import { join } from 'node:path';
import { git, median, stageEdit } from './util.mjs';
import { plainTwin } from './plain-vs-governed.mjs';

const [rounds, kind, dir, ...given] = process.argv.slice(2);
if (!dir || !['ordinary', 'comment', 'round'].includes(kind)) {
  console.error('usage: node bench/switches.mjs <rounds> <ordinary|comment|round> <bench dir> [NAME=VAR=VALUE[,VAR=VALUE] …]');
  process.exit(2);
}
const parse = (s) => {
  const eq = s.indexOf('=');
  const name = s.slice(0, eq);
  return { name, vars: Object.fromEntries(s.slice(eq + 1).split(',').map((kv) => kv.split('='))) };
};
const variants = [{ name: 'all on', vars: {} }, ...(given.length ? given : [
  'notes-writer-off=INTENT_NOTES_IN_PROCESS=0',
  'read-ahead-off=INTENT_READ_AHEAD=0',
  'both-off=INTENT_NOTES_IN_PROCESS=0,INTENT_READ_AHEAD=0',
]).map(parse)];
const wt = join(dir, 'repo-1000.worktrees', 'BENCH');
const env = { ...process.env, GIT_CONFIG_GLOBAL: join(dir, 'gitconfig'), GIT_CONFIG_NOSYSTEM: '1' };
const files = git(wt, ['ls-files', 'src'], { env }).stdout.trim().split('\n').slice(80, 80 + (Number(process.env.AB_FILES) || 10));
const twin = plainTwin({ main: join(dir, 'repo-1000'), wt });
let seq = Date.now() % 100000;
const commit = (cwd, extra, e) => {
  stageEdit(cwd, files, ++seq, kind);
  return git(cwd, [...extra, 'commit', '-q', '-m', `switch ${seq}`], { env: e }).ms;
};
const plain = [];
const times = variants.map(() => []);
for (let i = -2; i < Number(rounds); i++) {
  const order = variants.map((_, k) => (k + i + 2) % variants.length);
  const p = commit(twin, ['-c', 'core.hooksPath=/dev/null'], env);
  const got = [];
  for (const k of order) got[k] = commit(wt, [], { ...env, ...variants[k].vars });
  if (i < 0) continue;
  plain.push(p);
  got.forEach((t, k) => times[k].push(t));
}
const out = variants.map((v, k) => ({
  variant: v.name,
  env: v.vars,
  median_ms: +median(times[k]).toFixed(2),
  ratio_to_plain: +median(times[k].map((t, j) => t / plain[j])).toFixed(2),
  delta_to_all_on_ms: +median(times[k].map((t, j) => t - times[0][j])).toFixed(2),
}));
console.log(JSON.stringify({ kind, rounds: Number(rounds), files: files.length, plain_median_ms: +median(plain).toFixed(2), variants: out }, null, 2));
for (const o of out) console.log(`${kind} ${o.variant}: ${o.median_ms} ms, ${o.ratio_to_plain}× plain (${median(plain).toFixed(1)} ms), ${o.delta_to_all_on_ms >= 0 ? '+' : ''}${o.delta_to_all_on_ms} ms vs all on`);
