/**
 * An attestation's envelope: an in-toto Statement (v1) in a DSSE envelope, signed the way git signs
 * with SSH keys (`ssh-keygen -Y sign`, namespace `intent-attestation`; verified against an
 * allowed-signers file, as `gpg.ssh.allowedSignersFile` is for git). What is signed is DSSE's
 * pre-authentication encoding of the payload type and the payload, so a signature cannot be moved
 * to another statement or another type.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

export const PAYLOAD_TYPE = 'application/vnd.in-toto+json';
export const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
export const NAMESPACE = 'intent-attestation';

export interface Envelope { payloadType: string; payload: string; signatures: { keyid: string; sig: string }[] }

/** DSSE v1's pre-authentication encoding: `DSSEv1 <len> <type> <len> <body>`. */
export function pae(type: string, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`DSSEv1 ${Buffer.byteLength(type)} ${type} ${body.length} `), body]);
}

function sshKeygen(args: string[], input: Buffer): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('ssh-keygen', args, { input, encoding: 'buffer', timeout: 60_000 });
  if (r.error) throw new Error(`ssh-keygen could not run (${(r.error as NodeJS.ErrnoException).code ?? r.error.message}): install OpenSSH's ssh-keygen (openssh-client)`);
  return { status: r.status, stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8') };
}

/** The envelope of `statement` signed with the SSH private key `key` as `keyid` (the signer's principal). */
export function signStatement(statement: unknown, key: string, keyid: string): Envelope {
  const payload = Buffer.from(JSON.stringify(statement));
  const r = sshKeygen(['-Y', 'sign', '-q', '-f', key, '-n', NAMESPACE], pae(PAYLOAD_TYPE, payload));
  if (r.status !== 0 || !r.stdout.includes('BEGIN SSH SIGNATURE')) throw new Error(`ssh-keygen -Y sign with ${key} failed: ${r.stderr.trim() || `exit ${r.status}`}`);
  const sig = r.stdout.replace(/-----(BEGIN|END) SSH SIGNATURE-----/g, '').replace(/\s+/g, '');
  return { payloadType: PAYLOAD_TYPE, payload: payload.toString('base64'), signatures: [{ keyid, sig }] };
}

/** What checking an envelope's signature against an allowed-signers file found. */
export type SignatureCheck = { ok: true; principal: string } | { ok: false; why: 'unknown-signer' | 'bad-signature'; detail: string };

/**
 * Checks the envelope's first signature against the allowed-signers text `allowed` (namespace
 * intent-attestation): the principal the signing key is listed as must be the envelope's keyid.
 */
export function checkSignature(env: Envelope, allowed: string): SignatureCheck {
  const sig = env.signatures?.[0];
  if (!sig || typeof sig.sig !== 'string' || typeof sig.keyid !== 'string') return { ok: false, why: 'bad-signature', detail: 'the envelope has no signature' };
  const dir = mkdtempSync(join(tmpdir(), 'intent-attest-'));
  try {
    const sigFile = join(dir, 'sig');
    const signers = join(dir, 'allowed_signers');
    const body = sig.sig.replace(/(.{70})/g, '$1\n');
    writeFileSync(sigFile, `-----BEGIN SSH SIGNATURE-----\n${body}\n-----END SSH SIGNATURE-----\n`);
    writeFileSync(signers, allowed);
    const found = sshKeygen(['-Y', 'find-principals', '-s', sigFile, '-f', signers, '-n', NAMESPACE], Buffer.alloc(0));
    const principals = found.status === 0 ? found.stdout.split('\n').map((l) => l.trim()).filter(Boolean) : [];
    if (!principals.includes(sig.keyid)) {
      return { ok: false, why: 'unknown-signer', detail: principals.length ? `signed by ${principals.join(', ')}, not the ${sig.keyid} it names` : `its key is not in the allowed signers for ${NAMESPACE}` };
    }
    const data = pae(env.payloadType, Buffer.from(env.payload, 'base64'));
    const v = sshKeygen(['-Y', 'verify', '-f', signers, '-I', sig.keyid, '-n', NAMESPACE, '-s', sigFile], data);
    return v.status === 0 ? { ok: true, principal: sig.keyid } : { ok: false, why: 'bad-signature', detail: (v.stderr || v.stdout).trim().split('\n')[0] || `ssh-keygen exit ${v.status}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
