import { IntentError } from '../lib/core/index.js';

/** Exit codes, documented in the README. */
export const EXIT = { OK: 0, REFUSED: 1, USAGE: 2, INTERNAL: 70 } as const;

/** Prints a result as JSON (with `--json`) or as the given human text. */
export function emit(json: boolean, value: unknown, human: () => string): void {
  process.stdout.write(json ? JSON.stringify(value, null, 2) + '\n' : human());
}

/** Prints an error in the chosen form and returns the exit code for it. */
export function fail(json: boolean, e: unknown): number {
  const known = e instanceof IntentError;
  const code = known ? (e.code === 'USAGE' ? EXIT.USAGE : EXIT.REFUSED) : EXIT.INTERNAL;
  if (json) {
    const body = known ? e.toJSON() : { code: 'INTERNAL', message: String((e as Error)?.message ?? e), data: {} };
    process.stdout.write(JSON.stringify({ error: body }, null, 2) + '\n');
  } else if (known) {
    process.stderr.write(`intent: ${e.message}\n`);
  } else {
    process.stderr.write(`intent: internal error: ${(e as Error)?.stack ?? String(e)}\nPlease report this.\n`);
  }
  return code;
}
