/**
 * Long-lived git processes for the hook server: `git diff-tree --stdin` and `git cat-file --batch`
 * kept running per repository and asked over their standard input, as long-running git services do
 * with `cat-file --batch` (docs/decisions.md, "The read-ahead without forks"). Starting a process
 * from the server costs more than the work it asks for: node's fork() of a ~120 MB process takes
 * about 10 ms of wall time, with the event loop blocked, against ~1 ms for the diff itself.
 *
 * A resident process is started with the environment and settings of the first request that
 * needs it, and used only while they are the same: the key is the working directory, the
 * arguments, the environment git reads (not what changes from one commit to the next), and the
 * identity of each configuration file git reads and of each file they include (a changed
 * `diff.renameLimit` starts a new one; an include this module cannot follow: no resident).
 * It is replaced after MAX_USES requests, dies with the server (end of its input), and any
 * trouble (an answer not in time, an exit, an unexpected line) stops it and returns null: the
 * caller then runs git as before.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { gitEnv } from './process.js';

/** Requests one process answers before a fresh one replaces it (bounds what git keeps parsed). */
const MAX_USES = 500;
/** How long an answer may take: past this the process is stopped and the caller runs git. */
const ANSWER_MS = 5000;
/** The largest output buffer kept between answers; a larger one (a large diff) is let go. */
const KEEP_BYTES = 1024 * 1024;
/** Residents kept at most (different worktrees, environments); the least recently used goes. */
const MAX_RESIDENTS = 6;

/**
 * The environment a resident is keyed by: what git reads (GIT_*, its configuration's places, the
 * locale, PATH for which git), not what changes from one command to the next (an agent's session
 * variables, OLDPWD) or what only concerns one commit (the index, the author, a trace file).
 */
const KEYED = /^(GIT_.*|HOME|XDG_CONFIG_HOME|PATH|LANG|LANGUAGE|LC_.*|TZ)$/;
const UNKEYED = /^GIT_(INDEX_FILE|PREFIX|EDITOR|SEQUENCE_EDITOR|REFLOG_ACTION|AUTHOR_.*|COMMITTER_.*|DIR|WORK_TREE|COMMON_DIR|INTERNAL_.*|TRACE.*|PAGER|TERMINAL_PROMPT)$/;

class Resident {
  readonly child: ChildProcessWithoutNullStreams;
  uses = 0;
  dead = false;
  private buf = Buffer.alloc(0);
  private size = 0;
  private pending: { until: (buf: Buffer, from: number) => number; resolve: (b: Buffer | null) => void; timer: NodeJS.Timeout } | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(args: string[], cwd: string, env: NodeJS.ProcessEnv, readonly state: string) {
    this.child = spawn('git', args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    // Not a reason for the server to stay: it leaves when idle, and the process with it.
    this.child.unref();
    for (const s of [this.child.stdin, this.child.stdout, this.child.stderr] as unknown as { unref?: () => void }[]) s.unref?.();
    this.child.stdout.on('data', (d: Buffer) => {
      // Grown by doubling: an answer of many reads is copied O(its size) times in all.
      if (this.size + d.length > this.buf.length) {
        const next = Buffer.allocUnsafe(Math.max(64 * 1024, 2 * (this.size + d.length)));
        this.buf.copy(next, 0, 0, this.size);
        this.buf = next;
      }
      d.copy(this.buf, this.size);
      this.size += d.length;
      this.check(this.size - d.length);
    });
    this.child.stderr.on('data', () => { /* a missing object's complaint: the answer says so */ });
    this.child.stdin.on('error', () => this.stop());
    this.child.on('error', () => this.stop());
    this.child.on('exit', () => this.stop());
  }

  /** Sends `input` and resolves with the output up to where `until` says it ends (-1: not yet; -2: not an answer), or null. */
  ask(input: string, until: (buf: Buffer, from: number) => number): Promise<Buffer | null> {
    const run = () => new Promise<Buffer | null>((resolve) => {
      if (this.dead) return resolve(null);
      this.uses++;
      this.size = 0;
      const timer = setTimeout(() => this.stop(), ANSWER_MS);
      this.pending = { until, resolve, timer };
      this.child.stdin.write(input);
    });
    const next = this.queue.then(run, run);
    this.queue = next;
    return next;
  }

  /** Whether the answer is complete, `from` being where the bytes just read start. */
  private check(from: number): void {
    const p = this.pending;
    // Output with no request waiting for it: not this protocol; stop.
    if (!p) return this.stop();
    const buf = this.buf.subarray(0, this.size);
    const end = p.until(buf, from);
    if (end === -1) return;
    // -2: what came is not an answer of this protocol (the caller's parser says so).
    if (end < 0) return this.stop();
    clearTimeout(p.timer);
    this.pending = null;
    // The answer is copied out: the buffer is reused for the next one.
    const out = Buffer.from(buf.subarray(0, end));
    // Anything after the answer's end is not this protocol either.
    if (end !== this.size) this.stop();
    this.size = 0;
    // A large answer's buffer is not kept for the process's life (the server stays small).
    if (this.buf.length > KEEP_BYTES) this.buf = Buffer.alloc(0);
    p.resolve(out);
  }

  stop(): void {
    if (!this.dead) {
      this.dead = true;
      try {
        this.child.stdin.end();
      } catch { /* gone */ }
      this.child.kill('SIGKILL');
    }
    const p = this.pending;
    if (p) {
      clearTimeout(p.timer);
      this.pending = null;
      p.resolve(null);
    }
  }
}

const residents = new Map<string, Resident>();

/** What each configuration file includes (`includesOf`), with the identity of the file it was read from. */
const includes = new Map<string, { id: string; paths: string[]; onBranch: boolean }>();
/** git's own bound on nested includes. */
const MAX_INCLUDE_DEPTH = 10;

/**
 * The identity of each configuration file git reads for `cwd`'s repository (`commonDir`, `gitDir`),
 * and of each file they include (`include.path`, `includeIf.<condition>.path`, whatever the
 * condition: a file git may read), with HEAD when a condition is the branch. Throws when an
 * include cannot be told (the caller runs git itself).
 */
function configStamp(env: NodeJS.ProcessEnv, commonDir: string, gitDir: string): string {
  const home = env.HOME ?? '';
  const xdg = env.XDG_CONFIG_HOME || (home && join(home, '.config'));
  const files = [join(commonDir, 'config'), join(gitDir, 'config.worktree'), env.GIT_CONFIG_GLOBAL ?? join(home, '.gitconfig'), xdg ? join(xdg, 'git', 'config') : '', env.GIT_CONFIG_NOSYSTEM ? '' : (env.GIT_CONFIG_SYSTEM ?? '/etc/gitconfig')];
  const out: string[] = [];
  let onBranch = false;
  const visit = (f: string, depth: number): void => {
    const s = f ? statSync(f, { throwIfNoEntry: false }) : undefined;
    const id = s ? `${s.ino}:${s.size}:${s.mtimeMs}` : '-';
    out.push(id);
    if (!s) return;
    if (depth > MAX_INCLUDE_DEPTH) throw new Error(`${f}: includes nested too deep`);
    let known = includes.get(f);
    if (known?.id !== id) {
      known = { id, ...includesOf(f, readFileSync(f, 'utf8'), home) };
      includes.set(f, known);
    }
    onBranch ||= known.onBranch;
    for (const p of known.paths) visit(p, depth + 1);
  };
  for (const f of files) visit(f, 0);
  if (onBranch) out.push(readFileSync(join(gitDir, 'HEAD'), 'utf8'));
  return out.join(',');
}

/**
 * The files a configuration file includes, resolved as git resolves them (`~/`, relative to the
 * file's folder), and whether a condition is the branch. Throws on what this reading does not
 * follow (an escape in the value, `%(prefix)`, `~user/`): git then runs as a process of its own.
 */
function includesOf(file: string, text: string, home: string): { paths: string[]; onBranch: boolean } {
  const paths: string[] = [];
  let onBranch = false;
  if (!/include/i.test(text)) return { paths, onBranch };
  let inInclude = false;
  for (const raw of text.split('\n')) {
    let line = raw.trim();
    if (line.startsWith('[')) {
      const section = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/.exec(line);
      if (!section) throw new Error(`${file}: a section header not read here`);
      inInclude = /^include(if)?$/i.test(section[1]);
      if (inInclude && /^onbranch:/i.test(section[2] ?? '')) onBranch = true;
      line = line.slice(section[0].length).trim();
    }
    if (!inInclude) continue;
    const m = /^path\s*=\s*(.*)$/i.exec(line);
    if (!m) continue;
    const bare = m[1].replace(/\s+[#;][^"]*$/, '').trim();
    const value = /^"[^"\\]*"$/.test(bare) ? bare.slice(1, -1) : bare;
    if (!value || /["\\]|^%\(|^~(?!\/)/.test(value)) throw new Error(`${file}: an include path not read here`);
    paths.push(value.startsWith('~/') ? join(home, value.slice(2)) : isAbsolute(value) ? value : join(dirname(file), value));
  }
  return { paths, onBranch };
}

/**
 * Asks the resident git `args` of the repository at `cwd` (started on first use, with `env` over
 * the hook's environment as `gitEnv` makes it): writes `input`, resolves with the output up to
 * where `until` says it ends (-1: not yet, -2: not an answer, the process is stopped), or null
 * (the caller runs git itself). `until` is called with all the output so far, and where the bytes
 * just read start.
 */
export function askResident(
  args: string[],
  where: { cwd: string; commonDir: string; gitDir: string },
  env: Record<string, string>,
  input: string,
  until: (buf: Buffer, from: number) => number,
): Promise<Buffer | null> {
  const full = gitEnv({ env });
  let stamp: string;
  try {
    stamp = configStamp(full, where.commonDir, where.gitDir);
  } catch {
    return Promise.resolve(null);
  }
  const seen = Object.keys(full).filter((k) => KEYED.test(k) && !UNKEYED.test(k)).sort().map((k) => `${k}=${full[k]}`);
  // One per worktree and command: another environment or changed settings replace it.
  const slot = `${where.cwd}\0${args.join('\0')}`;
  const state = JSON.stringify([seen, stamp]);
  let r = residents.get(slot);
  residents.delete(slot);
  if (r && (r.dead || r.uses >= MAX_USES || r.state !== state)) {
    r.stop();
    r = undefined;
  }
  if (!r) {
    while (residents.size >= MAX_RESIDENTS) {
      const [k, old] = residents.entries().next().value as [string, Resident];
      old.stop();
      residents.delete(k);
    }
    try {
      r = new Resident(args, where.cwd, full, state);
    } catch {
      // spawn() itself failed (out of processes or descriptors): the caller runs git, or says why not.
      return Promise.resolve(null);
    }
  }
  residents.set(slot, r);
  return r.ask(input, until);
}

/** Stops every resident git process (the server is leaving). */
export function stopResidents(): void {
  for (const r of residents.values()) r.stop();
  residents.clear();
}

/** A line no output of git starts with at the start of a line: what `diff-tree --stdin` echoes back. */
export function sentinel(): string {
  return `#intent-${randomBytes(8).toString('hex')}`;
}
