import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listWorktrees, readWorktrees } from '../../lib/git/worktrees.js';
import { checkoutIntent, fixture, git, governedRepo, intent, noteOf, run, tempDir, writeFiles } from '../helpers.js';

// `intent checkout` as a real process against real repositories.

const REGISTRY = `# Team registry: hand-written, keep the comments!
active_intents:
  # The auth work
  - id: 'INT-001'
    name: JWT Authentication Migration   # a plain scalar
    status: PENDING    # intent checkout sets this
    owned_scope:
      - "src/auth/**"
      - 'src/middleware/jwt.ts'
    constraints: ["Must not use external auth providers"]

  - id: "INT-002"
    name: "Invoice rounding fix"
    status: 'PENDING'
    owned_scope: ["src/billing/**"]
    updated_at: "2026-02-17T15:30:00Z"
  - id: "INT-003"
    name: "Finished work"
    status: "COMPLETED"
    owned_scope: ["docs/**"]
  - id: "INT-004"
    name: "Dropped work"
    status: "ABANDONED"
    owned_scope: ["old/**"]
  - id: "INT-005"
    name: "Search"
    status: "PENDING"
    owned_scope: ["src/search/**"]
`;

/** A governed repository whose committed registry is REGISTRY. */
function repoWithRegistry(): string {
  // Built once per file; each test gets a copy.
  return fixture('repoWithRegistry', () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/auth/**'] }], {
      'README.md': '# r\n', 'src/auth/a.ts': 'a\n', 'src/deep/er/x.ts': 'x\n',
    });
    writeFiles(repo, { '.orchestration/active_intents.yaml': REGISTRY });
    git(repo, 'commit', '-q', '-am', 'hand-written registry');
    return repo;
  });
}

const registryText = (repo: string) => readFileSync(join(repo, '.orchestration', 'active_intents.yaml'), 'utf8');
const branches = (repo: string) => git(repo, 'branch', '--list', '--format=%(refname:short)').split('\n').filter(Boolean).sort();

describe('intent checkout', () => {
  it('prints the worktree path alone on stdout; the worktree exists on branch intent/<id>', () => {
    const repo = repoWithRegistry();
    const r = intent(repo, ['checkout', 'INT-001']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.endsWith('\n')).toBe(true);
    const path = r.stdout.slice(0, -1);
    expect(path).not.toContain('\n');
    expect(path).toBe(join(dirname(repo), 'repo.worktrees', 'INT-001'));
    expect(existsSync(join(path, 'src', 'auth', 'a.ts'))).toBe(true);
    expect(git(path, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('intent/INT-001');
    expect(git(path, 'rev-parse', 'HEAD').trim()).toBe(git(repo, 'rev-parse', 'HEAD').trim());
    const list = git(repo, 'worktree', 'list', '--porcelain');
    expect(list).toContain(`worktree ${path}\n`);
    expect(list).toContain('branch refs/heads/intent/INT-001');
  });

  it('--json prints exactly {intent, path, branch, created}; a second run reuses the worktree', () => {
    const repo = repoWithRegistry();
    const first = intent(repo, ['checkout', 'INT-001', '--json']);
    expect(first.status, first.stderr).toBe(0);
    const a = JSON.parse(first.stdout);
    expect(Object.keys(a).sort()).toEqual(['branch', 'created', 'intent', 'path']);
    expect(a).toStrictEqual({ intent: 'INT-001', path: a.path, branch: 'intent/INT-001', created: true });
    expect(existsSync(a.path)).toBe(true);
    const afterFirst = registryText(repo);

    const second = intent(repo, ['checkout', 'INT-001', '--json']);
    expect(second.status, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toStrictEqual({ intent: 'INT-001', path: a.path, branch: 'intent/INT-001', created: false });
    expect(registryText(repo)).toBe(afterFirst);
    expect(git(repo, 'worktree', 'list', '--porcelain').split('\n').filter((l) => l.startsWith('worktree '))).toHaveLength(2);
  });

  it('refuses an unknown intent id, naming it', () => {
    const repo = repoWithRegistry();
    const before = branches(repo);
    const r = intent(repo, ['checkout', 'INT-999']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('INT-999');
    expect(r.stdout).toBe('');
    expect(branches(repo)).toEqual(before);
    expect(registryText(repo)).toBe(REGISTRY);
  });

  it.each([
    ['INT-003', 'COMPLETED'],
    ['INT-004', 'ABANDONED'],
  ])('refuses %s, which is %s', (id, status) => {
    const repo = repoWithRegistry();
    const before = branches(repo);
    const r = intent(repo, ['checkout', id]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(id);
    expect(r.stderr).toContain(status);
    expect(r.stdout).toBe('');
    expect(branches(repo)).toEqual(before);
    expect(existsSync(join(dirname(repo), 'repo.worktrees', id))).toBe(false);
    expect(registryText(repo)).toBe(REGISTRY);
  });

  it('marks the intent IN_PROGRESS and leaves every other byte of the registry alone', () => {
    const repo = repoWithRegistry();
    expect(intent(repo, ['checkout', 'INT-001']).status).toBe(0);
    const expected1 = REGISTRY.replace('    status: PENDING    # intent checkout sets this\n', '    status: IN_PROGRESS    # intent checkout sets this\n');
    expect(expected1).not.toBe(REGISTRY);
    expect(registryText(repo)).toBe(expected1);

    // An intent with updated_at: status (quoting kept) and updated_at change, nothing else.
    expect(intent(repo, ['checkout', 'INT-002']).status).toBe(0);
    const before = expected1.split('\n');
    const after = registryText(repo).split('\n');
    expect(after).toHaveLength(before.length);
    const statusLine = before.indexOf("    status: 'PENDING'");
    const updatedLine = before.indexOf('    updated_at: "2026-02-17T15:30:00Z"');
    expect(statusLine).toBeGreaterThan(0);
    expect(updatedLine).toBeGreaterThan(0);
    expect(after[statusLine]).toBe("    status: 'IN_PROGRESS'");
    expect(after[updatedLine]).toMatch(/^ {4}updated_at: "\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z"$/);
    after.forEach((line, i) => {
      if (i !== statusLine && i !== updatedLine) expect(line, `line ${i + 1}`).toBe(before[i]);
    });
  });

  it('--base <rev> starts the new branch at that revision', () => {
    const repo = repoWithRegistry();
    const initial = git(repo, 'rev-list', '--max-parents=0', 'HEAD').trim();
    writeFiles(repo, { 'later.txt': 'later\n' });
    git(repo, 'add', 'later.txt');
    git(repo, 'commit', '-q', '-m', 'later');
    // The initial commit has no registry: the refusal of an uncommitted entry is waived here.
    const refused = intent(repo, ['checkout', 'INT-001', '--base', initial, '--json']);
    expect(JSON.parse(refused.stdout).error.code).toBe('REGISTRY_UNCOMMITTED');
    const r = intent(repo, ['checkout', 'INT-001', '--base', initial, '--allow-uncommitted', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const { path, created } = JSON.parse(r.stdout);
    expect(created).toBe(true);
    expect(git(repo, 'rev-parse', 'refs/heads/intent/INT-001').trim()).toBe(initial);
    expect(git(path, 'rev-parse', 'HEAD').trim()).toBe(initial);
    expect(existsSync(join(path, 'later.txt'))).toBe(false);
  });

  it('keeps a CRLF registry CRLF, changing only the status value', () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }]);
    const crlf = '# crlf registry\r\nactive_intents:\r\n  - id: "INT-001"\r\n    name: "n"\r\n    status: PENDING # c\r\n    owned_scope: ["src/**"]\r\n';
    writeFiles(repo, { '.orchestration/active_intents.yaml': crlf });
    git(repo, 'commit', '-q', '-am', 'crlf registry');
    const r = intent(repo, ['checkout', 'INT-001']);
    expect(r.status, r.stderr).toBe(0);
    expect(registryText(repo)).toBe(crlf.replace('status: PENDING #', 'status: IN_PROGRESS #'));
  });

  it('works for a repository whose path has spaces and non-ASCII characters', () => {
    const repo = join(tempDir(), 'my projects ü', 'shop repo');
    mkdirSync(repo, { recursive: true });
    git(repo, 'init', '-q', '-b', 'main');
    writeFiles(repo, { 'src/auth/a.ts': 'a\n' });
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'initial');
    expect(intent(repo, ['init']).status).toBe(0);
    writeFiles(repo, { '.orchestration/active_intents.yaml': REGISTRY });
    git(repo, 'add', '.orchestration');
    git(repo, 'commit', '-q', '-m', 'registry');
    const r = intent(repo, ['checkout', 'INT-001']);
    expect(r.status, r.stderr).toBe(0);
    const wt = r.stdout.replace(/\n$/, '');
    expect(wt).toBe(join(dirname(repo), 'shop repo.worktrees', 'INT-001'));
    writeFiles(wt, { 'src/auth/a.ts': 'a\nb\n' });
    const c = run('git', ['commit', '-q', '-am', 'governed'], wt);
    expect(c.status, c.stderr).toBe(0);
    expect(noteOf(wt)?.record.metadata['dev.intent'].intent_id).toBe('INT-001');
  });

  it('a --base that is not a commit is a usage error (exit 2) that names it', () => {
    const repo = repoWithRegistry();
    const before = branches(repo);
    const r = intent(repo, ['checkout', 'INT-001', '--base', 'no-such-rev']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('no-such-rev');
    expect(r.stderr).not.toMatch(/internal error/i);
    expect(branches(repo)).toEqual(before);
    expect(existsSync(join(dirname(repo), 'repo.worktrees', 'INT-001'))).toBe(false);
    expect(registryText(repo)).toBe(REGISTRY);
  });

  it('--base on an intent whose worktree exists is refused (a bad revision named), never silently ignored', () => {
    const repo = repoWithRegistry();
    expect(intent(repo, ['checkout', 'INT-001']).status).toBe(0);
    const bad = intent(repo, ['checkout', 'INT-001', '--base', 'no-such-rev']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--base no-such-rev is not a commit in this repository.');
    const good = intent(repo, ['checkout', 'INT-001', '--base', 'HEAD']);
    expect(good.status).toBe(1);
    expect(good.stderr).toContain('--base applies only to a new branch. Nothing was changed.');
    expect(intent(repo, ['checkout', 'INT-001']).status).toBe(0);
  });

  it('refuses a non-empty --path and touches nothing there', () => {
    const repo = repoWithRegistry();
    const target = join(tempDir(), 'occupied');
    writeFiles(target, { 'keep.txt': 'mine\n' });
    const r = intent(repo, ['checkout', 'INT-001', '--path', target]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(target);
    expect(readdirSync(target)).toEqual(['keep.txt']);
    expect(readFileSync(join(target, 'keep.txt'), 'utf8')).toBe('mine\n');
    expect(branches(repo)).not.toContain('intent/INT-001');

    const free = join(dirname(target), 'free');
    const ok = intent(repo, ['checkout', 'INT-001', '--path', free, '--json']);
    expect(ok.status, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout).path).toBe(free);
    expect(git(free, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('intent/INT-001');
  });

  it('a worktree git cannot create: exit 1 with git\'s message, the intent still PENDING, no worktree', () => {
    const repo = repoWithRegistry();
    const before = registryText(repo);
    // A folder under a file: git worktree add fails after the overlap check ran beside it.
    const r = intent(repo, ['checkout', 'INT-001', '--path', join(repo, 'README.md', 'wt'), '--json']);
    expect(r.status).toBe(1);
    const err = JSON.parse(r.stdout).error;
    expect(err.code).toBe('GIT_FAILED');
    expect(err.message).toMatch(/^git worktree add -b intent\/INT-001 .* failed \(exit 128\): .*Not a directory/s);
    expect(registryText(repo)).toBe(before);
    expect(git(repo, 'worktree', 'list', '--porcelain').split('\n').filter((l) => l.startsWith('worktree '))).toHaveLength(1);
  });

  it('works the same from inside another intent worktree and from a subfolder', () => {
    const repo = repoWithRegistry();
    const wt1 = checkoutIntent(repo, 'INT-001');
    const parent = join(dirname(repo), 'repo.worktrees');
    expect(wt1).toBe(join(parent, 'INT-001'));

    const fromWt = intent(join(wt1, 'src', 'auth'), ['checkout', 'INT-002', '--json']);
    expect(fromWt.status, fromWt.stderr).toBe(0);
    expect(JSON.parse(fromWt.stdout)).toStrictEqual({ intent: 'INT-002', path: join(parent, 'INT-002'), branch: 'intent/INT-002', created: true });

    const fromSub = intent(join(repo, 'src', 'deep', 'er'), ['checkout', 'INT-005', '--json']);
    expect(fromSub.status, fromSub.stderr).toBe(0);
    expect(JSON.parse(fromSub.stdout)).toStrictEqual({ intent: 'INT-005', path: join(parent, 'INT-005'), branch: 'intent/INT-005', created: true });

    const again = intent(join(wt1, 'src'), ['checkout', 'INT-001', '--json']);
    expect(again.status, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toStrictEqual({ intent: 'INT-001', path: wt1, branch: 'intent/INT-001', created: false });

    // The main worktree's registry was updated, not the copies inside the worktrees.
    const main = registryText(repo);
    expect(main).toContain("status: 'IN_PROGRESS'");
    expect(main.match(/IN_PROGRESS/g)).toHaveLength(3);
    expect(registryText(wt1)).toBe(REGISTRY);
    expect(git(wt1, 'status', '--porcelain')).toBe('');
  });

  it("from inside another intent worktree, the main worktree's configuration decides where worktrees go", () => {
    const repo = repoWithRegistry();
    const wt1 = checkoutIntent(repo, 'INT-001');
    // Configuration is governed from the main worktree, like the registry (not committed here).
    writeFiles(repo, { '.intentrc.json': '{ "worktreeDir": "../trees" }\n' });
    const fromMain = JSON.parse(intent(repo, ['checkout', 'INT-002', '--json']).stdout);
    expect(fromMain.path).toBe(join(dirname(repo), 'trees', 'INT-002'));
    const fromWt = intent(wt1, ['checkout', 'INT-005', '--json']);
    expect(fromWt.status, fromWt.stderr).toBe(0);
    expect(JSON.parse(fromWt.stdout).path).toBe(join(dirname(repo), 'trees', 'INT-005'));
  });

  it("records the worktree's active intent: a commit there is governed by that intent", () => {
    const repo = repoWithRegistry();
    const wt = checkoutIntent(repo, 'INT-001');
    writeFiles(wt, { 'src/auth/a.ts': 'a\nb\n' });
    git(wt, 'add', '-A');
    const wrong = run('git', ['commit', '-q', '-m', 'names another intent'], wt, { INTENT_ID: 'INT-002' });
    expect(wrong.status).not.toBe(0);
    expect(wrong.stderr).toContain('You must cite a valid active Intent ID.');

    const r = run('git', ['commit', '-q', '-m', 'no INTENT_ID needed'], wt);
    expect(r.status, r.stderr).toBe(0);
    const note = noteOf(wt);
    expect(note).not.toBeNull();
    expect(note!.summary.startsWith('INT-001 JWT Authentication Migration · ')).toBe(true);
    expect(note!.record.metadata['dev.intent'].intent_id).toBe('INT-001');
  });

  it('a repository without commits gets a clear error, not a crash', () => {
    const repo = join(tempDir(), 'empty');
    mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    expect(intent(repo, ['init']).status).toBe(0);
    writeFiles(repo, { '.orchestration/active_intents.yaml': REGISTRY });
    const r = intent(repo, ['checkout', 'INT-001']);
    expect(r.status).toBe(1); // the repository's state, not a usage mistake
    expect(r.stderr).toMatch(/no commits/i);
    expect(r.stderr).not.toMatch(/internal error|\n\s+at /i);
    expect(r.stdout).toBe('');
    expect(existsSync(join(dirname(repo), 'empty.worktrees', 'INT-001'))).toBe(false);
    expect(registryText(repo)).toBe(REGISTRY);
  });

  it('a worktree folder deleted by hand is pruned: the next checkout makes it again on the same branch, keeping its commits', () => {
    const repo = repoWithRegistry();
    const wt = checkoutIntent(repo, 'INT-001');
    writeFiles(wt, { 'src/auth/kept.ts': 'kept\n' });
    git(wt, 'add', '-A');
    git(wt, 'commit', '-q', '-m', 'work to keep');
    const tip = git(wt, 'rev-parse', 'HEAD').trim();
    rmSync(wt, { recursive: true, force: true });
    const r = intent(repo, ['checkout', 'INT-001', '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toStrictEqual({ intent: 'INT-001', path: wt, branch: 'intent/INT-001', created: true });
    expect(git(wt, 'rev-parse', 'HEAD').trim()).toBe(tip);
    expect(readFileSync(join(wt, 'src', 'auth', 'kept.ts'), 'utf8')).toBe('kept\n');
    expect(git(repo, 'worktree', 'list', '--porcelain')).not.toContain('prunable');
    // and the recreated worktree is governed by its intent again
    writeFiles(wt, { 'src/auth/more.ts': 'more\n' });
    git(wt, 'add', '-A');
    git(wt, 'commit', '-q', '-m', 'more');
    expect(noteOf(wt)!.record.metadata['dev.intent'].intent_id).toBe('INT-001');
  });

  it("the registry edit refreshes the registry cache: the next hook reads the new status without a stale answer", () => {
    const repo = repoWithRegistry();
    checkoutIntent(repo, 'INT-002');
    // The cache (format 2): tag and key, one status letter per intent, the ids, their offsets, one line per intent, the edit list.
    const [tag, letters, ids, , ...lines] = readFileSync(join(repo, '.git', 'intent', 'registry.json'), 'utf8').trimEnd().split('\n');
    expect(tag).toMatch(/^intent-registry-cache\/2 [0-9a-f]{64}$/);
    const k = ids.split(' ').indexOf('INT-002');
    expect(letters[k]).toBe('I');
    expect(JSON.parse(lines[k])[0]).toMatchObject({ id: 'INT-002', status: 'IN_PROGRESS' });
    expect(JSON.parse(lines[lines.length - 1])).toHaveLength(2); // the status and updated_at edits
    expect(registryText(repo)).toMatch(/status: 'IN_PROGRESS'/);
    const st = intent(repo, ['status', '--json']);
    expect(st.status, st.stderr).toBe(0);
    expect(st.stdout).toContain('INT-002');
  });

  it("the worktrees read from git's files (no process) are what `git worktree list` says: branches, detached, gone, locked", () => {
    const repo = repoWithRegistry();
    const wt1 = checkoutIntent(repo, 'INT-001');
    const parent = dirname(repo);
    git(repo, 'worktree', 'add', '-q', '--detach', join(parent, 'detached'), 'HEAD');
    git(repo, 'worktree', 'add', '-q', '-b', 'gone', join(parent, 'gone'), 'HEAD');
    git(repo, 'worktree', 'add', '-q', '-b', 'locked', join(parent, 'locked'), 'HEAD');
    git(repo, 'worktree', 'lock', join(parent, 'locked'));
    rmSync(join(parent, 'gone'), { recursive: true, force: true });
    rmSync(join(parent, 'locked'), { recursive: true, force: true });
    const sort = (ws: ReturnType<typeof listWorktrees>) => [...ws].sort((a, b) => a.path.localeCompare(b.path));
    const fromGit = sort(listWorktrees(repo));
    expect(fromGit).toStrictEqual(sort([
      { path: repo, branch: 'refs/heads/main', prunable: false },
      { path: wt1, branch: 'refs/heads/intent/INT-001', prunable: false },
      { path: join(parent, 'detached'), branch: null, prunable: false },
      { path: join(parent, 'gone'), branch: 'refs/heads/gone', prunable: true },
      { path: join(parent, 'locked'), branch: 'refs/heads/locked', prunable: false },
    ]));
    expect(sort(readWorktrees(join(repo, '.git'), repo)!)).toStrictEqual(fromGit);
    // and checkout prunes the gone one, then makes the intent's worktree as before
    const r = intent(repo, ['checkout', 'INT-002', '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(listWorktrees(repo).some((w) => w.branch === 'refs/heads/gone')).toBe(false);
  });

  it('outside a repository: a clear refusal', () => {
    const dir = tempDir();
    const r = intent(dir, ['checkout', 'INT-001']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('not inside a git repository');
  });

  it('says to start the agent at the worktree root only where Claude Code\'s hooks are registered', () => {
    const plain = governedRepo([{ id: 'INT-001', scope: ['src/**'] }], { 'src/a.ts': 'a\n' });
    const r = intent(plain, ['checkout', 'INT-001']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('Claude Code');
    // The first push's order, said where the intent is marked IN_PROGRESS (and only then).
    expect(r.stderr).toContain('intent: before intent/INT-001 is first pushed, commit that status on the branch you started from and push it (git add .orchestration && git commit -m "INT-001 in progress" && intent push)');
    expect(intent(plain, ['checkout', 'INT-001']).stderr).not.toContain('first pushed');
    const claude = governedRepo([{ id: 'INT-001', scope: ['src/**'] }], { 'src/a.ts': 'a\n' });
    expect(intent(claude, ['init', '--agent', 'claude-code']).status).toBe(0);
    git(claude, 'add', '-A');
    git(claude, 'commit', '-q', '-m', 'Claude Code hooks');
    const c = intent(claude, ['checkout', 'INT-001']);
    expect(c.status, c.stderr).toBe(0);
    expect(c.stderr).toContain(`intent: start the agent at the worktree root (${c.stdout.trim()}): Claude Code started in a subdirectory does not load the intent hooks`);
  });

  it('suggests commit messages in the project\'s convention: Conventional Commits where commitlint is configured', () => {
    const plain = governedRepo([{ id: 'INT-001', scope: ['src/**'] }], { 'src/a.ts': 'a\n' });
    expect(intent(plain, ['new', 'INT-002', '--name', 'Two', '--scope', 'docs/**']).stdout).toContain('git commit -m "Register INT-002"');
    expect(intent(plain, ['checkout', 'INT-001']).stderr).toContain('git commit -m "INT-001 in progress"');
    const linted = governedRepo([{ id: 'INT-001', scope: ['src/**'] }], { 'src/a.ts': 'a\n', 'commitlint.config.js': "export default { extends: ['@commitlint/config-conventional'] };\n" });
    expect(intent(linted, ['new', 'INT-002', '--name', 'Two', '--scope', 'docs/**']).stdout).toContain('git commit -m "chore: register INT-002"');
    expect(intent(linted, ['checkout', 'INT-001']).stderr).toContain('git commit -m "chore: mark INT-001 in progress"');
    const pkg = governedRepo([{ id: 'INT-001', scope: ['src/**'] }], { 'src/a.ts': 'a\n', 'package.json': JSON.stringify({ name: 'p', commitlint: { extends: ['@commitlint/config-conventional'] } }) });
    expect(intent(pkg, ['new', 'INT-002', '--name', 'Two', '--scope', 'docs/**']).stdout).toContain('"chore: register INT-002"');
  });
});
