/**
 * The hook server: one resident node process per repository that runs the per-commit hooks for
 * the runner (git-hooks/runner.sh), so a commit does not start node, load the hooks and compile
 * them for each of its hooks (docs/decisions.md, "The hook server"). Linux only: it reads the
 * hook's environment, working directory and arguments from /proc, as they were when git started
 * the runner, and runs the hook exactly as `node hook.cjs <hook>` would have, with them.
 *
 * Its folder, `<git-common-dir>/intent/server/`:
 *   lock/     made (mkdir) by the server that owns the folder; lock/pid names it
 *   in        FIFO; a request is one line, `<runner pid> <argument count> <hook> <watch pid>` (one
 *             write of less than PIPE_BUF bytes: requests from concurrent runners do not mix);
 *             `<pid> <argc> <hook>` and `<pid> <argc>` from runners written before
 *   pid       `<pid>\n<tag>\n<fd>\n2\n`: the runner asks only a server whose tag is its own
 *             `<node>|<entry>|<folder>` (the Node.js and hook program `intent init` wrote into it)
 *             and that holds this very `in` open as `<fd>`; `2`: it answers into the runner's pipe
 *   r.<pid>   the runner's claim token, made by the runner (a shell redirection) before it asks; the
 *             server claims it (renames it to r.<pid>.claimed) and removes it. The answer,
 *             `<exit code> <stderr bytes>\n<stderr>` or `- 0\n` (not served, run the hook
 *             yourself), goes into the runner's descriptor 4, a here-document (a pipe: no
 *             process, no file), opened for writing through /proc/<pid>/fd/4, only while <pid> is
 *             still the process that asked: the parent of the watch it named (the background
 *             process that bounds its wait; a pid given to another process since is not written
 *             to). A request of a runner that is gone has its token removed. A runner from before
 *             (no watch named), or one whose shell makes here-documents as files, makes `r.<pid>`
 *             a FIFO: the server claims, opens and removes it, and answers there.
 * The runner asks only a server of its own user that is not stopped, and watches
 * `/proc/<pid>/fd/<fd>` while it waits: a server that dies mid-request, is stopped, has not claimed
 * the request within 3 s or has not answered within 5 s of the claim makes the runner run the hook
 * itself (and, but for a death, remove `pid`: no runner asks that server again, and the next one
 * started replaces it at once, see takeLock). Requests are served one at a time, in order, and
 * only those of the server's own user.
 *
 * The server closes the descriptors it inherited, and leaves when idle for INTENT_HOOK_SERVER_MS
 * (default 10 minutes), when its folder or the repository's state folder is gone, when its lock,
 * `pid` or `in` is no longer its own, when no intent worktree is left (lib/hooks/residents.ts),
 * when the hook program it runs was replaced (an upgrade, a rebuild: it answers `-` and leaves),
 * and on SIGTERM (exiting for sure 5 s later). Leaving, it removes `pid` and `in` first and serves
 * what was already written for a while, so a runner that found it a moment before is still
 * answered.
 */
import { stopResidents } from '../git/resident.js';
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, closeSync, existsSync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, readlinkSync, realpathSync, renameSync, rmSync, statSync, writeFileSync, constants } from 'node:fs';
import { Socket } from 'node:net';
import { dirname, join, resolve as absolute } from 'node:path';
import { replaceFile } from '../core/files.js';
import type { HookContext } from '../core/hook-context.js';
import { setHookParent } from '../core/hook-parent.js';
import { hostEnv } from '../core/settings.js';
import { fileIdentity, KeptStore } from '../core/kept.js';
import { parkCaCerts, unparkCaCerts } from '../core/node-start.js';
import { saveTypeScriptCodeCache } from '../mutation/ts-cache.js';
import { intentWorktreesLeft } from './residents.js';
import { epochMs } from './outcome.js';
import { answer } from './reply.js';
import { alive, closeInheritedFds, processStopped, processUid, procStat } from '../core/proc.js';

/** What a hook run gives back (lib/hooks/dispatch.ts, which loads this module: no import back). */
interface HookOutcome {
  code: number;
  stderr: string;
  trace?: Record<string, unknown>;
}

/** The hooks the runner hands to the server (none reads stdin). */
export const SERVED_HOOKS = ['pre-commit', 'prepare-commit-msg', 'commit-msg', 'post-commit', 'pre-merge-commit', 'post-merge'] as const;
const DEFAULT_IDLE_MS = 10 * 60_000;
/** How long a leaving server still answers what was written to `in` before it was removed. */
const DRAIN_MS = 2000;
/** How often the server checks that its folder is still there and still its own. */
const WATCH_MS = 1000;

/** How long the server stays when idle (INTENT_HOOK_SERVER_MS; 0: no server). */
export function serverIdleMs(env: NodeJS.ProcessEnv): number {
  const n = Number(env.INTENT_HOOK_SERVER_MS);
  return env.INTENT_HOOK_SERVER_MS !== undefined && Number.isFinite(n) && n >= 0 ? Math.min(n, 24 * 3_600_000) : DEFAULT_IDLE_MS;
}

/**
 * Starts a server for the folder `dir` (detached), when the runner asked for one: it exports
 * INTENT_START_SERVER (the folder) and INTENT_SERVER_TAG when it found no server to serve the hook.
 * Removes both from `env` (the hook's own processes must not see them). Never fails the hook.
 */
export function startServerIfAsked(env: NodeJS.ProcessEnv, entry: string | undefined): void {
  const dir = env.INTENT_START_SERVER && absolute(env.INTENT_START_SERVER);
  const tag = env.INTENT_SERVER_TAG;
  delete env.INTENT_START_SERVER;
  delete env.INTENT_SERVER_TAG;
  if (!dir || !tag || !entry || process.platform !== 'linux' || env.INTENT_HOOK_SERVER === '0' || serverIdleMs(env) === 0) return;
  try {
    // Only in a repository of this user (root committing in someone else's repository makes no
    // server of its own there), and only while an intent worktree is there to serve.
    if (statSync(dirname(dir)).uid !== process.getuid?.() || !intentWorktreesLeft(dirname(dirname(dir)))) return;
    const childEnv = parkCaCerts(env);
    for (const k of Object.keys(childEnv)) if (k.startsWith('GIT_') && !k.startsWith('GIT_CONFIG')) delete childEnv[k];
    // Memory (docs/decisions.md, "Resident helpers never hang a commit"): the server's V8 heap in use
    // stays at 8-14 MB over hundreds of commits; what grew was the young generation's semi-spaces
    // (up to 16 MB each by default) and glibc's per-thread malloc arenas, which a process that
    // runs a hook now and then never gives back. Both are capped for the resident.
    childEnv.MALLOC_ARENA_MAX = '2';
    // INTENT_SERVER_CPU_PROF=<folder>: the server writes a V8 CPU profile there when it leaves (bench/, profiling).
    const prof = env.INTENT_SERVER_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${env.INTENT_SERVER_CPU_PROF}`, '--cpu-prof-interval=250'] : [];
    const child = spawn(process.execPath, [...prof, '--max-semi-space-size=2', entry, 'serve-hooks', dir, tag], { cwd: dirname(dir), env: childEnv, detached: true, stdio: 'ignore' });
    child.on('error', () => { /* the next hook starts node itself, and asks again */ });
    child.unref();
  } catch { /* as above */ }
}

/**
 * Takes the folder: the lock, unless a live server with the same tag holds it (then null: leave).
 * A live server of this folder with another tag (another Node.js or package) is asked to leave
 * (SIGTERM); a lock that names another folder was copied with the repository (cp -a): stale.
 */
function takeLock(dir: string, tag: string): string | null {
  const lock = join(dir, 'lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), `${process.pid}\n${tag}\n`);
      return lock;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return null;
    }
    let owner = 0;
    let ownerTag = '';
    try {
      const lines = readFileSync(join(lock, 'pid'), 'utf8').split('\n');
      owner = Number(lines[0]);
      ownerTag = lines[1] ?? '';
    } catch {
      // A lock with no pid yet: its server is writing it, or died first. Old enough: died.
      try {
        if (Date.now() - statSync(lock).mtimeMs < 10_000) return null;
      } catch { /* gone: try again */ }
    }
    if (owner > 0 && ownerTag.endsWith(`|${dir}`) && servesHere(owner, dir)) {
      // Another user's server (root in someone's repository): not ours to replace.
      if (processUid(owner) !== process.getuid?.()) return null;
      // A server of ours that runners can still reach stays; one they cannot (stopped, its `pid`
      // file gone or naming another process, its `in` no longer the FIFO it holds) is replaced at
      // once: it leaves when it notices (or when continued).
      if (ownerTag === tag && (reachable(owner, dir) || starting(lock, owner))) return null;
      try {
        process.kill(owner, 'SIGTERM');
      } catch { /* gone */ }
    }
    // Whoever removes the lock second only removes a fresh one of a third server: its mkdir then
    // fails, and that server serves; the two of us retry once and leave.
    rmSync(lock, { recursive: true, force: true });
  }
  return null;
}

/**
 * Whether runners can reach server `pid` of folder `dir`: not stopped, named by the `pid` file,
 * holding the folder's `in` FIFO as the descriptor the file names (what the runner checks).
 */
function reachable(pid: number, dir: string): boolean {
  if (processStopped(pid)) return false;
  try {
    const [named, , fd] = readFileSync(join(dir, 'pid'), 'utf8').split('\n');
    if (Number(named) !== pid || !/^[0-9]+$/.test(fd ?? '')) return false;
    const fifo = statSync(join(dir, 'in'));
    const held = statSync(`/proc/${pid}/fd/${fd}`);
    return fifo.isFIFO() && fifo.dev === held.dev && fifo.ino === held.ino;
  } catch {
    return false;
  }
}

/**
 * Whether server `pid` took the lock moments ago and has not written its `pid` file yet. Once it
 * has (lock/serving), a missing or foreign `pid` file means runners gave up on it: not starting,
 * unreachable, however young (a server made unreachable within 2 s of its start was otherwise
 * never replaced, and left, leaving none).
 */
function starting(lock: string, pid: number): boolean {
  if (processStopped(pid) || existsSync(join(lock, 'serving'))) return false;
  try {
    return Date.now() - statSync(join(lock, 'pid')).mtimeMs < 2000;
  } catch {
    return false;
  }
}

/** Whether process `pid` is a hook server of folder `dir` (its command line, from /proc). */
function servesHere(pid: number, dir: string): boolean {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    const at = argv.indexOf('serve-hooks');
    return at !== -1 && realpathSync(argv[at + 1] ?? '') === dir;
  } catch {
    return false;
  }
}

/** One request, read from /proc: what git started the runner with. */
interface Request {
  pid: number;
  hook: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
}

function readRequest(pid: number, argc: number, named?: string): Request | null {
  const proc = `/proc/${pid}`;
  if (statSync(proc).uid !== process.getuid?.()) return null;
  const argv = readFileSync(`${proc}/cmdline`, 'utf8').split('\0');
  argv.pop();
  // Named: the runner ran as a function in the hook's own shell (`sh <hook file> <args>`).
  const words = named === undefined ? argc : argc + 1;
  if (words < 1 || words >= argv.length) return null;
  const [hook, ...args] = named === undefined ? argv.slice(argv.length - argc) : [named, ...argv.slice(argv.length - argc)];
  if (!(SERVED_HOOKS as readonly string[]).includes(hook)) return null;
  const env: NodeJS.ProcessEnv = {};
  for (const kv of readFileSync(`${proc}/environ`, 'utf8').split('\0')) {
    const eq = kv.indexOf('=');
    if (eq > 0) env[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  unparkCaCerts(env);
  return { pid, hook, args, cwd: readlinkSync(`${proc}/cwd`), env };
}

/**
 * The server (`hook.cjs serve-hooks <dir> <tag>`): resolves when it has left. `run` is the hook
 * dispatcher (lib/hooks/dispatch.ts runHookIn), passed in so this module does not load every hook.
 */
export async function serveHooks(
  dir: string,
  tag: string,
  run: (hook: string, ctx: HookContext, stdin: () => string, args: string[]) => Promise<HookOutcome>,
): Promise<void> {
  if (process.platform !== 'linux' || /[\n|]/.test(dir)) return;
  const idleMs = serverIdleMs(hostEnv());
  if (idleMs === 0) return;
  // The tag names the folder by its physical path, as the runner does (cd -P).
  try {
    mkdirSync(dir, { recursive: true });
    dir = realpathSync(dir);
  } catch {
    return;
  }
  tag = `${tag}|${dir}`;
  if (tag.includes('\n')) return;
  // Before anything else: what the committing process passed down is not the server's to keep.
  closeInheritedFds();
  const taken = takeLock(dir, tag);
  if (!taken) return;
  const lock: string = taken;
  // What it keeps between hooks: passed with each hook's context (core/kept.ts), nowhere else.
  const kept = new KeptStore();
  const state = dirname(dir);
  const fifo = join(dir, 'in');
  const pidFile = join(dir, 'pid');
  const program = process.argv[1] ?? '';
  // The hook program and its bundle, to notice an upgrade or a rebuild.
  const programStamps = () => [program, join(dirname(program), 'hooks.cjs')].map(fileIdentity).join();
  const stamps = programStamps();
  // Each request served, one JSON line (tests, benchmarks).
  const traceFile = hostEnv().INTENT_HOOK_SERVER_TRACE;
  sweepReplies(dir);
  rmSync(fifo, { force: true });
  if (spawnSync('mkfifo', ['-m', '600', fifo], { stdio: 'ignore' }).status !== 0) {
    rmSync(lock, { recursive: true, force: true });
    return;
  }
  // Read and write: the server never sees end-of-file when a runner closes its end.
  const inputFd = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
  const input = new Socket({ fd: inputFd, readable: true, writable: false });
  input.setEncoding('utf8');
  replaceFile(pidFile, `${process.pid}\n${tag}\n${inputFd}\n${PIPE_PROTOCOL}\n`);
  // Past starting (see starting()): a server that takes over from now on need not wait for us.
  writeFileSync(join(lock, 'serving'), '');
  const inputIdentity = fstatSync(inputFd);
  /** Whether `in` is still the FIFO this server reads (not removed, not replaced). */
  const stillIn = (): boolean => {
    try {
      const s = statSync(fifo);
      return s.dev === inputIdentity.dev && s.ino === inputIdentity.ino;
    } catch {
      return false;
    }
  };

  let leaving = false;
  /** The tidy-up after an answer (tidyLater), while one is due. */
  let tidy: NodeJS.Timeout | null = null;
  let queue: Promise<void> = Promise.resolve();
  let idle: NodeJS.Timeout | undefined;
  const rearm = () => {
    clearTimeout(idle);
    if (!leaving) idle = setTimeout(leave, idleMs);
  };
  /** Whether `file` (the lock's pid file, the pid file) still names this server. */
  const ours = (file: string): boolean => {
    try {
      return readFileSync(file, 'utf8').startsWith(`${process.pid}\n`);
    } catch {
      return false;
    }
  };
  let done: () => void = () => {};
  const finished = new Promise<void>((resolve) => { done = resolve; });
  function leave(): void {
    if (leaving) return;
    leaving = true;
    clearTimeout(idle);
    clearInterval(watch);
    // The resident git processes (lib/git/resident.ts): their input ends, and they with it.
    stopResidents();
    if (tidy) clearTimeout(tidy);
    tidy = null;
    // Only ours: another server that took the folder over has its own.
    if (ours(pidFile)) rmSync(pidFile, { force: true });
    if (ours(join(lock, 'pid'))) {
      rmSync(fifo, { force: true });
      rmSync(lock, { recursive: true, force: true });
    }
    setTimeout(() => void queue.finally(() => {
      input.destroy();
      done();
    }), DRAIN_MS).unref();
    // Whatever a hook in progress is waiting for, the server is gone soon after: a runner whose
    // request is lost runs the hook itself.
    setTimeout(() => process.exit(0), DRAIN_MS + 3000).unref();
  }
  let ticks = 0;
  const watch = setInterval(() => {
    // Unreachable (its `pid` file or `in` replaced or removed: no runner asks it any more), its
    // lock taken, its repository gone, or (every 5 s) no intent worktree left: leave.
    if (!ours(join(lock, 'pid')) || !ours(pidFile) || !stillIn() || !existsSync(state)) leave();
    else if (++ticks % 5 === 0 && !intentWorktreesLeft(dirname(state))) leave();
  }, WATCH_MS);
  process.on('SIGTERM', leave);

  let buf = '';
  input.on('data', (d: string) => {
    buf += d;
    let nl: number;
    while ((nl = buf.indexOf('\n')) !== -1) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      // `<pid> <argc> <hook> <watch pid>` (the arguments after the hook's name are the last argc
      // of the runner's command line; the answer goes into its pipe); `<pid> <argc> <hook>` (into
      // its FIFO) and `<pid> <argc>` (the hook's name and its arguments are the last argc) from
      // runners written before.
      const m = /^([1-9][0-9]{0,9}) ([0-9]{1,4})(?: ([a-z][a-z-]{0,39})(?: ([1-9][0-9]{0,9}))?)?$/.exec(line);
      if (!m || (m[3] === undefined && m[2] === '0')) continue;
      rearm();
      const arrived = performance.now();
      queue = queue.then(() => serveOne(Number(m[1]), Number(m[2]), m[3], m[4] === undefined ? undefined : Number(m[4]), arrived)).catch(() => { /* the runner's watch covers it */ }).finally(rearm);
    }
    if (buf.length > 4096) buf = '';
  });
  input.on('error', leave);
  rearm();

  function tidyLater(): void {
    if (tidy || leaving) return;
    tidy = setTimeout(() => {
      tidy = null;
      for (const m of claimedMarkers.splice(0)) rmSync(m, { force: true });
    }, TIDY_MS);
    tidy.unref();
  }

  /** One line of the trace (tests, benchmarks), for runner `pid`. */
  function traceLine(pid: number, line: Record<string, unknown>): void {
    try {
      appendFileSync(traceFile!, `${JSON.stringify({ server: process.pid, runner: pid, ...line })}\n`);
    } catch { /* a trace is for tests and benchmarks */ }
  }

  async function serveOne(pid: number, argc: number, named?: string, watch?: number, arrived = performance.now()): Promise<void> {
    // What the kernel queued before the request (the watch on refs/heads/intent/ in
    // intents/branch-tips.ts) is delivered first: the second hop comes after a poll phase that
    // began after this point (the first may be in the poll phase under way).
    for (let hop = 0; hop < 2; hop++) await new Promise<void>((resolve) => setImmediate(resolve));
    const fd = claimReply(dir, pid, watch);
    if (fd === null) return;
    let out: (HookOutcome & { hook: string; deferred: (() => void)[] }) | null = null;
    const t0 = performance.now();
    // For the trace: from the request's arrival to its claim (requests before it, the hops above).
    const queued = Math.round((t0 - arrived) * 100) / 100;
    const replaced = programStamps() !== stamps;
    try {
      const req = replaced ? null : readRequest(pid, argc, named);
      if (req) out = { ...(await runAs(req, t0)), hook: req.hook };
    } catch {
      out = null;
    }
    if (!out) {
      // Not served (replaced program, a request it cannot read): the runner runs node itself.
      if (replaced) leave();
      await answer(fd, Buffer.from('- 0\n'));
      return;
    }
    // (Built only when traced: memoryUsage() alone is a tenth of a millisecond.)
    const trace = (line: () => Record<string, unknown>) => {
      if (traceFile) traceLine(pid, line());
    };
    // ms: from the claim to the answer (the hook's own work, in this process); rss, heap: the
    // server's resident memory and V8 heap in use after it (bench: where a commit's time goes, memory over time).
    // (Before the answer: a test reads it once git is done.)
    const answered = performance.now();
    trace(() => ({ hook: out!.hook, code: out!.code, ms: Math.round((answered - t0) * 100) / 100, queued, at: epochMs(arrived), ...memory(), ...out!.trace }));
    const err = Buffer.from(out.stderr, 'utf8');
    await answer(fd, Buffer.concat([Buffer.from(`${out!.code} ${err.length}\n`), err]));
    // Work the hook left for after its answer (HookContext.defer): it runs while git goes on.
    for (const job of out.deferred) {
      try {
        job();
      } catch { /* a job's failure only means the later hook does the work itself */ }
    }
    // The files the next note's objects go into, made now rather than on the commit's path, and
    // the claims' markers removed: a little later, not while the work the hook left goes on.
    tidyLater();
    // What that work added to the hook's trace (HEAD's flat tree kept or not: prefetch.ts).
    if (out.deferred.length) trace(() => ({ hook: `${out!.hook}:after`, at: epochMs(), ...out!.trace }));
  }

  /**
   * Runs the hook with the runner's environment and working directory (its hook context), never
   * the server's own: what the hook warns as it goes goes to the runner, before the outcome's text,
   * as it would from node.
   */
  async function runAs(req: Request, claimedAt: number): Promise<HookOutcome & { deferred: (() => void)[] }> {
    let written = '';
    const deferred: (() => void)[] = [];
    const ctx: HookContext = { env: req.env, cwd: req.cwd, warn: (text) => { written += text; }, defer: (job) => void deferred.push(job), kept };
    // Traced: when each phase of the hook ended, in ms from the request's claim.
    const laps: Record<string, number> | null = traceFile ? {} : null;
    if (laps) ctx.lap = (phase) => { laps[phase] = Math.round((performance.now() - claimedAt) * 100) / 100; };
    if (traceFile) ctx.trace = (line) => traceLine(req.pid, line);
    setHookParent(req.pid);
    try {
      const out = await run(req.hook, ctx, () => '', req.args);
      const trace = laps && Object.keys(laps).length ? { ...out.trace, laps } : out.trace;
      return { code: out.code, stderr: written + out.stderr, deferred, ...(trace ? { trace } : {}) };
    } finally {
      setHookParent(null);
      // What process 'exit' would write: the server may stay for minutes, and its repository
      // may be removed while it does.
      saveTypeScriptCodeCache();
    }
  }

  await finished;
}

/** The server's resident memory, V8 heap in use and reserved, and memory outside the heap (Buffers), in bytes (for the trace). */
function memory(): { rss: number; heap: number; heapTotal: number; external: number } {
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed, heapTotal: m.heapTotal, external: m.external };
}

/** What the pid file's 4th line says to runners: this server answers into their pipe. */
const PIPE_PROTOCOL = '2';
/** The runner's reply pipe: its descriptor 4, a here-document (git-hooks/runner.sh). */
const REPLY_FD = 4;

/** The parent of process `pid` (/proc/<pid>/stat, field 4), or null when it is gone. */
function parentOf(pid: number): number | null {
  const ppid = procStat(pid)?.[1];
  return ppid === undefined ? null : Number(ppid);
}

/** How long after an answer the server tidies up (serveOne): past the rest of the commit. */
const TIDY_MS = 25;

/** Claimed markers of the pipe protocol, removed after the answer (serveOne). */
const claimedMarkers: string[] = [];

/**
 * Claims runner `pid`'s request and opens its reply channel for writing (non-blocking: a runner
 * that is gone has no reader open, and the open fails), or returns null: not ours to answer. Only
 * a runner of this server's user is served (another's request is left unclaimed: its runner does
 * not ask a server of another user; this covers an older runner). The claim renames `r.<pid>`:
 * after it, the runner's watch can no longer give up on us by removing it (one of the two renames
 * or removes it, not both). With a watch (the pipe protocol) `r.<pid>` is a plain marker and the
 * channel the runner's descriptor 4, opened through /proc, only while `pid` is the very process
 * that asked: the parent of the watch it names, a process of our user (checked again once open;
 * a pid given to another process since is not written to). Without one, `r.<pid>` is the runner's
 * FIFO.
 */
function claimReply(dir: string, pid: number, watch: number | undefined): number | null {
  const marker = join(dir, `r.${pid}`);
  const uid = processUid(pid);
  if (uid === null) {
    // Gone (killed while it waited): its marker or FIFO goes too.
    rmSync(marker, { force: true });
    return null;
  }
  const asked = () => watch === undefined || (parentOf(watch) === pid && processUid(watch) === uid);
  if (uid !== process.getuid?.() || !asked()) return null;
  const claimed = `${marker}.claimed`;
  try {
    renameSync(marker, claimed);
  } catch {
    return null;
  }
  let fd: number;
  try {
    fd = openSync(watch === undefined ? claimed : `/proc/${pid}/fd/${REPLY_FD}`, constants.O_WRONLY | constants.O_NONBLOCK);
  } catch {
    rmSync(claimed, { force: true });
    return null;
  }
  // (A claimed marker is only the claim's trace: removed once the runner has its answer.)
  if (watch === undefined) rmSync(claimed, { force: true });
  else claimedMarkers.push(claimed);
  if (!fstatSync(fd).isFIFO() || !asked()) {
    closeQuietly(fd);
    return null;
  }
  return fd;
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch { /* closed */ }
}

/** Removes the claim tokens (markers, reply FIFOs) of runners that are gone (killed while they waited). */
function sweepReplies(dir: string): void {
  try {
    for (const n of readdirSync(dir)) {
      const m = /^r\.([0-9]+)(?:\.claimed)?$/.exec(n);
      if (m && !alive(Number(m[1]))) rmSync(join(dir, n), { force: true });
    }
  } catch { /* no folder yet */ }
}
