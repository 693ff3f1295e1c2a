// Item 11: a governed commit against a plain `git commit` of the same change, paired in one run, for
// an ordinary change and a comment-only one, with where the governed commit's time goes; and the
// hook server's resident memory over many commits.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { stageRound } from './hooks.mjs';
import { check, genPath, getEnv, git, stageEdit, stats } from './util.mjs';

/** Rewrites the first line (a comment) of each hot file for round `seq`, and stages them. */
function stageComment(wt, hot, seq) {
  stageEdit(wt, hot.map(genPath), seq, 'comment');
}

/** The served hooks' trace lines written since `from` (lib/hooks/server.ts, INTENT_HOOK_SERVER_TRACE). */
function traced(file, from) {
  if (!existsSync(file)) return [];
  // (`<hook>:after` lines: what the work after an answer added to its trace; not requests.
  // `post-commit:early`: the commit recorded as soon as git made it, whether or not its post-commit
  // hook then asked.)
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((l) => !String(l.hook).endsWith(':after')).slice(from);
}

/**
 * `reps` pairs for each kind of change (order alternating within a pair): a commit with hooks
 * disabled (`-c core.hooksPath=/dev/null`, in `plainTwin`: the same repository, the same kind of
 * change) and a governed commit through the installed hooks and the hook server. The governed commit's time is
 * split into the served hooks' own work (the server's trace: claim to answer) and the rest
 * (git's extra hook runs, the shell wrappers and runner: sh start-up, mkfifo, the FIFO round trip).
 */
export function plainVsGoverned(repo, reps, traceFile) {
  const { wt, hot } = repo;
  const twin = plainTwin(repo);
  const env = { ...getEnv(), INTENT_HOOK_SERVER_TRACE: traceFile };
  rmSync(traceFile, { force: true });
  let seq = 10_000;
  const out = {};
  const governedShas = [];
  for (const [kind, stage] of [['ordinary', stageRound], ['comment-only', stageComment]]) {
    const plain = [];
    const governed = [];
    const phases = { 'pre-commit': [], 'post-commit': [], other: [] };
    // How often the served hooks took their in-process paths (lib/hooks/prefetch.ts): pre-commit's
    // staged paths from the index, post-commit's diff read ahead.
    // notAsked: commits whose post-commit hook found the record done and did not ask (the marker).
    const fast = { stagedInProcess: 0, readAhead: 0, notAsked: 0, commits: 0 };
    // Two warm-ups by default (the first starts the server); BENCH_WARMUP=<n> for more.
    for (let r = -Number(process.env.BENCH_WARMUP ?? 2); r < reps; r++) {
      let p = 0;
      let g = 0;
      let served = [];
      for (const which of r % 2 ? ['governed', 'plain'] : ['plain', 'governed']) {
        stage(which === 'plain' ? twin : wt, hot, ++seq);
        if (which === 'plain') {
          p = git(twin, ['-c', 'core.hooksPath=/dev/null', 'commit', '-q', '-m', `plain ${kind} ${seq}`], { env }).ms;
        } else {
          const before = traced(traceFile, 0).length;
          const c = git(wt, ['commit', '-q', '-m', `governed ${kind} ${seq}`], { env, servers: true });
          check(!/WARNING|NOT recorded|blocked/.test(c.stderr), `governed commit: ${c.stderr}`);
          g = c.ms;
          served = traced(traceFile, before);
          governedShas.push(git(wt, ['rev-parse', 'HEAD']).stdout.trim());
        }
      }
      if (r < 0) continue;
      const early = served.find((s) => s.hook === 'post-commit:early');
      check(served.some((s) => s.hook === 'post-commit') || early?.marker, `the governed commit was not served: ${JSON.stringify(served)}`);
      plain.push(p);
      governed.push(g);
      const hook = (h) => served.filter((s) => s.hook === h).reduce((n, s) => n + s.ms, 0);
      // The check before the commit: prepare-commit-msg's in intent worktrees (pre-commit's before).
      const checked = hook('pre-commit') + hook('prepare-commit-msg');
      phases['pre-commit'].push(checked);
      phases['post-commit'].push(hook('post-commit'));
      phases.other.push(g - p - checked - hook('post-commit'));
      fast.commits++;
      if (served.some((s) => (s.hook === 'pre-commit' || s.hook === 'prepare-commit-msg') && s.stagedInProcess)) fast.stagedInProcess++;
      if (served.some((s) => s.hook === 'post-commit' && s.readAhead) || (early?.readAhead && !served.some((s) => s.hook === 'post-commit'))) fast.readAhead++;
      if (!served.some((s) => s.hook === 'post-commit')) fast.notAsked++;
    }
    const ratios = governed.map((g, i) => g / plain[i]);
    out[kind] = {
      plain: stats(plain), governed: stats(governed), ratio: stats(ratios),
      phases: Object.fromEntries(Object.entries(phases).map(([k, xs]) => [k, stats(xs)])),
      fast,
    };
  }
  // Every governed commit got its note (the plain ones, made with hooks off, have none).
  const noted = new Set(git(wt, ['notes', '--ref=refs/notes/intents', 'list']).stdout.split('\n').map((l) => l.split(' ')[1]));
  const missing = governedShas.filter((c) => !noted.has(c));
  check(missing.length === 0, `item 11: governed commits without a note: ${missing.join(' ')}`);
  return out;
}

/**
 * A second worktree of the repository, at the intent worktree's commit (the same files, the same
 * index size), where the plain commits are made: each governed commit then follows a governed one
 * in its worktree, as in use (the hook server keeps HEAD's flat tree from the commit it recorded).
 */
export function plainTwin(repo) {
  const twin = `${repo.main}.plain-twin`;
  if (!existsSync(twin)) {
    git(repo.wt, ['-c', 'core.hooksPath=/dev/null', 'worktree', 'add', '-q', '--detach', twin, 'HEAD']);
    // Files checked out in the second the index is written are "racily clean": git would hash
    // them again at every commit until the index is rewritten later. A second on, rewrite it.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1100);
    git(twin, ['status', '--porcelain']);
  }
  return twin;
}

/**
 * The hook server's resident memory (its trace's rss, MB) after each of `commits` governed commits
 * (`traceFile`: the one the running server was started with, plainVsGoverned's).
 */
export function serverMemory(repo, commits, traceFile) {
  const { wt, hot } = repo;
  const env = { ...getEnv(), INTENT_HOOK_SERVER_TRACE: traceFile };
  const from = traced(traceFile, 0).length;
  let seq = 50_000;
  const rss = [];
  for (let i = 0; i < commits; i++) {
    if (i % 2) stageComment(wt, hot, ++seq);
    else stageRound(wt, hot, ++seq);
    git(wt, ['commit', '-q', '-m', `memory ${i}`], { env, servers: true });
  }
  const lines = traced(traceFile, from);
  const heap = [];
  const mb = (x) => Number((x / 1048576).toFixed(1));
  for (const t of lines) {
    if (t.hook !== 'post-commit') continue;
    rss.push(t.rss / 1048576);
    heap.push([mb(t.heap), mb(t.heapTotal ?? 0), mb(t.external ?? 0)]);
  }
  const at = (k) => rss[Math.min(rss.length - 1, k)]?.toFixed(1);
  // Every 25th commit, for the curve (MB): resident memory, the V8 heap in use and reserved, outside the heap.
  const curve = rss.map((r, k) => [k + 1, Number(r.toFixed(1)), ...heap[k]]).filter(([k]) => k === 1 || k % 25 === 0);
  return { commits, served: rss.length, first: at(0), at10: at(9), at100: at(99), last: at(rss.length - 1), max: Math.max(...rss).toFixed(1), servers: new Set(lines.map((t) => t.server)).size, curve };
}

