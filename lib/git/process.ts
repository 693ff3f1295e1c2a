import { spawn, spawnSync } from 'node:child_process';
import { IntentError } from '../core/errors.js';
import { hostEnv, readSettings } from '../core/settings.js';

/** Result of one git invocation; a non-zero exit is data, not an exception. */
export interface GitResult {
  status: number;
  stdout: string;
  stderr: string;
}

export interface GitOptions {
  cwd: string;
  /** Bytes for git's standard input. */
  input?: string | Buffer;
  /**
   * Keep the caller's GIT_DIR / GIT_INDEX_FILE / GIT_WORK_TREE. Hooks need them (the index of
   * `commit -a` or `commit -- path` is a temporary one); anything that targets another
   * repository must not inherit them, so the default clears them.
   */
  inheritRepoEnv?: boolean;
  env?: Record<string, string | undefined>;
  /** Return stdout as a Buffer (binary-safe). */
  binary?: boolean;
  /** Stop git (and throw GIT_FAILED) once its output exceeds this many bytes (default 1 GiB). */
  maxBuffer?: number;
}

const REPO_ENV = [
  'GIT_DIR',
  'GIT_INDEX_FILE',
  'GIT_WORK_TREE',
  'GIT_COMMON_DIR',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_PREFIX',
];

/** The environment git runs with: no pager, no prompts, repository variables on purpose only. */
export function gitEnv(opts: Pick<GitOptions, 'inheritRepoEnv' | 'env'> = {}): NodeJS.ProcessEnv {
  const host = hostEnv();
  const env: NodeJS.ProcessEnv = { ...host, GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' };
  // In a server's pre-receive hook the pushed objects sit in a quarantine directory that only
  // these variables make visible; they always describe the repository the hook runs for.
  const quarantine = readSettings(host).gitQuarantine;
  if (!opts.inheritRepoEnv) {
    for (const k of REPO_ENV) if (!(quarantine && (k === 'GIT_OBJECT_DIRECTORY' || k === 'GIT_ALTERNATE_OBJECT_DIRECTORIES'))) delete env[k];
  }
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** Runs git and returns its exit status and output without throwing on failure. */
export function gitRaw(args: string[], opts: GitOptions): GitResult & { stdoutBuf?: Buffer } {
  const res = spawnSync('git', args, {
    cwd: opts.cwd,
    env: gitEnv(opts),
    input: typeof opts.input === 'string' ? Buffer.from(opts.input, 'utf8') : opts.input,
    maxBuffer: opts.maxBuffer ?? 1024 * 1024 * 1024,

  });
  if (res.error) {
    throw new IntentError('GIT_FAILED', `could not run git ${args[0]}: ${res.error.message}`, { args });
  }
  const stdoutBuf = res.stdout as Buffer;
  return {
    status: res.status ?? 128,
    stdout: opts.binary ? '' : stdoutBuf.toString('utf8'),
    stderr: (res.stderr as Buffer).toString('utf8'),
    stdoutBuf: opts.binary ? stdoutBuf : undefined,
  };
}

/**
 * gitRaw without blocking (no `input`): for many independent git processes at once, e.g. one
 * `git status` per worktree, or work on an editor's extension host. A git that cannot be started
 * resolves with status 128.
 */
export function gitRawAsync(args: string[], opts: Omit<GitOptions, 'input' | 'maxBuffer'>): Promise<GitResult & { stdoutBuf?: Buffer }> {
  return new Promise((resolve) => {
    const child = spawn('git', args, { cwd: opts.cwd, env: gitEnv(opts), stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', (e) => resolve({ status: 128, stdout: '', stderr: e.message }));
    child.on('close', (code) => {
      const stdoutBuf = Buffer.concat(out);
      resolve({
        status: code ?? 128,
        stdout: opts.binary ? '' : stdoutBuf.toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        ...(opts.binary ? { stdoutBuf } : {}),
      });
    });
  });
}

/** One git invocation that a step function (`GitSteps`) hands to its driver. */
export interface GitCall {
  args: string[];
  opts: Omit<GitOptions, 'input' | 'maxBuffer'>;
}

/** What a step function gets back for a `GitCall`. */
export type GitCallResult = GitResult & { stdoutBuf?: Buffer };

/**
 * A computation that runs git, written once for both drivers: it yields each `GitCall` and gets
 * its result back. `runGitSteps` runs the calls in-line (spawnSync: CLI and hooks);
 * `runGitStepsAsync` runs them as child processes without blocking the event loop (an editor's
 * extension host).
 */
export type GitSteps<T> = Generator<GitCall, T, GitCallResult>;

/** The step of one git call (`yield* gitStep(...)`): its status and output, a failure being data. */
export function* gitStep(args: string[], opts: GitCall['opts']): GitSteps<GitCallResult> {
  return yield { args, opts };
}

/** The step of one git call that must succeed: its stdout, or the GIT_FAILED error `git` throws. */
export function* gitStepOk(args: string[], opts: GitCall['opts']): GitSteps<string> {
  const res = yield { args, opts };
  if (res.status !== 0) throw gitFailed(args, res);
  return res.stdout;
}

/** Runs a step function with each git call in-line. */
export function runGitSteps<T>(steps: GitSteps<T>): T {
  let next = steps.next();
  while (!next.done) {
    let res: GitCallResult;
    try {
      res = gitRaw(next.value.args, next.value.opts);
    } catch (e) {
      next = steps.throw(e);
      continue;
    }
    next = steps.next(res);
  }
  return next.value;
}

/** Runs a step function with each git call as a child process, never blocking on git. */
export async function runGitStepsAsync<T>(steps: GitSteps<T>): Promise<T> {
  let next = steps.next();
  while (!next.done) next = steps.next(await gitRawAsync(next.value.args, next.value.opts));
  return next.value;
}

function gitFailed(args: string[], res: GitResult): IntentError {
  return new IntentError(
    'GIT_FAILED',
    `git ${args.join(' ')} failed (exit ${res.status}): ${res.stderr.trim() || 'no message'}`,
    { args, status: res.status, stderr: res.stderr },
  );
}

/** Runs git and returns stdout; throws a GIT_FAILED error naming the command on failure. */
export function git(args: string[], opts: GitOptions): string {
  const res = gitRaw(args, opts);
  if (res.status !== 0) throw gitFailed(args, res);
  return res.stdout;
}

/** Like `git` but returns stdout as raw bytes. */
export function gitBuffer(args: string[], opts: GitOptions): Buffer {
  const res = gitRaw(args, { ...opts, binary: true });
  if (res.status !== 0) {
    throw new IntentError('GIT_FAILED', `git ${args.join(' ')} failed (exit ${res.status}): ${res.stderr.trim()}`, {
      args,
      status: res.status,
    });
  }
  return res.stdoutBuf!;
}

/** Splits NUL-terminated git output (`-z`) into its fields. */
export function splitNul(out: string): string[] {
  const parts = out.split('\0');
  if (parts.length && parts[parts.length - 1] === '') parts.pop();
  return parts;
}
