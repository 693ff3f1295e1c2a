import { IntentError } from '../lib/core/index.js';
import { collectStats, statsMarkdown, statsText } from '../lib/report/index.js';

/** `intent stats [<range>...]`: the stats as text, markdown or JSON. */
export function run(opts: { cwd: string; range: string[]; notes?: string; markdown: boolean; json: boolean }): void {
  if (opts.markdown && opts.json) throw new IntentError('USAGE', 'intent stats: --markdown and --json are two outputs; give one.', {});
  if (opts.notes !== undefined && !/^refs\/notes\/[A-Za-z0-9._/-]+$/.test(opts.notes)) {
    throw new IntentError('USAGE', `intent stats: --notes takes a notes ref such as refs/notes/intents or refs/notes/intent/INT-001, got ${JSON.stringify(opts.notes)}`, {});
  }
  const s = collectStats(opts.cwd, { range: opts.range, ...(opts.notes ? { notes: opts.notes } : {}) });
  if (opts.json) process.stdout.write(JSON.stringify(s, null, 2) + '\n');
  else process.stdout.write(opts.markdown ? statsMarkdown(s) : statsText(s));
}
