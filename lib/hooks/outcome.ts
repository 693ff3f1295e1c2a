/** Output of one hook run: exit code and the lines for stderr. */
export interface HookOutcome {
  code: number;
  stderr: string;
  /** For the hook server's trace (tests, benchmarks): e.g. whether post-commit used what was read ahead. */
  trace?: Record<string, unknown>;
}

