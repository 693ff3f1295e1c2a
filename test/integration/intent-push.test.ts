// `intent push`: the intent's branch with its notes, in one atomic push, against a plain bare
// remote and against a real server: `git http-backend` on 127.0.0.1 (test/fixtures/git-http-server.mjs)
// with the gate in pre-receive and the notes fold in post-receive; agents in their own clones,
// pushing at once.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, PKG_ROOT, checkoutIntent, git, intent, ledgerLines, registryYaml, removeTree, run, spawnAsync, writeFiles } from '../helpers.js';

const AGENTS = 6;
const COMMITS = 4;
const INTENTS = Array.from({ length: AGENTS }, (_, i) => ({ id: `INT-00${i + 1}`, scope: [`src/${i + 1}/**`], status: 'IN_PROGRESS' }));
const AUTHORITY = `agents:\n${INTENTS.map((x, i) => `  agent-${i + 1}: ["${x.id}"]\n`).join('')}humans: ["alice"]\n`;
const HOOK_ENV = { INTENT_BIN: `${process.execPath} ${CLI}` };

let root: string;
let server: ChildProcess;
let port: number;

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'intent-push-')));
  server = spawn(process.execPath, [join(PKG_ROOT, 'test', 'fixtures', 'git-http-server.mjs'), root], {
    env: { ...process.env, ...HOOK_ENV }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  port = await new Promise<number>((resolve, reject) => {
    server.stdout!.once('data', (d) => resolve(Number(String(d).trim())));
    server.once('exit', (c) => reject(new Error(`git-http-server exited ${c}`)));
  });
});

afterAll(() => {
  server?.kill('SIGTERM');
  removeTree(root);
});

function url(who: string, name: string): string {
  return `http://127.0.0.1:${port}/as/${encodeURIComponent(who)}/${name}`;
}

/** A bare repository served over HTTP with the per-intent pre-receive (the gate) and the post-receive (fold, carry). */
function serverRepo(name: string): string {
  const bare = join(root, name);
  git(root, 'init', '-q', '--bare', '-b', 'main', bare);
  git(bare, 'config', 'http.receivepack', 'true');
  copyFileSync(join(PKG_ROOT, 'templates', 'server', 'pre-receive'), join(bare, 'hooks', 'pre-receive'));
  copyFileSync(join(PKG_ROOT, 'templates', 'server', 'post-receive'), join(bare, 'hooks', 'post-receive'));
  chmodSync(join(bare, 'hooks', 'pre-receive'), 0o755);
  chmodSync(join(bare, 'hooks', 'post-receive'), 0o755);
  return bare;
}

/** The human's clone: intent init, the registry and authority.yaml on main, pushed to `remote` (null: no remote yet). */
function humanRepo(dir: string, remote: string | null): string {
  mkdirSync(dir);
  git(dir, 'init', '-q', '-b', 'main');
  writeFiles(dir, { 'README.md': '# t\n' });
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'initial');
  expect(intent(dir, ['init']).status).toBe(0);
  writeFiles(dir, { '.orchestration/active_intents.yaml': registryYaml(INTENTS), '.orchestration/authority.yaml': AUTHORITY });
  git(dir, 'add', '.orchestration');
  git(dir, 'commit', '-q', '-m', 'register intents and agents');
  if (remote === null) return dir;
  git(dir, 'remote', 'add', 'origin', remote);
  const p = run('git', ['push', '-q', 'origin', 'main'], dir);
  expect(p.status, p.stderr).toBe(0);
  return dir;
}

/** An agent's own clone with intent's hooks, in the intent's worktree; pushes as `who`. */
function agentClone(name: string, who: string, id: string, mode: 'intent' | 'shared'): string {
  const dir = join(root, `${name}-${who}`);
  git(root, 'clone', '-q', url(who, `${name}.git`), dir);
  expect(intent(dir, ['init']).status).toBe(0);
  git(dir, 'config', 'intent.pushNotes', mode);
  return checkoutIntent(dir, id);
}

function notesOn(bare: string, ref: string): string[] {
  const r = run('git', ['notes', `--ref=${ref}`, 'list'], bare);
  return r.status === 0 ? r.stdout.split('\n').filter(Boolean).map((l) => l.split(' ')[1]) : [];
}

describe('intent push', () => {
  it('pushes the branch and its notes in one push; per intent, the server folds them into refs/notes/intents; a fresh clone sees them', () => {
    const srv = serverRepo('one.git');
    const human = humanRepo(join(root, 'one-human'), url('alice', 'one.git'));
    const wt = agentClone('one', 'agent-1', 'INT-001', 'intent');
    writeFiles(wt, { 'src/1/a.ts': 'a\n' });
    git(wt, 'add', '-A');
    git(wt, 'commit', '-q', '-m', 'work');
    const c = git(wt, 'rev-parse', 'HEAD').trim();
    const r = intent(wt, ['push', '--json']);
    expect(r.status, r.stderr + r.stdout).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ remote: 'origin', intent: 'INT-001', mode: 'intent', notesRef: 'refs/notes/intent/INT-001', attempts: 1, notes: 1, commit: c });
    expect(git(srv, 'rev-parse', 'refs/heads/intent/INT-001').trim()).toBe(c);
    expect(notesOn(srv, 'refs/notes/intent/INT-001')).toEqual([c]);
    expect(notesOn(srv, 'refs/notes/intents')).toEqual([c]); // folded by post-receive

    // Nothing new: the branch is up to date, no notes commit is made.
    const again = JSON.parse(intent(wt, ['push', '--json']).stdout);
    expect(again).toMatchObject({ attempts: 1, notes: 0 });

    // A fresh clone after a plain fetch of the notes ref shows the intent.
    const fresh = join(root, 'one-fresh');
    git(root, 'clone', '-q', url('bob', 'one.git'), fresh);
    git(fresh, 'fetch', '-q', 'origin', 'refs/notes/intents:refs/notes/intents');
    expect(git(fresh, 'log', '--notes=intents', '-1', 'origin/intent/INT-001')).toContain('INT-001 Intent INT-001');
    expect(human).toBeTruthy();
  });

  it('shared mode moves refs/notes/intents itself; a plain bare remote works too', () => {
    const bare = join(root, 'plain.git');
    git(root, 'init', '-q', '--bare', '-b', 'main', bare);
    const human = humanRepo(join(root, 'plain-human'), bare);
    const wt = checkoutIntent(human, 'INT-002');
    writeFiles(wt, { 'src/2/a.ts': 'a\n' });
    git(wt, 'add', '-A');
    git(wt, 'commit', '-q', '-m', 'work');
    const r = intent(wt, ['push', '--notes', 'shared', '--json']);
    expect(r.status, r.stderr + r.stdout).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ mode: 'shared', notesRef: 'refs/notes/intents', attempts: 1 });
    expect(notesOn(bare, 'refs/notes/intents')).toEqual([git(wt, 'rev-parse', 'HEAD').trim()]);

    // Another clone pushes its intent's notes meanwhile: the next push merges them in (and into the ledger, as sync does).
    const other = join(root, 'plain-other');
    git(root, 'clone', '-q', bare, other);
    expect(intent(other, ['init']).status).toBe(0);
    const owt = checkoutIntent(other, 'INT-003');
    writeFiles(owt, { 'src/3/a.ts': 'a\n' });
    git(owt, 'add', '-A');
    git(owt, 'commit', '-q', '-m', 'other work');
    expect(JSON.parse(intent(owt, ['push', '--notes', 'shared', '--json']).stdout)).toMatchObject({ attempts: 1, notes: 1 });
    git(human, 'fetch', '-q', bare, '+refs/heads/*:refs/remotes/origin/*'); // their commit is here; its note comes with the next push
    writeFiles(wt, { 'src/2/b.ts': 'b\n' });
    git(wt, 'add', '-A');
    git(wt, 'commit', '-q', '-m', 'more work');
    expect(JSON.parse(intent(wt, ['push', '--notes', 'shared', '--json']).stdout)).toMatchObject({ attempts: 1, notes: 1 });
    expect(notesOn(bare, 'refs/notes/intents')).toHaveLength(3);
    const theirs = git(owt, 'rev-parse', 'HEAD').trim();
    expect(ledgerLines(human).some((l) => JSON.parse(l).vcs.revision === theirs)).toBe(true);
    const v = JSON.parse(intent(wt, ['verify', '--json']).stdout);
    expect(v.findings).toEqual([]);
  });

  it('pushes a rewrite of its own pushed branch with a lease, never over a push it never had', () => {
    const srv = serverRepo('lease.git');
    humanRepo(join(root, 'lease-human'), url('alice', 'lease.git'));
    const wt = agentClone('lease', 'agent-2', 'INT-002', 'intent');
    git(wt, 'config', '--unset', 'intent.pushNotes'); // the default
    const push = () => intent(wt, ['push', '--json']);
    writeFiles(wt, { 'src/2/a.ts': 'a\n' });
    git(wt, 'add', '-A');
    git(wt, 'commit', '-q', '-m', 'first');
    const first = push();
    expect(first.status, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ mode: 'intent', notesRef: 'refs/notes/intent/INT-002', attempts: 1 });
    // An amend after the push: the branch is replaced, the new commit checked with its record.
    git(wt, 'commit', '-q', '--amend', '-m', 'first, reworded');
    const amended = push();
    expect(amended.status, amended.stderr).toBe(0);
    expect(git(srv, 'rev-parse', 'refs/heads/intent/INT-002').trim()).toBe(git(wt, 'rev-parse', 'HEAD').trim());
    expect(git(srv, 'notes', '--ref=intents', 'show', 'intent/INT-002')).toContain('INT-002');

    // Someone else pushes to the branch (a human fixing up, from another clone) ...
    const other = join(root, 'lease-other');
    git(root, 'clone', '-q', url('alice', 'lease.git'), other);
    expect(intent(other, ['init']).status).toBe(0);
    git(other, 'checkout', '-q', 'intent/INT-002');
    writeFiles(other, { 'src/2/b.ts': 'b\n' });
    git(other, 'add', '-A');
    const fix = run('git', ['commit', '-q', '-m', 'a human fix'], other, { INTENT_ID: 'INT-002' });
    expect(fix.status, fix.stderr).toBe(0);
    const theirPush = intent(other, ['push']);
    expect(theirPush.status, theirPush.stderr).toBe(0);
    const theirs = git(other, 'rev-parse', 'HEAD').trim();
    // ... the agent, not having fetched it, rewrites its own commit again: refused, theirs kept.
    git(wt, 'commit', '-q', '--amend', '-m', 'first, reworded twice');
    const over = push();
    expect(over.status).toBe(1);
    const err = JSON.parse(over.stdout).error;
    expect(err).toMatchObject({ code: 'PUSH_FAILED', data: { reason: 'branch-behind' } });
    expect(err.message).toContain('someone else pushed to it');
    expect(git(srv, 'rev-parse', 'refs/heads/intent/INT-002').trim()).toBe(theirs);
    // Fetched but not merged: still refused (the lease holds only over tips this branch had).
    git(wt, 'fetch', '-q', 'origin');
    expect(push().status).toBe(1);
    expect(git(srv, 'rev-parse', 'refs/heads/intent/INT-002').trim()).toBe(theirs);
    // Rebased onto it: accepted.
    expect(run('git', ['rebase', '-q', 'origin/intent/INT-002'], wt).status).toBe(0);
    const rebased = push();
    expect(rebased.status, rebased.stderr).toBe(0);
    expect(git(srv, 'merge-base', '--is-ancestor', theirs, 'refs/heads/intent/INT-002').length).toBe(0);
  });

  it("a team's first push to an empty server, its intent's work already merged on main: intent push from main is accepted by the pre-push check and the server alike", () => {
    // Work made and merged before the server existed (the Quickstart on a repository with no remote yet).
    const dir = humanRepo(join(root, 'first-push'), null);
    const wt = checkoutIntent(dir, 'INT-001');
    writeFiles(wt, { 'src/1/a.ts': 'export const a = 1;\n' });
    git(wt, 'add', '-A');
    git(wt, 'commit', '-q', '-m', 'work before any server');
    const work = git(wt, 'rev-parse', 'HEAD').trim();
    git(dir, 'merge', '-q', '--no-ff', '--no-edit', 'intent/INT-001');
    const srv = serverRepo('first.git');
    git(dir, 'remote', 'add', 'origin', url('alice', 'first.git'));
    // Never fetched (nothing to fetch): the local main is the policy, nothing is on the server yet.
    const r = intent(dir, ['push']);
    expect(r.status, r.stderr + r.stdout).toBe(0);
    expect(git(srv, 'rev-parse', 'main').trim()).toBe(git(dir, 'rev-parse', 'main').trim());
    expect(notesOn(srv, 'intents')).toContain(work);
  });

  it('says what is wrong: a detached HEAD, per-intent notes off an intent branch, an unknown remote, a bad mode, a refusal by the gate', () => {
    const srv = serverRepo('err.git');
    const human = humanRepo(join(root, 'err-human'), url('alice', 'err.git'));
    // main in the main worktree (the README's last step, after intent done --merge): main and the shared notes.
    const m = intent(human, ['push', '--json']);
    expect(m.status, m.stderr + m.stdout).toBe(0);
    expect(JSON.parse(m.stdout)).toMatchObject({ intent: null, branch: 'main', mode: 'shared', notesRef: 'refs/notes/intents', attempts: 1 });
    const pm = intent(human, ['push', '--notes', 'intent']);
    expect(pm.status).toBe(2);
    expect(pm.stderr).toContain("--notes intent pushes an intent's notes to refs/notes/intent/<ID>, and main is not an intent's branch");
    git(human, 'checkout', '-q', '--detach');
    const u = intent(human, ['push']);
    git(human, 'checkout', '-q', 'main');
    expect(u.status).toBe(2);
    expect(u.stderr).toContain('intent push pushes the current branch with its notes');
    expect(u.stderr).toContain('a detached HEAD');
    const wt = agentClone('err', 'agent-3', 'INT-003', 'intent');
    const n = intent(wt, ['push', 'nowhere', '--json']);
    expect(JSON.parse(n.stdout).error).toMatchObject({ code: 'PUSH_FAILED', data: { reason: 'unknown-remote' } });
    expect(intent(wt, ['push', '--notes', 'both']).stderr).toContain('--notes takes "intent"');
    // Out of scope, committed past the local hooks: the server's gate refuses, the message says so.
    writeFiles(wt, { 'src/1/x.ts': 'x\n' });
    git(wt, 'add', '-A');
    git(wt, '-c', 'core.hooksPath=/dev/null', 'commit', '-q', '-m', 'outside');
    expect(intent(wt, ['repair']).status).toBe(0);
    const l = intent(wt, ['push', '--json']);
    expect(l.status).toBe(1);
    expect(JSON.parse(l.stdout).error).toMatchObject({ code: 'PUSH_FAILED', data: { reason: 'refused-by-pre-push', attempts: 1 } });
    expect(JSON.parse(l.stdout).error.message).toContain('Scope Violation: INT-003 is not authorized to edit src/1/x.ts');
    // The local hooks switched off (as an agent with a shell can): the server's gate refuses.
    git(wt, 'config', '--worktree', 'core.hooksPath', '/dev/null');
    const g = intent(wt, ['push', '--json']);
    expect(g.status).toBe(1);
    const err = JSON.parse(g.stdout).error;
    expect(err).toMatchObject({ code: 'PUSH_FAILED', data: { reason: 'refused-by-server', attempts: 1 } });
    // The server's findings keep their lines: each finding, and its next: line, on a line of its own.
    expect(err.message).toMatch(/the server's gate refused it:\n {2}intent gate: [\s\S]*\n {4}SCOPE_VIOLATION /);
    expect(err.message.split('\n').some((l: string) => /^ {2}\s*next: /.test(l)), err.message).toBe(true);
    expect(intent(wt, ['push']).stderr).toMatch(/refused it:\n {2}/);
    expect(notesOn(srv, 'refs/notes/intents')).toEqual([]);
  });

  it("the pre-push hook takes a push's per-intent notes ref, and the per-intent refs as last fetched, for the server's notes: no NOTE_MISSING warning where the server has them", () => {
    const srv = serverRepo('pp.git');
    humanRepo(join(root, 'pp-human'), url('alice', 'pp.git'));
    const wt = agentClone('pp', 'agent-4', 'INT-004', 'intent');
    const work = (file: string) => {
      writeFiles(wt, { [file]: `${file}\n` });
      git(wt, 'add', '-A');
      git(wt, 'commit', '-q', '-m', file);
      return git(wt, 'rev-parse', 'HEAD').trim();
    };
    // The branch with its per-intent notes ref in one push (what intent push --notes intent does), through the hooks.
    const c = work('src/4/a.ts');
    git(wt, 'update-ref', 'refs/notes/intent/INT-004', 'refs/notes/intents');
    const both = run('git', ['push', 'origin', 'intent/INT-004', 'refs/notes/intent/INT-004'], wt, HOOK_ENV);
    expect(both.status, both.stderr).toBe(0);
    expect(both.stderr).not.toContain('WARNING');
    expect(notesOn(srv, 'refs/notes/intents')).toContain(c);

    // The notes first, the branch later: an intent's notes ref takes notes of its branch's commits
    // only, so the server (and this clone's pre-push, with the branch as last fetched) refuses an
    // inert note; pushed with the branch, it is taken.
    const d = work('src/4/b.ts');
    git(wt, 'update-ref', 'refs/notes/intent/INT-004', 'refs/notes/intents');
    const early = run('git', ['push', 'origin', 'refs/notes/intent/INT-004'], wt, HOOK_ENV);
    expect(early.status).not.toBe(0);
    expect(early.stderr).toMatch(new RegExp(`NOTE_NOT_ON_BRANCH\\s+${d.slice(0, 12)}`));
    const server = run('git', ['push', '--no-verify', 'origin', 'refs/notes/intent/INT-004'], wt);
    expect(server.status).not.toBe(0);
    expect(server.stderr).toMatch(new RegExp(`NOTE_NOT_ON_BRANCH\\s+${d.slice(0, 12)}`));
    const together = run('git', ['push', 'origin', 'intent/INT-004', 'refs/notes/intent/INT-004'], wt, HOOK_ENV);
    expect(together.status, together.stderr).toBe(0);
    expect(together.stderr).not.toContain('WARNING');
    expect(git(srv, 'rev-parse', 'refs/heads/intent/INT-004').trim()).toBe(d);
    expect(notesOn(srv, 'refs/notes/intents')).toContain(d);

    // A commit whose note is nowhere on the server: still the warning, and the server refuses it.
    const e = work('src/4/c.ts');
    const bare = run('git', ['push', 'origin', 'intent/INT-004'], wt, HOOK_ENV);
    expect(bare.stderr).toContain(`intent: WARNING: 1 pushed commit has no note on origin's refs/notes/intents as last fetched (${e.slice(0, 12)})`);
    expect(bare.status).not.toBe(0);
    expect(bare.stderr).toMatch(new RegExp(`NOTE_MISSING\\s+${e.slice(0, 12)}`));
  });

  it('the per-intent notes ref is judged as refs/notes/intents is: a note added for protected history is refused; one notes ref per push', () => {
    const srv = serverRepo('atk.git');
    humanRepo(join(root, 'atk-human'), url('alice', 'atk.git'));
    const wt = agentClone('atk', 'agent-1', 'INT-001', 'intent');
    const main = git(wt, 'rev-parse', 'origin/main').trim();
    run('git', ['notes', '--ref=refs/notes/forge', 'add', '-m', 'INT-001 rewritten history', main], wt);
    const r = run('git', ['push', '--no-verify', 'origin', 'refs/notes/forge:refs/notes/intent/INT-001'], wt);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(new RegExp(`NOTE_REWRITTEN\\s+${main.slice(0, 12)}`));
    const two = run('git', ['push', '--no-verify', 'origin', 'refs/notes/forge:refs/notes/intent/INT-001', 'refs/notes/forge:refs/notes/intents'], wt);
    expect(two.status).not.toBe(0);
    expect(two.stderr).toContain('a push may carry one notes ref');
    expect(run('git', ['rev-parse', '-q', '--verify', 'refs/notes/intent/INT-001'], srv).status).not.toBe(0);
  });

  it(`${AGENTS} agents x ${COMMITS} commits at once through the gate: every note lands, at most 1.5 attempts per push`, async () => {
    const srv = serverRepo('many.git');
    humanRepo(join(root, 'many-human'), url('alice', 'many.git'));
    const wts = INTENTS.map((x, i) => agentClone('many', `agent-${i + 1}`, x.id, 'intent'));
    const script = (i: number) => Array.from({ length: COMMITS }, (_, k) =>
      `mkdir -p src/${i + 1} && printf 'line ${k}\\n' >> src/${i + 1}/f.ts && git add -A && git commit -q -m 'c${k}' && "${process.execPath}" "${CLI}" push --json >> ../push-${i + 1}.jsonl || exit 1`).join('\n');
    const outs = await Promise.all(wts.map((wt, i) => spawnAsync('sh', ['-c', script(i)], wt)));
    outs.forEach((o, i) => expect(o.code, `agent ${i + 1}: ${o.stderr}${o.stdout}`).toBe(0));
    const results = wts.flatMap((wt, i) => run('cat', [join(wt, '..', `push-${i + 1}.jsonl`)], wt).stdout.split(/(?<=^\})\n/m).filter((t) => t.trim()).map((t) => JSON.parse(t)));
    expect(results).toHaveLength(AGENTS * COMMITS);
    const attempts = results.reduce((n, r) => n + r.attempts, 0) / results.length;
    expect(attempts).toBeLessThanOrEqual(1.5);
    // Every commit of every agent has its note in the server's refs/notes/intents.
    const noted = new Set(notesOn(srv, 'refs/notes/intents'));
    const commits = wts.flatMap((wt) => git(wt, 'rev-list', 'HEAD', '--not', 'origin/main').split('\n').filter(Boolean));
    expect(commits).toHaveLength(AGENTS * COMMITS);
    expect(commits.filter((c) => !noted.has(c))).toEqual([]);
  });
});
