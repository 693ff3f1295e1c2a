// Guardrails around commits, with the real CLI, real hooks and real git: scope overlaps at
// checkout, conflicts ahead at commit time, budgets, the circuit breaker and `intent reset`.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkoutIntent, fixture, git, intent, makeRepo, refusedCommit, run, writeFiles, type Run } from '../helpers.js';
import { AGENT_MARKER_NAMES } from '../../lib/core/agent-env.js';

type Env = Record<string, string | undefined>;

/** An environment without any agent marker (the tests may themselves run under an agent). */
function humanEnv(extra: Env = {}): Env {
  const env: Env = {};
  for (const k of Object.keys(process.env)) {
    if (AGENT_MARKER_NAMES.includes(k)) env[k] = undefined;
  }
  return { ...env, ...extra };
}

interface Spec {
  id: string;
  scope: string[];
  status?: string;
  extra?: string;
}

/** Registry YAML written by hand (budgets are not in the shared helper). */
function registry(specs: Spec[]): string {
  return `active_intents:\n${specs
    .map((s) => `  - id: "${s.id}"\n    name: "Intent ${s.id}"\n    status: "${s.status ?? 'PENDING'}"\n    owned_scope: ${JSON.stringify(s.scope)}\n${s.extra ?? ''}`)
    .join('')}`;
}

const FILES = {
  'README.md': '# r\n',
  'src/auth/a.ts': 'export const a = 1;\n',
  'src/auth/b.ts': 'export const b = 1;\n',
  'src/billing/invoice.ts': 'export const i = 1;\n',
  'src/other.ts': 'export const o = 1;\n',
};

/** `intent init`, the registry committed on main. */
function repoWith(specs: Spec[], files: Record<string, string> = FILES): string {
  // Built once per registry and files in this file; each test gets a copy.
  return fixture(`repoWith ${JSON.stringify([specs, files])}`, () => {
    const repo = makeRepo(files);
    const r = intent(repo, ['init']);
    expect(r.status, r.stderr).toBe(0);
    writeFiles(repo, { '.orchestration/active_intents.yaml': registry(specs) });
    git(repo, 'add', '.orchestration');
    git(repo, 'commit', '-q', '-m', 'register intents');
    return repo;
  });
}

const registryText = (repo: string) => readFileSync(join(repo, '.orchestration', 'active_intents.yaml'), 'utf8');
const branches = (repo: string) => git(repo, 'branch', '--list', '--format=%(refname:short)').split('\n').filter(Boolean).sort();
const head = (cwd: string) => git(cwd, 'rev-parse', 'HEAD').trim();
/** The clone's own lessons (intent's state folder): what intent learns by itself never dirties the tracked AGENT.md. */
const localLessons = (repo: string) => readFileSync(join(repo, '.git', 'intent', 'lessons.md'), 'utf8');
const breakerState = (repo: string, id: string) => JSON.parse(readFileSync(join(repo, '.git', 'intent', 'breaker', `${id}.json`), 'utf8'));

function commit(cwd: string, args: string[], env: Env = {}): Run {
  return run('git', ['commit', '-q', ...args], cwd, env);
}

function refused(cwd: string, args: string[], env: Env = {}): string {
  return refusedCommit(cwd, ['-q', ...args], { env });
}

function committed(cwd: string, args: string[], env: Env = {}): Run {
  const before = head(cwd);
  const r = commit(cwd, args, env);
  expect(r.status, `should be committed:\n${r.stderr}`).toBe(0);
  expect(head(cwd)).not.toBe(before);
  return r;
}

function spawnAsync(cmd: string, args: string[], cwd: string, env: Env): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, ...env } as NodeJS.ProcessEnv, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stderr }));
  });
}

describe('scope overlap at checkout', () => {
  it('warns on stderr and reports overlaps in --json: tracked files both scopes match, or overlapping glob prefixes', () => {
    const repo = repoWith([
      { id: 'INT-001', scope: ['src/auth/**'] },
      { id: 'INT-002', scope: ['src/**', '!src/billing/**'] },
      { id: 'INT-003', scope: ['src/billing/**'] },
      { id: 'INT-004', scope: ['lib/new/**'] },
      { id: 'INT-005', scope: ['lib/**'] },
    ]);
    // Alone: nothing to report, the --json shape is unchanged.
    const first = intent(repo, ['checkout', 'INT-001', '--json']);
    expect(first.status, first.stderr).toBe(0);
    expect(Object.keys(JSON.parse(first.stdout)).sort()).toEqual(['branch', 'created', 'intent', 'path']);

    const human = intent(repo, ['checkout', 'INT-002']);
    expect(human.status, human.stderr).toBe(0);
    expect(human.stdout).toBe(join(dirname(repo), 'repo.worktrees', 'INT-002') + '\n');
    expect(human.stderr).toContain("intent: warning: INT-002's scope overlaps IN_PROGRESS INT-001 (2 tracked files match both scopes): src/auth/a.ts, src/auth/b.ts");

    // INT-003 owns what INT-002's negation takes out, and nothing of INT-001: no overlap.
    const billing = intent(repo, ['checkout', 'INT-003', '--json']);
    expect(billing.status, billing.stderr).toBe(0);
    expect(JSON.parse(billing.stdout).overlaps).toBeUndefined();
    expect(billing.stderr).not.toContain('warning');

    // No tracked file under lib/ yet: the literal prefixes decide.
    expect(intent(repo, ['checkout', 'INT-004']).status).toBe(0);
    const lib = intent(repo, ['checkout', 'INT-005', '--json']);
    expect(lib.status, lib.stderr).toBe(0);
    expect(JSON.parse(lib.stdout).overlaps).toEqual([
      { intent: 'INT-004', paths: [], reason: '"lib/**" and "lib/new/**" can match the same paths (prefix "lib/new/" lies within "lib/")' },
    ]);
    const again = JSON.parse(intent(repo, ['checkout', 'INT-002', '--json']).stdout);
    expect(again.created).toBe(false);
    expect(again.overlaps.map((o: { intent: string }) => o.intent)).toEqual(['INT-001']);
    expect(again.overlaps[0].paths).toEqual(['src/auth/a.ts', 'src/auth/b.ts']);
  });

  it('--strict (or strictOverlap: true) refuses with SCOPE_OVERLAP and changes nothing', () => {
    const repo = repoWith([
      { id: 'INT-001', scope: ['src/auth/**'] },
      { id: 'INT-002', scope: ['src/**'] },
    ]);
    checkoutIntent(repo, 'INT-001');
    const registryBefore = registryText(repo);
    const branchesBefore = branches(repo);
    const wt2 = join(dirname(repo), 'repo.worktrees', 'INT-002');

    const r = intent(repo, ['checkout', 'INT-002', '--strict']);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain("Refused (--strict): INT-002's scope overlaps IN_PROGRESS INT-001");
    expect(r.stderr).toContain('Nothing was changed.');
    const j = intent(repo, ['checkout', 'INT-002', '--strict', '--json']);
    expect(j.status).toBe(1);
    const err = JSON.parse(j.stdout).error;
    expect(err.code).toBe('SCOPE_OVERLAP');
    expect(err.data.overlaps).toEqual([{ intent: 'INT-001', paths: ['src/auth/a.ts', 'src/auth/b.ts'], reason: '2 tracked files match both scopes' }]);

    writeFiles(repo, { '.intentrc.json': '{ "strictOverlap": true }\n' });
    const cfg = intent(repo, ['checkout', 'INT-002']);
    expect(cfg.status).toBe(1);
    expect(cfg.stderr).toContain('Refused (strictOverlap in');

    expect(existsSync(wt2)).toBe(false);
    expect(branches(repo)).toEqual(branchesBefore);
    expect(registryText(repo)).toBe(registryBefore);
  });
});

describe('conflict ahead at commit time', () => {
  it("warns, naming the other intent, when a staged path is also changed on another IN_PROGRESS intent's unmerged branch; never blocks", () => {
    const repo = repoWith([
      { id: 'INT-001', scope: ['src/auth/**'] },
      { id: 'INT-002', scope: ['src/**'] },
      { id: 'INT-003', scope: ['src/auth/b.ts'] },
    ]);
    const wt1 = checkoutIntent(repo, 'INT-001');
    // Only one intent branch: nothing to compare, no warning.
    writeFiles(wt1, { 'src/auth/b.ts': 'export const b = 2;\n' });
    expect(committed(wt1, ['-a', '-m', 'alone']).stderr).toBe('');

    const wt2 = checkoutIntent(repo, 'INT-002');
    writeFiles(wt2, { 'src/auth/a.ts': 'export const a = 20;\n', 'src/other.ts': 'export const o = 2;\n' });
    committed(wt2, ['-a', '-m', 'INT-002 touches auth']);

    writeFiles(wt1, { 'src/auth/a.ts': 'export const a = 10;\n' });
    const r = committed(wt1, ['-a', '-m', 'INT-001 touches a.ts too']);
    expect(r.stderr).toContain('intent: warning: conflict ahead: src/auth/a.ts is also changed on intent/INT-002 (IN_PROGRESS intent INT-002, not merged yet)');
    expect(r.stderr).not.toContain('blocked');

    // A path INT-002 did not change: no warning.
    writeFiles(wt1, { 'src/auth/b.ts': 'export const b = 3;\n' });
    expect(committed(wt1, ['-a', '-m', 'b only']).stderr).toBe('');

    // The other way round, INT-002 is warned about INT-001's b.ts and a.ts.
    writeFiles(wt2, { 'src/auth/b.ts': 'export const b = 30;\n', 'src/auth/a.ts': 'export const a = 21;\n' });
    const back = committed(wt2, ['-a', '-m', 'INT-002 again']);
    expect(back.stderr).toContain('conflict ahead: 2 staged paths are also changed on intent/INT-001');
    expect(back.stderr).toContain('src/auth/a.ts, src/auth/b.ts');

    // Once INT-001's work is merged into INT-002's branch, nothing is ahead any more.
    git(wt2, 'merge', '-q', '-X', 'ours', '--no-edit', 'intent/INT-001');
    writeFiles(wt2, { 'src/auth/b.ts': 'export const b = 31;\n' });
    expect(committed(wt2, ['-a', '-m', 'after merge']).stderr).not.toContain('conflict ahead');

    // An intent that is not IN_PROGRESS is not warned about.
    writeFiles(repo, { '.orchestration/active_intents.yaml': registryText(repo).replace(/status: "IN_PROGRESS"(\n    owned_scope: \["src\/\*\*"\])/, 'status: "BLOCKED"$1') });
    writeFiles(wt1, { 'src/auth/a.ts': 'export const a = 11;\n' });
    expect(committed(wt1, ['-a', '-m', 'INT-002 blocked']).stderr).toBe('');
  });
});

describe('conflict ahead with packed branches, each hook in its own node', () => {
  it('finds another intent branch that is only in packed-refs (no loose ref file left)', () => {
    const repo = repoWith([{ id: 'INT-001', scope: ['src/auth/**'] }, { id: 'INT-002', scope: ['src/**'] }]);
    const wt1 = checkoutIntent(repo, 'INT-001');
    const wt2 = checkoutIntent(repo, 'INT-002');
    writeFiles(wt2, { 'src/auth/a.ts': 'export const a = 20;\n' });
    committed(wt2, ['-a', '-m', 'INT-002 touches a.ts']);
    git(repo, 'pack-refs', '--all');
    const loose = join(repo, '.git', 'refs', 'heads', 'intent');
    expect(existsSync(loose) ? readdirSync(loose) : []).toEqual([]);
    writeFiles(wt1, { 'src/auth/a.ts': 'export const a = 10;\n' });
    const r = committed(wt1, ['-a', '-m', 'INT-001 touches a.ts too'], { INTENT_HOOK_SERVER: '0' });
    expect(r.stderr).toContain('conflict ahead: src/auth/a.ts is also changed on intent/INT-002');
  });
});

describe('conflicts ahead: what the other branches changed is kept between commits', () => {
  /** The cache of worktree `wt` (lib/intents/conflicts-cache.ts). */
  const cacheOf = (repo: string, wt: string) =>
    join(repo, '.git', 'intent', 'conflicts-ahead', `${git(wt, 'rev-parse', '--path-format=absolute', '--git-dir').trim().split('/').pop()}.json`);
  /** INT-001 and INT-002 (whose scope holds INT-001's) checked out; INT-002 has changed src/auth/a.ts. */
  const twoIntents = () => {
    const repo = repoWith([
      { id: 'INT-001', scope: ['src/auth/**'] },
      { id: 'INT-002', scope: ['src/**'] },
    ]);
    const wt1 = checkoutIntent(repo, 'INT-001');
    const wt2 = checkoutIntent(repo, 'INT-002');
    writeFiles(wt2, { 'src/auth/a.ts': 'export const a = 20;\n' });
    committed(wt2, ['-a', '-m', 'INT-002 touches a.ts']);
    return { repo, wt1, wt2 };
  };

  it('follows HEAD commit by commit, asks again for a branch that moved, and starts over after an amend or a reset', () => {
    const { repo, wt1, wt2 } = twoIntents();
    const tip2 = head(wt2);

    writeFiles(wt1, { 'src/auth/a.ts': 'export const a = 10;\n' });
    expect(committed(wt1, ['-a', '-m', 'one']).stderr).toContain('conflict ahead: src/auth/a.ts is also changed on intent/INT-002');
    // Kept, and moved on to the commit post-commit recorded.
    let cache = JSON.parse(readFileSync(cacheOf(repo, wt1), 'utf8'));
    expect(cache.head).toBe(head(wt1));
    expect(cache.branches['INT-002']).toEqual({ tip: tip2, files: ['src/auth/a.ts'] });

    // The same answer from the cache on the next commit.
    writeFiles(wt1, { 'src/auth/a.ts': 'export const a = 11;\n' });
    expect(committed(wt1, ['-a', '-m', 'two']).stderr).toContain('conflict ahead: src/auth/a.ts is also changed on intent/INT-002');
    expect(JSON.parse(readFileSync(cacheOf(repo, wt1), 'utf8')).head).toBe(head(wt1));

    // INT-002's branch moves: asked again, its new path is found.
    writeFiles(wt2, { 'src/auth/b.ts': 'export const b = 20;\n' });
    committed(wt2, ['-a', '-m', 'INT-002 touches b.ts']);
    writeFiles(wt1, { 'src/auth/b.ts': 'export const b = 10;\n' });
    expect(committed(wt1, ['-a', '-m', 'three']).stderr).toContain('conflict ahead: src/auth/b.ts is also changed on intent/INT-002');
    cache = JSON.parse(readFileSync(cacheOf(repo, wt1), 'utf8'));
    expect(cache.branches['INT-002']).toEqual({ tip: head(wt2), files: expect.arrayContaining(['src/auth/a.ts', 'src/auth/b.ts']) });

    // An amend makes a commit on HEAD's parent: the cache is left behind, then rebuilt for the new HEAD.
    writeFiles(wt1, { 'src/auth/b.ts': 'export const b = 12;\n' });
    expect(committed(wt1, ['-a', '--amend', '-m', 'three, amended']).stderr).toContain('conflict ahead: src/auth/b.ts');
    expect(JSON.parse(readFileSync(cacheOf(repo, wt1), 'utf8')).head).not.toBe(head(wt1));
    // INT-002 merges INT-001's work: nothing of INT-001 is ahead of INT-002 any more, and a reset
    // back to before the merge brings it back.
    git(wt2, 'merge', '-q', '-X', 'ours', '--no-edit', 'intent/INT-001');
    writeFiles(wt2, { 'src/auth/a.ts': 'export const a = 22;\n' });
    expect(committed(wt2, ['-a', '-m', 'after merge']).stderr).not.toContain('conflict ahead');
    git(wt2, 'reset', '-q', '--hard', 'HEAD~2');
    writeFiles(wt2, { 'src/auth/a.ts': 'export const a = 23;\n' });
    expect(committed(wt2, ['-a', '-m', 'after reset']).stderr).toContain('conflict ahead: src/auth/a.ts is also changed on intent/INT-001');
  });

  it("a branch that grew is read from its kept tip on: only its new commits (the kept files stand); a rewritten one is read whole", () => {
    const { repo, wt1, wt2 } = twoIntents();
    writeFiles(wt1, { 'src/auth/a.ts': 'export const a = 10;\n' });
    committed(wt1, ['-a', '-m', 'one']);
    const file = cacheOf(repo, wt1);
    const kept = JSON.parse(readFileSync(file, 'utf8'));
    // What the cache holds for INT-002's tip is believed (the state folder is trusted): a path
    // planted there shows that the next commit read only the commits added since that tip.
    kept.branches['INT-002'].files.push('src/auth/planted.ts');
    writeFileSync(file, JSON.stringify(kept));
    writeFiles(wt2, { 'src/auth/b.ts': 'export const b = 20;\n' });
    committed(wt2, ['-a', '-m', 'INT-002 touches b.ts']);
    writeFiles(wt1, { 'src/auth/b.ts': 'export const b = 10;\n', 'src/auth/planted.ts': 'export const p = 1;\n' });
    git(wt1, 'add', '-A');
    const grown = committed(wt1, ['-m', 'two']).stderr;
    expect(grown).toContain('2 staged paths are also changed on intent/INT-002');
    expect(grown).toContain('src/auth/b.ts, src/auth/planted.ts');
    expect(JSON.parse(readFileSync(file, 'utf8')).branches['INT-002']).toEqual({ tip: head(wt2), files: expect.arrayContaining(['src/auth/a.ts', 'src/auth/b.ts', 'src/auth/planted.ts']) });
    // INT-002 rewrites its last commit to leave b.ts alone: not a descendant of the kept tip, read whole.
    git(wt2, 'reset', '-q', '--hard', 'HEAD~1');
    writeFiles(wt2, { 'src/auth/c.ts': 'export const c = 20;\n' });
    git(wt2, 'add', '-A');
    committed(wt2, ['-m', 'INT-002 touches c.ts instead']);
    writeFiles(wt1, { 'src/auth/b.ts': 'export const b = 11;\n', 'src/auth/planted.ts': 'export const p = 2;\n', 'src/auth/c.ts': 'export const c = 10;\n' });
    git(wt1, 'add', '-A');
    const rewritten = committed(wt1, ['-m', 'three']).stderr;
    expect(rewritten).toContain('conflict ahead: src/auth/c.ts is also changed on intent/INT-002');
    expect(rewritten).not.toContain('b.ts');
    expect(rewritten).not.toContain('planted.ts');
  });

  it('branches that grew at once are read together from their kept tips; one whose new commits reach another kept tip is read alone', () => {
    const repo = repoWith([
      { id: 'INT-001', scope: ['src/auth/**'] },
      { id: 'INT-002', scope: ['src/**'] },
      { id: 'INT-003', scope: ['src/**'] },
    ]);
    const wt1 = checkoutIntent(repo, 'INT-001');
    const wt2 = checkoutIntent(repo, 'INT-002');
    const wt3 = checkoutIntent(repo, 'INT-003');
    writeFiles(wt2, { 'src/auth/a.ts': 'export const a = 20;\n' });
    git(wt2, 'add', '-A');
    committed(wt2, ['-m', 'INT-002 touches a.ts']);
    writeFiles(wt3, { 'src/auth/c.ts': 'export const c = 30;\n' });
    git(wt3, 'add', '-A');
    committed(wt3, ['-m', 'INT-003 touches c.ts']);
    writeFiles(wt1, { 'src/auth/x.ts': 'export const x = 1;\n' });
    git(wt1, 'add', '-A');
    committed(wt1, ['-m', 'one']);
    // Both kept tips believed: a planted path in each shows both were read from there on.
    const file = cacheOf(repo, wt1);
    const kept = JSON.parse(readFileSync(file, 'utf8'));
    kept.branches['INT-002'].files.push('src/auth/p2.ts');
    kept.branches['INT-003'].files.push('src/auth/p3.ts');
    writeFileSync(file, JSON.stringify(kept));
    writeFiles(wt2, { 'src/auth/b.ts': 'export const b = 20;\n' });
    git(wt2, 'add', '-A');
    committed(wt2, ['-m', 'INT-002 touches b.ts']);
    writeFiles(wt3, { 'src/auth/d.ts': 'export const d = 30;\n' });
    git(wt3, 'add', '-A');
    committed(wt3, ['-m', 'INT-003 touches d.ts']);
    writeFiles(wt1, { 'src/auth/b.ts': 'export const b = 101;\n', 'src/auth/d.ts': 'export const d = 101;\n', 'src/auth/p2.ts': '', 'src/auth/p3.ts': '' });
    git(wt1, 'add', '-A');
    const both = committed(wt1, ['-m', 'two']).stderr;
    expect(both).toContain('src/auth/b.ts, src/auth/p2.ts');
    expect(both).toContain('src/auth/d.ts, src/auth/p3.ts');
    // INT-003 merges INT-002 as kept (its a.ts commit is behind INT-002's kept tip) while INT-002
    // moves on: the one log of both leaves that commit out, so INT-003 is read alone and a.ts,
    // which INT-003 now has through the merge, is found on it.
    git(wt3, 'merge', '-q', '--no-edit', 'intent/INT-002');
    writeFiles(wt2, { 'src/auth/e.ts': 'export const e = 20;\n' });
    git(wt2, 'add', '-A');
    committed(wt2, ['-m', 'INT-002 touches e.ts']);
    writeFiles(wt1, { 'src/auth/a.ts': 'export const a = 101;\n' });
    git(wt1, 'add', '-A');
    const merged = committed(wt1, ['-m', 'three']).stderr;
    expect(merged).toContain('conflict ahead: src/auth/a.ts is also changed on intent/INT-003');
  });

  it('a cache for another HEAD, garbled or with another tip is not used; one that fits is (the state folder is trusted)', () => {
    const { repo, wt1, wt2 } = twoIntents();
    const file = cacheOf(repo, wt1);
    const plant = (c: unknown) => {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, typeof c === 'string' ? c : JSON.stringify(c));
    };
    const attempt = (n: number) => {
      writeFiles(wt1, { 'src/auth/a.ts': `export const a = ${n};\n` });
      git(wt1, 'add', '-A');
      return run('git', ['commit', '-q', '-m', `attempt ${n}`], wt1, humanEnv());
    };
    const says = 'conflict ahead: src/auth/a.ts is also changed on intent/INT-002';
    plant({ version: 1, head: '0'.repeat(40), branches: { 'INT-002': { tip: head(wt2), files: [] } } });
    expect(attempt(11).stderr).toContain(says);
    plant('{"version":1,"head":');
    expect(attempt(12).stderr).toContain(says);
    plant({ version: 1, head: head(wt1), branches: { 'INT-002': { tip: '1'.repeat(40), files: [] } } });
    expect(attempt(13).stderr).toContain(says);
    // A branch kept as having too many files to list is asked about with the staged paths.
    plant({ version: 1, head: head(wt1), branches: { 'INT-002': { tip: head(wt2), files: null } } });
    expect(attempt(14).stderr).toContain(says);
    expect(JSON.parse(readFileSync(file, 'utf8')).branches['INT-002']).toEqual({ tip: head(wt2), files: null });
    // One that fits is believed: git is not asked (whoever can write .git/intent can also change the hooks).
    plant({ version: 1, head: head(wt1), branches: { 'INT-002': { tip: head(wt2), files: ['src/auth/a.ts', 'src/auth/b.ts'] } } });
    writeFiles(wt1, { 'src/auth/b.ts': 'export const b = 10;\n' });
    git(wt1, 'add', '-A');
    expect(run('git', ['commit', '-q', '-m', 'b'], wt1, humanEnv()).stderr).toContain('conflict ahead: src/auth/b.ts is also changed on intent/INT-002');
  });
});

describe('budgets', () => {
  it('max_commits: the commit past the budget is refused with the numbers; amending is counted once', () => {
    const repo = repoWith([{ id: 'INT-001', scope: ['src/auth/**'], extra: '    budget: { max_commits: 2 }\n' }]);
    const wt = checkoutIntent(repo, 'INT-001');
    writeFiles(wt, { 'src/auth/a.ts': 'export const a = 2;\n' });
    committed(wt, ['-a', '-m', 'one']);
    writeFiles(wt, { 'src/auth/a.ts': 'export const a = 3;\n' });
    committed(wt, ['-a', '-m', 'two']);
    // Packed refs (HEAD and the notes tip are read from the ref files) and no cache: the same count.
    git(repo, 'pack-refs', '--all');
    rmSync(join(repo, '.git', 'intent', 'budget'), { recursive: true, force: true });
    writeFiles(wt, { 'src/auth/a.ts': 'export const a = 4;\n' });
    const err = refused(wt, ['-a', '-m', 'three']);
    expect(err).toContain('Budget exceeded: INT-001 has 2 governed commits so far and max_commits is 2; this commit would be number 3.');
    expect(err).toContain(`raise budget.max_commits for INT-001 in ${join(repo, '.orchestration', 'active_intents.yaml')}`);
    // Raising the budget in the main worktree lets it through (the count is cached by HEAD, not by budget).
    writeFiles(repo, { '.orchestration/active_intents.yaml': registryText(repo).replace('max_commits: 2', 'max_commits: 3') });
    committed(wt, ['-a', '-m', 'three']);
    expect(JSON.parse(readFileSync(join(repo, '.git', 'intent', 'budget', 'INT-001.json'), 'utf8')).commits).toBe(2);
    writeFiles(wt, { 'src/auth/a.ts': 'export const a = 5;\n' });
    expect(refused(wt, ['-a', '-m', 'four'])).toContain('3 governed commits so far and max_commits is 3');
  });

  it('max_changed_lines: so far + staged over the limit is refused with the numbers', () => {
    const repo = repoWith([{ id: 'INT-001', scope: ['src/auth/**'], extra: '    budget:\n      max_changed_lines: 10\n' }]);
    const wt = checkoutIntent(repo, 'INT-001');
    // 1 deleted + 5 added = 6 changed lines.
    writeFiles(wt, { 'src/auth/a.ts': '1\n2\n3\n4\n5\n' });
    committed(wt, ['-a', '-m', 'six lines']);
    writeFiles(wt, { 'src/auth/b.ts': 'x\n1\n2\n3\n4\n' }); // 1 deleted + 5 added
    const err = refused(wt, ['-a', '-m', 'six more']);
    expect(err).toContain('Budget exceeded: INT-001 has 6 changed lines so far + 6 staged = 12, over max_changed_lines 10.');
    expect(err).toContain('at most 4 more lines');
    writeFiles(wt, { 'src/auth/b.ts': 'export const b = 1;\n1\n2\n3\n' }); // 3 added
    committed(wt, ['-a', '-m', 'three more']);
    // The paths come from the same numstat: both sides of a rename are scope-checked, odd names verbatim.
    git(wt, 'mv', 'src/auth/a.ts', 'src/moved "ü" a.ts');
    const mv = refused(wt, ['-m', 'rename out of scope']);
    expect(mv.split('\n').filter((l) => l.startsWith('Scope Violation'))).toEqual(['Scope Violation: INT-001 is not authorized to edit src/moved "ü" a.ts']);
    git(wt, 'reset', '-q', '--hard');
    // A pure rename inside the scope changes no lines.
    git(wt, 'mv', 'src/auth/a.ts', 'src/auth/ä a.ts');
    committed(wt, ['-m', 'rename inside scope']);
    const status = JSON.parse(intent(repo, ['status', '--json']).stdout).intents[0];
    expect(status).toMatchObject({ commits: 3, changed_lines: 9, budget_left: { commits: null, changed_lines: 1, expires_at: null, expired: false } });
  });

  it('expires_at in the past: checkout is refused with the date (nothing changed); commits are refused too', () => {
    const past = '2020-01-01T00:00:00Z';
    const repo = repoWith([
      { id: 'INT-001', scope: ['src/auth/**'], extra: `    budget: { expires_at: "${past}" }\n` },
      { id: 'INT-002', scope: ['src/billing/**'], extra: '    budget: { expires_at: "2999-01-01T00:00:00Z" }\n' },
    ]);
    const before = registryText(repo);
    const r = intent(repo, ['checkout', 'INT-001']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`INT-001's budget expired at ${past}`);
    expect(r.stderr).toContain('extends budget.expires_at');
    const j = intent(repo, ['checkout', 'INT-001', '--json']);
    expect(JSON.parse(j.stdout).error).toMatchObject({ code: 'BUDGET_EXCEEDED', data: { intent: 'INT-001', expires_at: past } });
    expect(existsSync(join(dirname(repo), 'repo.worktrees', 'INT-001'))).toBe(false);
    expect(branches(repo)).toEqual(['main']);
    expect(registryText(repo)).toBe(before);

    const wt = checkoutIntent(repo, 'INT-002');
    writeFiles(wt, { 'src/billing/invoice.ts': 'export const i = 2;\n' });
    committed(wt, ['-a', '-m', 'before expiry']);
    writeFiles(repo, { '.orchestration/active_intents.yaml': registryText(repo).replace('2999-01-01T00:00:00Z', past) });
    writeFiles(wt, { 'src/billing/invoice.ts': 'export const i = 3;\n' });
    expect(refused(wt, ['-a', '-m', 'after expiry'])).toContain(`Budget exceeded: INT-002's budget expired at ${past}`);
  });

  it('a registry with a bad budget blocks checkout and commits with file:line:column', () => {
    const repo = repoWith([{ id: 'INT-001', scope: ['src/auth/**'], extra: '    budget: { max_commits: -1 }\n' }]);
    const r = intent(repo, ['checkout', 'INT-001']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`${join(repo, '.orchestration', 'active_intents.yaml')}:6:28: intent INT-001, field budget.max_commits: must be a whole number of at least 1, got -1`);
    expect(branches(repo)).toEqual(['main']);
  });
});

describe('circuit breaker', () => {
  it('counts only refusals the agent caused: a registry a human broke opens no breaker', () => {
    const repo = repoWith([{ id: 'INT-001', scope: ['src/auth/**'] }]);
    const wt = checkoutIntent(repo, 'INT-001');
    const registry = join(repo, '.orchestration', 'active_intents.yaml');
    const good = readFileSync(registry, 'utf8');
    writeFileSync(registry, good + '  - id: [broken\n');
    for (let i = 1; i <= 6; i++) {
      writeFiles(wt, { "src/auth/a.ts": `export const a = ${100 + i};\n` });
      expect(refused(wt, ['-a', '-m', `try ${i}`])).not.toContain('Circuit breaker');
    }
    const state = join(repo, '.git', 'intent', 'breaker', 'INT-001.json');
    expect(existsSync(state) ? breakerState(repo, 'INT-001').rejections : []).toHaveLength(0);
    writeFileSync(registry, good);
    const ok = commit(wt, ['-a', '-m', 'after the fix']);
    expect(ok.status, ok.stderr).toBe(0);
    // The advice for an out-of-scope path fits `git commit -a`, which would stage it again.
    writeFiles(wt, { 'src/other.ts': 'export const o = 99;\n' });
    expect(refused(wt, ['-a', '-m', 'out of scope'])).toContain('commit without -a (`git commit -a` stages every modified file again)');
  });

  it('a runaway loop (the same out-of-scope commit retried) trips it; then every commit is refused until a human resets it', () => {
    const repo = repoWith([{ id: 'INT-001', scope: ['src/auth/**'] }]);
    const wt = checkoutIntent(repo, 'INT-001');
    writeFiles(wt, { 'src/other.ts': 'export const o = 666;\n' });
    git(wt, 'add', 'src/other.ts');
    const first = refused(wt, ['-m', 'try 1']);
    expect(first).toContain('Scope Violation: INT-001 is not authorized to edit src/other.ts');
    expect(first).not.toContain('Circuit breaker');
    refused(wt, ['-m', 'try 2']);
    const third = refused(wt, ['-m', 'try 3']);
    expect(third).toContain('Scope Violation: INT-001 is not authorized to edit src/other.ts');
    expect(third).toMatch(/Circuit breaker opened for INT-001: the same staged tree [0-9a-f]{12} was refused 3 times in 10 minutes, a retry loop/);
    expect(third).toContain('a human runs: intent reset INT-001');

    // Now even an in-scope commit is refused, before any other check.
    git(wt, 'restore', '--staged', 'src/other.ts');
    writeFiles(wt, { 'src/auth/a.ts': 'export const a = 2;\n' });
    git(wt, 'add', 'src/auth/a.ts');
    const open = refused(wt, ['-m', 'in scope']);
    expect(open).toContain('Circuit breaker open for INT-001 since ');
    expect(open).toContain('a retry loop');
    expect(open).toContain('a human runs: intent reset INT-001');
    expect(open.split('\n').filter((l) => l.startsWith('Scope Violation'))).toEqual([]);

    // Lessons: one for the trip, one (not three) for the scope refusals.
    const md = localLessons(repo);
    expect(readFileSync(join(repo, '.orchestration', 'AGENT.md'), 'utf8')).not.toContain('Circuit breaker opened');
    expect(git(repo, 'status', '--porcelain', '--', '.orchestration/AGENT.md')).toBe('');
    expect(md).toContain('Circuit breaker opened for INT-001: the same staged tree');
    expect(md.match(/refused for staging paths outside its scope/g)).toHaveLength(2); // heading + body of one entry
    expect(git(wt, 'status', '--porcelain', '--', '.orchestration')).toBe('');

    // The agent cannot reset it: from its worktree, with or without --yes, or with an agent marker.
    const inside = intent(wt, ['reset', 'INT-001', '--yes'], humanEnv());
    expect(inside.status).toBe(1);
    expect(inside.stderr).toContain('is an intent worktree');
    expect(inside.stderr).toContain('Nothing was changed.');
    for (const marker of [{ CLAUDE_PROJECT_DIR: repo }, { CURSOR_TRACE_ID: 'x' }, { CLINE_CONNECTOR_CLI_LAUNCH: '{}' }, { COPILOT_CLI: '1' }, { OPENCODE: '1' }, { QWEN_CODE: '1' }, { INTENT_AGENT: '1' }]) {
      const r = intent(repo, ['reset', 'INT-001', '--yes', '--json'], humanEnv(marker));
      expect(r.status, JSON.stringify(marker)).toBe(1);
      expect(JSON.parse(r.stdout).error.code).toBe('NOT_A_HUMAN');
    }
    const noTty = intent(repo, ['reset', 'INT-001'], humanEnv());
    expect(noTty.status).toBe(1);
    expect(noTty.stderr).toContain('stdin is not a terminal');
    const unknown = intent(repo, ['reset', 'INT-999', '--yes'], humanEnv());
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('Unknown intent INT-999');
    expect(breakerState(repo, 'INT-001').open).not.toBeNull();
    refused(wt, ['-m', 'still open']);

    // A human in the main worktree closes it; the in-scope commit goes through.
    const reset = intent(repo, ['reset', 'INT-001', '--yes', '--json'], humanEnv());
    expect(reset.status, reset.stderr).toBe(0);
    expect(JSON.parse(reset.stdout)).toMatchObject({ intent: 'INT-001', was_open: true, cleared_rejections: 3 });
    expect(existsSync(join(repo, '.git', 'intent', 'breaker', 'INT-001.json'))).toBe(false);
    committed(wt, ['-m', 'in scope, after reset']);
    const again = intent(repo, ['reset', 'INT-001', '--yes'], humanEnv());
    expect(again.status).toBe(0);
    expect(again.stdout).toContain('was not open');
  });

  it('opens after 5 different refusals within the window (configurable), naming the last refusal', () => {
    const repo = repoWith([{ id: 'INT-001', scope: ['src/auth/**'] }]);
    const wt = checkoutIntent(repo, 'INT-001');
    for (let i = 1; i <= 4; i++) {
      writeFiles(wt, { 'src/other.ts': `export const o = ${10 + i};\n` });
      expect(refused(wt, ['-a', '-m', `try ${i}`])).not.toContain('Circuit breaker');
    }
    writeFiles(wt, { 'src/other.ts': 'export const o = 5;\n' });
    expect(refused(wt, ['-a', '-m', 'try 5'])).toContain(
      'Circuit breaker opened for INT-001: 5 rejected commits in 10 minutes (last: Scope Violation: INT-001 is not authorized to edit src/other.ts)',
    );
    expect(breakerState(repo, 'INT-001').rejections).toHaveLength(5);
    const status = JSON.parse(intent(repo, ['status', '--json']).stdout).intents[0];
    expect(status.breaker).toMatchObject({ open: true, recent_rejections: 5 });

    // breakerMaxRejections / breakerWindowMinutes in the main worktree's configuration.
    expect(intent(repo, ['reset', 'INT-001', '--yes'], humanEnv()).status).toBe(0);
    writeFiles(repo, { '.intentrc.json': '{ "breakerMaxRejections": 2, "breakerWindowMinutes": 1 }\n' });
    writeFiles(wt, { 'src/other.ts': 'export const o = 6;\n' });
    expect(refused(wt, ['-a', '-m', 'try 6'])).not.toContain('Circuit breaker');
    writeFiles(wt, { 'src/other.ts': 'export const o = 7;\n' });
    expect(refused(wt, ['-a', '-m', 'try 7'])).toContain('2 rejected commits in 1 minute ');
    expect(intent(repo, ['reset', 'INT-001', '--yes'], humanEnv()).status).toBe(0);
    writeFiles(repo, { '.intentrc.json': '{ "breakerMaxRejections": 0 }\n' });
    expect(refused(wt, ['-a', '-m', 'bad config'])).toContain('"breakerMaxRejections" must be a whole number of at least 1, got 0');
  });

  it('stays consistent when 4 processes are refused at the same time, 3 times each', async () => {
    const repo = repoWith([{ id: 'INT-001', scope: ['src/auth/**'] }]);
    checkoutIntent(repo, 'INT-001');
    writeFiles(repo, { '.intentrc.json': '{ "breakerMaxRejections": 100 }\n' });
    // Four plain linked worktrees commit under INT-001 (INTENT_ID), each its own index.
    const wts = [1, 2, 3, 4].map((n) => {
      const wt = join(dirname(repo), `plain-${n}`);
      git(repo, 'worktree', 'add', '-q', '-b', `plain-${n}`, wt);
      return wt;
    });
    const script = (n: number) =>
      `for i in 1 2 3; do echo "export const o = ${n}$i;" > src/other.ts; git add src/other.ts; git commit -q -m "p${n} $i"; done; exit 0`;
    const results = await Promise.all(wts.map((wt, i) => spawnAsync('sh', ['-c', script(i + 1)], wt, { INTENT_ID: 'INT-001' })));
    for (const r of results) expect(r.stderr.match(/intent: commit blocked\./g)).toHaveLength(3);
    const state = breakerState(repo, 'INT-001');
    expect(state.open).toBeNull();
    expect(state.rejections).toHaveLength(12);
    expect(new Set(state.rejections.map((r: { tree: string }) => r.tree)).size).toBe(12);
    expect(state.rejections.every((r: { code: string }) => r.code === 'SCOPE_VIOLATION')).toBe(true);
    expect(existsSync(join(repo, '.git', 'intent', 'breaker', 'INT-001.json.lock'))).toBe(false);
    // The lesson was written once, not twelve times.
    expect(localLessons(repo).match(/## \d{4}-\d{2}-\d{2} · INT-001 · Commits for INT-001 were refused for staging paths/g)).toHaveLength(1);
    // Once more over the limit: the next refusal opens it.
    writeFiles(repo, { '.intentrc.json': '{ "breakerMaxRejections": 13 }\n' });
    writeFiles(wts[0], { 'src/other.ts': 'export const o = 99;\n' });
    expect(refused(wts[0], ['-a', '-m', 'thirteenth'], { INTENT_ID: 'INT-001' })).toContain('13 rejected commits in 10 minutes');
  });
});
