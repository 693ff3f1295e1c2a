// Attestations (lib/attest): a team's server (git http-backend behind an authenticating front,
// templates/server/pre-receive and post-receive, a signing key in `git config intent.attestKey`)
// accepts an agent's branch and a human's merge, and its post-receive signs what main gained.
// A fresh clone, with the server stopped, verifies them against .orchestration/allowed_signers
// on main; then each forgery is refused with its code: a note rewritten after the check, an
// attestation rewritten, one signed by a key not allowed, one moved from another commit, and a
// commit with none. The CI mode signs the same way (the carry workflow's step).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutIntent, git, intent, removeTree, run, tempDir, writeFiles } from '../helpers.js';
import { authorityRepo, serverRepo, startGitServer, type GitServer } from '../git-server.js';

const ATTEST = 'refs/notes/intent-attestations';
let root: string;
let server: GitServer;
let srv: string;
let repo: string;
let wt: string;
let keys: string;
let clone: string;
const commits: string[] = [];

function keypair(name: string): { key: string; pub: string } {
  const key = join(keys, name);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', key]);
  return { key, pub: readFileSync(`${key}.pub`, 'utf8').split(' ').slice(0, 2).join(' ') };
}

const verifyJson = (cwd: string, args: string[] = []) => {
  const r = intent(cwd, ['attest', 'verify', 'main', '--json', ...args]);
  return { status: r.status, out: JSON.parse(r.stdout), stderr: r.stderr };
};
const codes = (out: { findings: { code: string; commit: string | null }[] }) => out.findings.map((f) => [f.code, f.commit?.slice(0, 12)]);

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'intent-attest-')));
  keys = join(root, 'keys');
  execFileSync('mkdir', ['-p', keys]);
  const signer = keypair('server');
  server = await startGitServer(root);
  srv = serverRepo(root, 'srv.git');
  git(srv, 'config', 'intent.attestKey', signer.key);
  git(srv, 'config', 'intent.attestSigner', 'intent-server');
  repo = authorityRepo(join(root, 'repo'), { 'README.md': '# attest\n', 'src/a.ts': 'a\n' }, [{ id: 'INT-001', scope: ['src/**'], status: 'IN_PROGRESS' }],
    'agents:\n  agent-1: ["INT-001"]\nhumans: ["alice"]\n');
  // The team's allowed signers, on main, by a human.
  writeFiles(repo, { '.orchestration/allowed_signers': `intent-server namespaces="intent-attestation" ${signer.pub}\n` });
  git(repo, 'add', '.orchestration');
  git(repo, 'commit', '-q', '-m', 'allowed signers of attestations');
  for (const who of ['alice', 'agent-1']) git(repo, 'remote', 'add', who, server.url(who, 'srv.git'));
  const p = run('git', ['push', '-q', 'alice', 'main'], repo);
  expect(p.status, p.stderr).toBe(0);
  wt = checkoutIntent(repo, 'INT-001');
  for (const [i, body] of ['a\none\n', 'a\none\ntwo\n'].entries()) {
    writeFiles(wt, { 'src/a.ts': body });
    git(wt, 'add', '-A');
    expect(run('git', ['commit', '-q', '-m', `INT-001 ${i}`], wt).status).toBe(0);
    commits.push(git(wt, 'rev-parse', 'HEAD').trim());
  }
  const a = intent(wt, ['push', 'agent-1']);
  expect(a.status, a.stderr).toBe(0);
  git(repo, 'merge', '-q', '--no-ff', '--no-edit', 'intent/INT-001');
  const h = intent(repo, ['push', 'alice']);
  expect(h.status, h.stderr).toBe(0);
  // A teammate's fresh clone; then the server is gone: what follows needs no network.
  clone = join(root, 'clone');
  git(root, 'clone', '-q', server.url('alice', 'srv.git'), clone);
  const s = intent(clone, ['sync', '--json']);
  expect(s.status, s.stderr).toBe(0);
  expect(JSON.parse(s.stdout).attestations).toBe(true);
  server.stop();
}, 180_000);

afterAll(() => {
  server?.stop();
  if (root) removeTree(root);
});

describe('attestations', { shuffle: false }, () => {
  it('the post-receive attested every commit main gained; a fresh clone verifies them offline with the allowed signers on main', () => {
    const onServer = git(srv, 'notes', `--ref=${ATTEST}`, 'list').split('\n').filter(Boolean).length;
    expect(onServer).toBe(Number(git(srv, 'rev-list', '--count', 'main').trim()));
    const v = verifyJson(clone);
    expect(v.status, JSON.stringify(v.out.findings)).toBe(0);
    expect(v.out).toMatchObject({ ok: true, allowedSigners: 'main:.orchestration/allowed_signers', attested: v.out.commits, signers: { 'intent-server': v.out.commits } });
    // The agent's commit's predicate: what the gate checked, as the statement says it.
    const env = JSON.parse(git(clone, 'notes', `--ref=${ATTEST}`, 'show', commits[1]));
    const st = JSON.parse(Buffer.from(env.payload, 'base64').toString('utf8'));
    expect(st).toMatchObject({ _type: 'https://in-toto.io/Statement/v1', subject: [{ digest: { gitCommit: commits[1] } }] });
    expect(st.predicate).toMatchObject({ governed: true, intent: { id: 'INT-001' }, scope: { result: 'pass' }, verify: { findings: [] }, ref: 'refs/heads/main', pusher: 'alice' });
    expect(st.predicate.note.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(st.predicate.registry.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(intent(clone, ['attest', 'verify', 'main']).stdout).toContain('attested by an allowed signer (intent-server');
    // The report shows each commit's attestation.
    const rep = JSON.parse(intent(clone, ['report', 'main', '--json']).stdout);
    expect(rep.attestations).toEqual({ allowed_signers: 'main:.orchestration/allowed_signers', ok: rep.commits.length, bad: 0, none: 0 });
    expect(rep.commits.map((c: { attestation: string }) => c.attestation)).toEqual(rep.commits.map(() => 'ok'));
  });

  it('a note rewritten after the check: ATTESTATION_NOTE_MISMATCH, in verify and in the report', () => {
    const c = join(tempDir(), 'c');
    git(root, 'clone', '-q', clone, c);
    git(c, 'fetch', '-q', clone, `+${ATTEST}:${ATTEST}`, '+refs/notes/intents:refs/notes/intents');
    const note = git(c, 'notes', '--ref=intents', 'show', commits[0]).replace(/"human"/, '"ai","model_id":"forged/model"');
    git(c, 'notes', '--ref=intents', 'add', '-f', '-m', note.trimEnd(), commits[0]);
    const v = verifyJson(c);
    expect(v.status).toBe(1);
    expect(codes(v.out)).toEqual([['ATTESTATION_NOTE_MISMATCH', commits[0].slice(0, 12)]]);
    const rr = intent(c, ['report', 'main', '--json']);
    const rep = JSON.parse(rr.stdout);
    expect(rep.commits, rr.stdout.slice(0, 500) + rr.stderr).toBeDefined();
    expect(rep.commits.find((x: { sha: string }) => x.sha === commits[0]).attestation).toBe('ATTESTATION_NOTE_MISMATCH');
    expect(rep.attestations.bad).toBe(1);
  });

  it('an attestation rewritten (its payload changed, the signature kept): ATTESTATION_SIGNATURE_INVALID', () => {
    const c = join(tempDir(), 'c');
    git(root, 'clone', '-q', '--mirror', clone, c);
    const env = JSON.parse(git(c, 'notes', `--ref=${ATTEST}`, 'show', commits[1]));
    const st = JSON.parse(Buffer.from(env.payload, 'base64').toString('utf8'));
    st.predicate.lines.ai = 1000;
    env.payload = Buffer.from(JSON.stringify(st)).toString('base64');
    git(c, 'notes', `--ref=${ATTEST}`, 'add', '-f', '-m', JSON.stringify(env), commits[1]);
    expect(codes(verifyJson(c).out)).toEqual([['ATTESTATION_SIGNATURE_INVALID', commits[1].slice(0, 12)]]);
  });

  it('an attestation signed by a key not in the allowed signers, naming the allowed principal: ATTESTATION_SIGNER_UNKNOWN', () => {
    const c = join(tempDir(), 'c');
    git(root, 'clone', '-q', '--mirror', clone, c);
    const other = keypair(`agent-${Math.random().toString(36).slice(2)}`);
    const r = intent(c, ['attest', 'sign', `${commits[0]}^!`, '--key', other.key, '--signer', 'intent-server', '--force']);
    expect(r.status, r.stderr).toBe(0);
    const v = verifyJson(c);
    expect(codes(v.out)).toEqual([['ATTESTATION_SIGNER_UNKNOWN', commits[0].slice(0, 12)]]);
    expect(v.out.findings[0].message).toContain('not in the allowed signers');
  });

  it("another commit's attestation copied onto this one: ATTESTATION_SUBJECT_MISMATCH; a commit with none: ATTESTATION_MISSING", () => {
    const w = join(tempDir(), 'w');
    git(root, 'clone', '-q', clone, w);
    git(w, 'fetch', '-q', clone, `+${ATTEST}:${ATTEST}`, '+refs/notes/intents:refs/notes/intents');
    git(w, 'notes', `--ref=${ATTEST}`, 'add', '-f', '-m', git(w, 'notes', `--ref=${ATTEST}`, 'show', commits[1]).trimEnd(), commits[0]);
    expect(codes(verifyJson(w).out)).toEqual([['ATTESTATION_SUBJECT_MISMATCH', commits[0].slice(0, 12)]]);
    git(w, 'notes', `--ref=${ATTEST}`, 'add', '-f', '-m', git(clone, 'notes', `--ref=${ATTEST}`, 'show', commits[0]).trimEnd(), commits[0]);
    writeFiles(w, { 'README.md': '# unattested\n' });
    git(w, 'commit', '-q', '-am', 'not through the server');
    const head = git(w, 'rev-parse', 'HEAD').trim();
    expect(codes(verifyJson(w).out)).toEqual([['ATTESTATION_MISSING', head.slice(0, 12)]]);
  });

  it('without allowed signers on main: ALLOWED_SIGNERS_MISSING, saying where they go', () => {
    const v = verifyJson(clone, ['--base', 'main~3']);
    expect(v.status).toBe(1);
    expect(v.out.findings[0]).toMatchObject({ code: 'ALLOWED_SIGNERS_MISSING' });
    expect(v.out.findings[0].message).toContain('.orchestration/allowed_signers');
  });
});
