import { existsSync, mkdirSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { agentMarker as agentProcessMarker } from '../core/agent-env.js';
import { join } from 'node:path';
import { activeIntentFile, BRANCH_PREFIX } from '../intents/active.js';
import { IntentError } from '../core/errors.js';
import { writeFileAtomic } from '../core/files.js';
import { withLock } from '../core/lock.js';
import { findIntent, loadRegistry } from '../intents/registry.js';
import { openRepo, orchestrationPath, stateDir, type Repo } from '../git/repo.js';
import { hostEnv } from '../core/settings.js';

/** Defaults of the circuit breaker (config keys `breakerMaxRejections`, `breakerWindowMinutes`). */
export const BREAKER_DEFAULTS = { maxRejections: 5, windowMinutes: 10 } as const;
/** A staged tree refused this many times within the window is a retry loop. */
export const LOOP_REPEATS = 3;
/** Rejections kept per intent at most (the file stays small whatever an agent does). */
const MAX_KEPT = 100;
const INTENT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** One refused commit attempt. */
export interface Rejection {
  /** ISO time of the refusal. */
  at: string;
  /** The staged tree (`git write-tree` of the commit's index), or null when it could not be written. */
  tree: string | null;
  /** The error code that refused it (SCOPE_VIOLATION, BUDGET_EXCEEDED, REGISTRY_INVALID, …). */
  code: string;
  /** The first line of the refusal. */
  reason: string;
}

/** `<git-common-dir>/intent/breaker/<ID>.json`. */
export interface BreakerState {
  intent: string;
  /** Set while the breaker is open: every commit for the intent is refused. */
  open: { since: string; reason: string } | null;
  /** Recent refusals, oldest first, within the window. */
  rejections: Rejection[];
}

export interface BreakerOptions {
  maxRejections?: number;
  windowMinutes?: number;
  now?: Date;
}

/** True for ids that can name a state file (the registry's id rule). */
export function validIntentId(id: string): boolean {
  return INTENT_ID.test(id);
}

export function breakerFile(repo: Repo, id: string): string {
  if (!validIntentId(id)) throw new IntentError('INVALID_INPUT', `"${id}" is not a valid intent id: use letters, digits, "-" and "_".`, { intent: id });
  return join(stateDir(repo), 'breaker', `${id}.json`);
}

/**
 * The ids that have a breaker file, from one directory listing (`intent status` asks about every
 * intent), or null when the folder cannot be listed (then ask readBreaker about each).
 */
export function breakerIntents(repo: Repo): Set<string> | null {
  const dir = join(stateDir(repo), 'breaker');
  if (!existsSync(dir)) return new Set();
  try {
    return new Set(readdirSync(dir).filter((n) => n.endsWith('.json')).map((n) => n.slice(0, -'.json'.length)));
  } catch {
    return null;
  }
}

/** The breaker state of `id` (closed and empty when there is no file). Written atomically, so read without the lock. */
export function readBreaker(repo: Repo, id: string): BreakerState {
  const file = breakerFile(repo, id);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { intent: id, open: null, rejections: [] };
  }
  try {
    const raw = JSON.parse(text) as Partial<BreakerState>;
    const open = raw.open && typeof raw.open.since === 'string' && typeof raw.open.reason === 'string' ? { since: raw.open.since, reason: raw.open.reason } : null;
    const rejections = Array.isArray(raw.rejections)
      ? raw.rejections.filter((r): r is Rejection => !!r && typeof r.at === 'string' && typeof r.code === 'string' && typeof r.reason === 'string')
      : [];
    return { intent: id, open, rejections };
  } catch {
    // A file that does not parse was not written by us (writes are atomic): fail closed.
    return { intent: id, open: { since: '', reason: `the breaker file ${file} is corrupt` }, rejections: [] };
  }
}

/** The refusal for a commit while the breaker of `id` is open. */
export function breakerOpenError(id: string, state: BreakerState): IntentError {
  return new IntentError(
    'BREAKER_OPEN',
    `Circuit breaker open for ${id}${state.open!.since ? ` since ${state.open!.since}` : ''}: ${state.open!.reason}.\n` +
      `Every commit for ${id} is refused until a human has looked at what the agent is doing; a human runs: intent reset ${id}`,
    { intent: id, since: state.open!.since, reason: state.open!.reason },
  );
}

/** Throws BREAKER_OPEN when the breaker of `id` is open; one file read, no lock. */
export function assertBreakerClosed(repo: Repo, id: string): void {
  if (!validIntentId(id)) return;
  if (!existsSync(breakerFile(repo, id))) return;
  const state = readBreaker(repo, id);
  if (state.open) throw breakerOpenError(id, state);
}

/**
 * Records a refused commit attempt for `id` under the breaker's lock (safe for concurrent hooks)
 * and opens the breaker when `maxRejections` refusals fall within the window, or when the same
 * staged tree has been refused LOOP_REPEATS times within it. Returns the trip reason when this
 * refusal opened it.
 */
export function recordRejection(
  repo: Repo,
  id: string,
  rejection: Omit<Rejection, 'at'>,
  opts: BreakerOptions = {},
): { tripped: string | null; state: BreakerState } {
  const file = breakerFile(repo, id);
  const now = opts.now ?? new Date();
  const max = opts.maxRejections ?? BREAKER_DEFAULTS.maxRejections;
  const minutes = opts.windowMinutes ?? BREAKER_DEFAULTS.windowMinutes;
  mkdirSync(join(stateDir(repo), 'breaker'), { recursive: true });
  return withLock(`${file}.lock`, () => {
    const state = readBreaker(repo, id);
    const since = now.getTime() - minutes * 60_000;
    const rejections = state.rejections.filter((r) => Date.parse(r.at) > since);
    rejections.push({ at: now.toISOString(), ...rejection });
    while (rejections.length > MAX_KEPT) rejections.shift();
    let tripped: string | null = null;
    if (!state.open) {
      const window = `${minutes} minute${minutes === 1 ? '' : 's'}`;
      const same = rejection.tree ? rejections.filter((r) => r.tree === rejection.tree).length : 0;
      if (rejections.length >= max) {
        tripped = `${rejections.length} rejected commits in ${window} (last: ${rejection.reason})`;
      } else if (same >= LOOP_REPEATS) {
        tripped = `the same staged tree ${rejection.tree!.slice(0, 12)} was refused ${same} times in ${window}, a retry loop (last: ${rejection.reason})`;
      }
    }
    const next: BreakerState = { intent: id, open: tripped ? { since: now.toISOString(), reason: tripped } : state.open, rejections };
    writeFileAtomic(file, JSON.stringify(next, null, 2) + '\n');
    return { tripped, state: next };
  });
}

/** Closes the breaker of `id` and forgets its refusals. Returns what it was. */
export function resetBreaker(repo: Repo, id: string): { wasOpen: boolean; reason: string | null; rejections: number } {
  const file = breakerFile(repo, id);
  if (!existsSync(file)) return { wasOpen: false, reason: null, rejections: 0 };
  return withLock(`${file}.lock`, () => {
    const state = readBreaker(repo, id);
    try {
      unlinkSync(file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    return { wasOpen: !!state.open, reason: state.open?.reason ?? null, rejections: state.rejections.length };
  });
}

/** What `intent reset` did. */
export interface ResetResult {
  intent: string;
  /** Whether the breaker was open before. */
  was_open: boolean;
  /** Why it had opened. */
  reason: string | null;
  /** Recent refusals forgotten. */
  cleared_rejections: number;
}

/**
 * `intent reset <ID>`: closes the intent's circuit breaker and forgets its recent refusals. Only a
 * human may: refused (NOT_A_HUMAN, nothing changed) when the environment carries an agent marker
 * (see agentProcessMarker; `--yes` does not override it), when `cwd` is inside an intent worktree,
 * or when stdin is not a terminal and `yes` is not given.
 */
export function resetIntent(
  cwd: string,
  id: string,
  opts: { yes?: boolean; stdinIsTTY?: boolean; env?: NodeJS.ProcessEnv } = {},
): ResetResult {
  const env = opts.env ?? hostEnv();
  const repo = openRepo(cwd);
  const how = `A human runs it in a terminal in the main worktree: cd ${repo.mainRoot} && intent reset ${id}`;
  const marker = agentProcessMarker(env);
  if (marker) {
    throw new IntentError('NOT_A_HUMAN', `Refused: intent reset looks like it comes from an agent process (${marker}); an agent may not close its own circuit breaker. ${how}. Nothing was changed.`, { reason: 'agent-env', marker });
  }
  if (!repo.isMainWorktree && (existsSync(activeIntentFile(repo.gitDir)) || !!repo.branch?.startsWith(BRANCH_PREFIX))) {
    throw new IntentError(
      'NOT_A_HUMAN',
      `Refused: ${repo.root} is an intent worktree, where an agent works; an agent may not close its own circuit breaker. ${how}. Nothing was changed.`,
      { reason: 'intent-worktree', worktree: repo.root },
    );
  }
  if (!(opts.stdinIsTTY ?? !!process.stdin.isTTY) && !opts.yes) {
    throw new IntentError(
      'NOT_A_HUMAN',
      `Refused: stdin is not a terminal, so no human is known to be at the keyboard. ${how}, or passes --yes when scripting it (never from an agent). Nothing was changed.`,
      { reason: 'no-tty' },
    );
  }
  if (!validIntentId(id)) {
    throw new IntentError('INVALID_INPUT', `"${id}" is not a valid intent id: use letters, digits, "-" and "_" (at most 64), starting with a letter or digit. Nothing was changed.`, { intent: id });
  }
  const registryPath = orchestrationPath(repo, 'active_intents.yaml');
  let known = false;
  let registryProblem = '';
  try {
    known = !!findIntent(loadRegistry(registryPath), id);
  } catch (e) {
    registryProblem = ` (the registry could not be read: ${(e as Error).message.split('\n')[0]})`;
  }
  if (!known && !existsSync(breakerFile(repo, id))) {
    throw new IntentError(
      'UNKNOWN_INTENT',
      `Unknown intent ${id}: it is not in ${registryPath} and has no circuit breaker state${registryProblem}. Check the id (intent status lists them). Nothing was changed.`,
      { intent: id, path: registryPath },
    );
  }
  const r = resetBreaker(repo, id);
  return { intent: id, was_open: r.wasOpen, reason: r.reason, cleared_rejections: r.rejections };
}
