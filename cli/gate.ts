import { runGate } from '../lib/authority/index.js';
import { IntentError } from '../lib/core/index.js';
import { emit } from './output.js';

/** `intent gate`: the authority check of a push (pre-receive) or a CI range; exit 0 accepted, 1 refused. */
export async function run(opts: {
  cwd: string; preReceive: boolean; base?: string; ref?: string; old?: string; new?: string; pusher?: string; notes?: string; settled?: string[]; identityUnknown?: boolean; json: boolean;
}): Promise<void> {
  if ((opts.settled || opts.identityUnknown) && !opts.preReceive) throw new IntentError('USAGE', `${opts.settled ? '--settled' : '--identity-unknown'} goes with --pre-receive (CI mode settles on --base and takes --pusher).`, {});
  const stdin = opts.preReceive ? await readStdin() : undefined;
  const r = runGate({ ...opts, preReceive: stdin });
  emit(opts.json, { ok: r.findings.length === 0, ...r }, () => {
    const who = r.pusher ? `${r.role} ${r.pusher}` : opts.identityUnknown ? 'an identity nobody knows (identity rules left out)' : 'no identity (human)';
    const head = `intent gate: ${r.commits} new commit${r.commits === 1 ? '' : 's'}, ${r.governed} governed; pushed by ${who}; policy from ${r.base}` +
      `${r.baseCommit ? ` (${r.baseCommit.slice(0, 12)})` : ' (missing)'}`;
    if (!r.findings.length) return `${head}: accepted.\n`;
    const lines = r.findings.map((f) => `  ${f.code.padEnd(22)} ${(f.commit ?? '-').slice(0, 12).padEnd(12)} ${f.ref ?? '-'}  ${f.message}\n  ${''.padEnd(22)} next: ${f.next}`);
    return `${head}: ${r.findings.length} finding${r.findings.length === 1 ? '' : 's'}.\n${lines.join('\n')}\nintent: refused by the authority check.\n`;
  });
  if (r.findings.length) process.exitCode = 1;
}

function readStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (d) => (text += d));
    process.stdin.on('end', () => resolve(text));
    process.stdin.on('error', reject);
  });
}
