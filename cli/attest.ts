import { IntentError } from '../lib/core/index.js';
import { pusherFromEnv } from '../lib/authority/index.js';
import { signRange, verifyAttestations } from '../lib/attest/index.js';
import { emit } from './output.js';

/** `intent attest sign <range...>`: the server's (or CI's) attestations of what it accepted. */
export function runSign(opts: { cwd: string; range: string[]; key?: string; signer?: string; pusher?: string; ref?: string; force: boolean; json: boolean }): void {
  if (!opts.range.length) throw new IntentError('USAGE', 'intent attest sign: name the commits accepted, e.g. "$old..$new" (the post-receive passes the protected branch\'s update).', {});
  if (!opts.key) throw new IntentError('USAGE', 'intent attest sign: --key <file> names the SSH private key to sign with (its public key in .orchestration/allowed_signers on the protected branch).', {});
  const r = signRange(opts.cwd, opts.range, {
    key: opts.key, signer: opts.signer ?? 'intent-server', pusher: opts.pusher ?? pusherFromEnv(process.env)?.name ?? null, ref: opts.ref ?? null, force: opts.force,
  });
  emit(opts.json, r, () => `intent attest: ${r.signed.length} commit${r.signed.length === 1 ? '' : 's'} attested as ${r.signer} on ${r.ref}` +
    (r.kept.length ? `; ${r.kept.length} had an attestation already (kept)` : '') + '.\n');
}

/** `intent attest verify [range...]`: exit 1 when a commit of the range is not attested as it is now. */
export function runVerify(opts: { cwd: string; range: string[]; allowedSigners?: string; base?: string; json: boolean }): number {
  const r = verifyAttestations(opts.cwd, opts.range, { allowedSigners: opts.allowedSigners, base: opts.base });
  emit(opts.json, r, () => {
    const lines = r.findings.map((f) => `  ${f.code} ${f.message}`);
    const who = Object.entries(r.signers).map(([p, n]) => `${p} ${n}`).join(', ');
    return (r.ok
      ? `intent attest verify: ${r.attested} of ${r.commits} commit${r.commits === 1 ? '' : 's'} attested by an allowed signer (${who || 'none'}; ${r.allowedSigners}); every predicate is what intent verify finds now.\n`
      : `intent attest verify: ${r.findings.length} finding${r.findings.length === 1 ? '' : 's'} in ${r.commits} commit${r.commits === 1 ? '' : 's'} (${r.attested} attested as they are):\n${lines.join('\n')}\n`);
  });
  return r.ok ? 0 : 1;
}
