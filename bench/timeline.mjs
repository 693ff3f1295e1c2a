#!/usr/bin/env node
// `node bench/timeline.mjs <bench dir> [commits] [ordinary|comment|comment-end|round] [files]`: where a
// governed commit's milliseconds go, phase by phase, in a bench dir that
// `BENCH_ONLY=11 BENCH_QUICK=1 BENCH_KEEP=1 node bench/run.mjs` kept. Each commit runs with git's
// own trace (GIT_TRACE2_EVENT: when each hook starts and exits) and the hook server's trace
// (INTENT_HOOK_SERVER_TRACE: when each request arrived, was claimed and answered; when the
// read-ahead and the early record started, and their phases), both on the same clock; the server
// is restarted first so that it writes its trace. Prints the medians of each moment (ms from git's
// start) and of the spans between them. Kinds: ordinary (a line added), comment (the first line's
// comment changed, as item 11), comment-end (a comment line appended at the end), round (item 11's
// ordinary change: four blocks of five lines rewritten with new values). Also printed: the check's,
// the read-ahead's and the record's own phases. TIMELINE_ROWS=1: each commit's moments too, from its
// post-commit's start; TIMELINE_WARMUP=<n>: commits left out after the server's start (default 3).
import { execFileSync } from 'node:child_process';
import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from './util.mjs';

const [dir, commits = '30', kind = 'ordinary', nFiles = '3'] = process.argv.slice(2);
if (!dir || !['ordinary', 'comment', 'comment-end', 'round'].includes(kind)) {
  console.error('usage: node bench/timeline.mjs <bench dir> [commits] [ordinary|comment|comment-end|round] [files]');
  process.exit(2);
}
const wt = join(dir, 'repo-1000.worktrees', 'BENCH');
const serverTrace = join(tmpdir(), `intent-timeline-${process.pid}.jsonl`);
const gitTrace = join(tmpdir(), `intent-timeline-${process.pid}.git.json`);
const env = { ...process.env, GIT_CONFIG_GLOBAL: join(dir, 'gitconfig'), GIT_CONFIG_NOSYSTEM: '1', INTENT_HOOK_SERVER_TRACE: serverTrace };
const git = (args, e = env) => execFileSync('git', args, { cwd: wt, env: e, encoding: 'utf8' });
// The server writes its trace only when started with it: the next commit starts one that does.
try {
  process.kill(Number(readFileSync(join(dir, 'repo-1000', '.git', 'intent', 'server', 'pid'), 'utf8').split('\n')[0]), 'SIGTERM');
} catch { /* none running */ }
const files = git(['ls-files', 'src']).trim().split('\n').slice(80, 80 + Number(nFiles));
/** A trace2 time (ISO, µs) in ms since the epoch. */
const ms = (s) => {
  const d = new Date(s);
  return d.getTime() - d.getMilliseconds() + Number(`0.${s.split('.')[1].replace('Z', '')}`) * 1000;
};
const rows = [];
/** Commits whose post-commit hook asked the server (the others found the record's marker). */
let asked = 0;
// TIMELINE_WARMUP=<n>: commits after the server's start left out (default 3).
const warmup = Number(process.env.TIMELINE_WARMUP ?? 3);
for (let i = -warmup; i < Number(commits); i++) {
  for (const f of files) {
    const p = join(wt, f);
    if (kind === 'comment') {
      const lines = readFileSync(p, 'utf8').split('\n');
      lines[0] = `// comment round ${Date.now()} ${i}`;
      writeFileSync(p, lines.join('\n'));
    } else if (kind === 'round') {
      // As bench/hooks.mjs's stageRound: lines 1-5, 11-15, 21-25 and 31-35 with this round's values.
      const lines = readFileSync(p, 'utf8').split('\n');
      const seq = 90_000 + i;
      for (const b of [0, 10, 20, 30]) for (let k = b; k < b + 5; k++) if (k + 1 < lines.length) lines[k + 1] = `export const v${k} = ${seq * 1000 + k}; // round ${seq}`;
      writeFileSync(p, lines.join('\n'));
    } else {
      appendFileSync(p, kind === 'comment-end' ? `// end ${Date.now()} ${i}\n` : `export const t${Date.now()}_${i + 3} = ${i};\n`);
    }
  }
  git(['add', '--', ...files]);
  rmSync(serverTrace, { force: true });
  rmSync(gitTrace, { force: true });
  git(['commit', '-q', '-m', `timeline ${i}`], { ...env, GIT_TRACE2_EVENT: gitTrace });
  if (i < 0) continue; // the server's start and warm-up
  const ev = readFileSync(gitTrace, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const t0 = ms(ev[0].time);
  const starts = ev.filter((e) => e.event === 'child_start' && e.child_class === 'hook').map((e) => ms(e.time) - t0);
  const exits = ev.filter((e) => e.event === 'child_exit').map((e) => ms(e.time) - t0);
  const served = readFileSync(serverTrace, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const check = served.find((l) => l.hook === 'prepare-commit-msg');
  // post-commit's request, when its hook asked (none when the server's marker said the commit was
  // recorded: lib/hooks/prefetch.ts), and the record made as soon as git made the commit.
  const post = served.find((l) => l.hook === 'post-commit');
  const early = served.find((l) => l.hook === 'post-commit:early') ?? (post?.earlyAt ? post : null);
  if (!check || !(post || early) || starts.length !== 2) continue;
  asked += post ? 1 : 0;
  const r = {
    'check hook starts': starts[0], 'check asked': check.at - t0, 'check answered': check.at - t0 + check.queued + check.ms, 'check hook exits': exits[0],
    'post-commit starts': starts[1], 'post-commit exits': exits[1],
    'git exits': ms(ev.find((e) => e.event === 'exit').time) - t0,
  };
  if (post) Object.assign(r, { 'post-commit asked': post.at - t0, 'post-commit answered': post.at - t0 + post.queued + post.ms });
  const rec = early ?? post;
  if (rec.ahead?.at) Object.assign(r, { 'read-ahead starts': rec.ahead.at - t0, 'read-ahead done': rec.ahead.at - t0 + rec.ahead.classes });
  if (rec.earlyAt) Object.assign(r, { 'record starts': rec.earlyAt - t0, 'record done': rec.earlyAt - t0 + rec.early });
  // The record's phases, each the time from its start to that phase's end (lib/hooks/post-commit.ts).
  for (const [k, v] of Object.entries(rec.phases ?? {})) r[`record: ${k}`] = v;
  // The read-ahead's phases, each the time from its start to that phase's end (lib/hooks/prefetch.ts).
  for (const [k, v] of Object.entries(rec.ahead ?? {})) if (typeof v === 'number' && k !== 'at') r[`ahead: ${k}`] = v;
  // The check's phases, each the time from its claim to that phase's end (the server's laps).
  for (const [k, v] of Object.entries(check.laps ?? {})) r[`check: ${k}`] = v;
  rows.push(r);
}
rmSync(serverTrace, { force: true });
rmSync(gitTrace, { force: true });
// TIMELINE_ROWS=1: each commit's moments, in ms from the start of its post-commit hook.
if (process.env.TIMELINE_ROWS) {
  for (const r of rows) {
    const rel = (k) => (r[k] === undefined ? '-' : (r[k] - r['post-commit starts']).toFixed(1));
    console.log(`  git exits ${r['git exits'].toFixed(1)}: check asked ${r['check asked'].toFixed(1)}, answered ${r['check answered'].toFixed(1)}; post-commit starts ${r['post-commit starts'].toFixed(1)}: read-ahead ${rel('read-ahead starts')}..${rel('read-ahead done')}, record ${rel('record starts')}..${rel('record done')}, post-commit asked ${rel('post-commit asked')}, exits ${rel('post-commit exits')}; ` +
      `read-ahead's phases ${Object.keys(r).filter((k) => k.startsWith('ahead: ')).map((k) => `${k.slice(7)} ${r[k]}`).join(' ')}`);
  }
}
const at = (k) => median(rows.map((r) => r[k]).filter(Number.isFinite));
const span = (a, b) => median(rows.map((r) => r[b] - r[a]).filter(Number.isFinite));
console.log(`${kind}, ${files.length} files, ${rows.length} commits (post-commit asked the server in ${asked}): medians, ms from git's start`);
const keys = Object.keys(rows[0] ?? {});
for (const k of keys.filter((x) => !/^(record|check|ahead): /.test(x)).sort((a, b) => at(a) - at(b))) console.log(`  ${k.padEnd(22)} ${at(k).toFixed(2).padStart(7)}`);
console.log(`the record's phases (ms from its start to each one's end): ${keys.filter((x) => x.startsWith('record: ')).map((k) => `${k.slice(8)} ${at(k).toFixed(2)}`).join(', ')}`);
console.log(`the check's phases (ms from its claim to each one's end): ${keys.filter((x) => x.startsWith('check: ')).map((k) => `${k.slice(7)} ${at(k).toFixed(2)}`).join(', ')}`);
console.log(`the read-ahead's phases (ms from its start to each one's end): ${keys.filter((x) => x.startsWith('ahead: ')).map((k) => `${k.slice(7)} ${at(k).toFixed(2)}`).join(', ')}`);
console.log('spans (medians of the differences)');
for (const [a, b] of [
  ['check hook starts', 'check asked'], ['check asked', 'check answered'], ['check answered', 'check hook exits'], ['check hook exits', 'post-commit starts'],
  ['post-commit starts', 'post-commit asked'], ['post-commit asked', 'post-commit answered'], ['post-commit answered', 'post-commit exits'], ['post-commit starts', 'post-commit exits'], ['post-commit exits', 'git exits'],
  ['check answered', 'read-ahead starts'], ['read-ahead starts', 'read-ahead done'], ['read-ahead done', 'record starts'], ['record starts', 'record done'], ['record done', 'post-commit asked'], ['record done', 'post-commit exits'],
]) console.log(`  ${`${a} → ${b}`.padEnd(46)} ${span(a, b).toFixed(2).padStart(7)}`);
