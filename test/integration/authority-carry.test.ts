// What the gate accepts beyond append-only notes (docs/merge-buttons-and-push.md, "What the gate
// must accept"): a carried record added for a commit a merge button already put on main, and the
// per-intent notes refs refs/notes/intent/<ID>. Every push goes over a real transport (git
// http-backend behind an authenticating front, test/git-server.ts) to a server running
// templates/server/pre-receive, is tried first through the local pre-push hook (`git push
// --dry-run`), and, when it updates a code ref, judged in CI mode on the same range.
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFile } from '../../lib/agents/adapter.js';
import { checkoutIntent, git, intent, registryYaml, removeTree, run, writeFiles } from '../helpers.js';
import { notesSpec, serverRepo, startGitServer, verdict, type Verdict } from '../git-server.js';
import { gitoliteAvailable, startGitolite } from '../gitolite-server.js';

const MODEL = 'anthropic/claude-sonnet-4-5';
const INTENTS = [
  { id: 'INT-001', name: 'Auth', scope: ['src/**'], status: 'IN_PROGRESS' },
  { id: 'INT-002', name: 'Docs', scope: ['docs/**'], status: 'IN_PROGRESS' },
];
const AUTHORITY = 'agents:\n  agent-1: ["INT-001"]\n  agent-2: ["INT-002"]\nhumans: ["alice", "ci-bot"]\n';
const HOST = ['-c', 'core.hooksPath=/dev/null', '-c', 'user.name=Host', '-c', 'user.email=host@example.com'];

let root: string;
/** The server this round of the file runs over (git http-backend, or gitolite3 over ssh). */
let server: { url(who: string, name: string): string; stop(): void };
/** `git clone` of `url` into `dir`, with the transport's ssh command kept in the clone. */
let cloneFrom: (url: string, dir: string) => void;

interface Transport {
  name: string;
  available: boolean;
  start(dir: string): Promise<{ url(who: string, name: string): string; bare: string; sshCommand: string | null; stop(): void }>;
}
const TRANSPORTS: Transport[] = [
  {
    name: 'git http-backend (REMOTE_USER)', available: true,
    start: async (dir) => {
      const s = await startGitServer(dir);
      return { url: (who, name) => s.url(who, name), bare: serverRepo(dir, 'carry.git'), sshCommand: null, stop: () => s.stop() };
    },
  },
  {
    name: 'gitolite3 over ssh (GL_USER)', available: gitoliteAvailable(),
    start: async (dir) => {
      const g = await startGitolite(dir, ['alice', 'ci-bot', 'agent-1', 'agent-2'], ['carry']);
      return { url: (who, name) => g.url(who, name.replace(/\.git$/, '')), bare: g.repo('carry'), sshCommand: g.env.GIT_SSH_COMMAND, stop: () => g.stop() };
    },
  },
];
if (process.env.CI && !gitoliteAvailable()) throw new Error('gitolite3 and sshd are missing: .ci/run installs them (apt-get install gitolite3 openssh-server)');
let srv: string;
let repo: string;
let wt: string;

function sha(cwd: string, rev = 'HEAD'): string {
  return git(cwd, 'rev-parse', rev).trim();
}

function serverSha(ref: string): string | null {
  const r = run('git', ['rev-parse', '--verify', '-q', ref], srv);
  return r.status === 0 ? r.stdout.trim() : null;
}

/** The pre-push hook's verdict (a dry run with the hooks), then the server's (the real push, no client hooks). */
function push(cwd: string, who: string, specs: string[]): { local: Verdict; server: Verdict } {
  git(cwd, 'fetch', '-q', '--no-tags', who, `+refs/heads/*:refs/remotes/${who}/*`, `+refs/notes/*:refs/notes/remotes/${who}/*`);
  const local = verdict(run('git', ['push', '--dry-run', who, ...specs], cwd));
  const before = git(srv, 'for-each-ref', '--format=%(refname) %(objectname)');
  const server = verdict(run('git', ['push', '--no-verify', who, ...specs], cwd));
  if (!server.ok) expect(git(srv, 'for-each-ref', '--format=%(refname) %(objectname)'), 'a refused push changes no ref').toBe(before);
  return { local, server };
}

/** CI mode on one code ref's range, its notes read from `notes`. */
function ci(cwd: string, who: string, ref: string, tip: string, notes: string): Verdict {
  const old = serverSha(ref);
  return verdict(intent(cwd, ['gate', '--base', serverSha('refs/heads/main')!, '--ref', ref, ...(old ? ['--old', old] : []), '--new', tip, '--pusher', who, '--notes', notes]));
}

function show(v: Record<string, Verdict | null>): string {
  return Object.entries(v).map(([k, x]) => `${k}: ${x?.text ?? '-'}`).join('\n');
}

function expectOk(v: Record<string, Verdict | null>): void {
  for (const [t, x] of Object.entries(v)) if (x) expect(x.ok, `${t} accepted\n${show(v)}`).toBe(true);
}

function expectRefused(v: Record<string, Verdict | null>, code: string, tiers: string[]): void {
  for (const t of tiers) {
    const x = v[t];
    expect(x, `${t} ran`).toBeTruthy();
    expect(x!.ok, `${t} refused\n${show(v)}`).toBe(false);
    expect(x!.codes, `${t} names ${code}\n${show(v)}`).toContain(code);
  }
  expect(v.server!.text).toContain('pre-receive hook declined');
  expect(v.server!.text, 'each refusal says what to do next').toMatch(new RegExp(`${code}[^\\n]*\\n[^\\n]*next: `));
}

function agentCommit(path: string, content: string, message: string): string {
  writeFile({ worktree: wt, path, content, tool: 'write_to_file', modelId: MODEL, conversationUrl: 'roo-code://task/t1' });
  git(wt, 'commit', '-q', '-m', message);
  return sha(wt);
}

function humanCommit(files: Record<string, string>, message: string): string {
  writeFiles(wt, files);
  git(wt, 'add', '-A');
  git(wt, 'commit', '-q', '-m', message);
  return sha(wt);
}

/** A notes commit on `parent` (or none) adding `text` as the note of `commit`, at refs/notes/scratch. */
function notesWith(cwd: string, parent: string | null, commit: string, text: string): string {
  run('git', ['update-ref', '-d', 'refs/notes/scratch'], cwd);
  if (parent) git(cwd, 'update-ref', 'refs/notes/scratch', parent);
  const file = join(root, 'note.txt');
  writeFileSync(file, text);
  git(cwd, 'notes', '--ref=refs/notes/scratch', 'add', '-f', '-F', file, commit);
  return sha(cwd, 'refs/notes/scratch');
}

/** The note's summary lines and its records (parsed). */
function splitNote(text: string): { summary: string[]; records: any[] } {
  const lines = text.split('\n').filter((l) => l.trim());
  return { summary: lines.filter((l) => !l.startsWith('{')), records: lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)) };
}

function joinNote(n: { summary: string[]; records: any[] }): string {
  return [...n.summary, ...n.records.map((r) => JSON.stringify(r))].join('\n') + '\n';
}

for (const transport of TRANSPORTS) {
describe.skipIf(!transport.available)(`over ${transport.name}`, { shuffle: false }, () => {
beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'intent-auth-carry-')));
  const t = await transport.start(root);
  server = t;
  srv = t.bare;
  cloneFrom = (url, dir) => {
    git(root, ...(t.sshCommand ? ['-c', `core.sshCommand=${t.sshCommand}`] : []), 'clone', '-q', url, dir);
    if (t.sshCommand) git(dir, 'config', 'core.sshCommand', t.sshCommand);
  };
  // Built here, not from the per-test templates: every case of this file works on one history.
  repo = join(root, 'repo');
  mkdirSync(repo);
  git(repo, 'init', '-q', '-b', 'main');
  if (t.sshCommand) git(repo, 'config', 'core.sshCommand', t.sshCommand);
  writeFiles(repo, { 'README.md': '# carry\n', 'src/a.ts': 'a\n', 'docs/x.md': 'x\n' });
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'initial');
  expect(intent(repo, ['init']).status).toBe(0);
  writeFiles(repo, { '.orchestration/active_intents.yaml': registryYaml(INTENTS), '.orchestration/authority.yaml': AUTHORITY });
  git(repo, 'add', '.orchestration');
  git(repo, 'commit', '-q', '-m', 'register intents and agents');
  for (const who of ['alice', 'ci-bot', 'agent-1', 'agent-2']) git(repo, 'remote', 'add', who, server.url(who, 'carry.git'));
  expect(run('git', ['push', '--no-verify', 'alice', 'main'], repo).status).toBe(0);
  wt = checkoutIntent(repo, 'INT-001');
}, 120_000);

afterAll(() => {
  server?.stop();
  if (root) removeTree(root);
});

// One history, in order: each case pushes onto what the cases before it left on the server (the
// setup's squash and notes, the honest carried note, the per-intent ref's tip), as a repository's
// life goes. The order is the scenario, so it is kept under --sequence.shuffle.
describe('one history of carried records and per-intent notes refs', { shuffle: false }, () => {
  describe('a carried record for a commit a merge button already put on main', () => {
    let squash: string;
    let from: string[];
    let honest: string; // the notes commit with the honest carried note
    let serverNotes: string; // the server's notes before it

    it('setup: the agent pushes its branch with notes; the host squashes it onto main without a note', () => {
      const c1 = agentCommit('src/a.ts', 'a\nm1\nm2\n', 'model writes');
      const c2 = humanCommit({ 'src/a.ts': 'a\nm1\nm2\nh1\n' }, 'human adds h1');
      from = [c1, c2];
      expectOk(push(wt, 'agent-1', ['intent/INT-001', ...notesSpec(wt, 'agent-1')]));
      git(repo, ...HOST, 'merge', '-q', '--squash', 'intent/INT-001');
      git(repo, ...HOST, 'commit', '-q', '-m', 'Auth (#1)');
      squash = sha(repo, 'main');
      // The host deletes the merged branch with the same push: the server's post-receive has no
      // branch to carry from, so the record is carried by hand here (or by CI, below).
      expectOk(push(repo, 'alice', ['main', ':refs/heads/intent/INT-001']));
      serverNotes = serverSha('refs/notes/intents')!;
      expect(run('git', ['notes', '--ref=intents', 'show', squash], srv).status, 'main has no note yet').not.toBe(0);
      expect(run('git', ['notes', '--ref=intents', 'show', c1], srv).status, "the fold copied the source's record").toBe(0);
      const out = JSON.parse(intent(repo, ['carry', 'main', '--from', ...from, '--json']).stdout);
      expect(out.commits[0]).toMatchObject({ commit: squash, shape: 'squash', status: 'carried', intent: 'INT-001' });
      // What intent push from main sends: the server's notes and the carried record.
      [honest] = notesSpec(repo, 'alice').map((x) => x.split(':')[0]);
      expect(git(repo, 'rev-parse', `${honest}^`).trim()).toBe(serverNotes);
    });

    it("issue 39's first attack: another agent rewrites or removes the squashed branch's source record; no ref it may write takes it", () => {
      const c1 = from[0];
      const honestNote = git(repo, 'notes', '--ref=intents', 'show', c1);
      const forged = honestNote.replaceAll(MODEL, 'forged/model');
      expect(forged).not.toBe(honestNote);
      const other = join(root, 'agent-2-clone');
      cloneFrom(server.url('agent-2', 'carry.git'), other);
      git(other, 'remote', 'add', 'agent-2', server.url('agent-2', 'carry.git'));
      expect(intent(other, ['init']).status).toBe(0);
      git(other, 'fetch', '-q', 'origin', '+refs/notes/*:refs/notes/*');
      // On refs/notes/intents (the record carry reads), removed there, or on INT-001's own ref: not agent-2's to write.
      const onShared = notesWith(other, serverSha('refs/notes/intents'), c1, forged);
      expectRefused(push(other, 'agent-2', [`${onShared}:refs/notes/intents`]), 'REF_NOT_ALLOWED', ['server']);
      git(other, 'update-ref', 'refs/notes/scratch', serverSha('refs/notes/intents')!);
      git(other, 'notes', '--ref=refs/notes/scratch', 'remove', c1);
      expectRefused(push(other, 'agent-2', [`${sha(other, 'refs/notes/scratch')}:refs/notes/intents`]), 'REF_NOT_ALLOWED', ['server']);
      const onTheirs = notesWith(other, serverSha('refs/notes/intent/INT-001'), c1, forged);
      expectRefused(push(other, 'agent-2', [`${onTheirs}:refs/notes/intent/INT-001`]), 'REF_NOT_ALLOWED', ['server']);
      // On its own ref: intent/INT-002 does not reach the squashed commit (nor exists).
      const onOwn = notesWith(other, null, c1, forged);
      expectRefused(push(other, 'agent-2', [`${onOwn}:refs/notes/intent/INT-002`]), 'NOTE_NOT_ON_BRANCH', ['local', 'server']);
      // The record carry re-derives main's from is still the honest one.
      expect(git(srv, 'notes', '--ref=intents', 'show', c1)).toBe(honestNote);
    });

    it('an agent identity pushing it is refused (the server knows who pushes; the pre-push hook cannot)', () => {
      const v = push(repo, 'agent-1', [`${honest}:refs/notes/intents`]);
      expect(v.local.ok, v.local.text).toBe(true);
      expectRefused(v, 'REF_NOT_ALLOWED', ['server']);
      expect(v.server.text).toContain('agent agent-1 may not update refs/notes/intents');
    });

    it('a forged carried note crediting a human line to the model is refused', () => {
      const n = splitNote(git(repo, 'notes', '--ref=intents', 'show', squash));
      const file = n.records[0].files.find((f: any) => f.path === 'src/a.ts');
      const ai = file.conversations.find((c: any) => c.contributor.type === 'ai');
      const human = file.conversations.find((c: any) => c.contributor.type === 'human');
      expect(ai && human, JSON.stringify(file)).toBeTruthy();
      ai.ranges.push(...human.ranges);
      file.conversations = file.conversations.filter((c: any) => c !== human);
      const forged = notesWith(repo, serverNotes, squash, joinNote(n));
      const v = push(repo, 'alice', [`${forged}:refs/notes/intents`]);
      expectRefused(v, 'CARRY_MISMATCH', ['local', 'server']);
      expect(v.server.text).toContain(`credited to ${MODEL}`);
    });

    it('a forged carried note naming another intent is refused', () => {
      const n = splitNote(git(repo, 'notes', '--ref=intents', 'show', squash));
      n.records[0].metadata['dev.intent'].intent_id = 'INT-002';
      const v = push(repo, 'alice', [`${notesWith(repo, serverNotes, squash, joinNote(n))}:refs/notes/intents`]);
      expectRefused(v, 'CARRY_MISMATCH', ['local', 'server']);
      expect(v.server.text).toContain('its record names INT-002, its sources INT-001');
    });

    it('a note that is not carried is still refused for protected history', () => {
      const n = splitNote(git(repo, 'notes', '--ref=intents', 'show', squash));
      delete n.records[0].metadata['dev.intent'].carried;
      const v = push(repo, 'alice', [`${notesWith(repo, serverNotes, squash, joinNote(n))}:refs/notes/intents`]);
      expectRefused(v, 'NOTE_REWRITTEN', ['local', 'server']);
    });

    it('the honest carried note from a human is accepted; changing it afterwards is refused', () => {
      expectOk(push(repo, 'alice', [`${honest}:refs/notes/intents`]));
      expect(run('git', ['notes', '--ref=intents', 'show', squash], srv).stdout).toContain('carried (squash)');
      const n = splitNote(git(repo, 'notes', '--ref=intents', 'show', squash));
      n.summary = n.summary.map((l) => `${l} (edited)`);
      const v = push(repo, 'alice', [`${notesWith(repo, honest, squash, joinNote(n))}:refs/notes/intents`]);
      expectRefused(v, 'NOTE_REWRITTEN', ['local', 'server']);
    });

    it("CI's own carry (the intent-carry template's steps, under a CI identity) is accepted", () => {
      git(wt, 'reset', '-q', '--hard', 'main'); // the next pull request starts from main
      const c3 = agentCommit('src/b.ts', 'b1\nb2\n', 'model adds b');
      expectOk(push(wt, 'agent-1', ['+intent/INT-001', ...notesSpec(wt, 'agent-1')]));
      git(repo, ...HOST, 'merge', '-q', '--squash', 'intent/INT-001');
      git(repo, ...HOST, 'commit', '-q', '-m', 'Auth b (#2)');
      // As a host keeps it: the pull request's head under refs/pull/, the branch deleted on merge.
      expectOk(push(repo, 'alice', ['main', ':refs/heads/intent/INT-001', `${c3}:refs/pull/2/head`]));
      // The CI job: a fresh clone of the server, carry with the pull request's head, push the notes.
      const job = join(root, 'ci-job');
      cloneFrom(server.url('ci-bot', 'carry.git'), job);
      git(job, 'config', 'user.name', 'intent carry');
      git(job, 'config', 'user.email', 'intent-carry@example.com');
      git(job, 'fetch', '-q', 'origin', '+refs/notes/intents:refs/notes/intents', 'refs/pull/2/head');
      const out = intent(job, ['carry', 'main', '--pr-head', c3, '--json']);
      expect(out.status, out.stderr + out.stdout).toBe(0);
      expect(JSON.parse(out.stdout).commits[0]).toMatchObject({ status: 'carried', intent: 'INT-001' });
      const r = run('git', ['push', '--no-verify', 'origin', 'refs/notes/intents'], job);
      expect(r.status, r.stderr).toBe(0);
      expect(run('git', ['notes', '--ref=intents', 'show', sha(job, 'origin/main')], srv).stdout).toContain('carried (squash)');
    });
  });

  describe('per-intent notes refs refs/notes/intent/<ID>', () => {
    let pi: string; // the per-intent notes commit on the server

    it("an agent's honest push of its branch with its own per-intent ref is accepted; the commits' notes are read from it", () => {
      const c = agentCommit('src/c.ts', 'c1\n', 'model adds c');
      const before = serverSha('refs/notes/intents');
      [pi] = notesSpec(wt, 'agent-1').map((x) => x.split(':')[0]);
      const v = { ...push(wt, 'agent-1', ['+intent/INT-001', `${pi}:refs/notes/intent/INT-001`]), ci: ci(wt, 'agent-1', 'refs/heads/intent/INT-001', c, pi) };
      expectOk(v);
      expect(serverSha('refs/notes/intent/INT-001')).toBe(pi);
      // c's note reached the server on the per-intent ref; the server's post-receive copied it.
      expect(serverSha('refs/notes/intents')).not.toBe(before);
      expect(run('git', ['notes', '--ref=intents', 'show', c], srv).stdout).toContain('INT-001');
    });

    it("an agent may not update another intent's per-intent ref", () => {
      const v = push(wt, 'agent-1', [`${pi}:refs/notes/intent/INT-002`]);
      expectRefused(v, 'REF_NOT_ALLOWED', ['server']);
      expect(v.server.text).toContain('refs/notes/intent/INT-001');
    });

    it('a per-intent ref may not be deleted or moved back', () => {
      expectRefused(push(repo, 'alice', ['--delete', 'refs/notes/intent/INT-001']), 'NOTES_DELETED', ['local', 'server']);
      const tip = serverSha('refs/notes/intent/INT-001')!;
      const other = git(wt, 'commit-tree', `${tip}^{tree}`, '-m', 'the same notes, another history').trim();
      expectRefused(push(wt, 'agent-1', [`+${other}:refs/notes/intent/INT-001`]), 'NOTES_NOT_FAST_FORWARD', ['local', 'server']);
    });

    it('a note for protected history through a per-intent ref is refused', () => {
      const initial = git(repo, 'rev-list', '--max-parents=0', 'main').trim();
      const forged = notesWith(wt, pi, initial, git(wt, 'notes', '--ref=intents', 'show', serverSha('refs/heads/intent/INT-001')!));
      expectRefused(push(wt, 'agent-1', [`${forged}:refs/notes/intent/INT-001`]), 'NOTE_REWRITTEN', ['local', 'server']);
    });

    it('a push may carry one notes ref', () => {
      const c = agentCommit('src/c.ts', 'c1\nc3\n', 'model adds c3');
      const next = notesWith(wt, pi, c, git(wt, 'notes', '--ref=intents', 'show', c));
      const v = push(wt, 'alice', ['intent/INT-001', `${next}:refs/notes/intent/INT-001`, `${next}:refs/notes/intent/INT-002`]);
      expectRefused(v, 'NOTES_REF_MULTIPLE', ['local', 'server']);
      expect(v.server.text).toContain('a push may carry one');
      expectOk(push(wt, 'agent-1', ['intent/INT-001', `${next}:refs/notes/intent/INT-001`]));
    });
  });
});
});
}
