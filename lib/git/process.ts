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
  /** With maxBuffer: return what was read, marked `truncated`, instead of throwing. */
  truncate?: boolean;
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
export function gitRaw(args: string[], opts: GitOptions): GitResult & { stdoutBuf?: Buffer; truncated?: boolean } {
  const res = spawnSync('git', args, {
    cwd: opts.cwd,
    env: gitEnv(opts),
    input: typeof opts.input === 'string' ? Buffer.from(opts.input, 'utf8') : opts.input,
    maxBuffer: opts.maxBuffer ?? 1024 * 1024 * 1024,

  });
  const truncated = !!opts.truncate && (res.error as NodeJS.ErrnoException | undefined)?.code === 'ENOBUFS';
  if (res.error && !truncated) {
    throw new IntentError('GIT_FAILED', `could not run git ${args[0]}: ${res.error.message}`, { args });
  }
  const stdoutBuf = res.stdout as Buffer;
  return {
    ...(truncated ? { truncated } : {}),
    status: res.status ?? 128,
    stdout: opts.binary ? '' : stdoutBuf.toString('utf8'),
    stderr: (res.stderr as Buffer).toString('utf8'),
    stdoutBuf: opts.binary ? stdoutBuf : undefined,
  };
}

/**
 * gitRaw without blocking (no `input`): for many independent git processes at once, e.g. one
 * `git status` per worktree. A git that cannot be started resolves with status 128.
 */
export function gitRawAsync(args: string[], opts: Omit<GitOptions, 'input' | 'binary'>): Promise<GitResult> {
  return new Promise((resolve) => {
    const child = spawn('git', args, { cwd: opts.cwd, env: gitEnv(opts), stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', (e) => resolve({ status: 128, stdout: '', stderr: e.message }));
    child.on('close', (code) => resolve({ status: code ?? 128, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
  });
}

/** Runs git and returns stdout; throws a GIT_FAILED error naming the command on failure. */
export function git(args: string[], opts: GitOptions): string {
  const res = gitRaw(args, opts);
  if (res.status !== 0) {
    throw new IntentError(
      'GIT_FAILED',
      `git ${args.join(' ')} failed (exit ${res.status}): ${res.stderr.trim() || 'no message'}`,
      { args, status: res.status, stderr: res.stderr },
    );
  }
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
