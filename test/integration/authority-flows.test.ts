// One model of what a push means, three tiers: every case here is pushed over two real transports
// (git http-backend behind an authenticating front, test/git-server.ts, and gitolite3 over ssh,
// test/gitolite-server.ts) to a server running templates/server/pre-receive and post-receive,
// tried first through the local pre-push hook (`git push --dry-run`), and judged in CI mode
// (`intent gate --base --ref --old --new --pusher`) on the same range. The honest flows of a team
// (docs/threat-model.md, "Honest flows") are accepted by all three; the attacks of issues 25 and 39
// are refused by all three, with the same code.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordCommit } from '../../lib/trace/record-commit.js';
import { checkoutIntent, git, intent, registryYaml, removeTree, run, writeFiles, type Run } from '../helpers.js';
import { codesOf, notesSpec, serverRepo, startGitServer, verdict, type Verdict } from '../git-server.js';
import { gitoliteAvailable, startGitolite } from '../gitolite-server.js';

const INTENTS = [
  { id: 'INT-001', scope: ['src/**', '!src/secret/**', '!src/café/**'], status: 'IN_PROGRESS' },
  { id: 'INT-002', scope: ['docs/**'], status: 'IN_PROGRESS' },
  { id: 'INT-003', scope: ['lib/**'], status: 'IN_PROGRESS' },
  { id: 'INT-004', scope: ['test/**'], status: 'IN_PROGRESS' },
  { id: 'INT-005', scope: ['bench/**'], status: 'PENDING' },
];
const AUTHORITY = 'agents:\n  agent-1: ["INT-001"]\n  agent-2: ["INT-002"]\n  agent-3: ["INT-003"]\n  agent-4: ["INT-004"]\n  agent-5: ["INT-005"]\nhumans: ["alice"]\n';
const FILES = { 'README.md': '# flows\n', 'src/a.ts': 'a\n', 'docs/x.md': 'x\n', 'lib/l.ts': 'l\n', 'test/t.ts': 't\n' };
const NO_HOOKS = ['-c', 'core.hooksPath=/dev/null'];

let root: string;
let srv: string;
let repo: string;
const wts: Record<string, string> = {};

interface Verdicts {
  local: Verdict;
  server: Verdict;
  /** null: the push updates no code ref (a notes-only push starts no CI job). */
  ci: Verdict | null;
}

function sha(cwd: string, rev = 'HEAD'): string {
  return git(cwd, 'rev-parse', rev).trim();
}

function serverSha(ref: string): string | null {
  const r = run('git', ['rev-parse', '--verify', '-q', ref], srv);
  return r.status === 0 ? r.stdout.trim() : null;
}

/** `src:dst` or a name → [source rev, destination ref]. */
function parseSpec(cwd: string, spec: string): [string, string] {
  const s = spec.replace(/^\+/, '');
  const [src, dst] = s.includes(':') ? s.split(':') : [s, s];
  const full = dst.startsWith('refs/') ? dst : `refs/heads/${dst}`;
  return [sha(cwd, src), full];
}

/**
 * Judges one push three ways: the local pre-push hook (a dry run with the hooks), the server's
 * pre-receive (the real push, hooks skipped on the client as an attacker would), and CI mode on
 * each code ref's range with the notes the push carries (or the server's when it carries none).
 */
function judge(cwd: string, who: string, specs: string[]): Verdicts {
  git(cwd, 'fetch', '-q', '--no-tags', who, '+refs/heads/*:refs/remotes/' + who + '/*');
  const base = serverSha('refs/heads/main')!;
  const notesSpecs = specs.filter((s) => s.replace(/^\+/, '').split(':').pop()!.startsWith('refs/notes/'));
  let notes = notesSpecs.length ? parseSpec(cwd, notesSpecs[0])[0] : 'refs/notes/intents';
  if (!notesSpecs.length) {
    // The server reads the pushed intent branch's own notes ref, else refs/notes/intents.
    const id = specs.map((s) => /(?:^|:)(?:refs\/heads\/)?intent\/([^:]+)$/.exec(s.replace(/^\+/, ''))?.[1]).find(Boolean);
    const own = id && serverSha(`refs/notes/intent/${id}`) ? `refs/notes/intent/${id}` : serverSha('refs/notes/intents') ? 'refs/notes/intents' : null;
    if (own) {
      git(cwd, 'fetch', '-q', '--no-tags', who, `+${own}:refs/notes/server-view`);
      notes = 'refs/notes/server-view';
    }
  }
  const ciRuns: Run[] = [];
  for (const spec of specs) {
    const [src, dst] = parseSpec(cwd, spec);
    if (dst.startsWith('refs/notes/')) continue;
    const old = serverSha(dst);
    ciRuns.push(intent(cwd, ['gate', '--base', base, '--ref', dst, ...(old ? ['--old', old] : []), '--new', src, '--pusher', who, '--notes', notes]));
  }
  const ci = ciRuns.length ? { ok: ciRuns.every((r) => r.status === 0), codes: [...new Set(ciRuns.flatMap((r) => codesOf(r.stdout)))].sort(), text: ciRuns.map((r) => r.stdout + r.stderr).join('\n') } : null;
  const local = verdict(run('git', ['push', '--dry-run', who, ...specs], cwd));
  const before = git(srv, 'for-each-ref', '--format=%(refname) %(objectname)');
  const serverRun = run('git', ['push', '--no-verify', who, ...specs], cwd);
  const server = verdict(serverRun);
  if (!server.ok) expect(git(srv, 'for-each-ref', '--format=%(refname) %(objectname)'), 'a refused push changes no ref').toBe(before);
  return { local, server, ci };
}

function show(v: Verdicts): string {
  return `local: ${v.local.text}\nserver: ${v.server.text}\nci: ${v.ci?.text ?? '-'}`;
}

/** Every tier accepted. */
function expectAccepted(v: Verdicts): void {
  expect(v.local.ok && v.server.ok && (v.ci?.ok ?? true), show(v)).toBe(true);
}

/** Every tier refused, each naming `code` (the local tier too unless it cannot know: identity). */
function expectRefused(v: Verdicts, code: string, tiers: ('local' | 'server' | 'ci')[] = ['local', 'server', 'ci']): void {
  for (const t of tiers) {
    const x = v[t];
    expect(x, `${t} ran`).not.toBeNull();
    expect(x!.ok, `${t} refused\n${show(v)}`).toBe(false);
    expect(x!.codes, `${t} names ${code}\n${show(v)}`).toContain(code);
  }
  expect(v.server.text).toContain('pre-receive hook declined');
  expect(v.server.text, 'each refusal says what to do next').toContain('next: ');
}

function commit(wt: string, files: Record<string, string>, message: string, flags: string[] = []): string {
  writeFiles(wt, files);
  git(wt, 'add', '-A');
  const r = run('git', [...flags, 'commit', '-q', '-m', message], wt);
  expect(r.status, r.stderr + r.stdout).toBe(0);
  return sha(wt);
}

/** A notes commit on top of the current notes whose tree is `entries` (path → blob). */
function notesCommit(cwd: string, entries: Record<string, string>, parents: string[]): string {
  const byDir = new Map<string, string[]>();
  const top: string[] = [];
  for (const [path, blob] of Object.entries(entries)) {
    const [dir, name] = path.includes('/') ? path.split('/') : [null, path];
    if (dir === null) top.push(`100644 blob ${blob}\t${name}`);
    else byDir.set(dir, [...(byDir.get(dir) ?? []), `100644 blob ${blob}\t${name}`]);
  }
  for (const [dir, lines] of byDir) top.push(`040000 tree ${run('git', ['mktree'], cwd, {}, lines.join('\n') + '\n').stdout.trim()}\t${dir}`);
  const tree = run('git', ['mktree'], cwd, {}, top.join('\n') + '\n').stdout.trim();
  return git(cwd, 'commit-tree', tree, ...parents.flatMap((p) => ['-p', p]), '-m', 'notes').trim();
}

/** The notes tree of a notes commit as path → blob. */
function notesEntries(cwd: string, rev: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of git(cwd, 'ls-tree', '-r', rev).split('\n')) {
    const m = /^\d+ blob ([0-9a-f]+)\t(.+)$/.exec(line);
    if (m) out[m[2]] = m[1];
  }
  return out;
}

/** The notes commit `rev` with `commit`'s note moved to its fan-out path (and replaced by `as`), on the same parents. */
function refan(cwd: string, rev: string, commit: string, as?: string): string {
  const entries = notesEntries(cwd, rev);
  const note = entries[commit];
  expect(note, `${rev} has ${commit}'s note at its flat path`).toBeDefined();
  delete entries[commit];
  entries[`${commit.slice(0, 2)}/${commit.slice(2)}`] = as ?? note;
  return notesCommit(cwd, entries, git(cwd, 'log', '-1', '--format=%P', rev).trim().split(' ').filter(Boolean));
}

/** A notes commit on `parent` (null: none) adding or replacing the notes `changes` ([commit, blob]). */
function notesCommitOn(cwd: string, parent: string | null, changes: [string, string][]): string {
  const entries = parent ? notesEntries(cwd, parent) : {};
  for (const [c, b] of changes) {
    for (const k of Object.keys(entries)) if (k.replace(/\//g, '') === c) delete entries[k];
    entries[c] = b;
  }
  return notesCommit(cwd, entries, parent ? [parent] : []);
}

/** `rev` under a notes ref name, for `git notes --ref` (which takes refs only). */
function asRef(cwd: string, rev: string): string {
  git(cwd, 'update-ref', 'refs/notes/test-view', rev);
  return 'refs/notes/test-view';
}

function blob(cwd: string, text: string): string {
  return run('git', ['hash-object', '-w', '--stdin'], cwd, {}, text).stdout.trim();
}

/** A new repository at `dir` with FILES committed on main and `intent init` run. */
function initialised(dir: string): string {
  mkdirSync(dir);
  git(dir, 'init', '-q', '-b', 'main');
  writeFiles(dir, FILES);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'initial');
  expect(intent(dir, ['init']).status).toBe(0);
  return dir;
}

/** A real transport and the identity it authenticates: git http-backend (REMOTE_USER) or gitolite3 over ssh (GL_USER). */
interface Transport {
  name: string;
  available: boolean;
  /** Starts the server with a repository `flows`; returns its URLs per identity. */
  start(root: string): Promise<{ url(who: string): string; anonymous: string | null; bare: string; gitConfig: [string, string][]; stop(): void }>;
}

// Agent-1 is agent-1 logging in with another case (hosts compare logins without case).
const AGENT_IDS = ['agent-1', 'agent-2', 'agent-3', 'agent-4', 'agent-5', 'Agent-1'];
const TRANSPORTS: Transport[] = [
  {
    name: 'git http-backend (REMOTE_USER)', available: true,
    start: async (dir) => {
      const s = await startGitServer(dir);
      return { url: (who) => s.url(who, 'flows.git'), anonymous: s.url(null, 'flows.git'), bare: serverRepo(dir, 'flows.git'), gitConfig: [], stop: () => s.stop() };
    },
  },
  {
    name: 'gitolite3 over ssh (GL_USER)', available: gitoliteAvailable(),
    start: async (dir) => {
      const g = await startGitolite(dir, ['alice', 'mallory', ...AGENT_IDS], ['flows']);
      return { url: (who) => g.url(who, 'flows'), anonymous: null, bare: g.repo('flows'), gitConfig: [['core.sshCommand', g.env.GIT_SSH_COMMAND]], stop: () => g.stop() };
    },
  },
];
if (process.env.CI && !gitoliteAvailable()) throw new Error('gitolite3 and sshd are missing: .ci/run installs them (apt-get install gitolite3 openssh-server)');

let anonymousUrl: string | null = null;

for (const transport of TRANSPORTS) {
describe.skipIf(!transport.available)(`over ${transport.name}`, { shuffle: false }, () => {
let stop = () => {};
beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'intent-flows-')));
  const t = await transport.start(root);
  stop = t.stop;
  srv = t.bare;
  anonymousUrl = t.anonymous;
  repo = initialised(join(root, 'repo'));
  for (const [k, v] of t.gitConfig) git(repo, 'config', k, v);
  writeFiles(repo, { '.orchestration/active_intents.yaml': registryYaml(INTENTS), '.orchestration/authority.yaml': AUTHORITY });
  git(repo, 'add', '.orchestration');
  git(repo, 'commit', '-q', '-m', 'register intents and agents');
  for (const who of ['alice', 'mallory', ...AGENT_IDS]) git(repo, 'remote', 'add', who, t.url(who));
  expect(run('git', ['push', '-q', 'alice', 'main'], repo).status).toBe(0);
  for (const id of ['INT-001', 'INT-002', 'INT-003', 'INT-004']) wts[id] = checkoutIntent(repo, id);
}, 120_000);

afterAll(() => {
  stop();
  if (root) removeTree(root);
});

// One clone and one server over time: each case pushes onto what the cases before it pushed (an
// amend after the first push, an abandoned intent's commit, the notes the server already checked),
// as a team's repository goes. The order is the scenario, so it is kept under --sequence.shuffle.
// Agents push their branch with their intent's notes ref (what `intent push` builds, notesSpec);
// the server's post-receive folds the checked records into refs/notes/intents.
describe('one clone and one server over time', { shuffle: false }, () => {
  /** The branch and what `intent push` would send with it. */
  const withNotes = (wt: string, who: string, branch: string) => [branch, ...notesSpec(wt, who)];

  describe('honest flows: accepted by pre-push, pre-receive and CI alike', () => {
    it('two intents worked in parallel in one clone, each pushed with its own notes ref', () => {
      const mine = commit(wts['INT-001'], { 'src/a.ts': 'a\none\n' }, 'INT-001 one');
      const theirs = commit(wts['INT-002'], { 'docs/x.md': 'x\none\n' }, 'INT-002 one');
      const spec = notesSpec(wts['INT-001'], 'agent-1');
      expect(spec[0]).toMatch(/:refs\/notes\/intent\/INT-001$/);
      // INT-001's push carries its own commit's record only, not the clone's note of INT-002's.
      expect(Object.keys(notesEntries(wts['INT-001'], spec[0].split(':')[0])).map((k) => k.replace(/\//g, ''))).toEqual([mine]);
      expectAccepted(judge(wts['INT-001'], 'agent-1', ['intent/INT-001', ...spec]));
      expectAccepted(judge(wts['INT-002'], 'agent-2', withNotes(wts['INT-002'], 'agent-2', 'intent/INT-002')));
      expect(serverSha('refs/heads/intent/INT-002')).toBe(theirs);
      // The server folded both records into the ref every clone reads.
      for (const c of [mine, theirs]) expect(run('git', ['notes', '--ref=intents', 'list', c], srv).status, c).toBe(0);
    });

    it('an amend, and a rebase onto a newer main, before the first push', () => {
      const wt = wts['INT-003'];
      commit(wt, { 'lib/l.ts': 'l\nfirst try\n' }, 'INT-003 first try');
      const r = run('git', ['commit', '-q', '--amend', '-m', 'INT-003 amended'], wt);
      expect(r.status, r.stderr).toBe(0);
      writeFiles(repo, { 'README.md': '# flows\nmoved on\n' });
      git(repo, 'commit', '-q', '-am', 'main moves on');
      expect(run('git', ['push', '-q', 'alice', 'main'], repo).status).toBe(0);
      expect(run('git', ['rebase', '-q', 'main'], wt).status).toBe(0);
      expect(git(wt, 'notes', '--ref=intents', 'show', 'HEAD')).toContain('INT-003');
      // This clone's notes hold the amended-away and the pre-rebase commits' notes: never sent.
      expectAccepted(judge(wt, 'agent-3', withNotes(wt, 'agent-3', 'intent/INT-003')));
    });

    it('intent abandon of an intent with an unpushed commit blocks nobody', () => {
      const wt = wts['INT-004'];
      commit(wt, { 'test/t.ts': 't\nnever pushed\n' }, 'INT-004 unpushed');
      const a = intent(repo, ['abandon', 'INT-004']);
      expect(a.status, a.stderr).toBe(0);
      git(repo, 'commit', '-q', '-am', 'INT-004 abandoned');
      expectAccepted(judge(repo, 'alice', withNotes(repo, 'alice', 'main')));
      commit(wts['INT-001'], { 'src/a.ts': 'a\none\ntwo\n' }, 'INT-001 two');
      expectAccepted(judge(wts['INT-001'], 'agent-1', withNotes(wts['INT-001'], 'agent-1', 'intent/INT-001')));
    });

    it('intent sync right after committing, then the branch', () => {
      const wt = wts['INT-002'];
      const c = commit(wt, { 'docs/x.md': 'x\none\ntwo\n' }, 'INT-002 two');
      const before = serverSha('refs/notes/intents');
      const s = intent(wt, ['sync', 'agent-2', '--json']);
      expect(s.status, s.stderr + s.stdout).toBe(0);
      // The record travels with its commit: sync offers the server nothing for a commit it lacks.
      expect(JSON.parse(s.stdout)).toMatchObject({ pushed: false });
      expect(serverSha('refs/notes/intents')).toBe(before);
      expectAccepted(judge(wt, 'agent-2', withNotes(wt, 'agent-2', 'intent/INT-002')));
      expect(serverSha('refs/heads/intent/INT-002')).toBe(c);
    });

    it('the branch pushed without its notes: the server says to push them with it; pushed so, accepted', () => {
      const wt = wts['INT-002'];
      const c = commit(wt, { 'docs/x.md': 'x\none\ntwo\nwithout notes\n' }, 'INT-002 without notes');
      git(wt, 'fetch', '-q', 'agent-2', '+refs/notes/intents:refs/notes/remotes/agent-2/intents');
      const v = judge(wt, 'agent-2', ['intent/INT-002']);
      expectRefused(v, 'NOTE_MISSING', ['server', 'ci']);
      expect(v.server.text).toContain("next: push the branch with its notes: intent push, from intent/INT-002's worktree");
      // Locally the notes exist, the server's (as last fetched) lack them: a warning with the way out.
      expect(v.local.ok, v.local.text).toBe(true);
      expect(v.local.text).toContain(`intent: WARNING: 1 pushed commit has no note on agent-2's refs/notes/intents as last fetched (${c.slice(0, 12)})`);
      expectAccepted(judge(wt, 'agent-2', withNotes(wt, 'agent-2', 'intent/INT-002')));
    });

    it('an amend after the push, force-pushed with its note', () => {
      const wt = wts['INT-001'];
      expect(run('git', ['commit', '-q', '--amend', '-m', 'INT-001 two, reworded'], wt).status).toBe(0);
      const [branch, ...notes] = withNotes(wt, 'agent-1', 'intent/INT-001');
      expectAccepted(judge(wt, 'agent-1', [`+${branch}`, ...notes]));
    });

    it("main merged into the intent's branch (locally, and by the host's \"Update branch\"): what it brings from main is main's", () => {
      const wt = wts['INT-003'];
      const moveMain = (text: string) => {
        writeFiles(repo, { 'README.md': `# flows\n${text}\n`, 'docs/x.md': `x\n${text}\n` });
        git(repo, 'commit', '-q', '-am', `main: ${text}`);
        expect(run('git', ['push', '-q', 'alice', 'main'], repo).status).toBe(0);
      };
      moveMain('main moved on again');
      // With the hooks: main's README.md and docs/x.md are outside INT-003 (lib/**), and come from main.
      const merged = run('git', ['merge', '--no-ff', '--no-edit', 'main'], wt);
      expect(merged.status, merged.stderr + merged.stdout).toBe(0);
      const m = sha(wt);
      expect(git(wt, 'log', '-1', '--format=%P', m).trim().split(' ')).toHaveLength(2);
      expect(git(wt, 'notes', '--ref=intents', 'show', m)).not.toContain('SCOPE VIOLATION');
      expectAccepted(judge(wt, 'agent-3', withNotes(wt, 'agent-3', 'intent/INT-003')));

      // The host's button: a merge commit made without the hooks, so without a note.
      moveMain('and again');
      expect(run('git', [...NO_HOOKS, 'merge', '--no-ff', '--no-edit', 'main'], wt).status).toBe(0);
      expect(run('git', ['notes', '--ref=intents', 'list', 'HEAD'], wt).status, 'no note').not.toBe(0);
      expectAccepted(judge(wt, 'agent-3', withNotes(wt, 'agent-3', 'intent/INT-003')));

      // A merge that also changes, as main does not have it, a path outside the intent: refused
      // locally (that path only) and by every tier.
      moveMain('once more');
      expect(run('git', ['merge', '--no-commit', '--no-ff', 'main'], wt).status).toBe(0);
      writeFiles(wt, { 'src/a.ts': 'a\nsmuggled in a merge\n' });
      git(wt, 'add', '-A');
      const local = run('git', ['commit', '-q', '--no-edit'], wt);
      expect(local.status).not.toBe(0);
      expect(local.stderr).toContain('src/a.ts');
      expect(local.stderr).not.toContain('README.md');
      const evil = commit(wt, {}, 'merge main', NO_HOOKS);
      recordCommit(wt, process.env, { rev: evil, intentId: 'INT-003' });
      const v = judge(wt, 'agent-3', withNotes(wt, 'agent-3', 'intent/INT-003'));
      expectRefused(v, 'SCOPE_VIOLATION');
      expect(v.server.text).toContain('src/a.ts');
      expect(v.server.text).not.toContain('README.md');
      git(wt, 'reset', '-q', '--hard', 'HEAD~1');
    });

    it('the same note at its flat path or at a fan-out path (as git writes it past a few dozen notes)', () => {
      const wt = wts['INT-001'];
      const c = commit(wt, { 'src/a.ts': 'a\none\ntwo\nfanned\n' }, 'INT-001 fanned out');
      const [spec] = notesSpec(wt, 'agent-1');
      const fanned = refan(wt, spec.split(':')[0], c);
      expect(git(wt, 'notes', `--ref=${asRef(wt, fanned)}`, 'list', c).trim()).not.toBe('');
      expectAccepted(judge(wt, 'agent-1', ['intent/INT-001', `${fanned}:refs/notes/intent/INT-001`]));

      // A note at a fan-out path is judged, not skipped: a forged one there is refused.
      const d = commit(wt, { 'src/a.ts': 'a\none\ntwo\nfanned\nforged\n' }, 'INT-001 forged at a fan-out path');
      const forged = git(wt, 'notes', '--ref=intents', 'show', d).replace(/sha256:[0-9a-f]{64}/, `sha256:${'0'.repeat(64)}`);
      const [spec2] = notesSpec(wt, 'agent-1');
      const bad = refan(wt, spec2.split(':')[0], d, blob(wt, forged));
      expectRefused(judge(wt, 'agent-1', ['intent/INT-001', `${bad}:refs/notes/intent/INT-001`]), 'HASH_MISMATCH');
      git(wt, 'reset', '-q', '--hard', 'HEAD~1');
    });
  });

  describe('attacks of issue 25: refused by pre-receive and CI alike, with the same code', () => {
    it("1: a notes commit that merges an out-of-scope commit, then that commit pushed on the intent branch", () => {
      const wt = wts['INT-001'];
      const notesTip = serverSha('refs/notes/intent/INT-001')!;
      const x = commit(wt, { 'docs/x.md': 'x\nout of scope\n' }, 'out of scope, no note', NO_HOOKS);
      const merged = git(wt, 'commit-tree', `${notesTip}^{tree}`, '-p', notesTip, '-p', x, '-m', 'Notes added by git notes').trim();
      expectRefused(judge(wt, 'agent-1', [`${merged}:refs/notes/intent/INT-001`]), 'NOTES_NOT_NOTES_COMMIT', ['local', 'server']);
      // Reachable from another ref the server has (a human's branch) makes it nothing for this ref.
      expect(run('git', ['push', '-q', '--no-verify', 'alice', `${x}:refs/heads/feature/x`], wt).status).toBe(0);
      expectRefused(judge(wt, 'agent-1', withNotes(wt, 'agent-1', 'intent/INT-001')), 'NOTE_MISSING');
      git(wt, 'reset', '-q', '--hard', 'HEAD~1');
    });

    it('2: a second note for one commit at a fan-out path', () => {
      const wt = wts['INT-001'];
      const c = commit(wt, { 'src/a.ts': 'a\none\ntwo\nfanned\nthree\n' }, 'INT-001 three');
      const [spec] = notesSpec(wt, 'agent-1');
      const own = spec.split(':')[0];
      const honest = git(wt, 'notes', `--ref=${asRef(wt, own)}`, 'show', c);
      const entries = notesEntries(wt, own);
      entries[`${c.slice(0, 2)}/${c.slice(2)}`] = blob(wt, honest.replace(/INT-001/g, 'INT-002'));
      const dup = notesCommit(wt, entries, git(wt, 'log', '-1', '--format=%P', own).trim().split(' ').filter(Boolean));
      expect(git(wt, 'notes', `--ref=${asRef(wt, dup)}`, 'show', c)).toContain('INT-002'); // git shows both
      expectRefused(judge(wt, 'agent-1', ['intent/INT-001', `${dup}:refs/notes/intent/INT-001`]), 'NOTE_DUPLICATE');
      // Nothing landed: another agent's honest push goes through, and so does the honest one.
      commit(wts['INT-002'], { 'docs/x.md': 'x\none\ntwo\nthree\n' }, 'INT-002 three');
      expectAccepted(judge(wts['INT-002'], 'agent-2', withNotes(wts['INT-002'], 'agent-2', 'intent/INT-002')));
      expectAccepted(judge(wt, 'agent-1', ['intent/INT-001', spec]));
    });

    it("3: an intent branch reset onto another intent's pushed commits and force-pushed", () => {
      const wt = wts['INT-001'];
      const keep = sha(wt);
      const theirs = serverSha('refs/heads/intent/INT-002')!;
      git(wt, 'reset', '-q', '--hard', theirs);
      // Their notes are not INT-001's to send: the branch arrives without records, or with theirs copied.
      expectRefused(judge(wt, 'agent-1', [`+intent/INT-001`, ...notesSpec(wt, 'agent-1')]), 'NOTE_MISSING', ['server', 'ci']);
      const copied = notesCommitOn(wt, serverSha('refs/notes/intent/INT-001'), [[theirs, git(wt, 'rev-parse', `refs/notes/intents:${theirs}`).trim()]]);
      const v = judge(wt, 'agent-1', ['+intent/INT-001', `${copied}:refs/notes/intent/INT-001`]);
      expectRefused(v, 'NOTE_INTENT_MISMATCH');
      expect(v.server.text).toContain(theirs.slice(0, 12));
      git(wt, 'reset', '-q', '--hard', keep);
    });

    it('4: an empty or blank pusher is no identity', () => {
      const wt = wts['INT-001'];
      const c = commit(wt, { 'src/a.ts': 'a\none\ntwo\nfanned\nthree\nfour\n' }, 'INT-001 four');
      const base = serverSha('refs/heads/main')!;
      const old = serverSha('refs/heads/intent/INT-001')!;
      for (const blank of ['', '   ']) {
        const r = intent(wt, ['gate', '--base', base, '--ref', 'refs/heads/intent/INT-001', '--old', old, '--new', c, '--pusher', blank]);
        expect(r.status, r.stdout).toBe(1);
        expect(codesOf(r.stdout)).toContain('IDENTITY_REQUIRED');
      }
      const spec = notesSpec(wt, 'agent-1');
      // Over http an unauthenticated push reaches the hook without an identity; ssh always authenticates.
      if (anonymousUrl) {
        const anon = run('git', ['push', '--no-verify', anonymousUrl, 'intent/INT-001', ...spec], wt);
        expect(anon.status).not.toBe(0);
        expect(codesOf(anon.stderr)).toContain('IDENTITY_REQUIRED');
      }
      expectAccepted(judge(wt, 'agent-1', ['intent/INT-001', ...spec]));
    });

    it('a note removed for a commit the server checked is refused; a clone\'s whole notes ref is not what a push sends', () => {
      const wt = wts['INT-001'];
      const pushed = serverSha('refs/heads/intent/INT-001')!;
      git(wt, 'fetch', '-q', 'agent-1', '+refs/notes/intent/INT-001:refs/notes/remotes/agent-1/intent/INT-001');
      const tip = sha(wt, 'refs/notes/remotes/agent-1/intent/INT-001');
      const entries = notesEntries(wt, tip);
      for (const k of Object.keys(entries)) if (k.replace(/\//g, '') === pushed) delete entries[k];
      expectRefused(judge(wt, 'agent-1', [`${notesCommit(wt, entries, [tip])}:refs/notes/intent/INT-001`]), 'NOTE_REMOVED', ['local', 'server']);
      // This clone's refs/notes/intents holds INT-004's note of a commit the server never had: a
      // human pushing it would give the server a record without its commit.
      const abandoned = sha(repo, 'intent/INT-004');
      git(repo, 'fetch', '-q', 'alice', '+refs/notes/intents:refs/notes/remotes/alice/intents');
      const inert = notesCommitOn(repo, sha(repo, 'refs/notes/remotes/alice/intents'), [[abandoned, git(repo, 'rev-parse', `refs/notes/intents:${abandoned}`).trim()]]);
      expectRefused(judge(repo, 'alice', [`${inert}:refs/notes/intents`]), 'NOTE_NOT_BROUGHT', ['local', 'server']);
    });
  });

  describe('attacks of issue 39: agents propose, the authority disposes', () => {
    it('an agent may not write refs/notes/intents, nor another intent\'s notes ref', () => {
      const wt = wts['INT-001'];
      commit(wt, { 'src/a.ts': 'a\none\ntwo\nfanned\nthree\nfour\nfive\n' }, 'INT-001 five');
      const c = sha(wt);
      git(wt, 'fetch', '-q', 'agent-1', '+refs/notes/intents:refs/notes/remotes/agent-1/intents');
      const onShared = notesCommitOn(wt, sha(wt, 'refs/notes/remotes/agent-1/intents'), [[c, git(wt, 'rev-parse', `refs/notes/intents:${c}`).trim()]]);
      const shared = judge(wt, 'agent-1', ['intent/INT-001', `${onShared}:refs/notes/intents`]);
      expectRefused(shared, 'REF_NOT_ALLOWED', ['server']);
      expect(shared.server.text).toContain('refs/notes/intents is the authority');
      const [spec] = notesSpec(wt, 'agent-1');
      git(wt, 'fetch', '-q', 'agent-1', '+refs/notes/intent/INT-002:refs/notes/remotes/agent-1/intent/INT-002');
      const onTheirs = notesCommitOn(wt, sha(wt, 'refs/notes/remotes/agent-1/intent/INT-002'), [[c, git(wt, 'rev-parse', `refs/notes/intents:${c}`).trim()]]);
      expectRefused(judge(wt, 'agent-1', [`${onTheirs}:refs/notes/intent/INT-002`]), 'REF_NOT_ALLOWED', ['server']);
      expectAccepted(judge(wt, 'agent-1', ['intent/INT-001', spec]));
    });

    it("a record for another agent's unpushed commit, planted in the agent's own notes ref", () => {
      // agent-1 sees agent-2's local commit in the shared clone and sends a record for it first.
      const theirs = commit(wts['INT-002'], { 'docs/x.md': 'x\none\ntwo\nthree\nfour\n' }, 'INT-002 four');
      const forged = git(repo, 'notes', '--ref=intents', 'show', theirs).replace(/"model_id":"[^"]*"/g, '"model_id":"forged/model"');
      const planted = notesCommitOn(wts['INT-001'], serverSha('refs/notes/intent/INT-001'), [[theirs, blob(repo, forged)]]);
      const v = judge(wts['INT-001'], 'agent-1', [`${planted}:refs/notes/intent/INT-001`]);
      expectRefused(v, 'NOTE_NOT_ON_BRANCH', ['local', 'server']);
      // agent-2's honest push lands its own record, and that is the one main's readers get.
      expectAccepted(judge(wts['INT-002'], 'agent-2', withNotes(wts['INT-002'], 'agent-2', 'intent/INT-002')));
      expect(git(srv, 'notes', '--ref=intents', 'show', theirs)).not.toContain('forged/model');
    });

    it('a forged carried record pushed with its squash commit is re-derived and refused; the honest one is accepted', () => {
      // The host's squash of INT-003's pushed work (lib/**, main merged into it before), made by a
      // human in the main worktree, with the record intent carry derives for it, pushed with main.
      git(repo, 'fetch', '-q', 'alice', '+refs/heads/intent/INT-003:refs/remotes/alice/intent/INT-003');
      git(repo, ...NO_HOOKS, 'merge', '-q', '--squash', 'alice/intent/INT-003');
      git(repo, ...NO_HOOKS, 'commit', '-q', '-m', 'Lib (#3)');
      const squash = sha(repo);
      const carried = intent(repo, ['carry', 'main', '--from', `main~1..alice/intent/INT-003`, '--json']);
      expect(carried.status, carried.stderr + carried.stdout).toBe(0);
      expect(JSON.parse(carried.stdout).commits[0]).toMatchObject({ commit: squash, status: 'carried', intent: 'INT-003' });
      const honest = git(repo, 'notes', '--ref=intents', 'show', squash);
      // Forged: every line of the record credited to a model no source has.
      const lines = honest.split('\n').filter(Boolean);
      const forgedLines = lines.map((l) => {
        if (!l.startsWith('{')) return l;
        const rec = JSON.parse(l);
        for (const f of rec.files) for (const c of f.conversations) c.contributor = { type: 'ai', model_id: 'forged/model' };
        return JSON.stringify(rec);
      });
      run('git', ['notes', '--ref=intents', 'add', '-f', '-F', '-', squash], repo, {}, forgedLines.join('\n') + '\n');
      const v = judge(repo, 'alice', withNotes(repo, 'alice', 'main'));
      expectRefused(v, 'CARRY_MISMATCH');
      expect(v.server.text).toContain('forged/model');
      run('git', ['notes', '--ref=intents', 'add', '-f', '-F', '-', squash], repo, {}, honest);
      expectAccepted(judge(repo, 'alice', withNotes(repo, 'alice', 'main')));
      expect(git(srv, 'notes', '--ref=intents', 'show', squash)).toContain('carried (squash)');
    });

    it("paths that are an excluded folder or the registry on a case-folding checkout, and agent-1 logging in as Agent-1", () => {
      const wt = wts['INT-001'];
      // The excluded folder in another case, an NFD spelling of an NFC exclusion, the registry's folder in another case.
      for (const path of ['src/SECRET/key.txt', 'src/cafe\u0301/menu.txt', '.ORCHESTRATION/active_intents.yaml']) {
        const c = commit(wt, { [path]: 'twin\n' }, `INT-001 writes ${path}`, NO_HOOKS);
        recordCommit(wt, process.env, { rev: c, intentId: 'INT-001' });
        const v = judge(wt, 'agent-1', withNotes(wt, 'agent-1', 'intent/INT-001'));
        expectRefused(v, 'SCOPE_VIOLATION');
        expect(v.server.text).toContain(path);
        git(wt, 'reset', '-q', '--hard', 'HEAD~1');
      }
      // A tree with a .git component (git refuses to check it out; made with plumbing, as an attacker would).
      const mk = (lines: string[]) => run('git', ['mktree'], wt, {}, lines.join('\n') + '\n').stdout.trim();
      const ls = (rev: string) => git(wt, 'ls-tree', rev).split('\n').filter(Boolean);
      const cfg = blob(wt, '[core]\n\tfsmonitor = "touch /tmp/pwned"\n');
      const dotGit = mk([`100644 blob ${cfg}\tconfig`]);
      const dirA = mk([`040000 tree ${dotGit}\t.git`]);
      const src = mk([...ls('HEAD:src'), `040000 tree ${dirA}\ta`]);
      const top = mk([...ls('HEAD').filter((l) => !l.endsWith('\tsrc')), `040000 tree ${src}\tsrc`]);
      const evil = git(wt, 'commit-tree', top, '-p', 'HEAD', '-m', 'INT-001 plants a .git folder').trim();
      git(wt, 'update-ref', 'refs/heads/intent/INT-001', evil);
      recordCommit(wt, process.env, { rev: evil, intentId: 'INT-001' });
      const dg = judge(wt, 'agent-1', withNotes(wt, 'agent-1', 'intent/INT-001'));
      expectRefused(dg, 'SCOPE_VIOLATION');
      expect(dg.server.text).toContain('src/a/.git/config');
      git(wt, 'update-ref', 'refs/heads/intent/INT-001', `${evil}~1`);
      git(wt, 'reset', '-q', '--hard', 'HEAD');

      // The identity as the host compares it: Agent-1 is agent-1, not a human who may push any branch.
      const v = judge(wt, 'Agent-1', [`${sha(wt)}:refs/heads/feature/agent`]);
      expectRefused(v, 'REF_NOT_ALLOWED', ['server', 'ci']);
      expect(v.server.text).toContain('agent Agent-1 may not update refs/heads/feature/agent');
      // An identity the file names neither as an agent nor as a human has no rights at all.
      const u = judge(wt, 'mallory', [`${sha(wt)}:refs/heads/feature/mallory`]);
      expectRefused(u, 'IDENTITY_UNLISTED', ['server', 'ci']);
      expect(u.server.text).toContain('mallory is in neither agents nor humans');
    });

    it('a scope that could match in exponential time, and a long file name: answered at once, the intent refused until the registry is fixed', () => {
      const wt = wts['INT-001'];
      const long = `src/${'a'.repeat(93)}.ts`;
      const c = commit(wt, { [long]: 'long\n' }, 'INT-001 a long name');
      // A human gives INT-001 an extglob scope on main (past the local check, which refuses it too).
      const file = join(repo, '.orchestration', 'active_intents.yaml');
      const before = readFileSync(file, 'utf8');
      writeFileSync(file, before.replace('["src/**","!src/secret/**"', '["src/**/+(*.ts|*.js)","!src/secret/**"'));
      expect(readFileSync(file, 'utf8')).toContain('+(*.ts|*.js)');
      git(repo, ...NO_HOOKS, 'commit', '-q', '-am', 'INT-001: an extglob scope');
      try {
        expect(run('git', ['push', '-q', '--no-verify', 'alice', 'main'], repo).status).toBe(0);
        const v = judge(wt, 'agent-1', withNotes(wt, 'agent-1', 'intent/INT-001'));
        expectRefused(v, 'INTENT_NOT_ACTIVE');
        expect(v.server.text).toContain('extglob');
        expect(v.server.text).toContain(c.slice(0, 12));
      } finally {
        // The scope back, whatever happened: the cases after this one read this registry.
        writeFileSync(file, before);
        git(repo, ...NO_HOOKS, 'commit', '-q', '-am', 'INT-001: the scope back');
        run('git', ['push', '-q', '--no-verify', 'alice', 'main'], repo);
      }
      expectAccepted(judge(wt, 'agent-1', withNotes(wt, 'agent-1', 'intent/INT-001')));
    });

    it('an agent commit that edits the registry, merged by a human with git merge and pushed with main', () => {
      const wt = wts['INT-001'];
      const file = join(wt, '.orchestration', 'active_intents.yaml');
      writeFileSync(file, readFileSync(file, 'utf8').replace('- src/**', '- "**"'));
      writeFiles(wt, { 'docs/widened.md': 'INT-001 was here\n' });
      git(wt, 'add', '-A');
      git(wt, ...NO_HOOKS, 'commit', '-q', '-m', 'INT-001 widens itself');
      const c = sha(wt);
      recordCommit(wt, process.env, { rev: c, intentId: 'INT-001' });
      git(repo, 'merge', '-q', '--no-ff', '--no-edit', 'intent/INT-001');
      const v = judge(repo, 'alice', withNotes(repo, 'alice', 'main'));
      expectRefused(v, 'SCOPE_VIOLATION');
      expect(v.server.text).toContain('.orchestration/active_intents.yaml');
      git(repo, 'reset', '-q', '--hard', 'HEAD~1');
      git(wt, 'reset', '-q', '--hard', 'HEAD~1');
    });
  });

  describe('an intent started locally, not yet on the server', () => {
    it('its branch is refused by every tier in the same words until a human pushes main with it IN_PROGRESS', () => {
      const wt = checkoutIntent(repo, 'INT-005'); // the local registry says IN_PROGRESS, uncommitted
      commit(wt, { 'bench/b.ts': 'b\n' }, 'INT-005 work');
      const v = judge(wt, 'agent-5', withNotes(wt, 'agent-5', 'intent/INT-005'));
      expectRefused(v, 'INTENT_NOT_ACTIVE');
      for (const t of [v.local, v.server]) expect(t.text).toContain('INT-005 is PENDING on refs/heads/main');
      expect(v.server.text).toContain('next: a human marks INT-005 IN_PROGRESS in .orchestration/active_intents.yaml on main');
      git(repo, 'commit', '-q', '-m', 'Start INT-005', '.orchestration/active_intents.yaml');
      expectAccepted(judge(repo, 'alice', ['main']));
      expectAccepted(judge(wt, 'agent-5', withNotes(wt, 'agent-5', 'intent/INT-005')));
    });
  });

  describe('a human pushes main with the registry and the merged work at once', () => {
    it('the base as the push leaves it decides (the README quickstart: intent push from main)', () => {
      const file = join(repo, '.orchestration', 'active_intents.yaml');
      writeFileSync(file, readFileSync(file, 'utf8') + registryYaml([{ id: 'INT-006', scope: ['tools/**'], status: 'IN_PROGRESS' }]).replace(/^active_intents:\n/, ''));
      git(repo, 'commit', '-q', '-m', 'Register INT-006', '.orchestration/active_intents.yaml');
      const wt = checkoutIntent(repo, 'INT-006');
      const c = commit(wt, { 'tools/t.ts': 't\n' }, 'INT-006 work');
      git(repo, 'merge', '-q', '--no-ff', '--no-edit', 'intent/INT-006');
      const v = judge(repo, 'alice', withNotes(repo, 'alice', 'main'));
      expectAccepted(v);
      expect(git(srv, 'merge-base', '--is-ancestor', c, 'main').length).toBe(0);
      expect(git(srv, 'notes', '--ref=intents', 'show', c)).toContain('INT-006');
      // An out-of-scope commit in the same kind of push is still refused: the new registry's scope decides.
      const d = commit(wt, { 'README.md': '# flows\nout of INT-006\n' }, 'INT-006 out of scope', NO_HOOKS);
      recordCommit(wt, process.env, { rev: d, intentId: 'INT-006' });
      git(repo, 'merge', '-q', '--no-ff', '--no-edit', 'intent/INT-006');
      expectRefused(judge(repo, 'alice', withNotes(repo, 'alice', 'main')), 'SCOPE_VIOLATION');
      git(repo, 'reset', '-q', '--hard', 'HEAD~1');
    });
  });
});
});
}

describe('the same model without a server', () => {
  it('done --merge refuses a hook-free out-of-scope commit when the registry is not committed on the base', () => {
    const dir = initialised(join(realpathSync(mkdtempSync(join(tmpdir(), 'intent-flows-local-'))), 'uncommitted'));
    writeFiles(dir, { '.orchestration/active_intents.yaml': registryYaml([{ id: 'INT-001', scope: ['src/**'] }]) });
    // checkout itself refuses an uncommitted registry now; past it, done --merge must refuse too.
    const wt = checkoutIntent(dir, 'INT-001', ['--allow-uncommitted']);
    const c = commit(wt, { 'docs/x.md': 'x\nsneaky\n' }, 'hooks off', NO_HOOKS);
    recordCommit(wt, process.env, { rev: c, intentId: 'INT-001' });
    const r = intent(dir, ['done', 'INT-001', '--merge']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(new RegExp(`INTENT_NOT_ACTIVE ${c.slice(0, 12)}`));
    expect(r.stderr).toContain('its committed registry does not list it');
    expect(r.stderr).toContain('commit .orchestration/');
    expect(sha(dir, 'main')).not.toBe(c);
    // Committed, the scope decides.
    git(dir, 'add', '.orchestration');
    git(dir, 'commit', '-q', '-m', 'register INT-001');
    const again = intent(dir, ['done', 'INT-001', '--merge']);
    expect(again.status).not.toBe(0);
    expect(again.stderr).toMatch(new RegExp(`SCOPE_VIOLATION ${c.slice(0, 12)}`));
  });
});

