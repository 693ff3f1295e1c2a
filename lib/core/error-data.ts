/**
 * The structured `data` of each error code (ErrorData), apart from lib/core/errors.ts so that a
 * new code there and its data here are two small edits. Codes whose data holds a higher layer's
 * types are declared by that layer and merged into ErrorData (lib/intents/error-data.ts,
 * lib/lifecycle/error-data.ts). docs/errors.md is written from these declarations
 * (scripts/error-docs.mjs); test/unit/error-data.test.ts keeps the two in step.
 * Imports: none.
 */
/**
 * The data each code carries, as `--json` prints it and agents read it. A field that only some
 * refusals of a code set is optional.
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
