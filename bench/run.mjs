#!/usr/bin/env node
// `npm run bench`: measures the hooks, a big commit, verify, checkout and concurrent commits on
// synthetic repositories in a temporary directory, and writes BENCHMARKS.md.
//
//   BENCH_QUICK=1      small sizes and 3 repetitions (to work on the harness; writes to the temp dir)
//   BENCH_REPS=N       repetitions of each timed measurement (default 10, the minimum for the report)
//   BENCH_ONLY=1,3     run only these items (1 hooks, 2 big commit, 3 verify, 4 checkout, 5 concurrency, 6 report,
//                      7 a 10,000-intent registry, 8 each class of commit, 9 intent gate, 10 the test suite,
//                      11 governed vs plain commit, paired, with the phases, and the hook server's memory)
//   BENCH_OUT=FILE     where to write the report (default BENCHMARKS.md; quick runs: the OS temp dir)
//   BENCH_KEEP=1       keep the temporary directory
//
// Exit 0 when the benchmark ran, whether or not every target was met (the report says which);
// 1 when the benchmark itself failed (a hook failed, notes or ledger lines missing, verify findings).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkoutIntents, checkoutOverhead } from './checkout.mjs';
import { classCommits, coldRefactor } from './classes.mjs';
import { concurrentCommits } from './concurrency.mjs';
import { bigCommit, governedSynthetic, hookOverhead } from './hooks.mjs';
import { hookProfiler, importSteps, probeCommand, probeHook, summarizeProbe } from './profile.mjs';
import { writeReport } from './report.mjs';
import {
  BenchError, GLOBAL_GITCONFIG, PKG, QUICK, REPS, benchEnv, elapsed, log, machine, removeTree, run, setCli, setEnv, snapshotPackage, stats,
} from './util.mjs';
import { governedHistory, verifyThroughput } from './verify.mjs';
import { gateSpeed } from './gate.mjs';
import { reportHistory, reportSpeed } from './report-scale.mjs';
import { sameTree, scaleIntents, scaleOverhead, scaleRepo } from './scale.mjs';
import { suiteReportFile, suiteTime } from './suite.mjs';
import { plainVsGoverned, serverMemory } from './plain-vs-governed.mjs';

// The environment as the user started the benchmark (the items below pin their own).
const userEnv = { ...process.env };

const SIZES = QUICK ? [1000, 5000] : [1000, 20000, 100000];
const BIG_FILES = QUICK ? 200 : 2000;
const VERIFY_COMMITS = QUICK ? 500 : 5000;
const WORKERS = 8;
const SCALE = QUICK ? { intents: 1000, inProgress: 50, files: 1000, worktrees: 2 } : { intents: 10000, inProgress: 500, files: 2000, worktrees: 8 };
const WORKER_COMMITS = QUICK ? 3 : 50;
const REPORT_COMMITS = QUICK ? 1000 : 6000;
const REPORT_GOVERNED = QUICK ? 100 : 500;
const GATE = QUICK ? { push: 200, history: 5000 } : { push: 1000, history: 100000 };
const only = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',').map((s) => s.trim())) : null;
const wanted = (item) => !only || only.has(String(item));

const root = realpathSync(mkdtempSync(join(tmpdir(), 'intent-bench-')));
const cleanup = () => {
  if (process.env.BENCH_KEEP === '1') log(`kept ${root}`);
  else {
    log(`removing ${root} …`);
    removeTree(root);
    log('removed');
  }
};
process.on('SIGINT', () => {
  cleanup();
  process.exit(130);
});

const results = {
  meta: { date: new Date().toISOString(), quick: QUICK, reps: REPS, loadStart: loadavg().map((l) => l.toFixed(2)).join(' '), sizes: SIZES },
  errors: [],
};

async function item(n, name, fn) {
  if (!wanted(n)) return;
  log(`item ${n}: ${name}`);
  // Writes an earlier item left pending (item 1 writes repositories of 100,000 files) are flushed
  // first, so that an fsync in this item does not wait for them (ext4's ordered mode writes other
  // files' data with the journal commit an fsync forces). It did not bring item 4's `git worktree
  // add` back to its time alone (~70 ms; ~1 s after item 1 in full runs with or without it): that
  // is the file system's state after item 1, which both sides of item 4's pairs pay.
  spawnSync('sync');
  const t0 = elapsed();
  try {
    await fn();
  } catch (e) {
    const message = e instanceof BenchError ? e.message : (e?.stack ?? String(e));
    results.errors.push({ item: n, name, message });
    log(`item ${n} FAILED: ${message}`);
  }
  log(`item ${n} took ${(elapsed() - t0).toFixed(0)} s`);
}

try {
  writeFileSync(join(root, 'gitconfig'), GLOBAL_GITCONFIG);
  // NODE_EXTRA_CA_CERTS makes every node process build its root certificate store at start-up,
  // which would inflate the yardstick (and every CLI call) by a constant that has nothing to do with
  // intent: measured here for the record, then unset for everything the benchmark runs (the hooks
  // start their node without it anyway: git-hooks/runner.sh).
  if (process.env.NODE_EXTRA_CA_CERTS !== undefined) {
    const withIt = [];
    const without = [];
    const bare = { ...process.env };
    delete bare.NODE_EXTRA_CA_CERTS;
    for (let r = 0; r < 10; r++) {
      withIt.push(run(process.execPath, ['-e', '0'], { env: process.env }).ms);
      without.push(run(process.execPath, ['-e', '0'], { env: bare }).ms);
    }
    results.meta.caCerts = { with: stats(withIt), without: stats(without) };
    delete process.env.NODE_EXTRA_CA_CERTS;
    delete userEnv.NODE_EXTRA_CA_CERTS;
    delete process.env.INTENT_NODE_EXTRA_CA_CERTS;
    delete userEnv.INTENT_NODE_EXTRA_CA_CERTS;
    log(`NODE_EXTRA_CA_CERTS is set: node -e 0 ${results.meta.caCerts.with.median.toFixed(1)} ms with it, ${results.meta.caCerts.without.median.toFixed(1)} ms without; unset for the benchmark`);
  }
  // This process too (the library calls of item 3 run git from here).
  const env = benchEnv(join(root, 'gitconfig'));
  for (const k of Object.keys(process.env)) if (!(k in env)) delete process.env[k];
  Object.assign(process.env, env);
  setEnv(process.env);
  results.meta.machine = machine();
  const pkg = snapshotPackage(join(root, 'pkg'));
  const cli = join(pkg, 'dist', 'bin', 'intent.js');
  setCli(cli);
  const probeOut = join(root, 'probe.json');
  log(`temp dir ${root}; ${QUICK ? 'QUICK run' : 'full run'}, ${REPS} repetitions; node ${process.version}`);

  // The yardstick, on its own (each item also samples it next to its own measurements).
  const node0 = [];
  for (let r = 0; r < Math.max(REPS, 10); r++) node0.push(run(process.execPath, ['-e', '0']).ms);
  results.node0 = stats(node0);
  log(`node -e 0: ${results.node0.median.toFixed(1)} ms`);

  let small = null; // the 1k repository, reused by item 4
  await item(1, 'hook overhead by repository size', async () => {
    results.hooks = [];
    results.profile = {};
    for (const n of SIZES) {
      log(`  generating a governed repository of ${n} files …`);
      const extra = n === SIZES[0] ? checkoutIntents(REPS) : [];
      const repo = await governedSynthetic(join(root, `repo-${n}`), n, extra);
      const profiled = n === SIZES[0] || n === SIZES[SIZES.length - 1];
      log(`  ${n} files: timing ${REPS} commits${profiled ? ', profiling the hooks' : ''} …`);
      const profiler = profiled ? hookProfiler(pkg, probeOut) : null;
      const res = hookOverhead(repo, REPS, profiler);
      if (profiler) results.profile[n] = profiler.result();
      results.hooks.push(res);
      log(`  ${n} files: pre-commit ${res.pre.median.toFixed(0)} ms (${res.preRatio.toFixed(2)}× node -e 0), commit-msg ${res.msg.median.toFixed(0)} ms, post-commit ${res.post.median.toFixed(0)} ms (${res.postRatio.toFixed(2)}×), whole commit +${res.added.median.toFixed(0)} ms`);
      if (n === SIZES[0]) {
        // The same commits with each hook in its own node (no hook server: the first commit in a
        // repository, other systems than Linux, INTENT_HOOK_SERVER=0).
        const own = hookOverhead(repo, REPS, null, { INTENT_HOOK_SERVER: '0' });
        results.hooksNoServer = own;
        log(`  ${n} files, no hook server: pre-commit ${own.pre.median.toFixed(0)} ms (${own.preRatio.toFixed(2)}×), post-commit ${own.post.median.toFixed(0)} ms (${own.postRatio.toFixed(2)}×), whole commit +${own.added.median.toFixed(0)} ms (${own.addedRatio.toFixed(2)}×)`);
        small = repo;
      }
      else {
        removeTree(join(root, `repo-${n}`));
        removeTree(join(root, `repo-${n}.worktrees`));
      }
    }
    log('  module loading of the hook …');
    results.imports = importSteps(pkg, ['pre-commit', 'post-commit']);
  });

  await item(4, '`intent checkout` vs `git worktree add`', async () => {
    if (!small) {
      log(`  generating a governed repository of ${SIZES[0]} files …`);
      small = await governedSynthetic(join(root, `repo-${SIZES[0]}`), SIZES[0], checkoutIntents(REPS));
    }
    const res = checkoutOverhead(small.main);
    res.files = SIZES[0];
    const ids = checkoutIntents(REPS).map((i) => i.id);
    res.probed = summarizeProbe(probeCommand(small.main, ['checkout', ids[ids.length - 1]], cli, probeOut));
    results.checkout = res;
    log(`  intent checkout ${res.intent.median.toFixed(0)} ms, git worktree add ${res.plain.median.toFixed(0)} ms, difference ${res.diff.median.toFixed(0)} ms`);
  });

  await item(2, `a big commit (${BIG_FILES} files) through post-commit`, async () => {
    const profDir = join(root, 'cpu-profiles');
    const res = await bigCommit(join(root, 'big'), BIG_FILES, REPS, (wt, env, hook) => summarizeProbe(probeHook(pkg, wt, env, hook, probeOut, profDir)));
    results.big = res;
    log(`  post-commit ${res.post.median.toFixed(0)} ms for ${res.files} files / ${res.addedLines} added lines`);
    removeTree(join(root, 'big'));
    removeTree(join(root, 'big.worktrees'));
  });

  await item(3, `intent verify over ${VERIFY_COMMITS} governed commits`, async () => {
    log(`  writing ${VERIFY_COMMITS} governed commits …`);
    const h = await governedHistory(join(root, 'verify'), VERIFY_COMMITS, pkg);
    const res = verifyThroughput(h);
    res.probed = summarizeProbe(probeCommand(h.dir, ['verify', ...h.range, '--json'], cli, probeOut));
    results.verify = res;
    log(`  verify ${res.time.median.toFixed(0)} ms: ${res.perSecond.toFixed(0)} commits/s`);
    removeTree(join(root, 'verify'));
  });

  await item(6, `intent report over ${REPORT_COMMITS} commits, ${REPORT_GOVERNED} governed`, async () => {
    log(`  writing ${REPORT_COMMITS} commits, ${REPORT_GOVERNED} governed …`);
    const h = await reportHistory(join(root, 'report'), REPORT_COMMITS, REPORT_GOVERNED, pkg);
    const res = reportSpeed(h);
    results.report = res;
    log(`  report ${res.time.median.toFixed(0)} ms (${res.files} files, ${res.linesNow} lines now, ${(res.bytes / 1024).toFixed(0)} KB page)`);
    removeTree(join(root, 'report'));
  });

  await item(9, `intent gate: a push of ${GATE.push} governed commits, and 1 commit into a ${GATE.history}-commit history`, async () => {
    results.gate = await gateSpeed(root, pkg, GATE);
    removeTree(join(root, 'gate-push'));
    removeTree(join(root, 'gate-push.server.git'));
    removeTree(join(root, 'gate-deep'));
    removeTree(join(root, 'gate-deep.worktrees'));
  });

  await item(5, `${WORKERS} worktrees × ${WORKER_COMMITS} concurrent commits`, async () => {
    const res = await concurrentCommits(join(root, 'concurrency'), WORKERS, WORKER_COMMITS);
    results.concurrency = res;
    log(`  ${res.total} governed commits in ${(res.governed.wall / 1000).toFixed(1)} s: ${res.governed.perSecond.toFixed(1)} commits/s (hooks disabled: ${res.plain.perSecond.toFixed(1)}/s); all notes and ledger lines present`);
  });

  await item(8, 'each class of commit (evolution, comment, formatting, rename, move) through the hooks', async () => {
    if (!small) {
      log(`  generating a governed repository of ${SIZES[0]} files …`);
      small = await governedSynthetic(join(root, `repo-${SIZES[0]}`), SIZES[0], checkoutIntents(REPS));
    }
    results.classes = classCommits(small.wt, small.ctx);
    for (const [name, c] of Object.entries(results.classes)) {
      log(`  ${name}: pre-commit ${c.preRatio.toFixed(2)}×, post-commit ${c.postRatio.toFixed(2)}×, whole commit +${c.added.median.toFixed(0)} ms (${c.addedRatio.toFixed(2)}×) node -e 0` +
        (c.cpu ? `; CPU ${c.cpu.preRatio.toFixed(2)}× / ${c.cpu.postRatio.toFixed(2)}× / ${c.cpu.addedRatio.toFixed(2)}×` : '') +
        `; outcomes ${JSON.stringify(c.outcomes)}`);
    }
    const cold = results.classesCold = coldRefactor(small.wt, small.ctx);
    log(`  consistent rename, no hook server: whole commit +${cold.added.median.toFixed(0)} ms (${cold.addedRatio.toFixed(2)}×) node -e 0; outcomes ${JSON.stringify(cold.outcomes)}`);
  });

  await item(11, 'a governed commit vs a plain `git commit` of the same change (ordinary, comment-only), paired; the hook server\'s memory', async () => {
    if (!small) {
      log(`  generating a governed repository of ${SIZES[0]} files …`);
      small = await governedSynthetic(join(root, `repo-${SIZES[0]}`), SIZES[0], checkoutIntents(REPS));
    }
    const res = results.plainVsGoverned = plainVsGoverned(small, REPS, join(root, 'served-11.jsonl'));
    for (const [kind, k] of Object.entries(res)) {
      log(`  ${kind}: plain ${k.plain.median.toFixed(1)} ms, governed ${k.governed.median.toFixed(1)} ms: ${k.ratio.median.toFixed(2)}× (paired); ` +
        `served check ${k.phases['pre-commit'].median.toFixed(1)} ms, post-commit ${k.phases['post-commit'].median.toFixed(1)} ms, the rest ${k.phases.other.median.toFixed(1)} ms` +
        (k.fast ? `; staged paths in-process ${k.fast.stagedInProcess}/${k.fast.commits}, diff read ahead ${k.fast.readAhead}/${k.fast.commits}` +
          (k.fast.notAsked !== undefined ? `, post-commit found its record done ${k.fast.notAsked}/${k.fast.commits}` : '') : ''));
    }
    const commits = Number(process.env.BENCH_MEMORY_COMMITS) || (QUICK ? 50 : 500);
    log(`  the hook server's memory over ${commits} governed commits …`);
    const mem = results.serverMemory = serverMemory(small, commits, join(root, 'served-11.jsonl'));
    log(`  server RSS (MB): after commit 1 ${mem.first}, 10 ${mem.at10}, 100 ${mem.at100}, ${mem.served} ${mem.last}; max ${mem.max}; ${mem.servers} server(s)`);
    log(`  [commit, RSS, V8 heap in use, V8 heap reserved, external (MB)]: ${JSON.stringify(mem.curve)}`);
  });

  await item(7, `a registry of ${SCALE.intents} intents (${SCALE.inProgress} IN_PROGRESS): status, checkout, a governed commit, overlaps`, async () => {
    log(`  generating the ${SCALE.intents}-intent repository (${SCALE.files} files, ${SCALE.worktrees} worktrees) …`);
    const big = await scaleRepo(join(root, 'scale-big'), { files: SCALE.files, intents: scaleIntents(SCALE.intents, SCALE.inProgress, SCALE.files), worktrees: SCALE.worktrees, pkg });
    log('  generating the 10-intent repository …');
    const smallRepo = await scaleRepo(join(root, 'scale-small'), { files: SCALE.files, intents: scaleIntents(10, 3, SCALE.files), worktrees: 1, pkg });
    log(`  ${await sameTree(smallRepo.main, big.main)} files added to its main: the same tree as the ${SCALE.intents}-intent repository's`);
    results.scale = await scaleOverhead(big, smallRepo, pkg);
    const sc = results.scale;
    log(`  status ${sc.big.status.median.toFixed(0)} ms (10 intents: ${sc.small.status.median.toFixed(0)} ms); whole commit +${sc.big.added.median.toFixed(0)} vs +${sc.small.added.median.toFixed(0)} ms; checkout ${sc.big.checkout.median.toFixed(0)} vs ${sc.small.checkout.median.toFixed(0)} ms`);
  });

  // Last, on its own: the README's test command in this checkout (QUICK runs skip it unless asked).
  if (!QUICK || only?.has('10')) {
    await item(10, "the README's test command (`npm test`)", async () => {
      const res = suiteTime(PKG, userEnv, suiteReportFile(root));
      results.suite = res;
      log(`  npm test: exit ${res.status} in ${(res.ms / 1000).toFixed(0)} s; ${res.files} files, ${res.tests} tests, ${res.failed} failed`);
      if (res.status !== 0) throw new BenchError(`npm test failed (exit ${res.status}):\n${res.tail}`);
    });
  }
} catch (e) {
  results.errors.push({ item: 0, name: 'set-up', message: e?.stack ?? String(e) });
  log(`FAILED: ${e?.stack ?? e}`);
} finally {
  cleanup();
}

results.meta.loadEnd = loadavg().map((l) => l.toFixed(2)).join(' ');
results.meta.seconds = elapsed();
const out = process.env.BENCH_OUT || (QUICK || only ? join(tmpdir(), 'intent-BENCHMARKS.quick.md') : join(PKG, 'BENCHMARKS.md'));
const saved = join(tmpdir(), `intent-bench-results${QUICK || only ? '.quick' : ''}.json`);
writeFileSync(saved, JSON.stringify(results, null, 1));
const summary = writeReport(results, out);
process.stdout.write(`\n${summary}\n`);
log(`report written to ${out} (results in ${saved}; re-render: node bench/report.mjs ${saved} ${out}); ${results.errors.length ? `${results.errors.length} item(s) FAILED` : 'the benchmark ran'} in ${results.meta.seconds.toFixed(0)} s`);
process.exitCode = results.errors.length ? 1 : 0;
