/**
 * Attestations of what the authority checked (issue 43): when the server's post-receive (or the CI
 * job) has accepted commits onto the protected branch, `intent attest sign` writes, per commit, an
 * in-toto Statement whose subject is the commit and whose predicate is what intent checked: the
 * intent, the registry's digest, the scope result, the note's digest, intent verify's findings, the
 * ranges hashed, the line credit by model; signed with the team's SSH key (lib/attest/envelope.ts),
 * as a note on refs/notes/intent-attestations.
 *
 * `intent attest verify` needs no network and no server: with the allowed signers on the protected
 * branch (`.orchestration/allowed_signers`, which only a human's commit changes), each commit of
 * the range must have an attestation signed by an allowed signer whose predicate is what intent
 * verify recomputes now. A forged note, a rewritten attestation, an unknown key and a missing
 * attestation each have their code.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { IntentError } from '../core/errors.js';
import { METADATA_KEY, NOTES_REF, TOOL_NAME, TOOL_VERSION } from '../core/version.js';
import { git, gitRaw } from '../git/process.js';
import { parseNote } from '../trace/note-records.js';
import { readNotes, verify, type Finding, type Where } from '../trace/verify.js';
import { checkSignature, PAYLOAD_TYPE, signStatement, STATEMENT_TYPE, type Envelope } from './envelope.js';

export const ATTEST_REF = 'refs/notes/intent-attestations';
export const PREDICATE_TYPE = 'urn:intent-governance:gate-check:v1';
export const ALLOWED_SIGNERS = '.orchestration/allowed_signers';

/** What intent checked of one commit: what `intent attest verify` recomputes and compares. */
export interface CheckedFacts {
  governed: boolean;
  intent: { id: string; name: string } | null;
  mutation_class: string | null;
  carried: { shape: string; from: string[] } | null;
  registry: { path: string; sha256: string } | null;
  note: { ref: string; sha256: string } | null;
  scope: { result: 'pass' | 'fail'; violations: string[] };
  verify: { findings: string[] };
  hashes: { ranges: number };
  lines: { ai: number; human: number; other: number; by_model: Record<string, number> };
}

export interface Predicate extends CheckedFacts {
  gate: { name: string; version: string };
  checked_at: string;
  pusher: string | null;
  ref: string | null;
}

export interface Statement {
  _type: string;
  subject: { name: string; digest: { gitCommit: string } }[];
  predicateType: string;
  predicate: Predicate;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** Where attest runs: a clone, or the server's bare repository (its post-receive). */
function where(cwd: string): Where {
  const r = gitRaw(['rev-parse', '--git-dir'], { cwd });
  if (r.status !== 0) throw new IntentError('NOT_A_REPOSITORY', `intent attest: ${cwd} is not inside a git repository.`, { cwd });
  return { root: cwd, mainRoot: null };
}

function commitsOf(repo: Where, range: string[]): string[] {
  const res = gitRaw(['rev-list', '--reverse', ...(range.length ? range : ['HEAD']), '--'], { cwd: repo.root });
  if (res.status !== 0) throw new IntentError('USAGE', `intent attest: ${range.join(' ') || 'HEAD'} is not a revision range git knows: ${res.stderr.trim().split('\n')[0]}`, {});
  return res.stdout.split('\n').filter(Boolean);
}

/** The facts of each commit, from its note (as it is now) and intent verify's findings of it. */
function factsOf(commits: string[], notes: Map<string, string>, findings: Finding[]): Map<string, CheckedFacts> {
  const byCommit = new Map<string, string[]>();
  for (const f of findings) if (f.commit) byCommit.set(f.commit, [...(byCommit.get(f.commit) ?? []), f.code]);
  const out = new Map<string, CheckedFacts>();
  for (const sha of commits) {
    const text = notes.get(sha) ?? null;
    const parsed = text ? parseNote(text) : null;
    const rec = parsed && typeof parsed !== 'string' && parsed.record.vcs?.revision === sha ? parsed.record : null;
    const meta = rec?.metadata?.[METADATA_KEY];
    const lines = { ai: 0, human: 0, other: 0, by_model: {} as Record<string, number> };
    let ranges = 0;
    for (const f of rec?.files ?? []) {
      for (const c of f.conversations ?? []) {
        for (const r of c.ranges ?? []) {
          ranges++;
          const n = r.end_line - r.start_line + 1;
          if (c.contributor?.type === 'ai') {
            lines.ai += n;
            const m = c.contributor.model_id ?? 'unknown model';
            lines.by_model[m] = (lines.by_model[m] ?? 0) + n;
          } else if (c.contributor?.type === 'human') lines.human += n;
          else lines.other += n;
        }
      }
    }
    const codes = (byCommit.get(sha) ?? []).sort();
    const violations = Array.isArray(meta?.scope_violations) ? meta!.scope_violations.map(String) : [];
    out.set(sha, {
      governed: !!meta,
      intent: meta ? { id: String(meta.intent_id), name: String(meta.intent_name ?? '') } : null,
      mutation_class: meta ? String(meta.mutation_class ?? '') : null,
      carried: meta?.carried ? { shape: meta.carried.shape, from: [...meta.carried.from] } : null,
      registry: meta?.registry ? { path: String(meta.registry.path), sha256: String(meta.registry.sha256) } : null,
      note: text ? { ref: NOTES_REF, sha256: sha256(text) } : null,
      scope: { result: violations.length || codes.includes('SCOPE_VIOLATION') ? 'fail' : 'pass', violations },
      verify: { findings: codes },
      hashes: { ranges },
      lines: { ...lines, by_model: Object.fromEntries(Object.entries(lines.by_model).sort(([a], [b]) => a.localeCompare(b))) },
    });
  }
  return out;
}

/** What signing did. */
export interface SignResult { ref: string; signed: string[]; kept: string[]; signer: string }

/**
 * `intent attest sign <range>`: an attestation for each commit of the range (every commit, governed
 * or not: "every commit on main has one"), signed with `key` as `signer`; a commit that has one
 * keeps it unless `force`.
 */
export function signRange(cwd: string, range: string[], opts: { key: string; signer: string; pusher?: string | null; ref?: string | null; force?: boolean; now?: Date }): SignResult {
  const repo = where(cwd);
  const commits = commitsOf(repo, range);
  const existing = new Set(readNotes(repo, ATTEST_REF).keys());
  const todo = commits.filter((c) => opts.force || !existing.has(c));
  const out: SignResult = { ref: ATTEST_REF, signed: [], kept: commits.filter((c) => !todo.includes(c)), signer: opts.signer };
  if (!todo.length) return out;
  const checked = verify(repo.root, range, { ledger: false });
  const facts = factsOf(todo, readNotes(repo, NOTES_REF), checked.findings);
  const at = (opts.now ?? new Date()).toISOString();
  for (const sha of todo) {
    const statement: Statement = {
      _type: STATEMENT_TYPE,
      subject: [{ name: `commit:${sha}`, digest: { gitCommit: sha } }],
      predicateType: PREDICATE_TYPE,
      predicate: { gate: { name: TOOL_NAME, version: TOOL_VERSION }, checked_at: at, pusher: opts.pusher ?? null, ref: opts.ref ?? null, ...facts.get(sha)! },
    };
    const env = signStatement(statement, opts.key, opts.signer);
    git(['notes', `--ref=${ATTEST_REF}`, 'add', '-f', '-F', '-', sha], { cwd: repo.root, input: `${JSON.stringify(env)}\n` });
    out.signed.push(sha);
  }
  return out;
}

export type AttestCode =
  | 'ATTESTATION_MISSING' | 'ATTESTATION_INVALID' | 'ATTESTATION_SIGNER_UNKNOWN' | 'ATTESTATION_SIGNATURE_INVALID'
  | 'ATTESTATION_SUBJECT_MISMATCH' | 'ATTESTATION_NOTE_MISMATCH' | 'ATTESTATION_PREDICATE_MISMATCH' | 'ALLOWED_SIGNERS_MISSING';

export interface AttestFinding { commit: string | null; code: AttestCode; message: string }
export interface AttestVerifyResult {
  ok: boolean;
  range: string[];
  /** Where the allowed signers came from. */
  allowedSigners: string;
  commits: number;
  attested: number;
  signers: Record<string, number>;
  findings: AttestFinding[];
}

/** The allowed signers: a file given, else `.orchestration/allowed_signers` at `base` (default: main, else origin/main). */
function allowedSigners(repo: Where, file: string | undefined, base: string | undefined): { text: string; from: string } | null {
  if (file) {
    try {
      return { text: readFileSync(file, 'utf8'), from: file };
    } catch (e) {
      throw new IntentError('USAGE', `intent attest verify: cannot read the allowed signers ${file}: ${(e as Error).message}`, {});
    }
  }
  for (const rev of base ? [base] : ['main', 'origin/main']) {
    const r = gitRaw(['show', `${rev}:${ALLOWED_SIGNERS}`], { cwd: repo.root });
    if (r.status === 0) return { text: r.stdout, from: `${rev}:${ALLOWED_SIGNERS}` };
  }
  return null;
}

/** The keys of two facts objects that differ (canonical JSON per key). */
function differing(a: CheckedFacts, b: Record<string, unknown>): string[] {
  return (Object.keys(a) as (keyof CheckedFacts)[]).filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
}

/**
 * The attestation state of each commit of `range` that has one (the report's column): `ok` with
 * its signer, or the code of what is wrong; none when the repository has no attestations.
 */
export function attestationStates(cwd: string, range: string[]): { states: Map<string, string>; allowedSigners: string } | null {
  if (gitRaw(['rev-parse', '-q', '--verify', `${ATTEST_REF}^{commit}`], { cwd }).status !== 0) return null;
  const { result, states } = checkRange(cwd, range, {});
  return { states, allowedSigners: result.allowedSigners || 'none found' };
}

/** `intent attest verify [range]`: every commit of the range attested by an allowed signer, its predicate what intent verify recomputes. */
export function verifyAttestations(cwd: string, range: string[], opts: { allowedSigners?: string; base?: string } = {}): AttestVerifyResult {
  return checkRange(cwd, range, opts).result;
}

/** The verification of `range`, and the state of each commit that has an attestation: `ok`, or the code of what is wrong. */
function checkRange(cwd: string, range: string[], opts: { allowedSigners?: string; base?: string }): { result: AttestVerifyResult; states: Map<string, string> } {
  const repo = where(cwd);
  const commits = commitsOf(repo, range);
  const signers = allowedSigners(repo, opts.allowedSigners, opts.base);
  const result: AttestVerifyResult = { ok: false, range, allowedSigners: signers?.from ?? '', commits: commits.length, attested: 0, signers: {}, findings: [] };
  const states = new Map<string, string>();
  const attestations = readNotes(repo, ATTEST_REF);
  if (!signers) {
    result.findings.push({ commit: null, code: 'ALLOWED_SIGNERS_MISSING', message: `no ${ALLOWED_SIGNERS} on ${opts.base ?? 'main or origin/main'}: commit the team's allowed signers there (a human's commit), or pass --allowed-signers <file>.` });
    // (No attestation can be checked; each says so.)
    for (const sha of commits) if (attestations.has(sha)) states.set(sha, 'ALLOWED_SIGNERS_MISSING');
    return { result, states };
  }
  const checked = commits.length ? verify(repo.root, range, { ledger: false }) : { findings: [] };
  const facts = factsOf(commits, readNotes(repo, NOTES_REF), checked.findings);
  const short = (s: string) => s.slice(0, 12);
  for (const sha of commits) {
    const text = attestations.get(sha);
    const add = (code: AttestCode, message: string) => {
      result.findings.push({ commit: sha, code, message: `${short(sha)}: ${message}` });
      if (text) states.set(sha, code);
    };
    if (!text) {
      add('ATTESTATION_MISSING', `no attestation on ${ATTEST_REF} (the server signs what it accepts onto the protected branch; fetch the ref: git fetch origin ${ATTEST_REF}:${ATTEST_REF})`);
      continue;
    }
    let env: Envelope;
    let statement: Statement;
    try {
      env = JSON.parse(text) as Envelope;
      if (env.payloadType !== PAYLOAD_TYPE || typeof env.payload !== 'string') throw new Error(`payloadType is not ${PAYLOAD_TYPE}`);
      statement = JSON.parse(Buffer.from(env.payload, 'base64').toString('utf8')) as Statement;
      if (statement._type !== STATEMENT_TYPE || statement.predicateType !== PREDICATE_TYPE) throw new Error('not an intent gate-check statement');
    } catch (e) {
      add('ATTESTATION_INVALID', `its attestation is not a DSSE envelope of an intent statement (${(e as Error).message})`);
      continue;
    }
    const sig = checkSignature(env, signers.text);
    if (!sig.ok) {
      add(sig.why === 'unknown-signer' ? 'ATTESTATION_SIGNER_UNKNOWN' : 'ATTESTATION_SIGNATURE_INVALID',
        sig.why === 'unknown-signer' ? `its attestation's signer is not allowed by ${signers.from}: ${sig.detail}` : `its attestation's signature does not verify (rewritten after signing?): ${sig.detail}`);
      continue;
    }
    if (statement.subject?.[0]?.digest?.gitCommit !== sha || statement.subject.length !== 1) {
      add('ATTESTATION_SUBJECT_MISMATCH', `its attestation is of ${statement.subject?.[0]?.digest?.gitCommit ?? 'no commit'}, not of this commit (moved from another)`);
      continue;
    }
    const now = facts.get(sha)!;
    const p = statement.predicate as unknown as Record<string, unknown>;
    if (JSON.stringify(now.note) !== JSON.stringify(p.note)) {
      add('ATTESTATION_NOTE_MISMATCH', `its note on ${NOTES_REF} is not the one attested (${now.note ? `sha256 ${now.note.sha256.slice(0, 12)}` : 'none now'}, attested ${(p.note as { sha256?: string } | null)?.sha256?.slice(0, 12) ?? 'none'}): the note was changed after the authority checked it`);
      continue;
    }
    const diff = differing(now, p);
    if (diff.length) {
      add('ATTESTATION_PREDICATE_MISMATCH', `what intent verify finds now differs from what was attested in ${diff.join(', ')}`);
      continue;
    }
    result.attested++;
    result.signers[sig.principal] = (result.signers[sig.principal] ?? 0) + 1;
    states.set(sha, 'ok');
  }
  result.ok = result.findings.length === 0;
  return { result, states };
}
