// Turns the results of bench/run.mjs into BENCHMARKS.md and a summary for the console.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const TARGET = { hookRatio: 2.5, scaling: 1.3, bigMs: 2000, verifyPerSecond: 1000, checkoutMs: 150, reportMs: 3000, gateMs: 5000, statusMs: 2000, registryRatio: 1.3, classPre: 2, classPost: 2.5, classWhole: 3.5, suiteMs: 360_000, plainRatio: 2.5 };

const f = (x, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');
const msf = (x, d = 0) => `${f(x, d)} ms`;
const kfiles = (n) => (n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : String(n));
const range = (s, d = 0) => (s ? `${f(s.median, d)} ms (${f(s.p25, d)}–${f(s.p75, d)})` : 'n/a');
const cell = (s) => String(s).replace(/\|/g, '\\|').replace(/\n/g, ' ');
const table = (head, rows) => [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`, ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`)].join('\n');

/** The parts of a profiled hook, largest first. */
function hookParts(p) {
  const parts = [
    ['node start-up (until user code runs)', p.parts.startup],
    ['module loading and set-up before the first git process', p.parts.loading],
    [`${f(p.gitCount)} git process${p.gitCount === 1 ? '' : 'es'}`, p.parts.git],
    ["the hook's own JavaScript (after the first git process, between and after them)", p.parts.js],
    ['process exit', p.parts.exit],
    ['shell wrappers (worktree hook, runner, chained repository hook)', p.parts.wrappers],
  ];
  return parts.sort((a, b) => b[1] - a[1]);
}

/** The biggest import step of a hook (a package, usually). */
function biggestImport(imports, hook) {
  const steps = imports?.hooks?.[hook]?.steps ?? [];
  return [...steps].sort((a, b) => b.ms - a.ms)[0];
}

function hookReason(p, imports, hook, node0, from = null) {
  if (!p) return 'not profiled';
  if (from) return `(profile of the ${from} run) ${hookReason(p, imports, hook, node0)}`;
  const top = hookParts(p).slice(0, 3).map(([l, v]) => `${l.replace(/ \(.*\)$/, '')} ${msf(v)}`).join(', ');
  const big = biggestImport(imports, hook);
  const fixed = p.parts.startup + p.parts.loading;
  return `${top}${big ? ` (biggest import: ${big.label.replace(/ \(.*\)$/, '')}, ${msf(big.ms)})` : ''}; start-up + loading alone are ${f(fixed / node0, 1)}× node -e 0, before the hook does any work`;
}

function scalingReason(small, large, hook) {
  if (!small?.[hook] || !large?.[hook]) return 'not profiled at both sizes';
  const a = small[hook];
  const b = large[hook];
  const byCmd = new Map(a.gitProcesses.map((g) => [g.cmd, g.ms]));
  const growth = b.gitProcesses.map((g) => ({ cmd: g.cmd, from: byCmd.get(g.cmd) ?? 0, to: g.ms })).filter((g) => g.to - g.from > 2).sort((x, y) => (y.to - y.from) - (x.to - x.from));
  const parts = growth.slice(0, 3).map((g) => `\`${g.cmd}\` ${msf(g.from, 1)} → ${msf(g.to, 1)}`);
  if (b.parts.js - a.parts.js > 2) parts.push(`the hook's JavaScript ${msf(a.parts.js, 1)} → ${msf(b.parts.js, 1)}`);
  return parts.length ? `what grows with the repository (probed runs): ${parts.join(', ')}` : 'no part of the probed runs grows by more than 2 ms: the difference is noise';
}

/** The JavaScript time of a CPU profile by module, biggest first (those over 2% of the total). */
function profText(prof) {
  if (!prof?.length) return '';
  const total = prof.reduce((n, x) => n + x.ms, 0);
  return prof.filter((x) => x.ms >= total * 0.02).slice(0, 8).map((x) => `${x.where} ${msf(x.ms)}`).join(', ');
}

/** What `intent checkout` adds to the `git worktree add` it runs, from the probed run. */
function checkoutReason(p) {
  if (!p) return '';
  const add = p.processes.find((g) => g.cmd === 'git worktree add');
  const others = p.processes.filter((g) => g !== add);
  const n = others.reduce((k, g) => k + g.count, 0);
  const otherMs = others.reduce((k, g) => k + g.ms, 0);
  return `In a probed run (wall ${msf(p.wall)}), everything but its own \`git worktree add\` (${msf(add?.ms ?? 0)}) took ${msf(p.wall - (add?.ms ?? 0))}: ` +
    `node start-up ${msf(p.startup)}, module loading and set-up ${msf(p.loading)}, ${n} more git processes ${msf(otherMs)}, own JavaScript ${msf(p.js)}, exit ${msf(p.exit)}`;
}

function probeText(p) {
  if (!p) return '';
  const procs = p.processes.map((g) => `\`${g.cmd}\`${g.count > 1 ? ` ×${g.count}` : ''} ${msf(g.ms, 1)}`).join(', ');
  return `wall ${msf(p.wall)}: node start-up ${msf(p.startup)}, module loading and set-up ${msf(p.loading)}, ` +
    `${p.processes.reduce((n, g) => n + g.count, 0)} child processes ${msf(p.git)} (${procs || 'none'}), own JavaScript ${msf(p.js)}, exit ${msf(p.exit)}`;
}

export function writeReport(R, file) {
  const node0 = R.node0?.median;
  const rows = [];
  const failed = (n) => R.errors.find((e) => e.item === n);
  const fail = (n, what, target) => rows.push([n, what, `FAILED: ${failed(n).message.split('\n')[0].slice(0, 300)}`, target, '**FAILED**', 'the benchmark itself failed (see the log)']);
  const yes = (ok) => (ok ? 'met' : '**not met**');

  // 1
  if (failed(1)) fail(1, 'hook overhead', `≤ ${TARGET.hookRatio}× node -e 0; 100k ≤ ${TARGET.scaling}× 1k`);
  else if (R.hooks?.length) {
    const nearest = (n) => (R.profile?.[n] ? n : Object.keys(R.profile ?? {}).map(Number).sort((a, b) => Math.abs(a - n) - Math.abs(b - n))[0]);
    const profFor = (n) => R.profile?.[nearest(n)];
    for (const hook of ['pre', 'post']) {
      for (const h of R.hooks) {
        const ratio = h[`${hook}Ratio`];
        const allowed = TARGET.hookRatio * h.node0.median;
        const ok = ratio <= TARGET.hookRatio;
        const c = h.cpu ? `; CPU ${msf(h.cpu[hook].median)} = ${f(h.cpu[`${hook}Ratio`], 2)}× node -e 0's ${msf(h.cpu.node0.median)}` : '';
        rows.push([1, `${hook}-commit, ${kfiles(h.n)} tracked files`, `${msf(h[hook].median)} = ${f(ratio, 2)}× node -e 0 (${msf(h.node0.median)})${c}`,
          `≤ ${TARGET.hookRatio}× (${msf(allowed)})`, yes(ok),
          ok ? '' : `+${msf(h[hook].median - allowed)} (${f(ratio / TARGET.hookRatio, 2)}× the budget). ${hookReason(profFor(h.n)?.[`${hook}-commit`], R.imports, `${hook}-commit`, h.node0.median, nearest(h.n) === h.n ? null : `${kfiles(nearest(h.n))}-file`)}`]);
      }
      const first = R.hooks[0];
      const last = R.hooks[R.hooks.length - 1];
      if (R.hooks.length > 1) {
        // Judged relative to node -e 0 sampled next to each size: the sizes run minutes apart on
        // a shared machine, and the yardstick cancels the drift. The raw ratio is shown as well.
        const raw = last[hook].median / first[hook].median;
        const rel = last[`${hook}Ratio`] / first[`${hook}Ratio`];
        const ok = rel <= TARGET.scaling;
        const c = last.cpu && first.cpu ? `; CPU time ${f(last.cpu[hook].median / first.cpu[hook].median, 2)}× (${f(last.cpu[`${hook}Ratio`] / first.cpu[`${hook}Ratio`], 2)}× relative)` : '';
        const why = scalingReason(R.profile?.[first.n], R.profile?.[last.n], `${hook}-commit`);
        rows.push([1, `${hook}-commit, ${kfiles(last.n)} vs ${kfiles(first.n)} files`,
          `${f(rel, 2)}× relative to node -e 0 (${f(last[`${hook}Ratio`], 2)}× vs ${f(first[`${hook}Ratio`], 2)}×); in ms ${f(raw, 2)}× (${msf(last[hook].median)} vs ${msf(first[hook].median)}, node -e 0 ${msf(last.node0.median)} vs ${msf(first.node0.median)})${c}`,
          `≤ ${TARGET.scaling}×`, yes(ok),
          ok ? (raw > TARGET.scaling ? `met relative to the yardstick, not in raw ms; ${why}` : (why.includes('→') ? `met; for the record, ${why}` : '')) : `${f(rel / TARGET.scaling, 2)}× the allowed growth; ${why}`]);
      }
    }
  }
  if (!failed(1) && R.hooksNoServer) {
    const h = R.hooksNoServer;
    rows.push([1, `for information: no hook server (each hook in its own node: a repository's first commit, not Linux, \`INTENT_HOOK_SERVER=0\`), ${kfiles(h.n)} files`,
      `pre-commit ${msf(h.pre.median)} (${f(h.preRatio, 2)}×), post-commit ${msf(h.post.median)} (${f(h.postRatio, 2)}×), whole commit +${msf(h.added.median)} (${f(h.addedRatio, 2)}×) node -e 0 (${msf(h.node0.median)})`,
      'no target', '—', `with the server (rows above): pre-commit ${f(R.hooks[0].preRatio, 2)}×, post-commit ${f(R.hooks[0].postRatio, 2)}×, whole commit ${f(R.hooks[0].addedRatio, 2)}×`]);
  }
  if (!failed(1) && R.hooks?.length) {
    rows.push([1, 'for information: a whole commit with every hook (pre-commit, commit-msg without a claim, post-commit, wrappers), added time', R.hooks.map((h) => `${kfiles(h.n)}: +${msf(h.added.median)} (${f(h.addedRatio, 1)}×)`).join('; '), 'no target', '—',
      `commit-msg alone: ${R.hooks.map((h) => `${kfiles(h.n)} ${msf(h.msg.median)}`).join(', ')}`]);
  }
  // 2
  if (failed(2)) fail(2, 'big commit through post-commit', `≤ ${TARGET.bigMs} ms`);
  else if (R.big) {
    const ok = R.big.post.median <= TARGET.bigMs;
    rows.push([2, `big commit (${R.big.files} files, ${R.big.addedLines} added + as many deleted lines) through post-commit`, msf(R.big.post.median), `≤ ${TARGET.bigMs} ms`, yes(ok),
      ok ? '' : `+${msf(R.big.post.median - TARGET.bigMs)}. Through the probe: ${probeText(R.big.probed)}${R.big.probed?.prof ? `. CPU profile (self time): ${profText(R.big.probed.prof)}${R.big.probed.profFunctions?.length ? `; top function: ${R.big.probed.profFunctions[0].where} ${msf(R.big.probed.profFunctions[0].ms)}` : ''}` : ''}`]);
  }
  // 3
  if (failed(3)) fail(3, 'intent verify', `≥ ${TARGET.verifyPerSecond} commits/s`);
  else if (R.verify) {
    const ok = R.verify.perSecond >= TARGET.verifyPerSecond;
    rows.push([3, `\`intent verify\` over ${R.verify.count} governed commits (0 findings)`, `${f(R.verify.perSecond)} commits/s (${msf(R.verify.time.median)})`, `≥ ${TARGET.verifyPerSecond} commits/s`, yes(ok),
      ok ? '' : `${f(R.verify.perSecond / TARGET.verifyPerSecond, 2)}× the target rate; ${probeText(R.verify.probed)}`]);
  }
  // 4
  if (failed(4)) fail(4, 'intent checkout vs git worktree add', `≤ ${TARGET.checkoutMs} ms more`);
  else if (R.checkout) {
    const ok = R.checkout.diff.median <= TARGET.checkoutMs;
    rows.push([4, `\`intent checkout\` vs \`git worktree add\` (${kfiles(R.checkout.files)} files)`, `+${msf(R.checkout.diff.median)} (${msf(R.checkout.intent.median)} vs ${msf(R.checkout.plain.median)})`, `≤ +${TARGET.checkoutMs} ms`, yes(ok),
      ok ? '' : `+${msf(R.checkout.diff.median - TARGET.checkoutMs)} over. ${checkoutReason(R.checkout.probed)}`]);
  }
  // 5
  if (failed(5)) fail(5, 'concurrent commits', 'every note and ledger line present');
  else if (R.concurrency) {
    const c = R.concurrency;
    rows.push([5, `${c.workers} worktrees × ${c.commits} concurrent commits`, `${c.counts.notes}/${c.total} notes, ${c.counts.ledgerLines} ledger lines, verify --all: ${c.counts.verifyFindings} findings; ${f(c.governed.perSecond, 1)} commits/s`,
      `all ${c.total} notes and ledger lines present; commits/s reported`, 'met', `(hooks disabled: ${f(c.plain.perSecond, 1)} commits/s)`]);
  }
  // 6
  if (failed(6)) fail(6, 'intent report', `≤ ${TARGET.reportMs} ms`);
  else if (R.report) {
    const r = R.report;
    const ok = r.time.median <= TARGET.reportMs;
    rows.push([6, `\`intent report\` over ${r.commits} commits, ${r.governed} governed (${r.files} files, ${r.linesNow} lines now by content hash)`, msf(r.time.median), `≤ ${TARGET.reportMs} ms`, yes(ok),
      ok ? '' : `+${msf(r.time.median - TARGET.reportMs)}; CPU time (with git's) ${msf(r.cpu?.median)}: the rest is waiting for the CPU on a loaded machine, or \`intent verify\` (item 3) over the same range`]);
  }
  // 9
  if (failed(9)) fail(9, 'intent gate', `≤ ${TARGET.gateMs} ms each`);
  else if (R.gate) {
    const cases = [[`a push of ${R.gate.push.commits} governed commits`, R.gate.push], [`1 governed commit into a ${R.gate.deep.history}-commit history`, R.gate.deep]];
    if (R.gate.preReceive) cases.splice(1, 0, [`a pre-receive push of ${R.gate.preReceive.commits} governed commits with refs/notes/intents (notes commits validated, every fan-out path read)`, R.gate.preReceive]);
    for (const [what, g] of cases) {
      const ok = g.time.median <= TARGET.gateMs;
      rows.push([9, `\`intent gate\` (the authority check) on ${what}`, msf(g.time.median), `≤ ${TARGET.gateMs} ms`, yes(ok),
        ok ? '' : `+${msf(g.time.median - TARGET.gateMs)}; CPU time (with git's) ${msf(g.cpu?.median)}`]);
    }
  }
  // 7
  if (failed(7)) fail(7, 'a 10,000-intent registry', `status ≤ ${TARGET.statusMs} ms; commit and checkout ≤ ${TARGET.registryRatio}× a 10-intent registry`);
  else if (R.scale) {
    const sc = R.scale;
    const who = `${sc.intents} intents, ${sc.inProgress} IN_PROGRESS`;
    const okS = sc.big.status.median <= TARGET.statusMs;
    rows.push([7, `\`intent status\`, ${who} (${sc.worktrees} worktrees, ${sc.files} files)`, `${msf(sc.big.status.median)} (10 intents: ${msf(sc.small.status.median)})`, `≤ ${TARGET.statusMs} ms`, yes(okS),
      okS ? '' : `+${msf(sc.big.status.median - TARGET.statusMs)}`]);
    const ratioRow = (what, key, note) => {
      // Relative to node -e 0 sampled next to each side, like item 1's scaling rows; raw ms shown too.
      const raw = sc.big[key].median / sc.small[key].median;
      const rel = (sc.big[key].median / sc.big.node0.median) / (sc.small[key].median / sc.small.node0.median);
      const ok = rel <= TARGET.registryRatio;
      rows.push([7, `${what}, ${who} vs 10 intents`, `${f(rel, 2)}× relative to node -e 0; in ms ${f(raw, 2)}× (${msf(sc.big[key].median)} vs ${msf(sc.small[key].median)})`, `≤ ${TARGET.registryRatio}×`, yes(ok),
        ok ? note : `${f(rel / TARGET.registryRatio, 2)}× the allowed growth. ${note}`]);
    };
    ratioRow('a governed commit (every hook, added time)', 'added', `pre-commit ${msf(sc.big.pre.median)} vs ${msf(sc.small.pre.median)}, post-commit ${msf(sc.big.post.median)} vs ${msf(sc.small.post.median)}`);
    ratioRow('`intent checkout` of a PENDING intent', 'checkout', '');
    rows.push([7, `for information: the overlap checks alone, ${who}, in one process`, `all ${sc.inProgress} IN_PROGRESS intents (what status computes): ${msf(sc.overlapAll.median)}, ${sc.overlaps} overlaps; one intent against the registry (what checkout computes): ${msf(sc.overlapOne.median, 1)}`, 'part of status and checkout', '—', '']);
  }
  // 8
  if (failed(8)) fail(8, 'each class of commit', `pre-commit ≤ ${TARGET.classPre}×, post-commit ≤ ${TARGET.classPost}×, whole commit ≤ ${TARGET.classWhole}× node -e 0`);
  else if (R.classes) {
    for (const [name, c] of Object.entries(R.classes)) {
      for (const [label, key, ratioKey, target] of [['pre-commit', 'pre', 'preRatio', TARGET.classPre], ['post-commit', 'post', 'postRatio', TARGET.classPost], ['whole commit (every hook, added time)', 'added', 'addedRatio', TARGET.classWhole]]) {
        const ok = c[ratioKey] <= target;
        const cpu = c.cpu ? `; CPU ${msf(c.cpu[key].median)} = ${f(c.cpu[ratioKey], 2)}×` : '';
        rows.push([8, `${name}: ${label}`, `${msf(c[key].median)} = ${f(c[ratioKey], 2)}× node -e 0 (${msf(c.node0.median)})${cpu}`, `≤ ${target}× (${msf(target * c.node0.median)})`, yes(ok),
          (ok ? '' : `+${msf(c[key].median - target * c.node0.median)}${key === 'added' ? `; its hooks: pre-commit ${msf(c.pre.median)}, post-commit ${msf(c.post.median)} (the rest: commit-msg, the shell wrappers, git's own work with hooks on)` : key === 'post' && name !== 'evolution' ? '; the syntax comparison of a refactor-like change (see docs/decisions.md)' : ''}.`)]);
      }
    }
    const cold = R.classesCold;
    if (cold) {
      rows.push([8, 'for information: a consistent rename with no hook server (the first commit after its idle exit): whole commit (every hook, added time)',
        `${msf(cold.added.median)} = ${f(cold.addedRatio, 2)}× node -e 0 (${msf(cold.node0.median)})`, 'no target', '—',
        'each hook starts its own node; post-commit loads the TypeScript compiler (docs/decisions.md)']);
    }
  }
  // 10
  if (failed(10)) fail(10, "the README's test command (`npm test`)", `≤ ${TARGET.suiteMs / 60000} minutes`);
  else if (R.suite) {
    const t = R.suite;
    const ok = t.ms <= TARGET.suiteMs;
    rows.push([10, "the README's test command (`npm test`: build, then every test file)", `${f(t.ms / 1000)} s (${t.files} files, ${t.tests} tests, ${t.failed} failed, ${t.skipped} skipped; CPU ${f((t.cpu ?? 0) / 1000)} s)`, `≤ ${TARGET.suiteMs / 60000} minutes`, yes(ok),
      ok ? '' : `+${f((t.ms - TARGET.suiteMs) / 1000)} s; slowest file ${t.slowest[0]?.file} ${f((t.slowest[0]?.ms ?? 0) / 1000)} s (section 10)`]);
  }
  // 11
  if (failed(11)) fail(11, 'a governed commit vs a plain `git commit`', `≤ ${TARGET.plainRatio}×`);
  else if (R.plainVsGoverned) {
    for (const [kind, k] of Object.entries(R.plainVsGoverned)) {
      const ok = k.ratio.median <= TARGET.plainRatio;
      rows.push([11, `a governed commit vs a plain \`git commit\` of the same change, ${kind} (paired)`, `${f(k.ratio.median, 2)}× (${msf(k.governed.median, 1)} vs ${msf(k.plain.median, 1)})`,
        `≤ ${TARGET.plainRatio}×`, yes(ok), ok ? '' : `served check ${msf(k.phases['pre-commit'].median, 1)}, post-commit ${msf(k.phases['post-commit'].median, 1)}, the rest ${msf(k.phases.other.median, 1)}: see item 11`]);
    }
  }
  for (const e of R.errors.filter((e) => e.item === 0)) rows.push(['—', 'set-up', `FAILED: ${e.message.split('\n')[0]}`, '', '**FAILED**', '']);

  const m = R.meta.machine ?? {};
  const L = [];
  L.push('# Benchmarks', '');
  L.push(`Generated by \`npm run bench\` (\`bench/run.mjs\`) on ${R.meta.date.slice(0, 10)} (${R.meta.date}); ${R.meta.quick ? '**QUICK run (reduced sizes, not the reference numbers)**' : 'full run'}, ` +
    `${R.meta.reps} timed repetitions per measurement (plus one warm-up), medians; the whole run took ${f(R.meta.seconds)} s.`, '');
  L.push('## Machine and versions', '');
  L.push(table(['', ''], [
    ['CPU', `${m.cpu} (${m.cores} cores)`], ['RAM', `${m.ramGiB} GiB (${m.freeGiB} GiB free at the start)`], ['OS', m.os],
    ['load average (1, 5, 15 min)', `${R.meta.loadStart} at the start, ${R.meta.loadEnd} at the end (the run's own processes included: item 10, the test suite, keeps both cores busy at the end; the machine is a shared VM)`],
    ['node', m.node], ['git', m.git], ['intent-governance', `${m.pkg} (${m.commit})`],
  ]));
  L.push('', '## Targets', '');
  L.push(`Times are wall-clock medians. The yardstick is the start-up of a bare \`node -e 0\`, sampled in the same run next to each measurement; the run-wide median was ${msf(node0, 1)}.` +
    (R.meta.caCerts ? ` The environment the benchmark was started in set \`NODE_EXTRA_CA_CERTS\`, with which every node process builds its root certificate store at start-up: \`node -e 0\` took ${msf(R.meta.caCerts.with.median, 1)} with it and ${msf(R.meta.caCerts.without.median, 1)} without (10 runs each, alternating). That constant has nothing to do with intent and would flatter every ratio below, so the benchmark unsets it for everything it runs (item 10 included); the hooks' runner starts their node without it in any case (\`git-hooks/runner.sh\`).` : ''), '');
  L.push(table(['#', 'what', 'measured', 'target', 'result', 'gap and likely reason'], rows));

  // 1: details
  if (R.hooks?.length) {
    L.push('', '## 1. Hook overhead', '');
    L.push('Each repository is generated with one `git fast-import` stream (files of 7 lines in folders of 100; the 10 files a commit changes have 41 lines), then `intent init`, a registry with intent BENCH (`src/**`), `intent checkout BENCH`: the intent worktree, where all benchmark commits are made, is a full checkout of every file; ' +
      'the main worktree (only its registry is read) keeps the files in its index but not on disk, which halves what set-up writes and clean-up removes. ' +
      'A benchmark commit rewrites 4 blocks of 5 lines in each of 10 files spread over the tree: 10 files, 200 added and 200 deleted lines. Each repetition, interleaved: `node -e 0`; stage a commit; run the intent worktree\'s check, the **prepare-commit-msg** hook file (pre-commit\'s checks; a one-line message); run the commit-msg hook file when there is one (intent worktrees have none unless the repository does); ' +
      '`git -c core.hooksPath=/dev/null commit` (the baseline commit); run the **post-commit** hook file on that commit; stage again and `git commit` with the hooks (end to end). ' +
      'The hook files are run as git runs them: `<git-common-dir>/intent/hooks/<hook>` (the intent worktree\'s `core.hooksPath`: shell wrapper → `intent/bin/hook` runner → node → the chained repository hook), ' +
      'from the worktree root with git\'s hook environment (`GIT_DIR`, `GIT_INDEX_FILE`, `GIT_EDITOR=:`). Every benchmark commit\'s note is checked with `intent verify` afterwards (0 findings). ' +
      'The runner hands the per-commit hooks to the repository\'s **hook server** (a resident node process the warm-up round starts; README, "The hook server"), as it does on Linux for every commit after a repository\'s first: the rows below are that steady state. ' +
      'The last row repeats the smallest repository with `INTENT_HOOK_SERVER=0`: each hook in its own node, as for a repository\'s first commit or where there is no server. ' +
      'Cells: median (p25–p75).', '');
    L.push(table(['tracked files', 'node -e 0', 'the check (prepare-commit-msg)', '× node', 'post-commit', '× node', 'commit-msg (none in intent worktrees: 0)', '× node', 'commit, hooks disabled', 'commit with hooks', 'whole commit: added time (paired)', '× node'],
      [...R.hooks, ...(R.hooksNoServer ? [{ ...R.hooksNoServer, label: `${kfiles(R.hooksNoServer.n)}, no hook server` }] : [])].map((h) => [h.label ?? kfiles(h.n), range(h.node0, 1), range(h.pre), f(h.preRatio, 2), range(h.post), f(h.postRatio, 2), range(h.msg), f(h.msgRatio, 2), range(h.base), range(h.hooked), range(h.added), f(h.addedRatio, 2)])));
    if (R.hooks[0].cpu) {
      L.push('', 'The same runs in **CPU time** (user + system of the process and everything it waited for, from the parent\'s `/proc/self/stat`, plus what the hook servers spent meanwhile, from theirs; 10 ms ticks): far less sensitive than wall time to other jobs on a shared machine, so a steadier view of the ratios. The targets above are judged on wall time.', '');
      L.push(table(['tracked files', 'node -e 0', 'the check (prepare-commit-msg)', '× node', 'post-commit', '× node', 'commit-msg', '× node', 'commit, hooks disabled', 'commit with hooks', 'whole commit: added CPU (paired)', '× node'],
        [...R.hooks, ...(R.hooksNoServer?.cpu ? [{ ...R.hooksNoServer, label: `${kfiles(R.hooksNoServer.n)}, no hook server` }] : [])].map((h) => [h.label ?? kfiles(h.n), range(h.cpu.node0), range(h.cpu.pre), f(h.cpu.preRatio, 2), range(h.cpu.post), f(h.cpu.postRatio, 2), range(h.cpu.msg), f(h.cpu.msgRatio, 2), range(h.cpu.base), range(h.cpu.hooked), range(h.cpu.added), f(h.cpu.addedRatio, 2)])));
    }
    L.push('', 'The end-to-end added time covers every hook git runs for a commit in an intent worktree: prepare-commit-msg (the check: pre-commit\'s, and the `Intent-Mutation:` claim\'s) and post-commit; ' +
      'pre-commit and commit-msg run there only when the repository has its own (the benchmark\'s has not). The brief\'s targets for pre-commit apply to the check.');
  }
  if (R.profile && Object.keys(R.profile).length) {
    L.push('', '### Where the time goes (hooks)', '');
    L.push('In the timing loop above, right after each timed run of a hook file, the same hook runs on the same staged index (pre-commit) or the same commit (post-commit: it records that commit again, same work, the note is replaced) two more ways: ' +
      '`node dist/bin/hook.cjs <hook>` directly, and the same with `bench/probe/spawn-probe.mjs` preloaded (`node --import`), which records when user code starts, ' +
      'every child process with its duration (by wrapping `child_process.spawnSync`, which `lib/git/process.ts` uses; no strace) and when the work ends. Start-up, loading, git, JavaScript and exit add up to the probed run; ' +
      'the shell wrappers are the hook file minus the direct run (median of the paired differences). Medians of the same repetitions; negative values are noise (the wrappers cost a few shell processes, a few ms).', '');
    const sizes = Object.keys(R.profile).map(Number);
    const HK = ['pre-commit', 'commit-msg', 'post-commit'].filter((h) => R.profile[sizes[0]][h]);
    const rowsP = [];
    const labels = ['startup', 'loading', 'git', 'js', 'exit', 'wrappers'];
    const names = { startup: 'node start-up (until user code runs)', loading: 'module loading and set-up before the first git process', git: 'git processes', js: "the hook's own JavaScript", exit: 'process exit', wrappers: 'shell wrappers (worktree hook, runner, chained hook)' };
    for (const k of labels) rowsP.push([names[k], ...sizes.flatMap((n) => HK.map((h) => msf(R.profile[n][h].parts[k], 1)))]);
    rowsP.push(['**total: the hook file**', ...sizes.flatMap((n) => HK.map((h) => `**${msf(R.profile[n][h].file, 1)}**`))]);
    L.push(table(['part', ...sizes.flatMap((n) => HK.map((h) => `${h}, ${kfiles(n)}`))], rowsP));
    L.push('', 'Git processes per hook (median duration each, as the hook waits for it):', '');
    const cmds = [...new Set(sizes.flatMap((n) => HK.flatMap((h) => R.profile[n][h].gitProcesses.map((g) => g.cmd))))];
    L.push(table(['process', ...sizes.flatMap((n) => HK.map((h) => `${h}, ${kfiles(n)}`))],
      cmds.map((c) => [`\`${c}\``, ...sizes.flatMap((n) => HK.map((h) => {
        const g = R.profile[n][h].gitProcesses.find((x) => x.cmd === c);
        return g ? `${msf(g.ms, 1)}${g.count > 1 ? ` (×${g.count})` : ''}` : '—';
      }))])));
  }
  if (R.imports) {
    const I = R.imports;
    const HK = Object.keys(I.hooks);
    L.push('', 'Module loading, attributed: for each hook, in a fresh process, import one after the other the ESM loader itself (a one-line `data:` module), the hook entry (`dist/lib/hooks/dispatch.js`), each package the hook\'s module imports statically, then the hook\'s own modules; ' +
      'a step costs only what earlier steps had not loaded. Packages loaded lazily through `createRequire` (cosmiconfig when a config file exists, typescript for AST classification, ajv in verify) are not in these figures. ' +
      'These steps are measured on the unbundled tsc output (`dist/lib/`) to show what each piece costs; the last row is the ES module bundle (`dist/bin/hook.js` and its chunk). The installed hooks run `dist/bin/hook.cjs` instead, which loads every hook as one CommonJS bundle (`dist/bin/hooks.cjs`) through a V8 code cache (docs/decisions.md); its loading is the "module loading" row of the probed runs above.', '');
    const labels = [...new Set(HK.flatMap((h) => I.hooks[h].steps.map((st) => st.label.replace(/^own modules of [a-z-]+ .*$/, 'own modules'))))];
    L.push(table(['import step', ...HK], [
      ...labels.map((lb) => [lb, ...HK.map((h) => {
        const st = I.hooks[h].steps.find((x) => x.label.replace(/^own modules of [a-z-]+ .*$/, 'own modules') === lb);
        return st ? msf(st.ms, 1) : '—';
      })]),
      ['own modules counted', ...HK.map((h) => `${I.hooks[h].modules} (from \`${I.hooks[h].module ?? 'hook-run.js'}\`)`)],
      ['**total**', ...HK.map((h) => `**${msf(I.hooks[h].total, 1)}**`)],
      ['**bundled as an ES module** (its file in `dist/bin/`, after the ESM loader)', ...HK.map((h) => I.hooks[h].bundled ? `**${msf(I.hooks[h].bundled.ms, 1)}** (\`${I.hooks[h].bundled.chunk}\`)` : '—')],
    ]));
    const p1 = R.profile?.[Object.keys(R.profile ?? {})[0]];
    if (p1) {
      const H = ['pre-commit', 'commit-msg', 'post-commit'].filter((h) => p1[h]);
      const each = (fn) => H.map((h) => `${fn(p1[h], h)} (${h})`).join(' / ');
      const pkgs = (h) => (I.hooks[h]?.steps ?? []).filter((st) => st.label.startsWith('package')).map((st) => `${st.label.replace(/^package /, '').replace(/ \(.*\)$/, '')} ${msf(st.ms)}`).join(', ');
      const own = (h) => (I.hooks[h]?.steps ?? []).filter((st) => !st.label.startsWith('package') && !st.label.startsWith('ESM')).reduce((n, st) => n + st.ms, 0);
      L.push('', '**Top costs** (smallest repository; medians; every commit pays each of them once per hook):', '');
      L.push(`1. **node start-up**: ${each((p) => msf(p.parts.startup))} until user code runs (a bare \`node -e 0\`, start to exit, in the same repetitions: ${msf(R.hooks?.[0]?.node0.median ?? node0)}). ` +
        `A governed commit starts ${H.length} node processes (commit-msg only with an \`Intent-Mutation:\` trailer), so it pays this ${H.length} times; only fewer node processes per commit (or none in a hook that can be answered without one) remove it.`);
      L.push(`2. **module loading and set-up**: ${each((p) => msf(p.parts.loading))} from user code to the first git process; the imports alone, measured in a fresh process: ` +
        H.filter((h) => I.hooks[h]).map((h) => `${h}: ${pkgs(h) || 'no packages'}${pkgs(h) ? ',' : ';'} own modules ${msf(own(h))}`).join('; ') + '. ' +
        (() => {
          const all = H.flatMap((h) => (I.hooks[h]?.steps ?? []).filter((st) => !st.label.startsWith('ESM')).map((st) => ({ h, ...st })));
          const big = all.sort((x, y) => y.ms - x.ms)[0];
          return big ? `The biggest single import step: ${big.h}'s ${big.label.replace(/ \(.*\)$/, '').replace(/ of [a-z-]+$/, '')}, ${msf(big.ms)}.` : '';
        })());
      L.push(`3. **the hooks' own work**: ` + H.map((h) => `${h} ${msf(p1[h].parts.git)} in ${f(p1[h].gitCount)} git process${p1[h].gitCount === 1 ? '' : 'es'}` +
        `${p1[h].gitProcesses.length ? ` (${p1[h].gitProcesses.map((g) => `${g.cmd.replace(/^git /, '')} ${msf(g.ms)}`).join(', ')})` : ''} + ${msf(p1[h].parts.js)} JavaScript`).join('; ') +
        `. Shell wrappers: ${each((p) => msf(p.parts.wrappers))}; process exit: ${each((p) => msf(p.parts.exit))}.`);
    }
  }
  // 2
  if (R.big) {
    const b = R.big;
    L.push('', '## 2. A big commit', '');
    L.push(`A repository of ${b.files} files of 100 lines; each repetition rewrites 10 blocks of 5 lines in every file (${b.files} files, ${b.addedLines} added and as many deleted lines, ${b.files * 10} hunks), commits with hooks disabled and runs the post-commit hook file (as in item 1). The warm-up commit\'s note is checked for its file and line counts and verified with \`intent verify\` (0 findings).`, '');
    L.push(table(['', 'median (p25–p75)'], [
      ['post-commit', range(b.post)], ['post-commit, CPU time', range(b.postCpu)], ['the commit itself, hooks disabled', range(b.base)], ['node -e 0', range(b.node0, 1)],
    ]));
    if (b.probed) {
      L.push('', `The warm-up commit's post-commit ran through the spawn probe and \`node --cpu-prof\` (which slows it somewhat): ${probeText(b.probed)}.`);
      if (b.probed.prof) {
        L.push('', 'Its JavaScript time by module (self time of the sampled functions; `(idle)` is waiting, mostly for git):', '');
        L.push(table(['where', 'ms'], b.probed.prof.filter((x) => x.ms >= 1).slice(0, 15).map((x) => [x.where, f(x.ms)])));
      }
      if (b.probed.profFunctions?.length) {
        L.push('', 'The package\'s own functions with the most self time:', '');
        L.push(table(['function (module:line)', 'ms'], b.probed.profFunctions.map((x) => [`\`${x.where}\``, f(x.ms)])));
      }
    }
  }
  // 3
  if (R.verify) {
    const v = R.verify;
    L.push('', '## 3. `intent verify`', '');
    L.push(`${v.count} governed commits on \`intent/VER\` (1–3 changed files each) made by one \`git fast-import\` stream; each commit's trace record built by the package's own code (\`dist/lib/git/diff.js\` \`diffCommits\`, the hook's pinned diff options; \`dist/lib/trace/record.js\` \`buildRecord\`/\`noteText\`), ` +
      `all notes written to \`refs/notes/intents\` by a second fast-import stream, and a chained ledger line each. Timed: \`intent verify intent/VER --json\` as a process (start-up included); every run must report 0 findings, ${v.count} governed commits and ${v.count} ledger lines.`, '');
    L.push(table(['commits', 'verify (median, p25–p75)', 'CPU time', 'commits/s', 'findings'], [[v.count, range(v.time), range(v.cpu), f(v.perSecond), v.findings]]));
    if (v.probed) L.push('', `Through the probe: ${probeText(v.probed)}.`);
  }
  // 4
  if (R.checkout) {
    const c = R.checkout;
    L.push('', '## 4. `intent checkout` vs `git worktree add`', '');
    L.push(`In the ${kfiles(c.files)}-file repository of item 1: each repetition opens a new PENDING intent with \`intent checkout CO-nn\` (the CLI as a process: new branch and worktree, hooks, active-intent record, registry set to IN_PROGRESS) ` +
      'and makes a plain worktree with `git worktree add -q -b <branch> <path> HEAD`, alternating which goes first; the difference is taken per repetition. Each worktree goes into a fresh folder of its own directly in the temporary directory, kept until the item ends (`--path` for the checkout): on ext4, files written beside recently deleted ones took several times longer in the kernel (item 7).', '');
    L.push(table(['', 'median (p25–p75)'], [['`intent checkout`', range(c.intent)], ['`git worktree add`', range(c.plain)], ['difference (paired)', range(c.diff)], ['difference in CPU time (paired)', range(c.cpuDiff)]]));
    if (c.probed) L.push('', `One more \`intent checkout\` through the probe: ${probeText(c.probed)}.`);
  }
  // 5
  if (R.concurrency) {
    const c = R.concurrency;
    L.push('', '## 5. Concurrent commits', '');
    L.push(`${c.workers} intent worktrees (\`intent checkout W1\` … \`W${c.workers}\`), one shell loop each, all started at once: ${c.commits} commits each (write a 5-line file, append a line to a log, \`git add\`, \`git commit\` with the real hooks). ` +
      'Then: every commit has its note, the ledger has exactly one line per commit, `intent verify --all` reports 0 findings (which also checks the ledger\'s hash chain), no lock file is left. ' +
      'For comparison, the same load with hooks disabled in plain worktrees. One run (the 400 commits are the sample).', '');
    L.push(table(['', 'governed (hooks)', 'hooks disabled'], [
      ['wall time', `${f(c.governed.wall / 1000, 1)} s`, `${f(c.plain.wall / 1000, 1)} s`],
      ['commits/s, all workers', f(c.governed.perSecond, 1), f(c.plain.perSecond, 1)],
      ['commits/s per worker (median)', f(c.governed.perWorker, 2), f(c.plain.perWorker, 2)],
    ]));
    L.push('', `Checks: ${c.counts.commits} commits, ${c.counts.notes} with a note (${c.counts.noteTotal} notes on the ref), ${c.counts.ledgerLines} ledger lines, verify --all: ${c.counts.verifyGoverned} governed, ${c.counts.verifyFindings} findings; ${c.counts.locksLeft} lock files left.`);
  }
  // 7
  if (R.scale) {
    const sc = R.scale;
    L.push('', `## 7. A registry of ${sc.intents} intents`, '');
    L.push(`A repository of ${sc.files} generated files with ${sc.intents} intents: BENCH (IN_PROGRESS, the committing intent), CO (PENDING, checked out each repetition) and generated ones, ${sc.inProgress} IN_PROGRESS in all, the rest completed, pending, blocked or abandoned. ` +
      'Scopes overlap the way real ones do: a folder (35%), a few single files, a group of folders minus one, a name pattern, a brace pair of folders, folders without files yet, and now and then a whole group. ' +
      `Every completed intent has a governed commit on main and every IN_PROGRESS one a branch with 2 governed commits, all with notes (${sc.commits} governed commits counted by status); ${sc.worktrees} intents have a worktree. ` +
      `The same is generated with a ${sc.smallIntents}-intent registry (3 IN_PROGRESS) over the same tree. Each repetition, interleaved between the two: \`node -e 0\`; \`intent status --json\`; a governed commit in BENCH's worktree (3 files: the pre-commit and post-commit hook files as in item 1, and a real commit with every hook against one with hooks disabled); ` +
      '`intent checkout CO` (new branch and worktree, registry set to IN_PROGRESS), undone afterwards (worktree and branch removed, CO set back to PENDING with the package\'s own registry edit).', '');
    const side = (x) => [range(x.node0, 1), range(x.status), range(x.pre), range(x.post), range(x.added), range(x.checkout)];
    L.push(table(['registry', 'node -e 0', '`intent status`', 'pre-commit', 'post-commit', 'whole commit: added time', '`intent checkout CO`'], [[`${sc.intents} intents`, ...side(sc.big)], [`${sc.smallIntents} intents`, ...side(sc.small)]]));
    L.push('', `Status reported overlaps for ${sc.withOverlaps} of the ${sc.inProgress} IN_PROGRESS intents. The overlap checks alone, in one process over the same registry and tree: every IN_PROGRESS intent's overlaps ${range(sc.overlapAll)}; CO's (one intent, as checkout) ${range(sc.overlapOne, 1)}.`);
  }
  // 8
  if (R.classes) {
    L.push('', '## 8. Each class of commit', '');
    L.push('In the BENCH worktree of item 1\'s smallest repository: three realistic TypeScript modules (imports, an interface, a class with methods, functions; about 50 lines each) and a money helper, committed once. ' +
      'Each class toggles between two versions of them, so every repetition is a new commit of that class: **evolution** (a constant changes), **refactor by comment** (doc and line comments added or removed), **formatting** (quotes, semicolons, trailing commas, line breaks), ' +
      '**consistent rename** (a file-local function and a private member renamed everywhere), **move between files** (an exported function moves from one module to the other). ' +
      'Every class but the evolution passes the token filter, so post-commit runs the syntax comparison with the TypeScript compiler. Each repetition, classes interleaved: `node -e 0`; stage the change; the pre-commit hook file; a commit with hooks disabled; the post-commit hook file, ' +
      'after which the note\'s mutation class of every file is checked (AST_REFACTOR for the refactors, INTENT_EVOLUTION for the evolution); the change back, committed with every hook (end to end, added time against the hooks-disabled commit). Cells: median (p25–p75), × node -e 0.', '');
    L.push(table(['class', 'node -e 0', 'pre-commit', '×', 'post-commit', '×', 'whole commit: added time', '×', 'mutation class in the note'], Object.entries(R.classes).map(([name, c]) => [
      name, range(c.node0, 1), range(c.pre), f(c.preRatio, 2), range(c.post), f(c.postRatio, 2), range(c.added), f(c.addedRatio, 2), [...new Set(Object.values(c.classes ?? {}))].join(', '),
    ])));
    L.push('', 'How the classes were decided, from post-commit\'s trace (`INTENT_CLASSIFY_TRACE`): computed: by the hook file in its own node; syntax or same-tree: by the hook server while git wrote the commit; no-syntax: by the cheap rules. CPU: user + system from /proc, 10 ms ticks.', '');
    L.push(table(['class', 'node -e 0, CPU', 'pre-commit, CPU', '×', 'post-commit, CPU', '×', 'whole commit: added CPU', '×', 'outcomes'], Object.entries(R.classes).map(([name, c]) => [
      name, c.cpu ? range(c.cpu.node0) : '—', c.cpu ? range(c.cpu.pre) : '—', c.cpu ? f(c.cpu.preRatio, 2) : '—', c.cpu ? range(c.cpu.post) : '—', c.cpu ? f(c.cpu.postRatio, 2) : '—',
      c.cpu ? range(c.cpu.added) : '—', c.cpu ? f(c.cpu.addedRatio, 2) : '—',
      Object.entries(c.outcomes ?? {}).map(([o, n]) => `${o} ${n}`).join(', ') || '—',
    ])));
    const cold = R.classesCold;
    if (cold) {
      L.push('', `With no hook server (stopped before each repetition), as the first commit after its idle exit finds it, ` +
        `the consistent rename's whole commit (every hook, added time against a hooks-disabled commit of the change back): ${range(cold.added)} = ${f(cold.addedRatio, 2)}× node -e 0 (${range(cold.node0, 1)}); ` +
        `outcomes: ${Object.entries(cold.outcomes).map(([o, n]) => `${o} ${n}`).join(', ')}.`);
    }
  }
  // 10
  if (R.suite) {
    L.push('', "## 10. The README's test command", '');
    L.push("`npm test` (the README's test command: `tsc`, the bundles, then `vitest run` over every test file in parallel forks) in the package's checkout, with the environment the benchmark was started with" + (R.meta.caCerts ? ' (less `NODE_EXTRA_CA_CERTS`, see Targets)' : '') + ', timed once from start to exit, ' +
      "last in the run so no other item competes for the CPU. Per-file times are vitest's (its JSON reporter): files run in parallel, so they add up to more than the whole. The slowest files:", '');
    L.push(table(['file', 'tests', 'seconds'], R.suite.slowest.map((x) => [`\`${x.file}\``, String(x.tests), f(x.ms / 1000, 1)])));
  }
  // 11
  if (R.plainVsGoverned) {
    L.push('', '## 11. A governed commit against a plain `git commit`', '');
    L.push(`In item 1's repository of ${kfiles(R.hooks?.[0]?.n ?? 1000)} files, in the intent's worktree (bench/plain-vs-governed.mjs): for each kind of change, pairs of commits of the same kind ` +
      '(10 files, 4 hunks each; comment-only: the first line of each file, a comment), one with hooks disabled (`git -c core.hooksPath=/dev/null commit`, in a second worktree of the same repository: the same files, the same index size; each governed commit follows a governed one, as in use) ' +
      'and one governed (every hook, through the hook server), the order alternating within each pair, two warm-up pairs not counted; the ratio is taken pair by pair. The governed time is split with the ' +
      "server's trace (each request's time from its claim to its answer) into the served check before the commit (prepare-commit-msg in intent worktrees, which makes pre-commit's checks) and post-commit and the rest: git running the hook files " +
      "(prepare-commit-msg and post-commit; each a `sh` reading the chain cache), and for the two served hooks the runner (sourced by the hook's own `sh`) and the round trip. " +
      'The last column: how many served checks read the staged paths from the index in-process, and how many post-commits used the diff the server read ahead (lib/hooks/prefetch.ts). Every governed commit\'s note is checked.', '');
    L.push(table(['change', 'plain', 'governed', 'ratio (paired median)', 'served check', 'served post-commit', 'the rest', 'in-process staged paths / diff read ahead'],
      Object.entries(R.plainVsGoverned).map(([kind, k]) => [kind, range(k.plain, 1), range(k.governed, 1), `${f(k.ratio.median, 2)}× (${f(k.ratio.p25, 2)}–${f(k.ratio.p75, 2)})`,
        msf(k.phases['pre-commit'].median, 1), msf(k.phases['post-commit'].median, 1), msf(k.phases.other.median, 1),
        k.fast ? `${k.fast.stagedInProcess}/${k.fast.commits} / ${k.fast.readAhead}/${k.fast.commits}` : '—'])));
    const m = R.serverMemory;
    if (m) {
      L.push('', `The hook server's resident memory over ${m.commits} more governed commits (alternating ordinary and comment-only; ${m.servers} server${m.servers === 1 ? '' : 's'}): ` +
        `after commit 1 ${m.first} MB, 10 ${m.at10} MB, 100 ${m.at100} MB, the last ${m.last} MB; max ${m.max} MB. Every 25th commit (MB):`, '');
      L.push(table(['commit', 'RSS', 'V8 heap in use', 'V8 heap reserved', 'outside the heap'], m.curve.map((r) => r.map(String))));
    }
  }
  if (R.errors.length) {
    L.push('', '## Failures', '');
    for (const e of R.errors) L.push(`- item ${e.item} (${e.name}):`, '', '```', e.message.slice(0, 3000), '```', '');
  }
  L.push('', '## How it is measured', '');
  L.push('- Everything runs in a temporary directory that is removed afterwards; all repositories are generated by the benchmark (fast-import streams, no per-file `git add`).',
    '- The package is copied (dist/, git-hooks/, schemas/, templates/, package.json; node_modules linked) into the temporary directory after `npm run build`, so a rebuild during the run cannot change what is measured; `intent init` points the hook runner at that copy.',
    '- git runs without user or system configuration (`GIT_CONFIG_GLOBAL` = a file with only an identity, `gc.auto=0`, `maintenance.auto=false`, `core.fsmonitor=false`; `GIT_CONFIG_NOSYSTEM=1`), so a global hooks path, signing or an automatic gc cannot land in a timed commit.',
    `- Every figure is the median of ${R.meta.reps} repetitions after one warm-up; the series of one item are interleaved within each repetition, and targets are checked as ratios against \`node -e 0\` sampled in the same repetitions, so a busy machine shifts both sides alike.`,
    '- Item 5 runs once: its 400 commits are the sample, and its pass/fail is a correctness check (a missing note or ledger line fails the benchmark with exit 1).',
    '- Items 7 and 8 check their own results too: status must list every intent, each checkout must create the worktree, each class commit\'s note must carry the expected mutation class.',
    '- Item 10 runs the README\'s test command once, last, in the package\'s own checkout (not in the temporary directory): its time is the whole run of `npm test`, its pass/fail is the suite\'s.',
    '- Re-run: `npm run bench` (about 18 minutes on 2 cores, the test suite included); `BENCH_QUICK=1 npm run bench` for a quick run with small sizes (report in the OS temp dir); `BENCH_ONLY=1,4` to run some items; `BENCH_REPS=N`; `BENCH_KEEP=1` keeps the repositories.');
  // Measurements made by scripts of their own (not `npm run bench`): kept as written, after the run's.
  const manual = new URL('./manual-results.md', import.meta.url);
  if (existsSync(manual)) L.push('', readFileSync(manual, 'utf8').trimEnd());
  L.push('');
  writeFileSync(file, L.join('\n'));

  const summary = ['Targets:', ...rows.map((r) => `  ${r[0]}. ${r[1]}: ${r[2]}  [target ${r[3]}: ${r[4].replace(/\*/g, '')}]`)];
  return summary.join('\n');
}

// `node bench/report.mjs <results.json> [out.md]`: re-renders a report from the results a run saved.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [file, out = 'BENCHMARKS.md'] = process.argv.slice(2);
  process.stdout.write(writeReport(JSON.parse(readFileSync(file, 'utf8')), out) + '\n');
}
