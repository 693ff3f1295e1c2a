// The authority over a second real transport: gitolite3 behind OpenSSH (test/gitolite-server.ts),
// the identity from gitolite's GL_USER, the server templates as the docs install them. The honest
// flows and the attacks of issue 39 that depend on who pushes, pushed for real over ssh; the same
// cases over git http-backend are in authority-flows.test.ts. Outside CI, a machine without
// gitolite3 and sshd skips this file (.ci/run installs both).
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordCommit } from '../../lib/trace/record-commit.js';
import { checkoutIntent, git, intent, removeTree, run, writeFiles, type Run } from '../helpers.js';
import { authorityRepo, codesOf } from '../git-server.js';
import { gitoliteAvailable, startGitolite, type GitoliteServer } from '../gitolite-server.js';

const AVAILABLE = gitoliteAvailable();
if (!AVAILABLE && process.env.CI) throw new Error('gitolite3 and sshd are missing: .ci/run installs them (apt-get install gitolite3 openssh-server)');

const INTENTS = [
  { id: 'INT-001', scope: ['src/**'], status: 'IN_PROGRESS' },
  { id: 'INT-002', scope: ['docs/**'], status: 'IN_PROGRESS' },
];
const AUTHORITY = 'agents:\n  agent-1: ["INT-001"]\n  agent-2: ["INT-002"]\nhumans: ["alice"]\n';
const NO_HOOKS = ['-c', 'core.hooksPath=/dev/null'];

let root: string;
let server: GitoliteServer;
let repo: string;
let srv: string;
const wts: Record<string, string> = {};

const sha = (cwd: string, rev = 'HEAD') => git(cwd, 'rev-parse', rev).trim();
const serverSha = (ref: string) => {
  const r = run('git', ['rev-parse', '-q', '--verify', ref], srv);
  return r.status === 0 ? r.stdout.trim() : null;
};
const gitSsh = (cwd: string, args: string[]): Run => run('git', args, cwd, server.env);
const intentSsh = (cwd: string, args: string[]): Run => intent(cwd, args, server.env);

function commit(wt: string, files: Record<string, string>, message: string, flags: string[] = []): string {
  writeFiles(wt, files);
  git(wt, 'add', '-A');
  const r = run('git', [...flags, 'commit', '-q', '-m', message], wt);
  expect(r.status, r.stderr + r.stdout).toBe(0);
  return sha(wt);
}

/** A raw push over ssh without the client's hooks, as an attacker would; refused with `code`, no server ref moved. */
function expectServerRefuses(cwd: string, who: string, specs: string[], code: string): string {
  const before = git(srv, 'for-each-ref', '--format=%(refname) %(objectname)');
  const r = gitSsh(cwd, ['push', '--no-verify', server.url(who, 'srv'), ...specs]);
  expect(r.status, r.stderr).not.toBe(0);
  expect(r.stderr).toContain('pre-receive hook declined');
  expect(codesOf(r.stderr), r.stderr).toContain(code);
  expect(git(srv, 'for-each-ref', '--format=%(refname) %(objectname)'), 'a refused push changes no ref').toBe(before);
  return r.stderr;
}

/** A notes commit on the server's `ref` (fetched) with `changes` ([commit, note text]) added. */
function notesOn(cwd: string, who: string, ref: string, changes: [string, string][]): string {
  const local = 'refs/notes/test-scratch';
  run('git', ['update-ref', '-d', local], cwd);
  if (gitSsh(cwd, ['fetch', '-q', server.url(who, 'srv'), `+${ref}:${local}`]).status !== 0) run('git', ['update-ref', '-d', local], cwd);
  for (const [c, text] of changes) expect(run('git', ['notes', `--ref=${local}`, 'add', '-f', '-F', '-', c], cwd, {}, text).status).toBe(0);
  return sha(cwd, local);
}

beforeAll(async () => {
  if (!AVAILABLE) return;
  root = realpathSync(mkdtempSync(join(tmpdir(), 'intent-gitolite-')));
  server = await startGitolite(root, ['alice', 'agent-1', 'agent-2'], ['srv']);
  srv = server.repo('srv');
  repo = authorityRepo(join(root, 'repo'), { 'README.md': '# gitolite\n', 'src/a.ts': 'a\n', 'docs/x.md': 'x\n' }, INTENTS, AUTHORITY);
  for (const who of ['alice', 'agent-1', 'agent-2']) git(repo, 'remote', 'add', who, server.url(who, 'srv'));
  const p = gitSsh(repo, ['push', '-q', 'alice', 'main']);
  expect(p.status, p.stderr).toBe(0);
  for (const id of ['INT-001', 'INT-002']) wts[id] = checkoutIntent(repo, id);
}, 120_000);

afterAll(() => {
  server?.stop();
  if (root) removeTree(root);
});

describe.skipIf(!AVAILABLE)('the authority over gitolite3 and ssh (GL_USER)', { shuffle: false }, () => {
  it('an agent pushes its branch with intent push: accepted as that agent; the post-receive copies the record', () => {
    const c = commit(wts['INT-001'], { 'src/a.ts': 'a\none\n' }, 'INT-001 one');
    const r = intentSsh(wts['INT-001'], ['push', 'agent-1', '--json']);
    expect(r.status, r.stderr + r.stdout).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ notesRef: 'refs/notes/intent/INT-001', attempts: 1 });
    expect(serverSha('refs/heads/intent/INT-001')).toBe(c);
    expect(git(srv, 'notes', '--ref=intents', 'show', c)).toContain('INT-001');
  });

  it("the identity is gitolite's: agent-1 may not update another intent's branch, nor refs/notes/intents; a human's key may", () => {
    const c = sha(wts['INT-001']);
    const other = expectServerRefuses(wts['INT-001'], 'agent-1', [`${c}:refs/heads/intent/INT-002`], 'REF_NOT_ALLOWED');
    expect(other).toContain('pushed by agent agent-1');
    const shared = notesOn(wts['INT-001'], 'agent-1', 'refs/notes/intents', [[c, git(repo, 'notes', '--ref=intents', 'show', c)]]);
    expect(expectServerRefuses(wts['INT-001'], 'agent-1', [`${shared}:refs/notes/intents`], 'REF_NOT_ALLOWED')).toContain('is the authority');
    // The same push from a human's key is a human's.
    const human = gitSsh(wts['INT-001'], ['push', '--no-verify', server.url('alice', 'srv'), `${c}:refs/heads/feature/review`]);
    expect(human.status, human.stderr).toBe(0);
  });

  it("a record for another agent's unpushed commit, planted in agent-1's own notes ref, is refused; agent-2's own lands", () => {
    const theirs = commit(wts['INT-002'], { 'docs/x.md': 'x\nmine\n' }, 'INT-002 one');
    const forged = git(repo, 'notes', '--ref=intents', 'show', theirs).replace(/"model_id":"[^"]*"/g, '"model_id":"forged/model"');
    const planted = notesOn(wts['INT-001'], 'agent-1', 'refs/notes/intent/INT-001', [[theirs, forged]]);
    expectServerRefuses(wts['INT-001'], 'agent-1', [`${planted}:refs/notes/intent/INT-001`], 'NOTE_NOT_ON_BRANCH');
    const r = intentSsh(wts['INT-002'], ['push', 'agent-2']);
    expect(r.status, r.stderr).toBe(0);
    expect(git(srv, 'notes', '--ref=intents', 'show', theirs)).not.toContain('forged/model');
  });

  it('an amend after the push: intent push replaces the branch with a lease', () => {
    const wt = wts['INT-001'];
    expect(run('git', ['commit', '-q', '--amend', '-m', 'INT-001 one, reworded'], wt).status).toBe(0);
    const r = intentSsh(wt, ['push', 'agent-1']);
    expect(r.status, r.stderr).toBe(0);
    expect(serverSha('refs/heads/intent/INT-001')).toBe(sha(wt));
  });

  it("a human merges and runs intent push from main: accepted; an agent's registry edit merged the same way is refused", () => {
    git(repo, 'merge', '-q', '--no-ff', '--no-edit', 'intent/INT-001');
    const ok = intentSsh(repo, ['push', 'alice']);
    expect(ok.status, ok.stderr).toBe(0);
    expect(serverSha('refs/heads/main')).toBe(sha(repo));

    const wt = wts['INT-001'];
    const file = join(wt, '.orchestration', 'active_intents.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('- src/**', '- "**"'));
    const c = commit(wt, { 'docs/widened.md': 'INT-001 was here\n' }, 'INT-001 widens itself', NO_HOOKS);
    recordCommit(wt, process.env, { rev: c, intentId: 'INT-001' });
    git(repo, 'merge', '-q', '--no-ff', '--no-edit', 'intent/INT-001');
    const refused = intentSsh(repo, ['push', 'alice']);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(/SCOPE_VIOLATION/);
    expect(refused.stderr).toContain('.orchestration/active_intents.yaml');
    expect(serverSha('refs/heads/main')).not.toBe(sha(repo));
    git(repo, 'reset', '-q', '--hard', 'HEAD~1');
  });
});
