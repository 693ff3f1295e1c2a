#!/usr/bin/env node
// Issue 42, the resident footprint: one hook server per repository (no second worker), its git
// children counted, its memory after 1, 10, 100, 300 and 500 governed commits; the cold first
// commit (no server running) against a plain one; and, after the server's idle time, no process
// of ours left.
//
//   node bench/footprint.mjs [FILES] [COMMITS]      (default 1000 500; needs `npm run build`)
//
// A repository of FILES generated files, intent BENCH (scope src/**) and its worktree
// (bench/hooks.mjs governedSynthetic), then COMMITS rounds: each an ordinary change of the 10 hot
// files (bench/hooks.mjs stageRound) committed through the hooks in the intent worktree, paired
// with the same kind of change committed with hooks off (`-c core.hooksPath=/dev/null`) in a
// second worktree of the same repository (plainTwin), the order alternating. After the commits
// named in SAMPLES, the hook server (found by its command line, as lib/hooks/residents.ts does)
// and each of its descendants (the resident git processes of lib/git/resident.ts) are read from
// /proc: VmRSS, RssAnon, RssFile (/proc/<pid>/status) and Pss (/proc/<pid>/smaps_rollup), with
// the server's V8 heap from its trace (INTENT_HOOK_SERVER_TRACE: process.memoryUsage() after each
// request). Then: the server is left to leave by itself (INTENT_HOOK_SERVER_MS, FOOTPRINT_IDLE_MS);
// COLD pairs of a governed commit with no server running (each one's server stopped with SIGTERM
// and waited for) and a plain one; and after the idle time again, every process whose command line
// or working directory names the bench folder or the package's hook program is listed (none
// expected). Prints a JSON summary and a markdown table.
//
// Settings (environment):
//   FOOTPRINT_IDLE_MS=<ms>        the server's idle time in the run (default 8000)
//   FOOTPRINT_COLD=<n>            cold pairs (default 5)
//   FOOTPRINT_SERVER_FLAGS="<f>"  node flags the server is started with in place of
//                                 `--max-semi-space-size=2` (lib/hooks/server.ts), in the run's copy
//                                 of the package ("" for none)
//   FOOTPRINT_NODE_OPTIONS="<o>"  NODE_OPTIONS of the commits (the server inherits it)
//   FOOTPRINT_ENV="A=1,B=2"       more variables for the commits (and so the server)
//   FOOTPRINT_PKG=<dir>           run this package copy (with dist/) instead of a snapshot of this one
//   FOOTPRINT_SMAPS=1             also the server's largest mappings (/proc/<pid>/smaps) at each sample
//   FOOTPRINT_KEEP=1              keep the bench folder
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { governedSynthetic, stageRound } from './hooks.mjs';
import { plainTwin } from './plain-vs-governed.mjs';
import { check, genPath, getEnv, git, isolatedRun, log, machine, median, quantile, removeTree, setCli } from './util.mjs';

const FILES = Number(process.argv[2] ?? 1000);
const COMMITS = Number(process.argv[3] ?? 500);
const SAMPLES = [1, 10, 100, 300, 500, 1000].filter((k) => k <= COMMITS);
if (!SAMPLES.includes(COMMITS)) SAMPLES.push(COMMITS);
const IDLE_MS = Number(process.env.FOOTPRINT_IDLE_MS ?? 8000);
const COLD = Number(process.env.FOOTPRINT_COLD ?? 5);
const TARGET_MB = 80;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const mb = (kb) => Math.round(kb / 102.4) / 10;

// ---------------------------------------------------------------- /proc

function pids() {
  return readdirSync('/proc').filter((p) => /^[0-9]+$/.test(p)).map(Number);
}

function cmdline(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return null;
  }
}

/** The hook servers of `serverDir` (`<common dir>/intent/server`), by their command lines. */
function servers(serverDir) {
  const out = [];
  for (const pid of pids()) {
    const argv = cmdline(pid);
    if (!argv) continue;
    const at = argv.indexOf('serve-hooks');
    if (at === -1) continue;
    try {
      if (realpathSync(argv[at + 1]) === serverDir) out.push(pid);
    } catch { /* gone */ }
  }
  return out;
}

/** Process `pid`'s memory, in kB: VmRSS, RssAnon, RssFile, RssShmem, and Pss (smaps_rollup, when readable). */
function memOf(pid) {
  const out = { pid, comm: '', rss: 0, anon: 0, file: 0, shmem: 0, pss: null, pssAnon: null, pssFile: null, threads: 0 };
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    const f = (k) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(s)?.[1] ?? 0);
    out.comm = /^Name:\s+(.*)$/m.exec(s)?.[1] ?? '';
    out.rss = f('VmRSS');
    out.anon = f('RssAnon');
    out.file = f('RssFile');
    out.shmem = f('RssShmem');
    out.threads = f('Threads');
  } catch {
    return null;
  }
  try {
    const r = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const f = (k) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(r)?.[1] ?? NaN);
    out.pss = f('Pss');
    out.pssAnon = f('Pss_Anon');
    out.pssFile = f('Pss_File');
  } catch { /* not readable */ }
  const argv = cmdline(pid);
  out.args = argv ? argv.slice(0, 4).join(' ').slice(0, 120) : '';
  return out;
}

/** The descendants of `pid` (/proc/<pid>/task/<tid>/children, recursively). */
function descendants(pid) {
  const out = [];
  let tasks = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const t of tasks) {
    let kids = '';
    try {
      kids = readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8');
    } catch { continue; }
    for (const k of kids.trim().split(/\s+/).filter(Boolean).map(Number)) out.push(k, ...descendants(k));
  }
  return out;
}

/** The server's largest mappings by Rss (kB), grouped by name (anonymous ones as `[anon]`). */
function smapsTop(pid, n = 12) {
  let text;
  try {
    text = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  } catch {
    return null;
  }
  const by = new Map();
  let name = '';
  for (const line of text.split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      name = head[1] || '[anon]';
      continue;
    }
    const m = /^(Rss|Pss|Anonymous):\s+(\d+)/.exec(line);
    if (!m) continue;
    const e = by.get(name) ?? { name, rss: 0, pss: 0, anon: 0, maps: 0 };
    if (m[1] === 'Rss') {
      e.rss += Number(m[2]);
      e.maps++;
    } else if (m[1] === 'Pss') e.pss += Number(m[2]);
    else e.anon += Number(m[2]);
    by.set(name, e);
  }
  return [...by.values()].sort((a, b) => b.rss - a.rss).slice(0, n).map((e) => ({ ...e, rss: mb(e.rss), pss: mb(e.pss), anon: mb(e.anon) }));
}

/** Every process (but this one) whose command line or working directory names one of `marks`. */
function ours(marks) {
  const out = [];
  for (const pid of pids()) {
    if (pid === process.pid) continue;
    const argv = cmdline(pid);
    if (!argv) continue;
    let cwd = '';
    try {
      cwd = readlinkSync(`/proc/${pid}/cwd`);
    } catch { /* another user's, or gone */ }
    const text = `${argv.join(' ')}\n${cwd}`;
    if (marks.some((m) => text.includes(m))) out.push({ pid, cwd, args: argv.join(' ').slice(0, 160) });
  }
  return out;
}

async function waitGone(serverDir, ms) {
  const t0 = performance.now();
  while (servers(serverDir).length && performance.now() - t0 < ms) await sleep(50);
  return { gone: servers(serverDir).length === 0, ms: Math.round(performance.now() - t0) };
}

/** The last line of the trace from server `pid` (its memoryUsage() after its last request). */
function lastTrace(file, pid) {
  if (!existsSync(file)) return null;
  const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    try {
      const l = JSON.parse(lines[i]);
      if (l.server === pid && typeof l.rss === 'number') return l;
    } catch { /* a partial line */ }
  }
  return null;
}

// ---------------------------------------------------------------- the run

const root = realpathSync(mkdtempSync(join(tmpdir(), 'intent-bench-footprint-')));
let code = 0;
try {
  const { pkg: snap } = isolatedRun(root);
  let pkg = snap;
  if (process.env.FOOTPRINT_PKG) {
    pkg = realpathSync(process.env.FOOTPRINT_PKG);
    setCli(join(pkg, 'dist', 'bin', 'intent.js'));
  }
  if (process.env.FOOTPRINT_SERVER_FLAGS !== undefined) {
    const flags = process.env.FOOTPRINT_SERVER_FLAGS.split(/\s+/).filter(Boolean);
    check(!process.env.FOOTPRINT_PKG, 'FOOTPRINT_SERVER_FLAGS edits the run\'s own snapshot: not with FOOTPRINT_PKG');
    let n = 0;
    for (const f of ['hook-server.js', 'hooks.cjs']) {
      const p = join(pkg, 'dist', 'bin', f);
      if (!existsSync(p)) continue;
      const text = readFileSync(p, 'utf8');
      const next = text.replaceAll('"--max-semi-space-size=2", ', flags.map((x) => `${JSON.stringify(x)}, `).join(''));
      n += next !== text;
      writeFileSync(p, next);
    }
    check(n > 0, 'no `--max-semi-space-size=2` in dist/bin/hook-server.js or hooks.cjs to replace');
  }
  const traceFile = join(root, 'trace.jsonl');
  const extra = Object.fromEntries((process.env.FOOTPRINT_ENV ?? '').split(',').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
  const env = {
    ...getEnv(), INTENT_HOOK_SERVER_TRACE: traceFile, INTENT_HOOK_SERVER_MS: String(IDLE_MS), ...extra,
    ...(process.env.FOOTPRINT_NODE_OPTIONS ? { NODE_OPTIONS: process.env.FOOTPRINT_NODE_OPTIONS } : {}),
  };
  const dir = join(root, `repo-${FILES}`);
  log(`a repository of ${FILES} files, intent BENCH and its worktree …`);
  const repo = await governedSynthetic(dir, FILES);
  const { wt, hot } = repo;
  const twin = plainTwin(repo);
  const serverDir = join(realpathSync(join(dir, '.git')), 'intent', 'server');
  const marks = [root, join(pkg, 'dist', 'bin', 'hook')];
  check(ours(marks).length === 0, `processes of ours before the first commit: ${JSON.stringify(ours(marks))}`);

  let seq = 0;
  const governed = (cwdEnv = env) => {
    stageRound(wt, hot, ++seq);
    const c = git(wt, ['commit', '-q', '-m', `footprint ${seq}`], { env: cwdEnv });
    check(!/WARNING|NOT recorded|blocked/.test(c.stderr), `governed commit ${seq}: ${c.stderr}`);
    return c.ms;
  };
  const plain = () => {
    stageRound(twin, hot, ++seq);
    return git(twin, ['-c', 'core.hooksPath=/dev/null', 'commit', '-q', '-m', `plain ${seq}`], { env }).ms;
  };

  log(`${COMMITS} governed commits, each paired with a plain one …`);
  const rounds = [];
  const samples = [];
  // Every hook server process seen after a round (pid: first and last round), and the most at once
  // (the first, unserved commit may start two: the second finds the lock taken and leaves).
  const seenServers = new Map();
  let most = 0;
  for (let k = 1; k <= COMMITS; k++) {
    let g = 0;
    let p = 0;
    if (k % 2) {
      p = plain();
      g = governed();
    } else {
      g = governed();
      p = plain();
    }
    rounds.push({ k, governed: g, plain: p });
    const now = servers(serverDir);
    most = Math.max(most, now.length);
    for (const s of now) seenServers.set(s, { first: seenServers.get(s)?.first ?? k, last: k });
    if (!SAMPLES.includes(k)) continue;
    // The work after the answer (the tidy-up 25 ms later, the deferred jobs) done first.
    await sleep(100);
    const srv = servers(serverDir);
    check(srv.length === 1, `after commit ${k}: ${srv.length} hook servers (${srv.join(' ')})`);
    const server = memOf(srv[0]);
    const kids = descendants(srv[0]).map(memOf).filter(Boolean);
    const all = [server, ...kids];
    const sum = (f) => all.reduce((n, m) => n + (m[f] ?? 0), 0);
    const t = lastTrace(traceFile, srv[0]);
    const sample = {
      commit: k,
      server: { ...server, rssMB: mb(server.rss), pssMB: server.pss === null ? null : mb(server.pss), anonMB: mb(server.anon), fileMB: mb(server.file) },
      v8: t && { heapUsedMB: Math.round(t.heap / 104857.6) / 10, heapTotalMB: Math.round((t.heapTotal ?? 0) / 104857.6) / 10, externalMB: Math.round((t.external ?? 0) / 104857.6) / 10, rssAtTraceMB: Math.round(t.rss / 104857.6) / 10 },
      children: kids.map((m) => ({ pid: m.pid, comm: m.comm, args: m.args, rssMB: mb(m.rss), pssMB: m.pss === null ? null : mb(m.pss), anonMB: mb(m.anon) })),
      nodeChildren: kids.filter((m) => m.comm === 'node').length,
      totalRssMB: mb(sum('rss')),
      totalPssMB: server.pss === null ? null : mb(sum('pss')),
      totalAnonMB: mb(sum('anon')),
      ...(process.env.FOOTPRINT_SMAPS === '1' ? { smaps: smapsTop(srv[0]) } : {}),
    };
    // And once the server has been idle for a while (a commit every few seconds, as in use): what
    // work done when idle (a collection, a trim) gives back.
    await sleep(1500);
    const later = [srv[0], ...descendants(srv[0])].map(memOf).filter(Boolean);
    sample.settled = { serverRssMB: mb(later[0]?.rss ?? 0), serverAnonMB: mb(later[0]?.anon ?? 0), totalRssMB: mb(later.reduce((n, m) => n + m.rss, 0)), totalPssMB: mb(later.reduce((n, m) => n + (m.pss ?? 0), 0)) };
    samples.push(sample);
    log(`after commit ${k}: server ${sample.server.rssMB} MB RSS (anon ${sample.server.anonMB}, file ${sample.server.fileMB}; PSS ${sample.server.pssMB}), ${kids.length} children ${mb(sum('rss') - server.rss)} MB, total ${sample.totalRssMB} MB RSS / ${sample.totalPssMB} MB PSS; V8 heap ${sample.v8?.heapUsedMB}/${sample.v8?.heapTotalMB} MB`);
  }
  const lastServer = servers(serverDir)[0];

  // The server leaves by itself after its idle time (plus the drain of lib/hooks/server.ts).
  log(`waiting for the server to leave (idle time ${IDLE_MS} ms) …`);
  const t0 = performance.now();
  const idleExit = await waitGone(serverDir, IDLE_MS + 15_000);
  idleExit.ms = Math.round(performance.now() - t0);
  const leftAfterRun = ours(marks);

  // The cold first commit: no server running when the commit starts.
  log(`${COLD} cold governed commits, each paired with a plain one …`);
  const cold = [];
  for (let i = 0; i < COLD; i++) {
    for (const s of servers(serverDir)) {
      try {
        process.kill(s, 'SIGTERM');
      } catch { /* gone */ }
    }
    const gone = await waitGone(serverDir, 10_000);
    check(gone.gone, 'a hook server did not leave on SIGTERM within 10 s');
    await sleep(200);
    let g = 0;
    let p = 0;
    if (i % 2) {
      p = plain();
      g = governed();
    } else {
      g = governed();
      p = plain();
    }
    cold.push({ governed: g, plain: p });
  }
  // The last cold commit's server is left to leave by itself; then nothing of ours may be left.
  await sleep(500);
  const started = servers(serverDir).length;
  const coldExit = await waitGone(serverDir, IDLE_MS + 15_000);
  await sleep(1000);
  const leftover = ours(marks);

  // Every governed commit has its note (the plain ones have none).
  const noted = git(wt, ['notes', '--ref=refs/notes/intents', 'list']).stdout.trim().split('\n').filter(Boolean).length;
  const wins = (from, to) => {
    const r = rounds.filter((x) => x.k >= from && x.k <= to);
    return r.length ? { n: r.length, governed: +median(r.map((x) => x.governed)).toFixed(1), plain: +median(r.map((x) => x.plain)).toFixed(1), added: +median(r.map((x) => x.governed - x.plain)).toFixed(1), governedP90: +quantile(r.map((x) => x.governed), 0.9).toFixed(1) } : null;
  };
  const summary = {
    files: FILES, commits: COMMITS, idleMs: IDLE_MS,
    serverFlags: process.env.FOOTPRINT_SERVER_FLAGS ?? '--max-semi-space-size=2 (as built)',
    nodeOptions: process.env.FOOTPRINT_NODE_OPTIONS ?? null, extraEnv: extra, pkg: process.env.FOOTPRINT_PKG ?? null,
    machine: machine(),
    serversSeen: Object.fromEntries(seenServers), serversAtOnce: most,
    samples,
    timing: { all: wins(2, COMMITS), '2-50': wins(2, 50), '51-300': wins(51, 300), '301-500': wins(301, 500) },
    idleExit: { ...idleExit, server: lastServer, leftAfter: leftAfterRun },
    cold: {
      pairs: cold.map((c) => ({ governed: +c.governed.toFixed(1), plain: +c.plain.toFixed(1) })),
      governed: +median(cold.map((c) => c.governed)).toFixed(1), plain: +median(cold.map((c) => c.plain)).toFixed(1),
      added: +median(cold.map((c) => c.governed - c.plain)).toFixed(1), serverStarted: started === 1, serverLeft: coldExit,
    },
    leftover,
    notes: noted,
    notesExpected: COMMITS + COLD,
  };
  process.stdout.write(`${JSON.stringify(summary)}\n`);
  // The markdown table.
  const md = [];
  md.push(`Resident footprint, ${FILES} files (${summary.machine.cpu}, ${summary.machine.cores} cores, node ${summary.machine.node}, git ${summary.machine.git}; server flags: ${summary.serverFlags}${summary.nodeOptions ? `; NODE_OPTIONS=${summary.nodeOptions}` : ''}${Object.keys(extra).length ? `; ${JSON.stringify(extra)}` : ''})`);
  md.push('');
  md.push(`| after commit | server RSS | server anon / file | server PSS | V8 heap used / total | git children (n, RSS) | total RSS | total PSS | ≤ ${TARGET_MB} MB | total RSS 1.5 s later |`);
  md.push('|---:|---:|---:|---:|---:|---:|---:|---:|:-:|---:|');
  for (const s of samples) {
    const kidsRss = Math.round((s.totalRssMB - s.server.rssMB) * 10) / 10;
    md.push(`| ${s.commit} | ${s.server.rssMB} MB | ${s.server.anonMB} / ${s.server.fileMB} MB | ${s.server.pssMB ?? 'n/a'} MB | ${s.v8 ? `${s.v8.heapUsedMB} / ${s.v8.heapTotalMB} MB` : 'n/a'} | ${s.children.length}, ${kidsRss} MB | **${s.totalRssMB} MB** | ${s.totalPssMB ?? 'n/a'} MB | ${s.totalRssMB <= TARGET_MB ? 'yes' : 'no'} | ${s.settled.totalRssMB} MB |`);
  }
  md.push('');
  const t = summary.timing.all;
  md.push(`Warm commits (rounds 2-${COMMITS}, medians): governed ${t.governed} ms, plain ${t.plain} ms, added ${t.added} ms (governed p90 ${t.governedP90} ms). Hook servers seen: ${seenServers.size} (${[...seenServers].map(([p, r]) => `rounds ${r.first}-${r.last}`).join(', ')}), at most ${most} at once; node children of the server: ${Math.max(0, ...samples.map((s) => s.nodeChildren))}.`);
  md.push(`Cold first commit (no server, ${COLD} alternated pairs, medians): governed ${summary.cold.governed} ms, plain ${summary.cold.plain} ms, added ${summary.cold.added} ms.`);
  md.push(`Idle exit: the server left ${idleExit.gone ? `${idleExit.ms} ms after the last commit (idle time ${IDLE_MS} ms)` : 'NOT within idle time + 15 s'}; processes of ours left after it: ${leftAfterRun.length}; after the cold commits' server left: ${leftover.length}${leftover.length ? ` (${leftover.map((l) => `${l.pid} ${l.args}`).join('; ')})` : ''}.`);
  md.push(`Notes: ${noted} of ${COMMITS + COLD} governed commits.`);
  process.stdout.write(`\n${md.join('\n')}\n`);
  if (leftover.length || !idleExit.gone || noted !== COMMITS + COLD) code = 1;
} catch (e) {
  process.stderr.write(`${e.stack ?? e}\n`);
  code = 2;
} finally {
  if (process.env.FOOTPRINT_KEEP === '1') log(`kept ${root}`);
  else removeTree(root);
}
process.exit(code);
