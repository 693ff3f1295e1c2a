import { IntentError } from '../lib/core/errors.js';

/** The IntentError code `fn` throws (`not-an-IntentError` for any other throw), or undefined when it returns. */
export function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return e instanceof IntentError ? e.code : 'not-an-IntentError';
  }
  return undefined;
}
