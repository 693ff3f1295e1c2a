import type { ErrorData, RefusalData } from './error-data.js';

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

export type { ErrorData, RefusalData } from './error-data.js';

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
