/**
 * The data of the error codes that carry the intents layer's types (an intent's status, a
 * registry problem, an overlap), merged into core's ErrorData (lib/core/error-data.ts says how the
 * map is read; docs/errors.md lists every code).
 */
import type { IntentSource } from './active.js';
import type { Overlap } from './overlap.js';
import type { IntentStatus, RegistryProblem } from './registry.js';

declare module '../core/error-data.js' {
  interface ErrorData {
    /** The registry cannot be read, or has problems (each with its line, intent and field when known). */
    REGISTRY_INVALID: { path: string; problems?: RegistryProblem[]; intent?: string };
    /** `intent checkout` from a base whose committed registry lacks the intent or gives it another scope. */
    REGISTRY_UNCOMMITTED: {
      intent: string;
      /** The base as the user named it; `commit` is the commit it resolved to. */
      base: string;
      commit: string;
      path: string;
      /** The intent's owned_scope in the committed registry, or null when it is not there. */
      committed: string[] | null;
      scope: string[];
    };
    /** The intent named is not in the registry (`known`: the ids that are). */
    UNKNOWN_INTENT: { intent: string; path?: string; known?: string[]; request?: string; source?: IntentSource | 'selection' };
    /** `intent new` with an id the registry has already. */
    INTENT_EXISTS: { intent: string; path: string; status: IntentStatus };
    /** `intent checkout` of an intent that is not PENDING or IN_PROGRESS. */
    INTENT_NOT_CHECKABLE: { intent: string; status: IntentStatus };
    /** The command does not apply to an intent in this status (`status` is null when the intent left the registry while the command ran). */
    INTENT_WRONG_STATUS: { intent: string; status: IntentStatus | null; request?: string };
    /** No usable intent: what was named (intent, worktree's own, INTENT_ID, selection) and where. */
    NO_ACTIVE_INTENT: {
      intent?: string;
      status?: IntentStatus;
      worktree?: string;
      worktreeIntent?: string;
      envIntent?: string;
      branch?: string | null;
      mainWorktree?: boolean;
      agent?: string;
      session?: string;
      selected?: string | null;
    };
    /** `intent checkout` refused: the intent's scope overlaps those of intents in progress. */
    SCOPE_OVERLAP: { intent: string; overlaps: Overlap[] };
    /** A file could not be written (or was written only in part: `stage`). */
    WRITE_FAILED: {
      path?: string;
      dir?: string;
      intent?: string;
      status?: IntentStatus;
      globs?: string[];
      reason?: string;
      commit?: string;
      /** 'ledger': the commit's note was written, only its ledger line was not. */
      stage?: 'ledger';
      refs?: string[];
    };
  }
}
