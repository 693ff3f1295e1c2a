// `intent carry` on the shapes hosts make when they merge a pull request: squash, rebase, a
// merge commit, a squash of a pull request opened on an old base, GitLab's squash inside a merge
// commit, a squash with a human's edit, a squash of ungoverned commits. Each as a team meets it:
// the agent's commits pushed with their notes, the host's commit on main (made here without any
// hook, as a host makes it), the branch deleted and garbage-collected, then `intent carry` with
// the ids of the commits that are gone; then the audit on main and the server's gate on the push.
import { chmodSync, copyFileSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeFile } from '../../lib/agents/adapter.js';
import { checkCarried } from '../../lib/trace/carry.js';
import { CLI, PKG_ROOT, checkoutIntent, git, governedRepo, intent, noteOf, removeTree, run, writeFiles } from '../helpers.js';
import { serverRepo, startGitServer } from '../git-server.js';
import { gitoliteAvailable, startGitolite } from '../gitolite-server.js';

const MODEL = 'anthropic/claude-sonnet-4-5';
const INTENTS = [{ id: 'INT-001', name: 'Auth', scope: ['src/**'], status: 'IN_PROGRESS' }];
const HOST = ['-c', 'core.hooksPath=/dev/null', '-c', 'user.name=Host', '-c', 'user.email=host@example.com'];
const HOOK_ENV = { INTENT_BIN: `${process.execPath} ${CLI}` };
const roots: string[] = [];
afterAll(() => roots.forEach(removeTree));

interface Setup { repo: string; wt: string; srv: string }

/** A governed repository, its intent worktree, and a bare server with the gate in pre-receive holding main. */
function setup(files: Record<string, string> = { 'src/a.ts': 'a\n' }): Setup {
  const repo = governedRepo(INTENTS, { 'README.md': '# t\n', ...files });
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'intent-carry-srv-')));
  roots.push(root);
  const srv = join(root, 'srv.git');
  git(root, 'init', '-q', '--bare', '-b', 'main', srv);
  copyFileSync(join(PKG_ROOT, 'templates', 'server', 'pre-receive'), join(srv, 'hooks', 'pre-receive'));
  chmodSync(join(srv, 'hooks', 'pre-receive'), 0o755);
  git(repo, 'remote', 'add', 'origin', srv);
  pushOk(repo, ['main']);
  const wt = checkoutIntent(repo, 'INT-001');
  return { repo, wt, srv };
}

function pushOk(cwd: string, refspecs: string[]): void {
  const r = run('git', ['push', '--no-verify', 'origin', ...refspecs], cwd, HOOK_ENV);
  expect(r.status, r.stderr).toBe(0);
}

function sha(cwd: string, rev = 'HEAD'): string {
  return git(cwd, 'rev-parse', rev).trim();
}

/** The agent writes `content` through the adapter (credited to the model) and commits with the hooks. */
function agentCommit(wt: string, path: string, content: string, message: string): string {
  writeFile({ worktree: wt, path, content, tool: 'write_to_file', modelId: MODEL, conversationUrl: 'roo-code://task/t1' });
  git(wt, 'commit', '-q', '-m', message);
  return sha(wt);
}

/** A human edit committed in the intent worktree (the hooks record it, every line human). */
function humanCommit(wt: string, files: Record<string, string>, message: string): string {
  writeFiles(wt, files);
  git(wt, 'add', '-A');
  git(wt, 'commit', '-q', '-m', message);
  return sha(wt);
}

/** What the agent's push brings to the server: the branch and its notes. */
function publish(s: Setup): void {
  pushOk(s.wt, ['intent/INT-001', 'refs/notes/intents']);
}

/** What the merge button's squash makes: the branch's changes as one commit on main, no hook run. */
function hostSquash(repo: string, message: string): void {
  git(repo, ...HOST, 'merge', '-q', '--squash', 'intent/INT-001');
  git(repo, ...HOST, 'commit', '-q', '-m', message);
}

/** The branch deleted (worktree, local branch, server branch) and garbage-collected: `shas` are gone here. */
function forget(s: Setup, shas: string[]): void {
  git(s.repo, 'worktree', 'remove', '--force', s.wt);
  git(s.repo, 'branch', '-q', '-D', 'intent/INT-001');
  run('git', ['update-ref', '-d', 'refs/remotes/origin/intent/INT-001'], s.repo);
  git(s.repo, 'reflog', 'expire', '--expire=now', '--all');
  git(s.repo, 'gc', '-q', '--prune=now');
  for (const c of shas) expect(run('git', ['cat-file', '-e', `${c}^{commit}`], s.repo).status, `${c} is still here`).not.toBe(0);
}

/** Lines of `path` credited to `who` (a model id or "human") by the note of `rev`. */
function credited(cwd: string, rev: string, path: string, who: string): string[] {
  const rec = noteOf(cwd, rev)!.record;
  const file = rec.files.find((f: any) => f.path === path);
  const text = git(cwd, 'show', `${rev}:${path}`).split(/(?<=\n)/);
  return file.conversations
    .filter((c: any) => (c.contributor.model_id ?? c.contributor.type) === who)
    .flatMap((c: any) => c.ranges.flatMap((r: any) => text.slice(r.start_line - 1, r.end_line).map((l: string) => l.trimEnd())));
}

function carry(cwd: string, args: string[]): any {
  const r = intent(cwd, ['carry', ...args, '--json']);
  expect(r.status, r.stderr + r.stdout).toBe(0);
  return JSON.parse(r.stdout);
}

/** The audit of main: the log names the intent, verify counts `governed` and finds nothing, report shows the model. */
function auditMain(repo: string, governed: number, modelLines: number): void {
  expect(git(repo, 'log', '--notes=intents', '-1', 'main')).toContain('INT-001 Auth');
  const v = intent(repo, ['verify', '--json', 'main']);
  const out = JSON.parse(v.stdout);
  expect(out.findings, v.stdout).toEqual([]);
  expect(out.governed).toBe(governed);
  const r = intent(repo, ['report', '--json', '--out', join(repo, '..', 'report.html'), 'main']);
  expect(r.status, r.stderr).toBe(0);
  const report = JSON.parse(r.stdout);
  expect(report.totals.governed_commits).toBe(governed);
  const model = report.models.find((m: any) => m.model === MODEL);
  expect(model?.lines_added).toBe(modelLines);
}

/** Before carry, what the issue found: main's audit shows nothing governed. */
function nothingGoverned(repo: string): void {
  expect(JSON.parse(intent(repo, ['verify', '--json', 'main']).stdout).governed).toBe(0);
}

describe('intent carry: the shapes hosts make', () => {
  it('intent done after the host squashed the branch and carry gave main its record: the intent closes, its worktree goes, the branch is deleted on request', () => {
    const s = setup();
    const c1 = agentCommit(s.wt, 'src/a.ts', 'a\nm1\n', 'model writes');
    const c2 = humanCommit(s.wt, { 'src/b.ts': 'b\n' }, 'human adds b');
    publish(s);
    hostSquash(s.repo, 'Auth (#1)');
    carry(s.repo, ['main', '--from', c1, c2]);
    const squash = sha(s.repo, 'main');
    const r = intent(s.repo, ['done', 'INT-001', '--merge', '--delete-branch', '--json']);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.status).toBe('COMPLETED');
    // No second merge of the same work: main is where the squash left it.
    expect(out.merged).toEqual({ into: 'main', commit: squash, already: true });
    expect(sha(s.repo, 'main')).toBe(squash);
    expect(out.worktree).toMatchObject({ removed: true, reason: `removed: clean, and intent/INT-001 has landed on main as ${squash.slice(0, 12)} (a host's merge, carried)` });
    expect(out.branch).toMatchObject({ deleted: true });
    expect(run('git', ['rev-parse', '--verify', '-q', 'refs/heads/intent/INT-001'], s.repo).status).not.toBe(0);
  });

  it('squash merge: one commit on main gets the intent, the model\'s lines and a record that verifies; the server accepts it', () => {
    const s = setup();
    const base = sha(s.repo, 'main');
    const c1 = agentCommit(s.wt, 'src/a.ts', 'a\nm1\nm2\nm3\n', 'model writes');
    const c2 = agentCommit(s.wt, 'src/b.ts', 'b1\nb2\n', 'model adds b');
    const c3 = humanCommit(s.wt, { 'src/a.ts': 'a\nm1\nm2\nm3\nh1\n' }, 'human adds h1');
    publish(s);
    hostSquash(s.repo, 'Auth (#1)');
    forget(s, [c1, c2, c3]);
    nothingGoverned(s.repo);
    const out = carry(s.repo, ['main', '--from', c1, c2, c3]);
    expect(out.commits).toEqual([{ commit: sha(s.repo, 'main'), shape: 'squash', status: 'carried', intent: 'INT-001', lines: { added: 6, explained: 6, ai: 5, unexplained: 0 } }]);
    expect(out.sources.map((x: any) => [x.governed, x.present])).toEqual([[true, false], [true, false], [true, false]]);
    expect(credited(s.repo, 'main', 'src/a.ts', MODEL)).toEqual(['m1', 'm2', 'm3']);
    expect(credited(s.repo, 'main', 'src/a.ts', 'human')).toEqual(['h1']);
    expect(credited(s.repo, 'main', 'src/b.ts', MODEL)).toEqual(['b1', 'b2']);
    const meta = noteOf(s.repo, 'main')!.record.metadata['dev.intent'];
    expect(meta.carried).toEqual({ shape: 'squash', from: [c1, c2, c3] });
    expect(meta.parents).toEqual([base]);
    expect(noteOf(s.repo, 'main')!.summary).toContain('carried (squash) from 3 commits');
    auditMain(s.repo, 1, 5);

    // Idempotent: a second run changes nothing.
    const notes = sha(s.repo, 'refs/notes/intents');
    const again = carry(s.repo, ['main', '--from', c1, c2, c3]);
    expect(again.commits[0].status).toBe('noted');
    expect(sha(s.repo, 'refs/notes/intents')).toBe(notes);

    pushOk(s.repo, ['main', 'refs/notes/intents', ':refs/heads/intent/INT-001']);
    expect(sha(s.srv, 'main')).toBe(sha(s.repo, 'main'));
    expect(sha(s.srv, 'refs/notes/intents')).toBe(notes);
  });

  it('squash with a human\'s edit made in the squash itself: that line stays human, the model keeps its own', () => {
    const s = setup({ 'src/a.ts': 'a\n' });
    const c1 = agentCommit(s.wt, 'src/a.ts', 'a\nm1\nm2\nm3\n', 'model writes');
    publish(s);
    git(s.repo, ...HOST, 'merge', '-q', '--squash', 'intent/INT-001');
    writeFiles(s.repo, { 'src/a.ts': 'a\nm1\nhuman-fix\nm3\n' });
    git(s.repo, 'add', 'src/a.ts');
    git(s.repo, ...HOST, 'commit', '-q', '-m', 'Auth (#2), fixed on merge');
    forget(s, [c1]);
    const out = carry(s.repo, ['main', '--from', c1]);
    expect(out.commits[0]).toMatchObject({ status: 'carried', intent: 'INT-001', lines: { added: 3, explained: 0, ai: 0, unexplained: 3 } });
    // The source is gone: its 3-line range is known by its hash only, and the squash changed a
    // line inside it, so nothing of it is found: every line human (nothing credited falsely).
    expect(credited(s.repo, 'main', 'src/a.ts', 'human')).toEqual(['m1', 'human-fix', 'm3']);
  });

  it('squash with a human\'s edit while the source commits still exist: the model keeps its lines, the edit is human', () => {
    const s = setup({ 'src/a.ts': 'a\n' });
    const base = sha(s.repo, 'main');
    const c1 = agentCommit(s.wt, 'src/a.ts', 'a\nm1\nm2\nm3\n', 'model writes');
    publish(s);
    git(s.repo, ...HOST, 'merge', '-q', '--squash', 'intent/INT-001');
    writeFiles(s.repo, { 'src/a.ts': 'a\nm1\nhuman-fix\nm3\n' });
    git(s.repo, 'add', 'src/a.ts');
    git(s.repo, ...HOST, 'commit', '-q', '-m', 'Auth (#2), fixed on merge');
    const out = carry(s.repo, ['main', '--from', `${base}..${c1}`]);
    expect(out.commits[0].lines).toEqual({ added: 3, explained: 2, ai: 2, unexplained: 1 });
    expect(credited(s.repo, 'main', 'src/a.ts', MODEL)).toEqual(['m1', 'm3']);
    expect(credited(s.repo, 'main', 'src/a.ts', 'human')).toEqual(['human-fix']);
    forget(s, [c1]);
    auditMain(s.repo, 1, 2);
    pushOk(s.repo, ['main', 'refs/notes/intents']);
  });

  it('rebase merge: each rewritten commit gets its own record; the model\'s lines follow their content', () => {
    const s = setup({ 'src/a.ts': 'a\n', 'src/other.ts': 'o\n' });
    const c1 = agentCommit(s.wt, 'src/a.ts', 'a\nm1\nm2\n', 'model 1');
    const c2 = humanCommit(s.wt, { 'src/b.ts': 'h1\n' }, 'human 2');
    const c3 = agentCommit(s.wt, 'src/a.ts', 'a\nm1\nm2\nm3\n', 'model 3');
    publish(s);
    // Meanwhile main moved (a human's commit); the host rebases the pull request onto it.
    git(s.repo, ...HOST, 'commit', '-q', '--allow-empty', '-m', 'other work');
    writeFiles(s.repo, { 'README.md': '# t\nmore\n' });
    git(s.repo, ...HOST, 'commit', '-q', '-am', 'readme');
    for (const c of [c1, c2, c3]) git(s.repo, ...HOST, 'cherry-pick', c);
    forget(s, [c1, c2, c3]);
    const out = carry(s.repo, ['main~2', 'main~1', 'main', '--from', c1, c2, c3]);
    expect(out.commits.map((c: any) => [c.shape, c.status, c.lines.ai])).toEqual([['rebase', 'carried', 2], ['rebase', 'carried', 0], ['rebase', 'carried', 1]]);
    expect(credited(s.repo, 'main~2', 'src/a.ts', MODEL)).toEqual(['m1', 'm2']);
    expect(credited(s.repo, 'main~1', 'src/b.ts', 'human')).toEqual(['h1']);
    expect(credited(s.repo, 'main', 'src/a.ts', MODEL)).toEqual(['m3']);
    auditMain(s.repo, 3, 3);
    pushOk(s.repo, ['main', 'refs/notes/intents']);
  });

  it('a merge commit made by the host: the branch keeps its notes, the merge commit gets one from them', () => {
    const s = setup();
    const base = sha(s.repo, 'main');
    const c1 = agentCommit(s.wt, 'src/a.ts', 'a\nm1\nm2\n', 'model');
    publish(s);
    git(s.repo, ...HOST, 'commit', '-q', '--allow-empty', '-m', 'other work');
    git(s.repo, ...HOST, 'merge', '-q', '--no-ff', '-m', 'Merge pull request #3 from intent/INT-001', 'intent/INT-001');
    forget(s, []); // the branch's commits stay: main reaches them
    const out = carry(s.repo, ['main', '--from', `${base}..main^2`]);
    expect(out.commits).toEqual([{ commit: sha(s.repo, 'main'), shape: 'merge', status: 'carried', intent: 'INT-001', lines: { added: 2, explained: 2, ai: 2, unexplained: 0 } }]);
    expect(credited(s.repo, 'main', 'src/a.ts', MODEL)).toEqual(['m1', 'm2']);
    auditMain(s.repo, 2, 4);
    pushOk(s.repo, ['main', 'refs/notes/intents']);
    expect(c1).toBe(sha(s.repo, 'main^2'));
  });

  it('a squash of a pull request opened on an old base, with other work merged meanwhile (same file too)', () => {
    const s = setup({ 'src/a.ts': 'a1\na2\na3\n' });
    const c1 = agentCommit(s.wt, 'src/a.ts', 'a1\na2\nm1\nm2\na3\n', 'model in the middle');
    const c2 = agentCommit(s.wt, 'src/n.ts', 'n1\n', 'model new file');
    publish(s);
    writeFiles(s.repo, { 'src/a.ts': 'top\na1\na2\na3\n', 'README.md': '# t\nnews\n' });
    git(s.repo, ...HOST, 'commit', '-q', '-am', 'someone else\'s merged work');
    hostSquash(s.repo, 'Auth (#4)');
    expect(git(s.repo, 'show', 'main:src/a.ts')).toBe('top\na1\na2\nm1\nm2\na3\n');
    forget(s, [c1, c2]);
    const out = carry(s.repo, ['main', '--from', c1, c2]);
    expect(out.commits[0].lines).toEqual({ added: 3, explained: 3, ai: 3, unexplained: 0 });
    expect(credited(s.repo, 'main', 'src/a.ts', MODEL)).toEqual(['m1', 'm2']);
    auditMain(s.repo, 1, 3);
    pushOk(s.repo, ['main', 'refs/notes/intents']);
  });

  it("GitLab's squash inside a merge commit: the squash commit and the merge commit both get records", () => {
    const s = setup();
    const base = sha(s.repo, 'main');
    const c1 = agentCommit(s.wt, 'src/a.ts', 'a\nm1\n', 'model 1');
    const c2 = agentCommit(s.wt, 'src/a.ts', 'a\nm1\nm2\n', 'model 2');
    publish(s);
    git(s.repo, ...HOST, 'commit', '-q', '--allow-empty', '-m', 'other work');
    // GitLab: a squash commit of the branch on its merge base, then a merge commit of it into main.
    const tree = sha(s.repo, 'intent/INT-001^{tree}');
    const squash = run('git', ['commit-tree', tree, '-p', base, '-m', 'Auth (squashed)'], s.repo).stdout.trim();
    git(s.repo, ...HOST, 'merge', '-q', '--no-ff', '-m', "Merge branch 'intent/INT-001' into 'main'", squash);
    forget(s, [c1, c2]);
    const out = carry(s.repo, ['main', '--from', c1, c2]);
    expect(out.commits.map((c: any) => [c.commit, c.shape, c.status, c.lines.ai])).toEqual([
      [squash, 'squash', 'carried', 2], [sha(s.repo, 'main'), 'squash-in-merge', 'carried', 2]]);
    expect(credited(s.repo, squash, 'src/a.ts', MODEL)).toEqual(['m1', 'm2']);
    expect(credited(s.repo, 'main', 'src/a.ts', MODEL)).toEqual(['m1', 'm2']);
    auditMain(s.repo, 2, 4);
    pushOk(s.repo, ['main', 'refs/notes/intents']);
  });

  it('a squash of ungoverned commits: no record, no empty note; verify counts nothing governed; the server accepts it', () => {
    const s = setup();
    const base = sha(s.repo, 'main');
    git(s.repo, 'checkout', '-q', '-b', 'feature');
    writeFiles(s.repo, { 'src/a.ts': 'a\nplain\n' });
    git(s.repo, ...HOST, 'commit', '-q', '-am', 'plain work');
    const c1 = sha(s.repo);
    git(s.repo, 'checkout', '-q', 'main');
    git(s.repo, ...HOST, 'merge', '-q', '--squash', 'feature');
    git(s.repo, ...HOST, 'commit', '-q', '-m', 'plain (#5)');
    const notes = run('git', ['rev-parse', '-q', '--verify', 'refs/notes/intents'], s.repo).stdout;
    const out = carry(s.repo, ['main', '--from', `${base}..feature`]);
    expect(out.commits[0].status).toBe('ungoverned');
    expect(out.sources).toEqual([{ commit: c1, governed: false, present: true, intent: null }]);
    expect(noteOf(s.repo, 'main')).toBeNull();
    expect(run('git', ['rev-parse', '-q', '--verify', 'refs/notes/intents'], s.repo).stdout).toBe(notes);
    nothingGoverned(s.repo);
    pushOk(s.repo, ['main']);
  });
});

describe('intent carry --pr-head: the shape found from what the host reports (CI after the merge button)', () => {
  it('a rebase merge: the first-parent commits whose patch ids are the pull request\'s, each carried', () => {
    const s = setup({ 'src/a.ts': 'a\n' });
    const c1 = agentCommit(s.wt, 'src/a.ts', 'a\nm1\n', 'model 1');
    const c2 = agentCommit(s.wt, 'src/b.ts', 'b1\n', 'model 2');
    publish(s);
    writeFiles(s.repo, { 'README.md': '# t\nnews\n' });
    git(s.repo, ...HOST, 'commit', '-q', '-am', 'other work');
    for (const c of [c1, c2]) git(s.repo, ...HOST, 'cherry-pick', c);
    const out = carry(s.repo, ['main', '--pr-head', 'intent/INT-001']);
    expect(out.commits.map((c: any) => [c.commit, c.shape, c.status])).toEqual([[sha(s.repo, 'main~1'), 'rebase', 'carried'], [sha(s.repo, 'main'), 'rebase', 'carried']]);
    expect(out.sources.map((x: any) => x.commit)).toEqual([c1, c2]);
    expect(credited(s.repo, 'main~1', 'src/a.ts', MODEL)).toEqual(['m1']);
    expect(credited(s.repo, 'main', 'src/b.ts', MODEL)).toEqual(['b1']);
  });

  it('a squash whose commit count matches nothing: one squash commit; a merge commit; GitLab\'s squash in a merge', () => {
    const s = setup({ 'src/a.ts': 'a\n' });
    const base = sha(s.repo, 'main');
    agentCommit(s.wt, 'src/a.ts', 'a\nm1\n', 'model 1');
    agentCommit(s.wt, 'src/a.ts', 'a\nm1\nm2\n', 'model 2');
    hostSquash(s.repo, 'Auth (#9)');
    const squashed = carry(s.repo, ['main', '--dry-run', '--pr-head', 'intent/INT-001']);
    expect(squashed.commits).toEqual([{ commit: sha(s.repo, 'main'), shape: 'squash', status: 'planned', intent: 'INT-001', lines: { added: 2, explained: 2, ai: 2, unexplained: 0 } }]);
    git(s.repo, 'reset', '-q', '--hard', base);
    git(s.repo, ...HOST, 'merge', '-q', '--no-ff', '-m', 'Merge', 'intent/INT-001');
    expect(carry(s.repo, ['main', '--dry-run', '--pr-head', 'intent/INT-001']).commits.map((c: any) => c.shape)).toEqual(['merge']);
    git(s.repo, 'reset', '-q', '--hard', base);
    const squash = run('git', ['commit-tree', sha(s.repo, 'intent/INT-001^{tree}'), '-p', base, '-m', 'squashed'], s.repo).stdout.trim();
    git(s.repo, ...HOST, 'merge', '-q', '--no-ff', '-m', 'Merge', squash);
    expect(carry(s.repo, ['main', '--pr-head', 'intent/INT-001']).commits.map((c: any) => [c.commit, c.shape, c.status]))
      .toEqual([[squash, 'squash', 'carried'], [sha(s.repo, 'main'), 'squash-in-merge', 'carried']]);
  });
});

describe('intent carry: a rebase with a human\'s ungoverned commit among the pull request\'s', () => {
  it('is not refused: the rebased human commit is all human, the model keeps its own commit\'s lines', () => {
    const s = setup({ 'src/a.ts': 'a\n' });
    const base = sha(s.repo, 'main');
    const c1 = agentCommit(s.wt, 'src/a.ts', 'a\nm1\n', 'model');
    writeFiles(s.wt, { 'src/a.ts': 'a\nm1\nmaintainer\n' });
    git(s.wt, ...HOST, 'commit', '-q', '-am', 'maintainer fix, no hooks');
    const c2 = sha(s.wt);
    git(s.repo, ...HOST, 'commit', '-q', '--allow-empty', '-m', 'other work');
    for (const c of [c1, c2]) git(s.repo, ...HOST, 'cherry-pick', c);
    const out = carry(s.repo, ['main~1', 'main', '--from', `${base}..${c2}`]);
    expect(out.sources.map((x: any) => x.governed)).toEqual([true, false]);
    expect(out.commits.map((c: any) => [c.status, c.lines.ai, c.lines.unexplained])).toEqual([['carried', 1, 0], ['carried', 0, 1]]);
    expect(credited(s.repo, 'main~1', 'src/a.ts', MODEL)).toEqual(['m1']);
    expect(credited(s.repo, 'main', 'src/a.ts', 'human')).toEqual(['maintainer']);
  });
});

describe('the server carries after a squash pushed to its protected branch (templates/server/post-receive)', () => {
  it('a human pushes a squash of the intent branch: the server writes its record; a fresh clone sees the intent on main', () => {
    const s = setup();
    copyFileSync(join(PKG_ROOT, 'templates', 'server', 'post-receive'), join(s.srv, 'hooks', 'post-receive'));
    chmodSync(join(s.srv, 'hooks', 'post-receive'), 0o755);
    agentCommit(s.wt, 'src/a.ts', 'a\nm1\nm2\n', 'model');
    publish(s);
    hostSquash(s.repo, 'Auth (#7)');
    pushOk(s.repo, ['main']);
    const squash = sha(s.repo, 'main');
    const note = run('git', ['notes', '--ref=intents', 'show', squash], s.srv);
    expect(note.status, note.stderr).toBe(0);
    expect(note.stdout).toContain('INT-001 Auth');
    expect(note.stdout).toContain('carried (squash) from 1 commit');
    const fresh = join(s.srv, '..', 'fresh');
    git(join(s.srv, '..'), 'clone', '-q', s.srv, fresh);
    git(fresh, 'fetch', '-q', 'origin', 'refs/notes/intents:refs/notes/intents');
    expect(git(fresh, 'log', '--notes=intents', '-1', 'main')).toContain('INT-001 Auth');
    expect(credited(fresh, 'main', 'src/a.ts', MODEL)).toEqual(['m1', 'm2']);
  });
});

if (process.env.CI && !gitoliteAvailable()) throw new Error('gitolite3 and sshd are missing: .ci/run installs them (apt-get install gitolite3 openssh-server)');

const SERVERS: { name: string; available: boolean; start(root: string): Promise<{ url: string; bare: string; sshCommand: string | null; stop(): void }> }[] = [
  {
    name: 'git http-backend', available: true,
    start: async (root) => {
      const s = await startGitServer(root);
      return { url: s.url('alice', 'srv.git'), bare: serverRepo(root, 'srv.git'), sshCommand: null, stop: () => s.stop() };
    },
  },
  {
    name: 'gitolite3 over ssh', available: gitoliteAvailable(),
    start: async (root) => {
      const g = await startGitolite(root, ['alice'], ['srv']);
      return { url: g.url('alice', 'srv'), bare: g.repo('srv'), sshCommand: g.env.GIT_SSH_COMMAND, stop: () => g.stop() };
    },
  },
];

describe.each(SERVERS.filter((x) => x.available))('the server carries only from the one intent branch that explains the squash (overlapping scopes), over $name', (server) => {
  it("another intent's copy of the lines, under another model, makes it carry nothing and say how to name the branch; the named one is accepted", async () => {
    const repo = governedRepo([{ id: 'INT-001', name: 'Copy', scope: ['src/**'], status: 'IN_PROGRESS' }, { id: 'INT-002', name: 'Auth', scope: ['src/**'], status: 'IN_PROGRESS' }], { 'README.md': '# t\n', 'src/a.ts': 'a\n' });
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'intent-carry-srv-')));
    roots.push(root);
    const t = await server.start(root);
    try {
      const srv = t.bare;
      if (t.sshCommand) git(repo, 'config', 'core.sshCommand', t.sshCommand);
      git(repo, 'remote', 'add', 'origin', t.url);
      pushOk(repo, ['main']);
      const honest = checkoutIntent(repo, 'INT-002');
      const copy = checkoutIntent(repo, 'INT-001');
      agentCommit(honest, 'src/a.ts', 'a\nm1\nm2\n', 'the model writes');
      writeFile({ worktree: copy, path: 'src/a.ts', content: 'a\nm1\nm2\n', tool: 'write_to_file', modelId: 'other/model', conversationUrl: 'roo-code://task/t2' });
      git(copy, 'commit', '-q', '-m', 'the same lines, another model');
      pushOk(repo, ['intent/INT-001', 'intent/INT-002', 'refs/notes/intents']);
      git(repo, ...HOST, 'merge', '-q', '--squash', 'intent/INT-002');
      git(repo, ...HOST, 'commit', '-q', '-m', 'Auth (#9)');
      const squash = sha(repo, 'main');
      const r = run('git', ['push', '--no-verify', 'origin', 'main'], repo, HOOK_ENV);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr).toContain('fit more than one intent branch ( refs/heads/intent/INT-001 refs/heads/intent/INT-002 ); nothing was carried');
      expect(r.stderr).toContain(`intent carry ${squash} --from`);
      expect(run('git', ['notes', '--ref=intents', 'list', squash], srv).status, 'no record guessed').not.toBe(0);
      // A human names the merged branch: carried from it, accepted, credited to its model.
      carry(repo, ['main', '--from', 'main~1..intent/INT-002']);
      pushOk(repo, ['refs/notes/intents']);
      const note = git(srv, 'notes', '--ref=intents', 'show', squash);
      expect(note).toContain('INT-002 Auth');
      expect(note).toContain(MODEL);
      expect(note).not.toContain('other/model');
    } finally {
      t.stop();
    }
  }, 120_000);
});

describe('checkCarried: what an authority can re-derive of a carried record', () => {
  it('holds for the record carry wrote; names a line a forged record credits to the model that no source range of the model has', () => {
    const s = setup({ 'src/a.ts': 'a\n' });
    const c1 = agentCommit(s.wt, 'src/a.ts', 'a\nm1\n', 'model');
    const c2 = humanCommit(s.wt, { 'src/a.ts': 'a\nm1\nh1\n' }, 'human');
    hostSquash(s.repo, 'Auth (#8)');
    forget(s, [c1, c2]);
    carry(s.repo, ['main', '--from', c1, c2]);
    const record = noteOf(s.repo, 'main')!.record;
    const main = sha(s.repo, 'main');
    expect(checkCarried(s.repo, main, record)).toEqual([]);
    const forged = structuredClone(record);
    const file = forged.files.find((f: any) => f.path === 'src/a.ts');
    const ai = file.conversations.find((c: any) => c.contributor.type === 'ai');
    const human = file.conversations.find((c: any) => c.contributor.type === 'human');
    ai.ranges.push(...human.ranges);
    human.ranges = [];
    expect(checkCarried(s.repo, main, forged)).toEqual([`${main.slice(0, 12)} src/a.ts:3: credited to ${MODEL}, but no source's range of that model has these bytes.`]);
    const other = structuredClone(record);
    other.metadata['dev.intent'].carried.from = ['f'.repeat(40)];
    expect(checkCarried(s.repo, main, other)[0]).toContain('no note on refs/notes/intents is for a commit with that id');
  });
});

describe('intent carry: refusals say why, and write nothing', () => {
  it('refuses a commit that changes a path none of the sources changed (the wrong --from), and a --from that is not there', () => {
    const s = setup({ 'src/a.ts': 'a\n', 'src/z.ts': 'z\n' });
    const c1 = agentCommit(s.wt, 'src/a.ts', 'a\nm1\n', 'model');
    writeFiles(s.repo, { 'src/z.ts': 'z\nunrelated\n' });
    git(s.repo, ...HOST, 'commit', '-q', '-am', 'unrelated work');
    const notes = sha(s.repo, 'refs/notes/intents');
    const r = intent(s.repo, ['carry', 'main', '--from', c1, '--json']);
    expect(r.status).toBe(1);
    const err = JSON.parse(r.stdout).error;
    expect(err.code).toBe('CARRY_REFUSED');
    expect(err.message).toContain('changes src/z.ts, which none of the 1 source commit changed');
    expect(sha(s.repo, 'refs/notes/intents')).toBe(notes);
    expect(noteOf(s.repo, 'main')).toBeNull();

    const u = intent(s.repo, ['carry', 'main', '--from', 'deadbeefdeadbeef']);
    expect(u.status).toBe(2);
    expect(u.stderr).toContain('--from deadbeefdeadbeef: not a commit here, and no note on refs/notes/intents is for a commit with that id');
  });

  it('refuses a commit on the same paths whose added lines no source recorded', () => {
    const s = setup({ 'src/a.ts': 'a\n' });
    const c1 = agentCommit(s.wt, 'src/a.ts', 'a\nm1\n', 'model');
    writeFiles(s.repo, { 'src/a.ts': 'a\nsomething else\n' });
    git(s.repo, ...HOST, 'commit', '-q', '-am', 'not the pull request');
    const r = intent(s.repo, ['carry', 'main', '--from', c1]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('none of the 1 line');
    expect(r.stderr).toContain('is in a range the sources recorded');
    expect(noteOf(s.repo, 'main')).toBeNull();
  });
});
