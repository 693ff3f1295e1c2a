// The authority tier against a real server: a bare repository served by `git http-backend` behind
// a small Node HTTP server on 127.0.0.1 (test/fixtures/git-http-server.mjs) that sets REMOTE_USER
// from the URL, with templates/server/pre-receive installed. An attacker here is an agent with a
// shell in its own intent worktree, running as the same OS user as the human: each attack
// class of issue 12 is pushed and must be refused with a finding naming the commit and the rule.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordCommit } from '../../lib/trace/record-commit.js';
import { repair } from '../../lib/trace/repair.js';
import { summaryLine } from '../../lib/trace/record.js';
import { runGateAction } from '../github-action.js';
import { serverRepo, startGitServer } from '../git-server.js';
import { gitoliteAvailable, startGitolite } from '../gitolite-server.js';
import { notesCommit } from '../../lib/trace/notes-tree.js';
import { checkoutIntent, git, intent, registryYaml, removeTree, run, writeFiles, type Run } from '../helpers.js';

const AUTHORITY = 'agents:\n  agent-1: ["INT-001"]\n  agent-3: ["INT-003"]\nhumans: ["alice"]\n';
const INTENTS = [
  { id: 'INT-001', scope: ['src/**'], status: 'IN_PROGRESS' },
  { id: 'INT-002', scope: ['docs/**'], status: 'IN_PROGRESS' },
  { id: 'INT-003', scope: ['lib/**'], status: 'PENDING' },
];
const FILES = { 'README.md': '# test\n', 'src/a.ts': 'a\n', 'docs/x.md': 'x\n', 'lib/l.ts': 'l\n' };
const NO_HOOKS = ['-c', 'core.hooksPath=/dev/null'];

let root: string;

/** The transport this round of the file runs over. */
interface Transport {
  name: string;
  available: boolean;
  /** Serves `srv.git` and `honest.git` (empty) at `dir`. */
  start(dir: string): Promise<{ url(who: string | null, name: string): string; bare(name: string): string; env: Record<string, string>; anonymous: boolean; stop(): void }>;
}

const TRANSPORTS: Transport[] = [
  {
    name: 'git http-backend (REMOTE_USER)', available: true,
    start: async (dir) => {
      const s = await startGitServer(dir);
      for (const n of ['srv.git', 'honest.git']) serverRepo(dir, n);
      return { url: (who, name) => s.url(who, name), bare: (name) => join(dir, name), env: {}, anonymous: true, stop: () => s.stop() };
    },
  },
  {
    name: 'gitolite3 over ssh (GL_USER)', available: gitoliteAvailable(),
    start: async (dir) => {
      const g = await startGitolite(dir, ['alice', 'agent-1', 'agent-3', 'Agent-1', 'AGENT-1'], ['srv', 'honest']);
      const base = (name: string) => name.replace(/\.git$/, '');
      return { url: (who, name) => g.url(who!, base(name)), bare: (name) => g.repo(base(name)), env: g.env, anonymous: false, stop: () => g.stop() };
    },
  },
];
if (process.env.CI && !gitoliteAvailable()) throw new Error('gitolite3 and sshd are missing: .ci/run installs them (apt-get install gitolite3 openssh-server)');

let T: Awaited<ReturnType<Transport['start']>>;

/** The push URL of repository `name` for identity `who` (null: no identity). */
function url(who: string | null, name = 'srv.git'): string {
  return T.url(who, name);
}

/** A governed clone (intent init, the registry and authority.yaml committed on main). */
function humanRepo(dir: string, intents: typeof INTENTS): string {
  mkdirSync(dir);
  git(dir, 'init', '-q', '-b', 'main');
  writeFiles(dir, FILES);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'initial');
  const r = intent(dir, ['init']);
  expect(r.status, r.stderr).toBe(0);
  writeFiles(dir, { '.orchestration/active_intents.yaml': registryYaml(intents), '.orchestration/authority.yaml': AUTHORITY });
  git(dir, 'add', '.orchestration');
  git(dir, 'commit', '-q', '-m', 'register intents and agents');
  return dir;
}

/**
 * `git push` as `who`. `refs/notes/intents` in `refspecs` stands for this clone's notes as a push
 * that the server's refs can take: for an agent pushing an intent branch, what `intent push`
 * sends (that intent's notes ref, with this clone's records of the branch's new commits, on the
 * server's); otherwise this clone's notes tree as a fast-forward of the server's refs/notes/intents
 * (the server's post-receive writes that ref too, so the clone's own tip is behind it).
 */
function push(cwd: string, who: string | null, refspecs: string[], opts: { verify?: boolean; name?: string } = {}): Run {
  const bare = T.bare(opts.name ?? 'srv.git');
  const specs = refspecs.flatMap((x) => (x === 'refs/notes/intents' ? [notesFor(cwd, who, refspecs, bare)] : [x]));
  return run('git', ['push', ...(opts.verify ? [] : ['--no-verify']), url(who, opts.name), ...specs], cwd, T.env);
}

function notesFor(cwd: string, who: string | null, refspecs: string[], bare: string): string {
  const fetched = (ref: string, as: string) => {
    run('git', ['update-ref', '-d', as], cwd);
    return run('git', ['fetch', '-q', '--no-tags', bare, `+${ref}:${as}`], cwd).status === 0 ? sha(cwd, as) : null;
  };
  const branch = refspecs.map((x) => /^(.*):refs\/heads\/intent\/(.+)$/.exec(x) ?? /^()intent\/(.+)$/.exec(x)).find(Boolean);
  if (who && /^agent-/i.test(who) && branch) {
    const [, src, id] = branch;
    const parent = fetched(`refs/notes/intent/${id}`, 'refs/notes/test-server-own');
    const main = fetched('refs/heads/main', 'refs/test/server-main');
    const tip = src || `intent/${id}`;
    const commits = git(cwd, 'rev-list', tip, ...(main ? [`^${main}`] : [])).split('\n').filter(Boolean);
    const theirs = parent ? notesList(cwd, 'refs/notes/test-server-own') : new Map<string, string>();
    const mine = notesList(cwd, 'refs/notes/intents');
    const changes = commits.filter((c) => mine.has(c) && mine.get(c) !== theirs.get(c)).map((c): [string, string] => [c, mine.get(c)!]);
    return `${notesCommit(cwd, join(root, 'scratch'), parent, changes, 'as intent push sends them')}:refs/notes/intent/${id}`;
  }
  const parent = fetched('refs/notes/intents', 'refs/notes/test-server');
  const tree = sha(cwd, 'refs/notes/intents^{tree}');
  return `${git(cwd, 'commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', "this clone's notes").trim()}:refs/notes/intents`;
}

function notesList(cwd: string, ref: string): Map<string, string> {
  return new Map(git(cwd, 'notes', `--ref=${ref}`, 'list').split('\n').filter(Boolean).map((l) => l.split(' ').reverse() as [string, string]));
}

function sha(cwd: string, rev = 'HEAD'): string {
  return git(cwd, 'rev-parse', rev).trim();
}

/** A push the server refused, with `code` naming `commit`; the server's refs are unchanged. */
function expectRefused(r: Run, code: string, commit: string, bare = srv): void {
  if (process.env.SHOW_REFUSALS) console.log(r.stderr);
  expect(r.status, r.stderr).not.toBe(0);
  expect(r.stderr).toContain('pre-receive hook declined');
  expect(r.stderr).toMatch(new RegExp(`${code}\\s+${commit.slice(0, 12)}`));
  expect(git(bare, 'for-each-ref', '--format=%(refname) %(objectname)')).toBe(serverRefs);
}

function commit(wt: string, files: Record<string, string>, message: string, env: Record<string, string | undefined> = {}, flags: string[] = []): string {
  writeFiles(wt, files);
  git(wt, 'add', '-A');
  const r = run('git', [...flags, 'commit', '-q', '-m', message], wt, env);
  expect(r.status, r.stderr + r.stdout).toBe(0);
  return sha(wt);
}

/**
 * A commit recorded as post-commit records it, without the hook processes (the attacks below do
 * not depend on the local hooks; where they do, `commit` runs them for real).
 */
function commitFast(wt: string, files: Record<string, string>, message: string, id = 'INT-001'): string {
  const c = commit(wt, files, message, {}, NO_HOOKS);
  recordCommit(wt, process.env, { rev: c, intentId: id });
  return c;
}

/** `intent repair` in this process: records a hook-free commit's note, scope violations listed. */
function repaired(wt: string): void {
  expect(repair(wt).recorded.length).toBeGreaterThan(0);
}

/** Rewrites the note of `rev` (keeping it well-formed: the summary follows the record). */
function rewriteNote(cwd: string, rev: string, edit: (record: any) => void): void {
  const [, json] = git(cwd, 'notes', '--ref=intents', 'show', rev).split('\n');
  const record = JSON.parse(json);
  edit(record);
  run('git', ['notes', '--ref=intents', 'add', '-f', '-F', '-', rev], cwd, {}, `${summaryLine(record)}\n${JSON.stringify(record)}\n`);
}

let srv: string;
let repo: string;
let wt: string;
let serverRefs: string;
let mainTip: string;
let notesTip: string;
let governed: string;

for (const transport of TRANSPORTS) {
describe.skipIf(!transport.available)(`over ${transport.name}`, () => {
beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'intent-authority-')));
  T = await transport.start(root);
  srv = T.bare('srv.git');
  repo = humanRepo(join(root, 'repo'), INTENTS);
  expect(push(repo, 'alice', ['main']).status).toBe(0);
  wt = checkoutIntent(repo, 'INT-001');
  governed = commit(wt, { 'src/a.ts': 'a\nb\n' }, 'governed work');
  const p = push(wt, 'agent-1', ['intent/INT-001', 'refs/notes/intents'], { verify: true });
  expect(p.status, p.stderr).toBe(0);
  git(repo, 'merge', '-q', '--no-ff', '--no-edit', 'intent/INT-001');
  expect(push(repo, 'alice', ['main']).status).toBe(0);
  mainTip = sha(repo, 'main');
  notesTip = sha(repo, 'refs/notes/intents');
  serverRefs = git(srv, 'for-each-ref', '--format=%(refname) %(objectname)');
}, 120_000);

afterAll(() => {
  T?.stop();
  removeTree(root);
});

/**
 * Puts the agent's worktree, the notes and the branches back where the setup left them, so that
 * each test starts the same in any order: a rebase or merge a failed test left is undone, and the
 * branches a test made (intent/INT-002 by a checkout or `git branch -f`) are gone, or the next
 * checkout of that intent would start from them.
 */
function fresh(): void {
  for (const op of ['rebase', 'merge', 'cherry-pick']) run('git', [op, '--abort'], wt);
  git(repo, 'worktree', 'prune');
  const kept = ['main', 'intent/INT-001'];
  for (const b of git(repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/').split('\n')) {
    if (b && !kept.includes(b)) git(repo, 'branch', '-q', '-D', b);
  }
  git(wt, 'reset', '-q', '--hard', mainTip);
  git(wt, 'clean', '-qfd');
  git(repo, 'update-ref', 'refs/notes/intents', notesTip);
  git(repo, 'checkout', '-q', '-f', 'main');
  git(repo, 'reset', '-q', '--hard', mainTip);
}

describe('setup', () => {
  it('accepted the honest push of a governed commit, its notes and the merge into main', () => {
    expect(sha(srv, 'main')).toBe(mainTip);
    expect(sha(srv, 'intent/INT-001')).toBe(governed);
    // The server's post-receive copied the checked record into the ref every clone reads.
    expect(git(srv, 'notes', '--ref=intents', 'show', governed)).toBe(git(repo, 'notes', '--ref=intents', 'show', governed));
  });
});

describe('class 1: the identity is chosen by the agent', () => {
  it('a commit recorded under another intent (edited worktree record) arrives on intent/INT-001', () => {
    fresh();
    const c = commit(wt, { 'docs/x.md': 'x\nmine\n' }, 'as INT-002', {}, NO_HOOKS);
    recordCommit(wt, process.env, { rev: c, intentId: 'INT-002' }); // what the hooks record once intent-id says INT-002
    expectRefused(push(wt, 'agent-1', ['intent/INT-001', 'refs/notes/intents']), 'NOTE_INTENT_MISMATCH', c);
  });

  it('the branch renamed to another intent, or pushed under another name, is not the agent\'s to update', () => {
    fresh();
    const c = commitFast(wt, { 'src/a.ts': 'a\nc\n' }, 'honest work');
    expectRefused(push(wt, 'agent-1', ['HEAD:refs/heads/intent/INT-002', 'refs/notes/intents']), 'REF_NOT_ALLOWED', c);
    expectRefused(push(wt, 'agent-1', ['HEAD:refs/heads/feature/x']), 'REF_NOT_ALLOWED', c);
    expectRefused(push(wt, 'agent-1', ['HEAD:refs/heads/main']), 'REF_NOT_ALLOWED', c);
    expectRefused(push(wt, 'agent-1', ['HEAD:refs/tags/v1']), 'REF_NOT_ALLOWED', c);
  });

  it('INTENT_ID in a self-made detached worktree names another intent', () => {
    fresh();
    const other = join(root, 'self-made');
    git(repo, 'worktree', 'add', '-q', '--detach', other, mainTip);
    try {
      const c = commit(other, { 'docs/x.md': 'x\nself-made\n' }, 'INTENT_ID=INT-002', { INTENT_ID: 'INT-002' });
      expect(git(other, 'notes', '--ref=intents', 'show', c)).toContain('INT-002');
      expectRefused(push(other, 'agent-1', ['HEAD:refs/heads/intent/INT-001', 'refs/notes/intents']), 'NOTE_INTENT_MISMATCH', c);
    } finally {
      git(repo, 'worktree', 'remove', '--force', other);
    }
  });

  it("another intent's checkout, and a rebase onto its work", () => {
    fresh();
    const wt2 = checkoutIntent(repo, 'INT-002');
    try {
      const theirs = commitFast(wt2, { 'docs/x.md': 'x\nINT-002 work\n' }, 'INT-002 work', 'INT-002');
      commitFast(wt, { 'src/a.ts': 'a\nmine\n' }, 'INT-001 work');
      git(wt, 'rebase', '-q', 'intent/INT-002');
      expectRefused(push(wt, 'agent-1', ['intent/INT-001', 'refs/notes/intents']), 'NOTE_INTENT_MISMATCH', theirs);
    } finally {
      git(repo, 'worktree', 'remove', '--force', wt2);
    }
  });

  it('an agent\'s login in another case (the host takes AGENT-1 for agent-1) is still that agent, not a human', () => {
    fresh();
    const c = commitFast(wt, { 'src/a.ts': 'a\ncase\n' }, 'case');
    expectRefused(push(wt, 'AGENT-1', ['HEAD:refs/heads/main']), 'REF_NOT_ALLOWED', c);
    expectRefused(push(wt, 'Agent-1', ['HEAD:refs/heads/intent/INT-003', 'refs/notes/intents']), 'REF_NOT_ALLOWED', c);
  });

  it('a push without an identity, once agents are listed', (t) => {
    if (!T.anonymous) t.skip(); // ssh always authenticates: gitolite gives every push a GL_USER
    fresh();
    const c = commitFast(wt, { 'src/a.ts': 'a\nanon\n' }, 'anonymous');
    expectRefused(push(wt, null, ['intent/INT-001', 'refs/notes/intents']), 'IDENTITY_REQUIRED', c);
  });
});

describe('class 2: notes vouch for themselves', () => {
  it("a note rewritten to another intent and that intent's scope", () => {
    fresh();
    const c = commit(wt, { 'docs/x.md': 'x\nsneaky\n' }, 'hook-free', {}, NO_HOOKS);
    repaired(wt);
    rewriteNote(wt, c, (r) => {
      r.metadata['dev.intent'].intent_id = 'INT-002';
      r.metadata['dev.intent'].scope = ['docs/**'];
      r.metadata['dev.intent'].scope_violations = [];
    });
    const r = push(wt, 'agent-1', ['intent/INT-001', 'refs/notes/intents']);
    expectRefused(r, 'NOTE_INTENT_MISMATCH', c);
  });

  it('a note claiming a wider scope, given by a registry on a junk commit or an edited file', () => {
    fresh();
    // The junk registry travels in the same push; the note names its bytes and scope.
    writeFiles(wt, { '.orchestration/active_intents.yaml': registryYaml([{ id: 'INT-001', scope: ['src/**', 'docs/**'], status: 'IN_PROGRESS' }]) });
    const junk = commit(wt, {}, 'junk registry', {}, NO_HOOKS);
    const c = commit(wt, { 'docs/x.md': 'x\nwider\n' }, 'out of scope', {}, NO_HOOKS);
    repaired(wt);
    rewriteNote(wt, c, (r) => {
      r.metadata['dev.intent'].scope = ['src/**', 'docs/**'];
      r.metadata['dev.intent'].scope_violations = [];
    });
    const r = push(wt, 'agent-1', ['intent/INT-001', 'refs/notes/intents']);
    expectRefused(r, 'SCOPE_VIOLATION', c);
    expect(r.stderr).toMatch(new RegExp(`SCOPE_NOT_IN_REGISTRY\\s+${c.slice(0, 12)}`));
    expect(r.stderr).toMatch(new RegExp(`SCOPE_VIOLATION\\s+${junk.slice(0, 12)}`)); // .orchestration/ is never agent work

    // The main worktree's registry edited on disk: the hooks pass, the note records the wider scope.
    fresh();
    const file = join(repo, '.orchestration', 'active_intents.yaml');
    const before = readFileSync(file, 'utf8');
    writeFileSync(file, before.replace('["src/**"]', '["src/**","docs/**"]'));
    try {
      const d = commit(wt, { 'docs/x.md': 'x\nedited registry\n' }, 'within the edited scope');
      expectRefused(push(wt, 'agent-1', ['intent/INT-001', 'refs/notes/intents']), 'SCOPE_VIOLATION', d);
    } finally {
      writeFileSync(file, before);
    }
  });

  it('an intent that is not IN_PROGRESS on the base branch, whatever the local registry says', () => {
    fresh();
    const wt3 = checkoutIntent(repo, 'INT-003'); // the local registry now says IN_PROGRESS
    try {
      const c = commitFast(wt3, { 'lib/l.ts': 'l\nmore\n' }, 'INT-003 work', 'INT-003');
      expectRefused(push(wt3, 'agent-3', ['intent/INT-003', 'refs/notes/intents']), 'INTENT_NOT_ACTIVE', c);
    } finally {
      git(repo, 'worktree', 'remove', '--force', wt3);
      git(repo, 'checkout', '-q', '--', '.orchestration/active_intents.yaml');
    }
  });

  it('a self-approval (agent variables unset) widens only the local registry', () => {
    fresh();
    const req = intent(wt, ['expand', 'INT-001', 'docs/**', '--reason', 'need docs', '--json']);
    expect(req.status, req.stderr).toBe(0);
    const id = JSON.parse(req.stdout).id as string;
    const ok = intent(repo, ['approve', id], { INTENT_AGENT: undefined, CLAUDECODE: undefined });
    expect(ok.status, ok.stderr).toBe(0);
    try {
      const c = commit(wt, { 'docs/x.md': 'x\nself-approved\n' }, 'after self-approval');
      expectRefused(push(wt, 'agent-1', ['intent/INT-001', 'refs/notes/intents']), 'SCOPE_VIOLATION', c);
    } finally {
      git(repo, 'checkout', '-q', '--', '.orchestration/active_intents.yaml');
    }
  });

  it('a note with a second record (as a notes merge makes) for another intent', () => {
    fresh();
    const c = commitFast(wt, { 'src/a.ts': 'a\ntwo records\n' }, 'honest commit, extra record');
    const honest = git(wt, 'notes', '--ref=intents', 'show', c);
    const other = JSON.parse(honest.split('\n')[1]);
    other.id = 'ffffffff-ffff-4fff-bfff-ffffffffffff';
    other.timestamp = '2999-01-01T00:00:00Z'; // not the record readers would choose: only checking every record finds it
    other.metadata['dev.intent'].intent_id = 'INT-002';
    run('git', ['notes', '--ref=intents', 'add', '-f', '-F', '-', c], wt, {}, `${honest}${summaryLine(other)}\n${JSON.stringify(other)}\n`);
    expectRefused(push(wt, 'agent-1', ['intent/INT-001', 'refs/notes/intents']), 'NOTE_INTENT_MISMATCH', c);
  });

  it('a note whose hashes do not match the committed lines', () => {
    fresh();
    const c = commitFast(wt, { 'src/a.ts': 'a\nforged\n' }, 'honest commit, forged note');
    rewriteNote(wt, c, (r) => {
      r.files[0].conversations[0].ranges[0].content_hash = `sha256:${'0'.repeat(64)}`;
    });
    expectRefused(push(wt, 'agent-1', ['intent/INT-001', 'refs/notes/intents']), 'HASH_MISMATCH', c);
  });
});

describe('class 3: "governed" decided by reachability', () => {
  it('a hook-free commit without a note on the intent branch', () => {
    fresh();
    const c = commit(wt, { 'src/a.ts': 'a\nno note\n' }, 'hook-free', {}, NO_HOOKS);
    expectRefused(push(wt, 'agent-1', ['intent/INT-001', 'refs/notes/intents']), 'NOTE_MISSING', c);
  });

  it('a governed commit brought by another branch, pushed by a human', () => {
    fresh();
    const c = commit(wt, { 'docs/x.md': 'x\nvia feature\n' }, 'hook-free', {}, NO_HOOKS);
    repaired(wt);
    expectRefused(push(wt, 'alice', ['HEAD:refs/heads/feature/y', 'refs/notes/intents']), 'SCOPE_VIOLATION', c);
    // A commit that says Intent-Id: but has no note is governed wherever it arrives.
    fresh();
    const t = commit(wt, { 'src/a.ts': 'a\ntrailer\n' }, 'work\n\nIntent-Id: INT-001', {}, NO_HOOKS);
    expectRefused(push(wt, 'alice', ['HEAD:refs/heads/feature/z']), 'NOTE_MISSING', t);
  });

  it('a hook-free commit merged into main by the human and pushed with main', () => {
    fresh();
    const c = commit(wt, { 'docs/x.md': 'x\nmerged\n' }, 'hook-free', {}, NO_HOOKS);
    repaired(wt);
    git(repo, 'merge', '-q', '--no-ff', '--no-edit', 'intent/INT-001');
    expectRefused(push(repo, 'alice', ['main', 'refs/notes/intents']), 'SCOPE_VIOLATION', c);
  });

  it('a commit kept on another intent branch, pushed along by the agent', () => {
    fresh();
    const c = commit(wt, { 'src/a.ts': 'a\nkept\n' }, 'kept elsewhere', {}, NO_HOOKS);
    git(wt, 'branch', '-f', 'intent/INT-002', c);
    git(wt, 'reset', '-q', '--hard', mainTip);
    const ok = commitFast(wt, { 'src/a.ts': 'a\nhonest\n' }, 'honest');
    const r = push(wt, 'agent-1', ['intent/INT-001', 'intent/INT-002', 'refs/notes/intents']);
    expectRefused(r, 'REF_NOT_ALLOWED', c);
    expect(r.stderr).not.toMatch(new RegExp(`\\s${ok.slice(0, 12)}`));
  });
});

describe('class 4: the server accepts history and notes it never checked', () => {
  it('deleting or force-pushing refs/notes/intents', () => {
    fresh();
    expectRefused(push(repo, 'alice', [':refs/notes/intents']), 'NOTES_DELETED', sha(srv, 'refs/notes/intents'));
    const tree = sha(repo, 'refs/notes/intents^{tree}');
    const orphan = git(repo, 'commit-tree', tree, '-m', 'rewritten notes').trim();
    git(repo, 'update-ref', 'refs/notes/intents', orphan);
    expectRefused(push(repo, 'alice', ['+refs/notes/intents']), 'NOTES_NOT_FAST_FORWARD', orphan);
    expectRefused(push(repo, 'agent-1', ['+refs/notes/intents']), 'NOTES_NOT_FAST_FORWARD', orphan);
  });

  it('a force-push rewriting main, or deleting it', () => {
    fresh();
    const rewritten = git(repo, 'commit-tree', sha(repo, 'main^{tree}'), '-p', sha(repo, 'main~1'), '-m', 'rewritten').trim();
    expectRefused(push(repo, 'alice', [`+${rewritten}:refs/heads/main`]), 'NOT_FAST_FORWARD', rewritten);
    expectRefused(push(repo, 'alice', [':refs/heads/main']), 'PROTECTED_DELETED', mainTip);
  });

  it('a note of a commit on main changed, removed or added after the fact', () => {
    fresh();
    rewriteNote(repo, governed, (r) => { r.metadata['dev.intent'].intent_name = 'renamed'; });
    expectRefused(push(repo, 'alice', ['refs/notes/intents']), 'NOTE_REWRITTEN', governed);
    fresh();
    git(repo, 'notes', '--ref=intents', 'remove', governed);
    expectRefused(push(repo, 'alice', ['refs/notes/intents']), 'NOTE_REWRITTEN', governed);
    fresh();
    const human = sha(repo, 'main^1'); // the registry commit: a human's, without a note
    git(repo, 'notes', '--ref=intents', 'add', '-m', 'INT-001 forged\n{}', human);
    expectRefused(push(repo, 'agent-1', ['refs/notes/intents']), 'NOTE_REWRITTEN', human);
  });
});

describe('class 5: local state is the agent\'s to edit', () => {
  it(".intentignore in the main worktree edited to exempt the agent's target", () => {
    fresh();
    const file = join(repo, '.orchestration', '.intentignore');
    writeFileSync(file, 'docs/**\n');
    try {
      const c = commit(wt, { 'docs/x.md': 'x\nignored locally\n' }, 'exempt by local .intentignore');
      expectRefused(push(wt, 'agent-1', ['intent/INT-001', 'refs/notes/intents']), 'SCOPE_VIOLATION', c);
    } finally {
      rmSync(file, { force: true });
    }
  });

  it('hooks switched off in the shared .git/config', () => {
    fresh();
    const hooks = git(wt, 'config', '--worktree', 'core.hooksPath').trim();
    git(wt, 'config', '--worktree', 'core.hooksPath', '/dev/null');
    try {
      const c = commit(wt, { 'docs/x.md': 'x\nno hooks\n' }, 'hooks off');
      expectRefused(push(wt, 'agent-1', ['intent/INT-001', 'refs/notes/intents']), 'NOTE_MISSING', c);
    } finally {
      git(wt, 'config', '--worktree', 'core.hooksPath', hooks);
    }
  });

  it('authority.yaml planted in the main worktree (or pushed) grants nothing', () => {
    fresh();
    const file = join(repo, '.orchestration', 'authority.yaml');
    writeFileSync(file, 'agents:\n  agent-1: ["*"]\n');
    try {
      const c = commitFast(wt, { 'src/a.ts': 'a\nplanted\n' }, 'work');
      expectRefused(push(wt, 'agent-1', ['HEAD:refs/heads/intent/INT-002', 'refs/notes/intents']), 'REF_NOT_ALLOWED', c);
    } finally {
      git(repo, 'checkout', '-q', '--', '.orchestration/authority.yaml');
    }
  });
});

describe('the CI job (templates/ci/intent-gate.yml and the action it uses) on a pull request range', () => {
  // A host without pre-receive hooks (GitHub): the PR branch and notes get there unchecked.
  const gh = () => join(root, 'gh.git');
  const ci = () => join(root, 'ci');
  /** The workflow on a pull_request_target event (or, for main, a push event), as GitHub runs it. */
  function runCi(head: string, headRef: string, actor: string, author: string = actor): Run {
    git(repo, 'push', '-q', '--no-verify', '-f', gh(), `${head}:refs/heads/${headRef}`, `${head}:refs/pull/7/head`, '+refs/notes/intents');
    // What actions/checkout (fetch-depth: 0) gives the job: the base, or the pushed commit.
    git(ci(), 'fetch', '-q', '--no-tags', '-f', 'origin', '+refs/heads/*:refs/remotes/origin/*');
    if (headRef === 'main') {
      git(ci(), 'checkout', '-q', '--detach', head);
      return runGateAction(ci(), { name: 'push', before: mainTip, after: head, ref: 'refs/heads/main' }, actor, author);
    }
    git(ci(), 'checkout', '-q', '--detach', mainTip);
    return runGateAction(ci(), { name: 'pull_request_target', number: 7, base: mainTip, head, headRef }, actor, author);
  }

  it('passes an honest pull request and refuses each class with the finding', () => {
    fresh();
    git(root, 'clone', '-q', '--bare', srv, gh());
    git(root, 'clone', '-q', gh(), ci());
    const honest = commitFast(wt, { 'src/a.ts': 'a\nci honest\n' }, 'honest');
    const ok = runCi(honest, 'intent/INT-001', 'agent-1');
    expect(ok.status, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toContain('accepted');

    const ren = runCi(honest, 'intent/INT-002', 'agent-1'); // class 1
    expect(ren.status).toBe(1);
    expect(ren.stdout).toMatch(new RegExp(`REF_NOT_ALLOWED\\s+${honest.slice(0, 12)}`));
    // A human re-running the check (edit, reopen, "Update branch") does not make the agent's pull request a human's.
    const rerun = runCi(honest, 'intent/INT-002', 'alice', 'agent-1');
    expect(rerun.status).toBe(1);
    expect(rerun.stdout).toMatch(new RegExp(`REF_NOT_ALLOWED\\s+${honest.slice(0, 12)}`));

    const c = commit(wt, { 'docs/x.md': 'x\nci sneaky\n' }, 'hook-free', {}, NO_HOOKS); // class 3
    const missing = runCi(c, 'intent/INT-001', 'agent-1');
    expect(missing.stdout).toMatch(new RegExp(`NOTE_MISSING\\s+${c.slice(0, 12)}`));
    repaired(wt);
    rewriteNote(wt, c, (r) => { r.metadata['dev.intent'].scope = ['src/**', 'docs/**']; r.metadata['dev.intent'].scope_violations = []; });
    const scope = runCi(c, 'intent/INT-001', 'agent-1'); // class 2
    expect(scope.status).toBe(1);
    expect(scope.stdout).toMatch(new RegExp(`SCOPE_VIOLATION\\s+${c.slice(0, 12)}`));

    fresh(); // class 5: the main worktree's .intentignore exempts the path; the hooks pass
    const ignore = join(repo, '.orchestration', '.intentignore');
    writeFileSync(ignore, 'docs/**\n');
    try {
      const d = commit(wt, { 'docs/x.md': 'x\nci ignored\n' }, 'exempt locally');
      expect(runCi(d, 'intent/INT-001', 'agent-1').stdout).toMatch(new RegExp(`SCOPE_VIOLATION\\s+${d.slice(0, 12)}`));
    } finally {
      rmSync(ignore, { force: true });
    }

    // class 4: a push event on main that rewrites it (base: main before the push)
    const rewritten = git(repo, 'commit-tree', sha(repo, 'main^{tree}'), '-p', sha(repo, 'main~1'), '-m', 'rewritten').trim();
    const force = runCi(rewritten, 'main', 'alice');
    expect(force.status).toBe(1);
    expect(force.stdout).toMatch(new RegExp(`NOT_FAST_FORWARD\\s+${rewritten.slice(0, 12)}`));
  });
});

describe('the honest flow on a fresh server', () => {
  it('checkout → commits → push → approve → push main → done --merge → push is accepted unchanged', () => {
    const bare = T.bare('honest.git');
    const h = humanRepo(join(root, 'honest'), [{ id: 'INT-001', scope: ['src/**'], status: 'PENDING' }]);
    if (T.env.GIT_SSH_COMMAND) git(h, 'config', 'core.sshCommand', T.env.GIT_SSH_COMMAND);
    git(h, 'remote', 'add', 'origin', url('alice', 'honest.git'));
    git(h, 'remote', 'add', 'agent', url('agent-1', 'honest.git'));
    const ok = (r: Run) => expect(r.status, r.stderr).toBe(0);
    ok(run('git', ['push', 'origin', 'main'], h));
    const w = checkoutIntent(h, 'INT-001');
    git(h, 'commit', '-q', '-am', 'INT-001 in progress');
    ok(run('git', ['push', 'origin', 'main'], h));
    commit(w, { 'src/a.ts': 'a\none\n' }, 'one');
    commit(w, { 'src/b.ts': 'b\n' }, 'two');
    ok(intent(w, ['push', 'agent']));
    const req = JSON.parse(intent(w, ['expand', 'INT-001', 'docs/**', '--reason', 'docs', '--json']).stdout).id as string;
    ok(intent(h, ['approve', req]));
    git(h, 'commit', '-q', '-am', 'approve docs for INT-001');
    ok(run('git', ['push', 'origin', 'main'], h));
    commit(w, { 'docs/x.md': 'x\ndocumented\n' }, 'three');
    ok(intent(w, ['push', 'agent']));
    ok(intent(h, ['done', 'INT-001', '--merge']));
    git(h, 'commit', '-q', '-am', 'INT-001 completed');
    ok(intent(h, ['push', 'origin']));
    expect(sha(bare, 'main')).toBe(sha(h, 'main'));
    expect(sha(bare, 'intent/INT-001')).toBe(sha(h, 'intent/INT-001'));
    // Every record main's history has here, the server has, byte for byte.
    const onMain = git(h, 'rev-list', 'main').split('\n').filter(Boolean);
    const mine = onMain.filter((c) => run('git', ['notes', '--ref=intents', 'list', c], h).status === 0);
    expect(mine.length).toBe(3);
    for (const c of mine) expect(git(bare, 'notes', '--ref=intents', 'show', c), c).toBe(git(h, 'notes', '--ref=intents', 'show', c));
  });
});
});
}
