// Items 1 and 2: what the pre-commit and post-commit hooks add to a commit, and a big commit.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  REPS, check, checkoutIntent, genContent, genPath, getEnv, git, governRepo, hookContext, intent, log, run, stats,
  syntheticRepo,
} from './util.mjs';

const HOT_LINES = 40; // a hot file has a comment line and 40 `export const` lines
const HOT_BLOCKS = [0, 10, 20, 30]; // 4 hunks of 5 lines: 20 changed lines a file, 200 a commit

/** The 10 files a benchmark commit changes, spread over the tree. */
export function hotFiles(n) {
  return Array.from({ length: 10 }, (_, k) => Math.floor((k * n) / 10) + 3);
}

/** Generated file `i` with the lines of `blocks` (5 each) rewritten for round `seq`. */
function edited(i, lines, blocks, seq) {
  const base = genContent(i, lines).split('\n');
  for (const b of blocks) for (let k = b; k < b + 5; k++) base[k + 1] = `export const v${k} = ${seq * 1000 + k}; // round ${seq}`;
  return base.join('\n');
}

/** Rewrites the hot files for round `seq` and stages them. */
export function stageRound(wt, hot, seq) {
  for (const i of hot) writeFileSync(join(wt, genPath(i)), edited(i, HOT_LINES, HOT_BLOCKS, seq));
  git(wt, ['add', '--', ...hot.map(genPath)]);
}

/**
 * A governed repository of `n` generated files: `intent init`, a registry with intent BENCH
 * (scope src/**) and `extra` PENDING intents, and BENCH's worktree (a full checkout: the
 * benchmark commits there). The main worktree holds only its index and `.orchestration/`.
 */
export async function governedSynthetic(dir, n, extra = []) {
  const hot = hotFiles(n);
  await syntheticRepo(dir, n, { wide: new Set(hot), wideLines: HOT_LINES, checkout: false });
  governRepo(dir, [{ id: 'BENCH', scope: ['src/**'] }, ...extra]);
  const wt = checkoutIntent(dir, 'BENCH');
  return { n, main: dir, wt, hot, ctx: hookContext(wt) };
}

/**
 * Runs an installed hook file exactly as git would: same cwd, GIT_DIR, GIT_INDEX_FILE. In intent
 * worktrees the check before a commit is prepare-commit-msg's: 'pre-commit' runs it (with a
 * message file, as `git commit -m` gives it); a hook the folder does not have (commit-msg there,
 * unless the repository has its own) is not run and costs nothing.
 */
export function runHook(ctx, wt, hook, args = []) {
  if (hook === 'pre-commit') {
    const msg = join(ctx.gitDir, 'BENCH_CHECK_MSG');
    writeFileSync(msg, 'bench\n');
    return runHook(ctx, wt, 'prepare-commit-msg', [msg, 'message']);
  }
  if (!existsSync(join(ctx.hooksPath, hook))) return { status: 0, stdout: '', stderr: '', ms: 0, cpu: 0 };
  const r = run(join(ctx.hooksPath, hook), args, { cwd: wt, env: ctx.env, allowFail: true, servers: true });
  check(r.status === 0, `${hook} hook failed (exit ${r.status}): ${r.stderr}`);
  check(!/WARNING|NOT recorded|internal error/.test(r.stderr), `${hook} hook reported a problem: ${r.stderr}`);
  return r;
}

const nodeZero = (cwd) => run(process.execPath, ['-e', '0'], { cwd });

/**
 * Item 1 for one repository size. Each repetition, interleaved so drift hits every series alike:
 *   node -e 0 (the yardstick) · stage 10 files / 200 lines · run the pre-commit hook file ·
 *   run the commit-msg hook file (a message without trailers) · commit with hooks disabled (the
 *   baseline commit) · run the post-commit hook file · stage again · a real commit with the hooks
 *   (end to end).
 * The hooks are timed as the files git runs (`<git-common-dir>/intent/hooks/<hook>`: shell
 * wrapper, runner, node), with git's hook environment; the end-to-end pair gives the total a
 * commit pays, including the shell wrappers of the hooks git also runs (prepare-commit-msg,
 * commit-msg, post-index-change).
 */
export function hookOverhead(repo, reps = REPS, profiler = null, extraEnv = null) {
  const { wt, hot } = repo;
  // extraEnv (e.g. INTENT_HOOK_SERVER=0) goes to the hook files and to the end-to-end commit.
  const ctx = extraEnv ? { ...repo.ctx, env: { ...repo.ctx.env, ...extraEnv } } : repo.ctx;
  const commitEnv = extraEnv ? { ...getEnv(), ...extraEnv } : undefined;
  const series = { node0: [], pre: [], msg: [], post: [], base: [], hooked: [], added: [] };
  const cpu = { node0: [], pre: [], msg: [], post: [], base: [], hooked: [], added: [] };
  const start = git(wt, ['rev-parse', 'HEAD']).stdout.trim();
  const msgFile = join(ctx.gitDir, 'BENCH_COMMIT_MSG');
  let seq = 0;
  for (let r = -1; r < reps; r++) { // r = -1: warm-up, not recorded
    const node0 = nodeZero(wt);
    stageRound(wt, hot, ++seq);
    const pre = runHook(ctx, wt, 'pre-commit');
    if (profiler && r >= 0) profiler.extra('pre-commit', wt, ctx.env, pre.ms, r);
    writeFileSync(msgFile, `bench round ${seq}\n`);
    const msg = runHook(ctx, wt, 'commit-msg', [msgFile]);
    const base = git(wt, ['-c', 'core.hooksPath=/dev/null', 'commit', '-q', '-m', `bench round ${seq}`]);
    const post = runHook(ctx, wt, 'post-commit');
    if (profiler && r >= 0) profiler.extra('post-commit', wt, ctx.env, post.ms, r);
    stageRound(wt, hot, ++seq);
    const hooked = git(wt, ['commit', '-q', '-m', `bench round ${seq} (hooks)`], { servers: true, env: commitEnv });
    check(!/WARNING|NOT recorded|blocked/.test(hooked.stderr), `hooked commit: ${hooked.stderr}`);
    if (r < 0) continue;
    for (const [k, v] of Object.entries({ node0, pre, msg, post, base, hooked })) {
      series[k].push(v.ms);
      cpu[k].push(v.cpu);
    }
    series.added.push(hooked.ms - base.ms);
    cpu.added.push(hooked.cpu - base.cpu);
  }
  // Every benchmark commit got a genuine note.
  const v = JSON.parse(intent(wt, ['verify', `${start}..HEAD`, '--json', '--no-ledger'], { allowFail: true }).stdout);
  check(v.findings.length === 0 && v.governed === 2 * (reps + 1), `verify after the hook benchmark (${repo.n} files): ${v.governed} governed, findings ${JSON.stringify(v.findings.slice(0, 3))}`);
  const s = Object.fromEntries(Object.entries(series).map(([k, xs]) => [k, stats(xs)]));
  const c = cpu.node0.some((x) => x === null) ? null : Object.fromEntries(Object.entries(cpu).map(([k, xs]) => [k, stats(xs)]));
  return {
    n: repo.n, ...s, preRatio: s.pre.median / s.node0.median, msgRatio: s.msg.median / s.node0.median, postRatio: s.post.median / s.node0.median, addedRatio: s.added.median / s.node0.median,
    cpu: c && { ...c, preRatio: c.pre.median / c.node0.median, msgRatio: c.msg.median / c.node0.median, postRatio: c.post.median / c.node0.median, addedRatio: c.added.median / c.node0.median },
  };
}

/**
 * Item 2: a commit of `files` files with 50 changed lines each (10 hunks of 5 lines replaced:
 * 50 added + 50 deleted lines a file, 100,000 added lines for 2,000 files) through the
 * post-commit hook file. The commit itself is made with hooks disabled, then the hook runs. The
 * warm-up commit's post-commit runs through `probe` instead (spawn probe and CPU profile).
 */
export async function bigCommit(dir, files, reps = REPS, probe = null) {
  const LINES = 100;
  const BLOCKS = [0, 10, 20, 30, 40, 50, 60, 70, 80, 90];
  await syntheticRepo(dir, files, { wide: new Set(Array.from({ length: files }, (_, i) => i)), wideLines: LINES });
  governRepo(dir, [{ id: 'BIG', scope: ['src/**'] }]);
  const wt = checkoutIntent(dir, 'BIG');
  const ctx = hookContext(wt);
  const series = { post: [], base: [], node0: [], postCpu: [] };
  let added = 0;
  let probed = null;
  let warm = null;
  for (let r = -1; r < reps; r++) {
    for (let i = 0; i < files; i++) writeFileSync(join(wt, genPath(i)), edited(i, LINES, BLOCKS, r + 2));
    git(wt, ['add', 'src']);
    const node0 = nodeZero(wt);
    const base = git(wt, ['-c', 'core.hooksPath=/dev/null', 'commit', '-q', '-m', `big ${r}`]).ms;
    if (r === -1) { // the warm-up commit: recorded through the probe (and the CPU profiler), then checked
      probed = probe ? probe(wt, ctx.env, 'post-commit') : (runHook(ctx, wt, 'post-commit'), null);
      warm = git(wt, ['rev-parse', 'HEAD']).stdout.trim();
      const note = git(wt, ['notes', '--ref=intents', 'show', 'HEAD']).stdout.split('\n');
      const meta = JSON.parse(note[1]).metadata['dev.intent'];
      added = Object.values(meta.files).reduce((n, f) => n + f.added_lines, 0);
      const deleted = Object.values(meta.files).reduce((n, f) => n + f.deleted_lines, 0);
      check(Object.keys(meta.files).length === files && added === files * 50 && deleted === files * 50,
        `big commit note: ${Object.keys(meta.files).length} files, ${added} added, ${deleted} deleted lines`);
      log(`  big commit: ${files} files, ${added} added + ${deleted} deleted lines, note of ${(note.join('\n').length / 1e6).toFixed(1)} MB`);
      continue;
    }
    const { ms: post, cpu: postCpu } = runHook(ctx, wt, 'post-commit');
    series.post.push(post);
    series.postCpu.push(postCpu ?? NaN);
    series.base.push(base);
    series.node0.push(node0.ms);
  }
  // The warm-up commit's note is genuine (verifying all of them would cost more than the item).
  const v = JSON.parse(intent(wt, ['verify', `${warm}^!`, '--json', '--no-ledger'], { allowFail: true }).stdout);
  check(v.findings.length === 0 && v.governed === 1, `verify of the big commit: ${v.governed} governed, findings ${JSON.stringify(v.findings.slice(0, 3))}`);
  return { files, addedLines: added, probed, ...Object.fromEntries(Object.entries(series).map(([k, xs]) => [k, stats(xs)])) };
}

