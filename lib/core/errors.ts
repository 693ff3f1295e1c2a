/** Stable codes for every refusal or failure the toolkit reports. */
export type ErrorCode =
  | 'NOT_A_REPOSITORY'
  | 'BARE_REPOSITORY'
  | 'GIT_FAILED'
  | 'REGISTRY_MISSING'
  | 'REGISTRY_INVALID'
  | 'CONFIG_INVALID'
  | 'UNKNOWN_INTENT'
  | 'INTENT_NOT_CHECKABLE'
  | 'NO_ACTIVE_INTENT'
  | 'SCOPE_VIOLATION'
  | 'WORKTREE_CONFLICT'
  | 'LOCK_TIMEOUT'
  | 'STALE_FILE'
  | 'PATH_OUTSIDE_WORKTREE'
  | 'INVALID_INPUT'
  | 'UNSAFE_COMMAND'
  | 'UNKNOWN_REQUEST'
  | 'REQUEST_DECIDED'
  | 'NOT_A_HUMAN'
  | 'INTENT_WRONG_STATUS'
  | 'NO_WORKTREE'
  | 'CWD_IN_WORKTREE'
  | 'WORKTREE_DIRTY'
  | 'CHECK_FAILED'
  | 'MERGE_CONFLICT'
  | 'WRITE_FAILED'
  | 'SYNC_FAILED'
  | 'SCOPE_OVERLAP'
  | 'BUDGET_EXCEEDED'
  | 'BREAKER_OPEN'
  | 'MUTATION_CLAIM_FALSE'
  | 'AUTHORITY_REFUSED'
  | 'INTENT_EXISTS'
  | 'REGISTRY_UNCOMMITTED'
  | 'CARRY_REFUSED'
  | 'PUSH_FAILED'
  | 'USAGE';

/**
 * The structured `data` each code carries, as `--json` prints it and agents read it
 * (docs/errors.md lists them; test/unit/error-data.test.ts keeps the two in step). A field that
 * only some refusals of a code set is optional. Codes whose data holds a higher layer's types are
 * declared by that layer, merged into this interface (lib/intents/error-data.ts,
 * lib/lifecycle/error-data.ts).
 */
export interface ErrorData {
  /** The folder a command ran in is not inside a git repository. */
  NOT_A_REPOSITORY: { cwd: string };
  /** The repository has no work tree. */
  BARE_REPOSITORY: { cwd: string };
  /** A git process failed or gave what no git gives; what was at hand is named. */
  GIT_FAILED: {
    args?: string[];
    /** git's exit code. */
    status?: number;
    stderr?: string;
    cwd?: string;
    head?: string;
    intent?: string;
    branch?: string;
    base?: string;
    path?: string;
    paths?: string[];
    remote?: string;
    worktree?: string;
  };
  /** The main worktree has no `.orchestration/active_intents.yaml` (`intent init` makes it). */
  REGISTRY_MISSING: { path: string };
  /** A configuration file or setting is wrong: the file (or folder, hooks path, value) and the key or glob. */
  CONFIG_INVALID: { file?: string; key?: string; glob?: string; dir?: string; path?: string; hooksPath?: string; value?: string };
  /** `intent approve`/`reject` named a scope-expansion request that does not exist; `pending` lists those that do. */
  UNKNOWN_REQUEST: { request: string; dir: string; pending: string[] };
  /** Paths outside the intent's owned scope: staged for a commit, or written by an agent. */
  SCOPE_VIOLATION:
    | { intent: string; paths: string[]; scope: string[] }
    /** A Codex command whose workdir is outside the session's worktree. */
    | { workdir: string };
  /** Another process held a lock file past the timeout. */
  LOCK_TIMEOUT: { lockPath: string };
  /** An agent's write was refused: the file changed since it was read (`expected` and `found` are SHA-256 hashes; null: no file). */
  STALE_FILE: { path: string; expected: string | null; found: string | null };
  /** An agent's write names a path that resolves outside its worktree. */
  PATH_OUTSIDE_WORKTREE: { path: string; resolved: string };
  /** An argument or payload is wrong: the field (or path, file, intent, …) it is about. */
  INVALID_INPUT: {
    field?: string;
    tool?: string;
    path?: string;
    file?: string;
    binary?: boolean;
    intent?: string;
    worktreeIntent?: string;
    base?: string;
    claim?: string;
    retries?: number;
    count?: number;
    length?: number;
    problems?: string[];
    /** intent new: the value that is wrong. */
    id?: string;
    name?: string;
    glob?: string;
    scope?: string[];
  };
  /** Reserved: no refusal raises it today. */
  UNSAFE_COMMAND: Record<string, never>;
  /** The scope-expansion request was approved or rejected already. */
  REQUEST_DECIDED: { request: string; status: 'APPROVED' | 'REJECTED'; decided_by?: string; decided_at?: string };
  /** A human's decision (approve, reject, reset) asked for by what looks like an agent. */
  NOT_A_HUMAN: {
    /** What gave the process away: an agent's environment, an intent worktree, or no terminal. */
    reason: 'agent-env' | 'intent-worktree' | 'no-tty';
    marker?: string;
    worktree?: string;
    main?: string;
  };
  /** `intent done` needs the intent's worktree, and its branch is not checked out anywhere. */
  NO_WORKTREE: { intent: string; branch: string };
  /** `intent done`/`abandon` ran inside the worktree it may remove. */
  CWD_IN_WORKTREE: { intent: string; worktree: string; main: string };
  /** The intent's worktree (or the main worktree, for a merge) has uncommitted or untracked files. */
  WORKTREE_DIRTY: { intent: string; worktree: string; files: string[] };
  /** `intent done --merge` met conflicts; `aborted` says whether the merge was undone. */
  MERGE_CONFLICT: { intent: string; branch: string; base: string; files: string[]; aborted: boolean };
  /** A worktree or branch is in the way, or moved under the command. */
  WORKTREE_CONFLICT: { intent?: string; path?: string; branch?: string; base?: string; before?: string; after?: string; worktree?: string };
  /** `intent sync` could not exchange the notes with the remote. */
  SYNC_FAILED: RemoteFailure<'push-refused'>;
  /** `intent push` could not push the branch and its notes. */
  PUSH_FAILED: RemoteFailure<'refused-by-server' | 'branch-behind' | 'refused-by-pre-push' | 'push-failed'>;
  /** The intent's budget (expiry, commits, changed lines) refuses the commit or checkout. */
  BUDGET_EXCEEDED:
    | { intent: string; limit: 'expires_at'; expires_at?: string; now: string }
    | { intent: string; limit: 'max_commits' | 'max_changed_lines'; max: number; used: number; staged?: number; would_be: number };
  /** The intent's circuit breaker is open after repeated refusals; a human runs `intent reset`. */
  BREAKER_OPEN: { intent: string; since: string; reason: string };
  /** A commit claims `Intent-Mutation: AST_REFACTOR` and changes behaviour (`path`: the first file that does, if one). */
  MUTATION_CLAIM_FALSE: { path: string | null; reason: string };
  /** `intent carry` will not move the records onto these commits: what does not match. */
  CARRY_REFUSED: { commit?: string; paths?: string[]; intents?: string[] };
  /** The command line is wrong: the option or argument named, as given. */
  USAGE: {
    arg?: string;
    agent?: string;
    at?: string;
    base?: string;
    branch?: string | null;
    commit?: string;
    cwd?: string;
    file?: string;
    maxBytes?: number | string;
    notes?: string;
    range?: string | string[];
    ref?: string;
    retries?: string;
    rev?: string;
    timeout?: number | string;
    tool?: string;
    tools?: string[];
    /** The command line parser's own code (commander.unknownOption, …) when it refused the line. */
    reason?: string;
  };
}

/** What `intent sync` and `intent push` say when the remote is unknown, a fetch or push fails, or retries ran out. */
type RemoteFailure<Refused extends string> = {
  remote: string;
  reason: 'unknown-remote' | 'fetch-failed' | 'retries-exhausted' | Refused;
  remotes?: string[];
  attempts?: number;
  stderr?: string;
};

/** Data any commit refusal of the pre-commit hook may add: the circuit breaker it opened. */
export interface RefusalData {
  breaker?: { open: boolean; reason: string };
}

/** The data of `code`: its entry of ErrorData (an open record where a build lacks the layer that declares it). */
export type ErrorDataOf<C extends ErrorCode> = (C extends keyof ErrorData ? ErrorData[C] : Record<string, unknown>) & RefusalData;

/** An IntentError of any code, discriminated by `code`: `e.code === 'SCOPE_VIOLATION'` types `e.data`. */
export type AnyIntentError = { [C in ErrorCode]: IntentError<C> }[ErrorCode];

const BRAND = Symbol.for('intent-governance.IntentError');

/**
 * An error the user can act on: a stable `code`, structured `data` (typed per code: ErrorData),
 * and a message that says what went wrong, where, and what to do next.
 */
export class IntentError<C extends ErrorCode = ErrorCode> extends Error {
  readonly code: C;
  readonly data: ErrorDataOf<C>;
  /** Marks every copy's instances: a bundled hook and the hook runner each carry their own copy of this class. */
  readonly [BRAND] = true;

  /** `instanceof IntentError` holds for an IntentError from any copy of this module (see scripts/bundle.mjs). */
  static [Symbol.hasInstance](x: unknown): x is AnyIntentError {
    return typeof x === 'object' && x !== null && (x as { [BRAND]?: unknown })[BRAND] === true;
  }

  constructor(code: C, message: string, data: ErrorDataOf<C>) {
    super(message);
    this.name = 'IntentError';
    this.code = code;
    this.data = data;
  }

  /** The same refusal (code and data, with `extra` added) told with another message. */
  withMessage(message: string, extra: RefusalData = {}): IntentError<C> {
    return new IntentError(this.code, message, { ...this.data, ...extra });
  }

  /** The JSON form printed by `--json` and read by agents. */
  toJSON(): { code: C; message: string; data: ErrorDataOf<C> } {
    return { code: this.code, message: this.message, data: this.data };
  }
}

/** The exact sentence the hook prints when a commit names no usable intent. */
export const NO_ACTIVE_INTENT_MESSAGE = 'You must cite a valid active Intent ID.';

/** The exact sentence for one path outside an intent's scope. */
export function scopeViolationMessage(intentId: string, path: string): string {
  // A path with control characters (a newline could forge another line) is shown quoted.
  return `Scope Violation: ${intentId} is not authorized to edit ${/[\x00-\x1f\x7f]/.test(path) ? JSON.stringify(path) : path}`;
}
