/** Output of one hook run: exit code and the lines for stderr. */
export interface HookOutcome {
  code: number;
  stderr: string;
  /** For the hook server's trace (tests, benchmarks): e.g. whether post-commit used what was read ahead. */
  trace?: Record<string, unknown>;
}


/** A moment as ms since the epoch, to the µs (`performance.now()` by default): traces put side by side with git's (GIT_TRACE2). */
export function epochMs(t = performance.now()): number {
  return Math.round((performance.timeOrigin + t) * 1000) / 1000;
}
