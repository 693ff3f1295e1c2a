import { IntentError } from '../lib/core/index.js';
import { DEFAULT_CONTEXT_BYTES, MIN_CONTEXT_BYTES, renderContext } from '../lib/intents/index.js';
import { emit } from './output.js';

/** `intent context <id>`: prints the intent's `<intent_context>` XML block (or it wrapped in JSON). */
export function run(opts: { cwd: string; id: string; maxBytes?: string; json: boolean }): void {
  let maxBytes = DEFAULT_CONTEXT_BYTES;
  if (opts.maxBytes !== undefined) {
    if (!/^\d{1,9}$/.test(opts.maxBytes.trim())) {
      throw new IntentError('USAGE', `--max-bytes must be a whole number of bytes (at least ${MIN_CONTEXT_BYTES}), got "${opts.maxBytes}".`, { maxBytes: opts.maxBytes });
    }
    maxBytes = Number(opts.maxBytes.trim());
  }
  const context = renderContext(opts.cwd, opts.id, { maxBytes });
  emit(opts.json, { intent: opts.id, context, bytes: Buffer.byteLength(context, 'utf8') }, () => context);
}
