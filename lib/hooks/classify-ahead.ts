/**
 * The worker that classifies a staged refactor-like change ahead of post-commit (the scheme is in
 * lib/mutation/ahead.ts): started detached by pre-commit as `hook.js classify-ahead <parent>
 * <tree> <state dir>`, it diffs the two trees the way post-commit will diff the commit, classifies, and
 * stores the result under the key post-commit will compute. Whatever happens, it removes its
 * pending marker, so post-commit stops waiting for it. Then it stays resident for the repository's
 * next refactor-like commits, which pre-commit hands it over a socket (`serve`).
 */
import { hostEnv } from '../core/settings.js';
import { existsSync, readFileSync, unlinkSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { dirname, join } from 'node:path';
import { readBlobs } from '../git/blobs.js';
import { treeDiffAsync } from '../git/diff.js';
import { openRepo, stateDir } from '../git/repo.js';
import { closeInheritedFds, fileIdentity } from '../core/resident.js';
import { aheadDir, aheadKey, clearPending, pendingName, residentIdleMs, residentSocket, sweepAhead, writeAheadEntry, writePending } from '../mutation/ahead.js';
import { classifyChanges } from '../mutation/classify.js';
import { saveTypeScriptCodeCache, useTypeScriptCodeCache } from '../mutation/ts-cache.js';
import { preloadCompiler } from '../mutation/syntax/index.js';
import { intentWorktreesLeft } from './residents.js';
import { procStat } from '../core/proc.js';

const OID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/**
 * Classifies `parent` → `tree` in the repository at `cwd` and stores the result; then, unless
 * INTENT_CLASSIFY_RESIDENT_MS is 0, stays resident (with the compiler loaded) for the repository's
 * next refactor-like commits until it has been idle that long (`serve`).
 */
export async function classifyAhead(cwd: string, parent: string, tree: string, named?: string): Promise<void> {
  if (!OID.test(parent) || !OID.test(tree)) throw new Error('classify-ahead: expects a parent commit and a tree id');
  // What the committing process passed down is not the worker's to keep (a pipe's reader would
  // wait for the worker to leave).
  closeInheritedFds();
  // pre-commit names the state folder; it is taken when its pending marker names this process
  // (else, e.g. before pre-commit wrote the marker, the repository is asked: one git process more).
  const state = named && ownMarker(aheadDir(named), parent, tree) ? named : stateDir(openRepo(cwd));
  useTypeScriptCodeCache(state);
  const first = () => job(cwd, aheadDir(state), parent, tree, 0, 0);
  const idle = residentIdleMs(hostEnv());
  if (idle > 0) await serve(state, idle, first);
  else await first();
}

/** One classification; the worker's figures count from `wall0` / `cpu0` (the job's start). */
async function job(cwd: string, dir: string, parent: string, tree: string, wall0: number, cpu0: number): Promise<void> {
  try {
    // pre-commit predicted a change for the compiler: load it while git diffs the trees.
    const diff = treeDiffAsync(cwd, parent, tree);
    diff.catch(() => { /* awaited below */ });
    preloadCompiler();
    const changes = await diff;
    const blobs = readBlobs(cwd, changes.flatMap((c) => [c.oldOid, c.newOid]));
    const classes = classifyChanges(changes, blobs);
    writeAheadEntry(dir, aheadKey(changes), classes, { pid: process.pid, wall_ms: Math.round(performance.now() - wall0), cpu_ms: cpuMs() - cpu0 });
  } finally {
    // Every write before the marker goes: once it is gone post-commit, and whoever then removes
    // the repository, may take this worker's writing as over. (A resident's cache helps the
    // processes that classify while it stays, too.)
    saveTypeScriptCodeCache();
    clearPending(dir, parent, tree);
    sweepAhead(dir);
  }
}

/**
 * The resident worker: listens on `<classify-ahead>/worker.sock` for pre-commit's requests (one
 * JSON line `{"parent","tree"}`), writes the pending marker with its own pid, answers
 * `{"ok":true,"pid"}` and classifies (one job at a time, git run in the common git folder, so no
 * worktree is needed). It answers `{"ok":false}` and leaves when the hook program it runs was
 * replaced (an upgrade or a rebuild); it leaves when idle for `idleMs`, when the repository's
 * state folder is gone, or when another resident already listens. A socket path over the
 * platform's limit means no residency.
 */
function serve(state: string, idleMs: number, first: () => Promise<void>): Promise<void> {
  const dir = aheadDir(state);
  const sock = residentSocket(dir);
  if (!sock) return first();
  const gitDir = dirname(state);
  const program = process.argv[1] ?? '';
  const stamp = fileIdentity(program);
  return new Promise((resolve) => {
    // The first job runs while the socket comes up: a commit right after this one finds the
    // resident listening as soon as this job's marker is gone.
    let queue: Promise<void> = first().catch(() => { /* post-commit classifies by itself */ }).finally(() => rearm());
    let timer: NodeJS.Timeout | undefined;
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      clearTimeout(timer);
      clearInterval(watch);
      server.close();
      void queue.finally(resolve);
      // The job at hand gets a few seconds; then the worker goes whatever it waits for (post-commit
      // classifies by itself when the marker's process is gone).
      setTimeout(() => process.exit(0), 5000).unref();
    };
    const rearm = () => {
      clearTimeout(timer);
      timer = setTimeout(close, idleMs);
    };
    const server: Server = createServer((conn) => {
      let buf = '';
      conn.setEncoding('utf8');
      conn.on('error', () => { /* the client went away */ });
      conn.on('data', (d: string) => {
        buf += d;
        if (buf.length > 1024) return void conn.destroy();
        const nl = buf.indexOf('\n');
        if (nl === -1) return;
        const req = parseRequest(buf.slice(0, nl));
        if (!req || closed || fileIdentity(program) !== stamp || !existsSync(state)) {
          conn.end('{"ok":false}\n');
          if (req) close();
          return;
        }
        writePending(dir, req.parent, req.tree, process.pid);
        conn.end(`${JSON.stringify({ ok: true, pid: process.pid })}\n`);
        rearm();
        const wall0 = performance.now();
        const cpu0 = cpuMs();
        queue = queue.then(() => job(gitDir, dir, req.parent, req.tree, wall0, cpu0)).catch(() => { /* post-commit classifies by itself */ }).finally(rearm);
      });
    });
    // Its repository gone, or no intent worktree left in it (done, abandon, git worktree remove,
    // uninstall): leave.
    const watch = setInterval(() => {
      if (!existsSync(state) || !intentWorktreesLeft(gitDir)) close();
    }, 5000);
    let retried = false;
    server.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EADDRINUSE' || retried) return close();
      retried = true;
      // A socket file left by a resident that died: nobody answers on it, so it is replaced.
      const probe = connect(sock);
      probe.on('connect', () => { probe.destroy(); close(); });
      probe.on('error', () => {
        try {
          unlinkSync(sock);
        } catch { /* gone */ }
        server.listen(sock);
      });
    });
    server.on('listening', rearm);
    // Stopped (e.g. by a session's end): take the socket away, finish the job at hand.
    process.on('SIGTERM', close);
    server.listen(sock);
  });
}

function parseRequest(line: string): { parent: string; tree: string } | null {
  try {
    const r = JSON.parse(line) as { parent?: unknown; tree?: unknown };
    return typeof r.parent === 'string' && typeof r.tree === 'string' && OID.test(r.parent) && OID.test(r.tree) ? { parent: r.parent, tree: r.tree } : null;
  } catch {
    return null;
  }
}


/** CPU time of this process and the git processes it waited for (Linux /proc), else its own. */
function cpuMs(): number {
  const f = procStat('self');
  // utime, stime, cutime, cstime: fields 14-17, in clock ticks (100 per second on Linux).
  if (f) return [11, 12, 13, 14].reduce((n, i) => n + Number(f[i]), 0) * 10;
  const u = process.cpuUsage();
  return Math.round((u.user + u.system) / 1000);
}

/** Whether the pending marker for `parent` → `tree` in `dir` names this process. */
function ownMarker(dir: string, parent: string, tree: string): boolean {
  try {
    const p = JSON.parse(readFileSync(join(dir, pendingName(parent, tree)), 'utf8')) as { pid?: unknown; parent?: unknown; tree?: unknown };
    return p.pid === process.pid && p.parent === parent && p.tree === tree;
  } catch {
    return false;
  }
}
