import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, checkoutIntent, fixture, git, governedRepo, intent, run, tempDir, writeFiles, spawnAsync } from '../helpers.js';

// `intent sync` and the notes fetch refspec, with real git: a bare remote and two clones that
// each ran `intent init` and make governed commits in intent worktrees.

const NOTES = 'refs/notes/intents';
const TRACKING = 'refs/notes/remotes/origin/intents';
const GLOB = '+refs/notes/intents*:refs/notes/remotes/origin/intents*';
const ZERO = /^0+$/;

interface SyncJson { remote: string; fetched: boolean; merged: number; pushed: boolean; attempts: number }

/**
 * A bare remote (reflog on, to audit every update of its notes ref) and clones A and B of it, both
 * initialised: built once per file, each test gets a copy.
 */
function twoClones(): { remote: string; a: string; b: string } {
  return fixture('twoClones', () => {
    const remote = join(tempDir(), 'remote.git');
    git(dirname(remote), 'init', '-q', '--bare', '-b', 'main', remote);
    git(remote, 'config', 'core.logAllRefUpdates', 'always');
    // In progress on the remote's main: pre-push judges an intent branch as the server's gate would.
    const a = governedRepo([{ id: 'INT-001', status: 'IN_PROGRESS', scope: ['src/a/**'] }, { id: 'INT-002', status: 'IN_PROGRESS', scope: ['src/b/**'] }]);
    git(a, 'remote', 'add', 'origin', remote);
    git(a, 'push', '-q', '-u', 'origin', 'main');
    const initA = intent(a, ['init', '--json']); // now that origin exists: adds the fetch refspec
    expect(initA.status, initA.stderr).toBe(0);
    expect(JSON.parse(initA.stdout).config).toEqual([`remote.origin.fetch += ${GLOB}`]);
    const b = join(dirname(remote), 'B');
    git(dirname(remote), 'clone', '-q', remote, b);
    const initB = intent(b, ['init']);
    expect(initB.status, initB.stderr).toBe(0);
    expect(initB.stdout).toContain(`config   remote.origin.fetch += ${GLOB}`);
    return { remote, a, b };
  });
}

/** A governed commit in worktree `wt`; returns its sha and the note bytes its post-commit hook wrote. */
function commit(wt: string, files: Record<string, string>): { sha: string; note: string } {
  writeFiles(wt, files);
  git(wt, 'add', '-A');
  const r = run('git', ['commit', '-q', '-m', `edit ${Object.keys(files).join(' ')}`], wt);
  expect(r.status, r.stderr).toBe(0);
  expect(r.stderr).not.toContain('NOT recorded');
  const sha = git(wt, 'rev-parse', 'HEAD').trim();
  const note = notesOf(wt).get(sha);
  expect(note, 'post-commit wrote a note').toBeDefined();
  return { sha, note: note! };
}

/** Every note of a notes ref: annotated object → the note blob's exact bytes (as text). */
function notesOf(cwd: string, ref = NOTES): Map<string, string> {
  const out = new Map<string, string>();
  const list = run('git', ['notes', `--ref=${ref}`, 'list'], cwd);
  if (list.status !== 0) return out;
  for (const line of list.stdout.split('\n').filter(Boolean)) {
    const [blob, object] = line.split(' ');
    out.set(object, git(cwd, 'cat-file', 'blob', blob));
  }
  return out;
}

function sync(cwd: string, args: string[] = []): SyncJson {
  const r = intent(cwd, ['sync', ...args, '--json']);
  expect(r.status, r.stderr + r.stdout).toBe(0);
  return JSON.parse(r.stdout) as SyncJson;
}

/** Asserts a note is well formed: summary line, JSON line, newline; nothing else. */
function expectOneRecord(note: string, sha: string): void {
  const lines = note.split('\n');
  expect(lines).toHaveLength(3);
  expect(lines[2]).toBe('');
  expect(lines[0].startsWith('INT-00')).toBe(true);
  expect(JSON.parse(lines[1]).vcs.revision).toBe(sha);
}

/**
 * The bare remote's notes ref only ever moved forward: its reflog is one unbroken chain in which
 * every update's new tip descends from the old one (a force push would break that).
 */
function expectOnlyFastForwards(remote: string): number {
  const log = readFileSync(join(remote, 'logs', NOTES), 'utf8').split('\n').filter(Boolean);
  let prev: string | null = null;
  for (const line of log) {
    const [oldSha, newSha] = line.split(' ');
    if (prev === null) expect(oldSha).toMatch(ZERO);
    else {
      expect(oldSha, 'each update starts where the previous one ended').toBe(prev);
      expect(run('git', ['merge-base', '--is-ancestor', oldSha, newSha], remote).status, `${newSha} descends from ${oldSha}`).toBe(0);
    }
    prev = newSha;
  }
  expect(git(remote, 'rev-parse', NOTES).trim()).toBe(prev);
  // And the history `git log` shows holds every tip the ref ever had.
  const history = new Set(git(remote, 'log', '--format=%H', NOTES).split('\n').filter(Boolean));
  for (const line of log) expect(history.has(line.split(' ')[1])).toBe(true);
  return log.length;
}

describe('intent init: the notes fetch refspec', () => {
  it('adds a glob fetch refspec per remote once, so a plain git fetch brings the notes (and works before there are any)', () => {
    const { remote, a, b } = twoClones();
    for (const repo of [a, b]) {
      expect(git(repo, 'config', '--get-all', 'remote.origin.fetch').split('\n').filter(Boolean)).toEqual(['+refs/heads/*:refs/remotes/origin/*', GLOB]);
      expect(run('git', ['config', '--get-all', 'remote.origin.push'], repo).status, 'no push refspec: a bare git push is unchanged').not.toBe(0);
    }
    const again = intent(a, ['init', '--json']);
    expect(again.status).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ changed: false, config: [] });
    expect(git(a, 'config', '--get-all', 'remote.origin.fetch').split('\n').filter((l) => l === GLOB)).toHaveLength(1);

    // The remote has no notes yet: a plain fetch still succeeds (an exact refspec would fail).
    const early = run('git', ['fetch'], b);
    expect(early.status, early.stderr).toBe(0);
    expect(run('git', ['rev-parse', '-q', '--verify', TRACKING], b).status).not.toBe(0);

    const wt = checkoutIntent(a, 'INT-001');
    const c = commit(wt, { 'src/a/x.ts': 'x\n' });
    // A record travels with its commit: not before the remote has it.
    expect(sync(a)).toEqual({ remote: 'origin', fetched: false, merged: 0, pushed: false, attempts: 1, attestations: false });
    git(wt, 'push', '-q', '--no-verify', 'origin', 'intent/INT-001');
    expect(sync(a)).toEqual({ remote: 'origin', fetched: false, merged: 0, pushed: true, attempts: 1, attestations: false });
    const fetched = run('git', ['fetch'], b);
    expect(fetched.status, fetched.stderr).toBe(0);
    expect(git(b, 'rev-parse', TRACKING).trim()).toBe(git(remote, 'rev-parse', NOTES).trim());
    expect(notesOf(b, TRACKING)).toEqual(new Map([[c.sha, c.note]]));
  });

  it('leaves remotes alone that fetch nothing or already fetch the notes', () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }]);
    git(repo, 'remote', 'add', 'origin', '/nonexistent/origin.git');
    git(repo, 'remote', 'add', 'mirror', '/nonexistent/mirror.git');
    git(repo, 'config', '--add', 'remote.mirror.fetch', '+refs/notes/*:refs/notes/*');
    git(repo, 'config', 'remote.pushonly.url', '/nonexistent/push.git');
    const r = intent(repo, ['init', '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).config).toEqual(['remote.origin.fetch += +refs/notes/intents*:refs/notes/remotes/origin/intents*']);
    expect(git(repo, 'config', '--get-all', 'remote.mirror.fetch').split('\n').filter(Boolean))
      .toEqual(['+refs/heads/*:refs/remotes/mirror/*', '+refs/notes/*:refs/notes/*']);
    expect(run('git', ['config', '--get-all', 'remote.pushonly.fetch'], repo).status).not.toBe(0);
  });
});

describe('intent sync', () => {
  it('two clones commit and sync: A, B and the remote end with every note, byte for byte as post-commit wrote it', () => {
    const { remote, a, b } = twoClones();
    const wtA = checkoutIntent(a, 'INT-001');
    const wtB = checkoutIntent(b, 'INT-002');
    const a1 = commit(wtA, { 'src/a/one.ts': 'one\n' });
    const a2 = commit(wtA, { 'src/a/one.ts': 'one\ntwo\n', 'src/a/two.ts': '2\n' });
    const b1 = commit(wtB, { 'src/b/one.ts': 'b one\n' });
    git(wtA, 'push', '-q', 'origin', 'intent/INT-001');
    git(wtB, 'push', '-q', 'origin', 'intent/INT-002');

    expect(sync(a)).toEqual({ remote: 'origin', fetched: false, merged: 0, pushed: true, attempts: 1, attestations: false });
    // From B's intent worktree (its branch has no upstream: origin).
    expect(sync(wtB)).toEqual({ remote: 'origin', fetched: true, merged: 2, pushed: true, attempts: 1, attestations: false });
    expect(sync(wtA)).toEqual({ remote: 'origin', fetched: true, merged: 1, pushed: false, attempts: 1, attestations: false });
    expect(sync(b, ['origin'])).toEqual({ remote: 'origin', fetched: true, merged: 0, pushed: false, attempts: 1, attestations: false });

    const expected = new Map([[a1.sha, a1.note], [a2.sha, a2.note], [b1.sha, b1.note]]);
    for (const [where, dir] of [['A', a], ['B', b], ['remote', remote], ["A's worktree", wtA]] as const) {
      expect(notesOf(dir), where).toEqual(expected);
    }
    for (const [sha, note] of expected) expectOneRecord(note, sha);
    // The audit trail reads the same in the other clone.
    git(b, 'fetch', '-q', 'origin');
    const summary = a1.note.split('\n')[0];
    expect(git(b, 'log', '--notes=intents', '-1', a1.sha)).toContain(summary);
    expect(intent(b, ['verify', '--no-ledger', '--', 'origin/intent/INT-001', '--not', 'origin/main']).status).toBe(0);
    expectOnlyFastForwards(remote);

    const human = intent(a, ['sync']);
    expect(human.status).toBe(0);
    expect(human.stdout).toBe('intent sync origin: fetched its notes, merged 0 notes in; nothing to push.\n');
  });

  it('concurrent syncs from A and B (and a commit during a sync) lose nothing and never force the remote', async () => {
    const { remote, a, b } = twoClones();
    const wtA = checkoutIntent(a, 'INT-001');
    const wtB = checkoutIntent(b, 'INT-002');
    const expected = new Map<string, string>();
    const ROUNDS = 4;
    for (let round = 0; round < ROUNDS; round++) {
      for (const [wt, dir] of [[wtA, 'a'], [wtB, 'b']] as const) {
        const c = commit(wt, { [`src/${dir}/r${round}.ts`]: `round ${round}\n` });
        expected.set(c.sha, c.note);
      }
      for (const [wt, id] of [[wtA, 'INT-001'], [wtB, 'INT-002']] as const) git(wt, 'push', '-q', '--no-verify', 'origin', `intent/${id}`);
      const tipBefore = run('git', ['rev-parse', '-q', '--verify', NOTES], remote).stdout.trim();
      // A commits in its worktree while A and B sync: the merge must not drop that note.
      writeFiles(wtA, { [`src/a/during${round}.ts`]: `during ${round}\n` });
      git(wtA, 'add', '-A');
      const [sa, sb, cm] = await Promise.all([
        spawnAsync(process.execPath, [CLI, 'sync', '--json'], a),
        spawnAsync(process.execPath, [CLI, 'sync', '--json'], b),
        spawnAsync('git', ['commit', '-q', '-m', `during ${round}`], wtA),
      ]);
      expect(sa.code, sa.stderr + sa.stdout).toBe(0);
      expect(sb.code, sb.stderr + sb.stdout).toBe(0);
      expect(cm.code, cm.stderr).toBe(0);
      const during = git(wtA, 'rev-parse', 'HEAD').trim();
      const duringNote = notesOf(a).get(during);
      expect(duringNote, `the note of the commit made during the sync survived (commit stderr: ${cm.stderr})`).toBeDefined();
      expected.set(during, duringNote!);
      // Both pushes succeeded (or found nothing new): the remote holds every note both had synced.
      const onRemote = notesOf(remote);
      for (const [sha, note] of expected) if (sha !== during) expect(onRemote.get(sha), sha).toBe(note);
      if (tipBefore) expect(run('git', ['merge-base', '--is-ancestor', tipBefore, NOTES], remote).status).toBe(0);
      for (const r of [sa, sb]) expect((JSON.parse(r.stdout) as SyncJson).attempts).toBeLessThanOrEqual(6);
    }
    git(wtA, 'push', '-q', '--no-verify', 'origin', 'intent/INT-001');
    sync(a);
    sync(b);
    sync(a);
    for (const [where, dir] of [['A', a], ['B', b], ['remote', remote]] as const) expect(notesOf(dir), where).toEqual(expected);
    for (const [sha, note] of expected) expectOneRecord(note, sha);
    expect(expected.size).toBe(ROUNDS * 3);
    expect(expectOnlyFastForwards(remote)).toBeGreaterThanOrEqual(ROUNDS);
  });

  it('a remote with no notes gets ours; a clone with none takes the remote\'s; nothing anywhere is fine', () => {
    const { remote, a, b } = twoClones();
    expect(sync(a)).toEqual({ remote: 'origin', fetched: false, merged: 0, pushed: false, attempts: 1, attestations: false });
    expect(run('git', ['rev-parse', '-q', '--verify', NOTES], remote).status).not.toBe(0);

    const wt = checkoutIntent(a, 'INT-001');
    const c = commit(wt, { 'src/a/x.ts': 'x\n' });
    git(wt, 'push', '-q', '--no-verify', 'origin', 'intent/INT-001');
    expect(sync(a)).toEqual({ remote: 'origin', fetched: false, merged: 0, pushed: true, attempts: 1, attestations: false });
    expect(notesOf(remote)).toEqual(new Map([[c.sha, c.note]]));

    expect(existsSync(join(b, '.git', 'refs', 'notes'))).toBe(false);
    expect(sync(b)).toEqual({ remote: 'origin', fetched: true, merged: 1, pushed: false, attempts: 1, attestations: false });
    expect(git(b, 'rev-parse', NOTES).trim()).toBe(git(remote, 'rev-parse', NOTES).trim());
    expect(notesOf(b)).toEqual(new Map([[c.sha, c.note]]));
  });

  it('two different notes on one commit: both records kept, one line each, the same bytes on every clone, never duplicated', () => {
    const { remote, a, b } = twoClones();
    const base = git(a, 'rev-parse', 'HEAD').trim();
    git(b, 'fetch', '-q');
    expect(git(b, 'rev-parse', 'HEAD').trim()).toBe(base);
    const sumA = 'INT-001 One · INTENT_EVOLUTION · 1 file, 1 range';
    const sumB = 'INT-002 Two · INTENT_EVOLUTION · 1 file, 1 range';
    const jsonA = `{"id":"a","vcs":{"type":"git","revision":"${base}"}}`;
    const jsonB = `{"id":"b","vcs":{"type":"git","revision":"${base}"}}`;
    git(a, 'notes', '--ref=intents', 'add', '-m', `${sumA}\n${jsonA}`, base);
    git(b, 'notes', '--ref=intents', 'add', '-m', `${sumB}\n${jsonB}`, base);
    expect(notesOf(a).get(base)).toBe(`${sumA}\n${jsonA}\n`);

    sync(a);
    expect(sync(b)).toMatchObject({ fetched: true, merged: 1, pushed: true });
    sync(a);
    // cat_sort_uniq: every line once, sorted (summaries before records): whoever merged.
    const both = `${sumA}\n${sumB}\n${jsonA}\n${jsonB}\n`;
    for (const dir of [a, b, remote]) expect(notesOf(dir).get(base)).toBe(both);
    expect(sync(b)).toMatchObject({ merged: 0, pushed: false });

    // A clone whose notes history shares no base with the remote's (e.g. the remote's notes were
    // rewritten) and that holds one of the records already: the record is not repeated.
    const c = join(dirname(remote), 'C');
    git(dirname(remote), 'clone', '-q', remote, c);
    // (another date: with the pinned test dates this notes commit would be A's own, byte for byte)
    const added = run('git', ['notes', '--ref=intents', 'add', '-m', `${sumA}\n${jsonA}`, base], c, { GIT_COMMITTER_DATE: '2026-02-01T00:00:00Z' });
    expect(added.status, added.stderr).toBe(0);
    const [ours, theirs] = [git(c, 'rev-parse', NOTES).trim(), git(remote, 'rev-parse', NOTES).trim()];
    // After the merge C holds what the remote holds: nothing to offer.
    expect(sync(c)).toMatchObject({ fetched: true, merged: 1, pushed: false });
    expect(run('git', ['merge-base', ours, theirs], c).status, 'the two notes histories had no common base').toBe(1);
    expect(notesOf(c).get(base)).toBe(both);
    expect(notesOf(remote).get(base)).toBe(both);
    expectOnlyFastForwards(remote);
  });

  it('one commit recorded in two clones (each repaired it) merges into one valid note, the same on every clone, by intent sync and by plain git notes merge', () => {
    const { remote, a, b } = twoClones();
    // A commit pushed without its note (the hooks were off), then recorded in each clone.
    const wt = checkoutIntent(a, 'INT-001');
    writeFiles(wt, { 'src/a/x.ts': 'export const x = 1;\n' });
    git(wt, 'add', '-A');
    git(wt, '-c', 'core.hooksPath=/dev/null', 'commit', '-q', '-m', 'x\n\nIntent-Id: INT-001');
    const sha = git(wt, 'rev-parse', 'HEAD').trim();
    git(wt, 'push', '-q', '--no-verify', 'origin', 'HEAD:main');
    git(b, 'pull', '-q', 'origin', 'main');
    const c = join(dirname(remote), 'C');
    git(dirname(remote), 'clone', '-q', remote, c);
    expect(intent(c, ['init']).status).toBe(0);
    for (const [dir, date] of [[a, '2026-03-01T00:00:00Z'], [b, '2026-03-02T00:00:00Z'], [c, '2026-03-03T00:00:00Z']] as const) {
      const r = run(process.execPath, [CLI, 'repair', sha, '--json'], dir, { GIT_COMMITTER_DATE: date });
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).recorded).toEqual([sha]);
    }
    const notes = [a, b, c].map((d) => notesOf(d).get(sha)!);
    expect(new Set(notes).size, 'three different records').toBe(3);

    sync(a);
    sync(b);
    sync(a);
    const merged = notesOf(a).get(sha)!;
    expect(notesOf(b).get(sha)).toBe(merged);
    expect(notesOf(remote).get(sha)).toBe(merged);
    const lines = merged.split('\n').filter(Boolean);
    expect(lines.filter((l) => l.startsWith('{'))).toHaveLength(2);
    for (const dir of [a, b]) {
      const v = intent(dir, ['verify', sha, '--json']);
      expect(v.status, v.stdout).toBe(0);
      expect(JSON.parse(v.stdout).findings).toEqual([]);
    }
    // Clone C merges by hand, in the other order (its own record first): the same kind of note.
    git(c, 'fetch', '-q', 'origin');
    const m = run('git', ['notes', '--ref=intents', 'merge', TRACKING], c);
    expect(m.status, m.stderr).toBe(0);
    const three = notesOf(c).get(sha)!;
    expect(three.split('\n').filter((l) => l.startsWith('{'))).toHaveLength(3);
    expect(three).toBe([...new Set([...merged.split('\n'), ...notes[2].split('\n')].filter(Boolean))].sort().join('\n') + '\n');
    const vc = intent(c, ['verify', sha, '--json', '--no-ledger']);
    expect(JSON.parse(vc.stdout).findings).toEqual([]);
    // Every reader takes the same record of the three: the earliest.
    const bc = intent(c, ['blame', 'src/a/x.ts', '--json']);
    expect(bc.status, bc.stdout + bc.stderr).toBe(0);
    const blameC = JSON.parse(bc.stdout).lines[0];
    sync(c);
    sync(a);
    expect(notesOf(a).get(sha)).toBe(three);
    expect(JSON.parse(intent(wt, ['blame', 'src/a/x.ts', '--json']).stdout).lines[0]).toEqual(blameC);
  });

  it('unknown remote: exit 1 naming the remotes; usage errors: exit 2', () => {
    const { a } = twoClones();
    const unknown = intent(a, ['sync', 'nope']);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toBe(`intent: no remote named "nope" in ${a} (remotes: origin). Name one: intent sync <remote>.\n`);
    const json = intent(a, ['sync', 'nope', '--json']);
    expect(json.status).toBe(1);
    expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'SYNC_FAILED', data: { remote: 'nope', remotes: ['origin'], reason: 'unknown-remote' } });

    const lonely = governedRepo([{ id: 'INT-001', scope: ['src/**'] }]);
    const none = intent(lonely, ['sync']);
    expect(none.status).toBe(1);
    expect(none.stderr).toContain('no remote named "origin"');
    expect(none.stderr).toContain('git remote add origin');
    expect(intent(tempDir(), ['sync']).status).toBe(1);

    for (const args of [['sync', 'origin', 'extra'], ['sync', '--retries', 'x'], ['sync', '--retries', '-1'], ['sync', '--bogus']]) {
      const r = intent(a, args);
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(2);
    }
    expect(intent(a, ['sync', '--help']).stdout).toContain('intent sync upstream');
  });

  it('a push the server refuses fails at once with its reason; a remote that keeps moving fails after the retries', () => {
    const { remote, a } = twoClones();
    const wt1 = checkoutIntent(a, 'INT-001');
    commit(wt1, { 'src/a/x.ts': 'x\n' });
    git(wt1, 'push', '-q', '--no-verify', 'origin', 'intent/INT-001');
    const hook = join(remote, 'hooks', 'pre-receive');
    writeFileSync(hook, '#!/bin/sh\necho "notes are frozen today" >&2\nexit 1\n');
    chmodSync(hook, 0o755);
    const refused = intent(a, ['sync', '--json']);
    expect(refused.status).toBe(1);
    const err = JSON.parse(refused.stdout).error;
    expect(err).toMatchObject({ code: 'SYNC_FAILED', data: { attempts: 1, reason: 'push-refused' } });
    expect(err.message).toContain('notes are frozen today');
    expect(err.message).toContain('intent sync origin');

    // An update hook that moves the ref under every push (to a commit without ours): each attempt loses the race.
    writeFileSync(hook, '#!/bin/sh\nexit 0\n');
    git(a, 'push', '-q', '--no-verify', 'origin', `${NOTES}:${NOTES}`);
    const wt2 = checkoutIntent(a, 'INT-002');
    commit(wt2, { 'src/b/y.ts': 'y\n' });
    git(wt2, 'push', '-q', '--no-verify', 'origin', 'intent/INT-002');
    const update = join(remote, 'hooks', 'update');
    writeFileSync(update, '#!/bin/sh\nold=$(git rev-parse "$1")\nc=$(git commit-tree -p "$old" -m moved "$old^{tree}")\ngit update-ref "$1" "$c"\n');
    chmodSync(update, 0o755);
    const moving = intent(a, ['sync', '--retries', '2']);
    expect(moving.status).toBe(1);
    expect(moving.stderr).toContain('gave up after 3 attempts');
    expect(moving.stderr).toContain('intent sync origin');
    expectOnlyFastForwards(remote);
  });
});
