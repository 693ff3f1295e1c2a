// Shared helpers of the benchmark: processes with timing, statistics, progress, synthetic repositories.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, release, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package under test (the repository root). */
export const PKG = fileURLToPath(new URL('..', import.meta.url));

// ---------------------------------------------------------------- options

export const QUICK = process.env.BENCH_QUICK === '1';

/** Repetitions of every timed measurement (at least 10 in a full run). */
export const REPS = Number(process.env.BENCH_REPS) || (QUICK ? 3 : 10);

// ---------------------------------------------------------------- progress

const T0 = performance.now();

export function elapsed() {
  return (performance.now() - T0) / 1000;
}

export function log(msg) {
  process.stdout.write(`[${elapsed().toFixed(1).padStart(6)}s] ${msg}\n`);
}

// ---------------------------------------------------------------- processes

/**
 * The environment every process of the benchmark runs with: a fixed identity, no user or system
 * git configuration (a global core.hooksPath or commit.gpgsign would change what is measured),
 * no automatic gc (it would fire in the middle of a timed commit), and none of the caller's
 * repository or date variables.
 */
export function benchEnv(globalConfig) {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('GIT_')) delete env[k];
  delete env.INTENT_ID;
  Object.assign(env, {
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: globalConfig,
    GIT_AUTHOR_NAME: 'Bench Author',
    GIT_AUTHOR_EMAIL: 'author@bench.invalid',
    GIT_COMMITTER_NAME: 'Bench Committer',
    GIT_COMMITTER_EMAIL: 'committer@bench.invalid',
    GIT_TERMINAL_PROMPT: '0',
    GIT_PAGER: 'cat',
    LC_ALL: 'C',
  });
  return env;
}

export const GLOBAL_GITCONFIG = `[user]
\tname = Bench
\temail = bench@bench.invalid
[init]
\tdefaultBranch = main
[gc]
\tauto = 0
[maintenance]
\tauto = false
[core]
\tfsmonitor = false
[advice]
\tdetachedHead = false
`;

let ENV = process.env;
export function setEnv(env) {
  ENV = env;
}
export function getEnv() {
  return ENV;
}

/**
 * CPU time (user + system, ms) of this process's waited-for children so far, from /proc/self/stat
 * (cutime + cstime: a child's own CPU and that of the descendants it waited for), or null where
 * there is no /proc. Resolution: one clock tick (10 ms on Linux).
 */
function childrenCpu() {
  try {
    return statMs('self', [13, 14]);
  } catch {
    return null;
  }
}

/** The sum of fields `at` (clock ticks, counted after the command name) of /proc/<pid>/stat, in ms. */
function statMs(pid, at) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (at.reduce((n, i) => n + Number(f[i]), 0) * 1000) / 100;
}

/**
 * CPU time (ms) of the running hook servers (lib/hooks/server.ts) and of the processes they
 * waited for: a hook the server runs spends it there, not in the runner's process tree.
 */
function serversCpu() {
  let sum = 0;
  let names;
  try {
    names = readdirSync('/proc');
  } catch {
    return 0;
  }
  for (const p of names) {
    if (!/^[0-9]+$/.test(p)) continue;
    try {
      if (!readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('\0serve-hooks\0')) continue;
      sum += statMs(p, [11, 12, 13, 14]);
    } catch { /* gone */ }
  }
  return sum;
}

/**
 * Runs a program to completion and times it: `ms` wall clock, `cpu` the CPU time of the process
 * and its descendants (null without /proc), and with `servers`, of the hook servers too.
 * Throws on a non-zero exit unless `allowFail`.
 */
export function run(cmd, args, opts = {}) {
  const s0 = opts.servers ? serversCpu() : 0;
  const c0 = childrenCpu();
  const t0 = process.hrtime.bigint();
  const res = spawnSync(cmd, args, {
    cwd: opts.cwd,
    env: opts.env ?? ENV,
    input: opts.input,
    maxBuffer: 1 << 30,
    stdio: opts.stdio,
  });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const c1 = childrenCpu();
  const s1 = opts.servers ? serversCpu() : 0;
  if (res.error) throw res.error;
  const out = {
    cpu: c0 === null || c1 === null ? null : c1 - c0 + (s1 - s0),
    status: res.status ?? -1,
    stdout: res.stdout ? res.stdout.toString('utf8') : '',
    stderr: res.stderr ? res.stderr.toString('utf8') : '',
    ms,
  };
  if (out.status !== 0 && !opts.allowFail) {
    throw new BenchError(`${cmd} ${args.join(' ')} failed (exit ${out.status}) in ${opts.cwd ?? '.'}:\n${out.stderr}${out.stdout}`.slice(0, 4000));
  }
  return out;
}

export function git(cwd, args, opts = {}) {
  return run('git', args, { ...opts, cwd });
}

/** The `intent` CLI of the package under test (the snapshot when one is set). */
let CLI = join(PKG, 'dist', 'bin', 'intent.js');
export function setCli(path) {
  CLI = path;
}
export function cliPath() {
  return CLI;
}
export function intent(cwd, args, opts = {}) {
  return run(process.execPath, [CLI, ...args], { ...opts, cwd });
}

/** Runs a program asynchronously; resolves with exit code, output and wall time. */
export function spawnAsync(cmd, args, opts = {}) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ status: code ?? -1, stdout, stderr, ms: Number(process.hrtime.bigint() - t0) / 1e6 }));
  });
}

/** A failure of the benchmark itself (not a missed target): the run exits non-zero. */
export class BenchError extends Error {}

export function check(cond, msg) {
  if (!cond) throw new BenchError(msg);
}

/**
 * Edits and stages `files` (paths in `wt`) for round `seq`: an ordinary change inserts a line of
 * code at line 4; `comment` rewrites the first line, a comment.
 */
export function stageEdit(wt, files, seq, kind = 'ordinary') {
  for (const f of files) {
    const p = join(wt, f);
    const lines = readFileSync(p, 'utf8').split('\n');
    if (kind === 'comment') lines[0] = `// comment round ${seq}`;
    // As item 11's ordinary change (bench/hooks.mjs stageRound): four blocks of five lines rewritten.
    else if (kind === 'round') for (const b of [0, 10, 20, 30]) for (let k = b; k < b + 5; k++) lines[k + 1] = `export const v${k} = ${seq * 1000 + k}; // round ${seq}`;
    else lines.splice(3, 0, `export const edit${seq} = ${seq};`);
    writeFileSync(p, lines.join('\n'));
  }
  git(wt, ['add', '--', ...files]);
}

// ---------------------------------------------------------------- statistics

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return NaN;
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}

/** Median with its spread: { median, p25, p75, min, max, n }. */
export function stats(xs) {
  return { median: median(xs), p25: quantile(xs, 0.25), p75: quantile(xs, 0.75), min: Math.min(...xs), max: Math.max(...xs), n: xs.length };
}

export function ms(x, digits = 0) {
  return Number.isFinite(x) ? `${x.toFixed(digits)} ms` : 'n/a';
}

export function spread(s, digits = 0) {
  return `${s.median.toFixed(digits)} ms (p25–p75 ${s.p25.toFixed(digits)}–${s.p75.toFixed(digits)}, n=${s.n})`;
}

// ---------------------------------------------------------------- the machine

export function machine() {
  const cpu = cpus();
  let os = `${process.platform} ${release()}`;
  try {
    const rel = readFileSync('/etc/os-release', 'utf8');
    const pretty = /^PRETTY_NAME="?([^"\n]*)"?/m.exec(rel)?.[1];
    if (pretty) os = `${pretty} (${process.platform} ${release()}, ${process.arch})`;
  } catch { /* not Linux */ }
  return {
    cpu: cpu[0]?.model?.trim() ?? 'unknown',
    cores: cpu.length,
    ramGiB: (totalmem() / 2 ** 30).toFixed(1),
    freeGiB: (freemem() / 2 ** 30).toFixed(1),
    os,
    load: loadavg().map((l) => l.toFixed(2)).join(' '),
    node: process.version,
    git: run('git', ['--version']).stdout.trim().replace(/^git version /, ''),
    pkg: JSON.parse(readFileSync(join(PKG, 'package.json'), 'utf8')).version,
    commit: (() => {
      const r = run('git', ['rev-parse', '--short', 'HEAD'], { cwd: PKG, allowFail: true });
      const dirty = run('git', ['status', '--porcelain', '--untracked-files=no', '--', 'lib', 'cli'], { cwd: PKG, allowFail: true });
      return r.status === 0 ? `${r.stdout.trim()}${dirty.stdout.trim() ? ' + uncommitted changes in lib/ or cli/' : ''}` : 'unknown';
    })(),
  };
}

// ---------------------------------------------------------------- the package snapshot

/**
 * Copies what the hooks and the CLI run (dist/, package.json, git-hooks/, schemas/, templates/)
 * into `dir`, with node_modules linked: a rebuild of dist/ by someone else during the run then
 * cannot change (or break) what is being measured.
 */
export function snapshotPackage(dir) {
  mkdirSync(dir, { recursive: true });
  for (const d of ['dist', 'git-hooks', 'schemas', 'templates']) cpSync(join(PKG, d), join(dir, d), { recursive: true });
  cpSync(join(PKG, 'package.json'), join(dir, 'package.json'));
  symlinkSync(join(PKG, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

// ---------------------------------------------------------------- synthetic repositories

/** Removes a directory tree (with `rm -rf` where there is one: much less CPU than fs.rmSync on a busy machine). */
export function removeTree(dir) {
  if (process.platform !== 'win32' && spawnSync('rm', ['-rf', '--', dir]).status === 0) return;
  rmSync(dir, { recursive: true, force: true });
}

/** Writes files (creating folders) under `root`. */
export function writeFiles(root, files) {
  for (const [p, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, p)), { recursive: true });
    writeFileSync(join(root, p), content);
  }
}

/** Path of generated file `i` of a synthetic tree: 100 files a folder, 10 folders a group. */
export function genPath(i) {
  return `src/g${Math.floor(i / 1000)}/d${Math.floor(i / 100) % 10}/f${i}.ts`;
}

/** The content of generated file `i`: a few lines; `lines` of them when given. */
export function genContent(i, lines = 6) {
  let s = `// generated file ${i}\n`;
  for (let k = 0; k < lines; k++) s += `export const v${k} = ${(i * 7919 + k * 104729) % 1000003};\n`;
  return s;
}

/**
 * Runs `git fast-import` on a stream produced chunk by chunk by `produce(write)` (no temp file,
 * no per-file git process).
 */
export async function fastImport(cwd, produce, extraArgs = []) {
  const child = spawn('git', ['fast-import', '--quiet', ...extraArgs], { cwd, env: ENV, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (d) => (stderr += d));
  child.stdout.on('data', (d) => (stdout += d));
  const done = new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(stdout) : reject(new BenchError(`git fast-import failed (${code}): ${stderr}`))));
  });
  let buf = [];
  let size = 0;
  const flush = async () => {
    if (!buf.length) return;
    const chunk = Buffer.concat(buf);
    buf = [];
    size = 0;
    if (!child.stdin.write(chunk)) await new Promise((r) => child.stdin.once('drain', r));
  };
  const write = async (s) => {
    const b = typeof s === 'string' ? Buffer.from(s, 'utf8') : s;
    buf.push(b);
    size += b.length;
    if (size > 1 << 20) await flush();
  };
  await produce(write);
  await flush();
  child.stdin.end();
  return done;
}

/** A fast-import `data` command for `text`. */
export function data(text) {
  return `data ${Buffer.byteLength(text)}\n${text}\n`;
}

/**
 * A new repository at `dir` (branch main) whose first commit holds `n` generated files (those in
 * `wide` with `wideLines` lines), written by one fast-import stream, then checked out (or, without
 * `checkout`, only read into the index).
 */
export async function syntheticRepo(dir, n, { wide = new Set(), wideLines = 41, checkout = true } = {}) {
  mkdirSync(dir, { recursive: true });
  git(dir, ['init', '-q', '-b', 'main']);
  await fastImport(dir, async (w) => {
    for (let i = 0; i < n; i++) await w(`blob\nmark :${i + 1}\n${data(genContent(i, wide.has(i) ? wideLines : 6))}`);
    await w(`commit refs/heads/main\nmark :${n + 1}\ncommitter Bench <bench@bench.invalid> ${Math.floor(Date.now() / 1000) - 86400} +0000\n${data(`synthetic tree of ${n} files`)}`);
    for (let i = 0; i < n; i++) await w(`M 100644 :${i + 1} ${genPath(i)}\n`);
    await w('\n');
  });
  // Without `checkout`, only the index is filled (the files stay in the object database): for a
  // main worktree that nobody commits in, it halves the files written and removed.
  git(dir, checkout ? ['reset', '-q', '--hard', 'main'] : ['reset', '-q', 'main']);
  return dir;
}

/** A registry YAML for the given intents. */
export function registryYaml(intents) {
  return 'active_intents:\n' + intents.map((i) =>
    `  - id: "${i.id}"\n    name: "${i.name ?? `Benchmark intent ${i.id}`}"\n    status: "${i.status ?? 'PENDING'}"\n    owned_scope: ${JSON.stringify(i.scope)}\n`).join('');
}

/** `intent init` in `dir`, the registry written and committed on main (a human commit, no intent). */
export function governRepo(dir, intents) {
  intent(dir, ['init']);
  writeFiles(dir, { '.orchestration/active_intents.yaml': registryYaml(intents) });
  git(dir, ['add', '.orchestration']);
  git(dir, ['commit', '-q', '-m', 'register intents']);
}

/** `intent checkout <id> --json`: the worktree path. */
export function checkoutIntent(dir, id) {
  const r = intent(dir, ['checkout', id, '--json']);
  return JSON.parse(r.stdout).path;
}

/** Paths git needs to run a worktree's hook by hand, as git would. */
export function hookContext(worktree) {
  const gitDir = git(worktree, ['rev-parse', '--path-format=absolute', '--git-dir']).stdout.trim();
  const hooksPath = git(worktree, ['config', '--worktree', 'core.hooksPath']).stdout.trim();
  const env = { ...ENV, GIT_DIR: gitDir, GIT_INDEX_FILE: join(gitDir, 'index'), GIT_EDITOR: ':', GIT_PREFIX: '' };
  check(existsSync(join(hooksPath, 'prepare-commit-msg')), `no prepare-commit-msg hook in ${hooksPath}`);
  return { gitDir, hooksPath, env };
}

/**
 * Sets this process up as a benchmark run in `root`: the fixed git environment (benchEnv, with
 * GLOBAL_GITCONFIG) and a snapshot of the package whose CLI every `intent()` call runs. Returns
 * the snapshot's folder and CLI.
 */
export function isolatedRun(root) {
  writeFileSync(join(root, 'gitconfig'), GLOBAL_GITCONFIG);
  const env = benchEnv(join(root, 'gitconfig'));
  for (const k of Object.keys(process.env)) if (!(k in env)) delete process.env[k];
  Object.assign(process.env, env);
  setEnv(process.env);
  const pkg = snapshotPackage(join(root, 'pkg'));
  const cli = join(pkg, 'dist', 'bin', 'intent.js');
  setCli(cli);
  return { pkg, cli };
}
