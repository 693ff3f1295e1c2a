/**
 * The data of the error codes `intent done` raises with the lifecycle's and the authority's
 * types, merged into core's ErrorData (lib/core/error-data.ts says how the map is read;
 * docs/errors.md lists every code).
 */
import type { GateFinding } from '../authority/index.js';
import type { CheckRun } from './done.js';

declare module '../core/error-data.js' {
  interface ErrorData {
    /** The acceptance check that failed, every check run so far, and those not run. */
    CHECK_FAILED: { intent: string; check: CheckRun; checks: CheckRun[]; skipped: string[]; worktree: string };
    /** The gate's findings against the merge `intent done --merge` would make. */
    AUTHORITY_REFUSED: { intent: string; findings: GateFinding[] };
  }
}
