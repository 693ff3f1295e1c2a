import { existsSync, readFileSync, writeFileSync, mkdirSync, chmodSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, git, intent, makeRepo, run, tempDir, writeFiles } from '../helpers.js';

// A newcomer's traps, each caught where it starts: `intent new` adds the intent and says to commit
// the registry; `intent checkout` refuses an intent whose entry is not committed on the base (the
// work would be refused after the merge: SCOPE_NOT_IN_REGISTRY); `wt=$(intent checkout X) && cd "$wt"`
// stops at a wrong id, so the next command does not run in the main worktree.

const REGISTRY = '.orchestration/active_intents.yaml';

/** A repository with a first commit and `intent init` run (nothing of .orchestration/ committed). */
function initialised(): string {
  const repo = makeRepo({ 'README.md': '# app\n', 'src/a.ts': 'export const a = 1;\n', 'docs/x.md': 'x\n' });
  const r = intent(repo, ['init']);
  expect(r.status, r.stderr).toBe(0);
  // The last lines say what to do next, committing the registry included.
  expect(r.stdout).toContain('intent new INT-001 --name');
  expect(r.stdout).toContain('git add .orchestration && git commit -m "Register INT-001"');
  expect(r.stdout).toContain('wt=$(intent checkout INT-001) && cd "$wt"');
  return repo;
}

/** A folder with an `intent` on PATH that runs the built CLI (what an installed package gives). */
function binDir(): string {
  const dir = join(tempDir(), 'bin');
  mkdirSync(dir);
  writeFileSync(join(dir, 'intent'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(join(dir, 'intent'), 0o755);
  return dir;
}

describe('intent new', () => {
  it('adds a PENDING intent, prints the commit and checkout to run next; --json; duplicates and bad input refused', () => {
    const repo = initialised();
    const before = readFileSync(join(repo, REGISTRY), 'utf8');
    const r = intent(repo, ['new', 'INT-001', '--name', 'Retry on 503', '--scope', 'src/**', '!src/vendor/**', '--acceptance-check', 'test -f src/a.ts']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`intent: added INT-001 (PENDING) to ${join(repo, REGISTRY)}: Retry on 503; owns src/**, !src/vendor/**`);
    expect(r.stdout).toContain('acceptance checks (intent done runs them): test -f src/a.ts');
    expect(r.stdout).toContain('  git add .orchestration && git commit -m "Register INT-001"\n  wt=$(intent checkout INT-001) && cd "$wt"\n');
    const after = readFileSync(join(repo, REGISTRY), 'utf8');
    // Byte-surgical: the template's comments stay; only the list changed.
    expect(after.slice(0, before.indexOf('active_intents: []'))).toBe(before.slice(0, before.indexOf('active_intents: []')));
    expect(after).toContain('    acceptance_checks: ["test -f src/a.ts"]\n');
    // The agent is told which commands intent done will run.
    expect(intent(repo, ['context', 'INT-001']).stdout).toContain('  <acceptance_checks>\n    <check>test -f src/a.ts</check>\n  </acceptance_checks>\n');

    const j = intent(repo, ['new', 'INT-002', '--name', 'Docs', '--scope', 'docs/**', '--constraint', 'English only', '--json']);
    expect(j.status, j.stderr).toBe(0);
    const out = JSON.parse(j.stdout);
    expect(out.intent).toMatchObject({ id: 'INT-002', status: 'PENDING', owned_scope: ['docs/**'], constraints: ['English only'] });
    expect(out.next).toEqual(['git add .orchestration && git commit -m "Register INT-002"', 'wt=$(intent checkout INT-002) && cd "$wt"']);

    const twice = readFileSync(join(repo, REGISTRY), 'utf8');
    const dup = intent(repo, ['new', 'INT-001', '--name', 'Again', '--scope', 'x/**', '--json']);
    expect(dup.status).toBe(1);
    expect(JSON.parse(dup.stdout).error).toMatchObject({ code: 'INTENT_EXISTS' });
    const bad = intent(repo, ['new', 'INT 3', '--name', 'x', '--scope', 'x/**']);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('"INT 3" is not a valid intent id');
    const agent = intent(repo, ['new', 'INT-003', '--name', 'x', '--scope', 'x/**'], { CLAUDECODE: '1' });
    expect(agent.status).toBe(1);
    expect(agent.stderr).toContain('Refused: intent new looks like it comes from an agent process');
    const missing = intent(repo, ['new', 'INT-003', '--name', 'x']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain("required option '--scope <glob...>' not specified");
    expect(readFileSync(join(repo, REGISTRY), 'utf8')).toBe(twice);

    const help = intent(repo, ['new', '--help']);
    expect(help.stdout).toContain('Examples:');
    expect(help.stdout).toContain('--acceptance-check');
  });
});

describe('intent checkout and the registry commit', () => {
  it('refuses an intent not committed on the base (REGISTRY_UNCOMMITTED), changing nothing; after the commit it opens', () => {
    const repo = initialised();
    expect(intent(repo, ['new', 'INT-001', '--name', 'Retry', '--scope', 'src/**']).status).toBe(0);
    const registry = readFileSync(join(repo, REGISTRY), 'utf8');
    const r = intent(repo, ['checkout', 'INT-001']);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`INT-001 is in ${join(repo, REGISTRY)} but not in the registry committed on HEAD (`);
    expect(r.stderr).toContain('(SCOPE_NOT_IN_REGISTRY)');
    expect(r.stderr).toContain('  git add .orchestration/active_intents.yaml && git commit -m "Register INT-001"\n');
    expect(r.stderr).toContain('--allow-uncommitted');
    expect(JSON.parse(intent(repo, ['checkout', 'INT-001', '--json']).stdout).error.code).toBe('REGISTRY_UNCOMMITTED');
    // Nothing changed: no branch, no worktree, the registry as it was.
    expect(git(repo, 'branch', '--list', 'intent/*')).toBe('');
    expect(existsSync(join(dirname(repo), `${repo.split('/').pop()}.worktrees`, 'INT-001'))).toBe(false);
    expect(readFileSync(join(repo, REGISTRY), 'utf8')).toBe(registry);

    git(repo, 'add', '.orchestration');
    git(repo, 'commit', '-q', '-m', 'Register INT-001');
    const ok = intent(repo, ['checkout', 'INT-001', '--json']);
    expect(ok.status, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ intent: 'INT-001', branch: 'intent/INT-001', created: true });
  });

  it('a scope widened but not committed is refused naming both scopes; --allow-uncommitted goes on', () => {
    const repo = initialised();
    intent(repo, ['new', 'INT-001', '--name', 'Retry', '--scope', 'src/**']);
    git(repo, 'add', '.orchestration');
    git(repo, 'commit', '-q', '-m', 'Register INT-001');
    const text = readFileSync(join(repo, REGISTRY), 'utf8');
    writeFileSync(join(repo, REGISTRY), text.replace('owned_scope: ["src/**"]', 'owned_scope: ["src/**", "docs/**"]'));
    const r = intent(repo, ['checkout', 'INT-001']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('(src/**, docs/**) is not the one committed on HEAD');
    expect(r.stderr).toContain('(src/**)');
    const go = intent(repo, ['checkout', 'INT-001', '--allow-uncommitted', '--json']);
    expect(go.status, go.stderr).toBe(0);
    expect(JSON.parse(go.stdout).created).toBe(true);
    // --base names the base the check reads.
    writeFileSync(join(repo, REGISTRY), readFileSync(join(repo, REGISTRY), 'utf8') + '  - id: "INT-002"\n    name: "x"\n    status: "PENDING"\n    owned_scope: ["x/**"]\n');
    const based = intent(repo, ['checkout', 'INT-002', '--base', 'main']);
    expect(based.status).toBe(1);
    expect(based.stderr).toContain('not in the registry committed on main (');
    expect(based.stderr).toContain('Commit the registry first on main');
  });

  it('wt=$(intent checkout X) && cd "$wt": a wrong id prints nothing on stdout and stops the chain; the next command never runs in the main worktree', () => {
    const repo = initialised();
    intent(repo, ['new', 'INT-001', '--name', 'Retry', '--scope', 'src/**']);
    git(repo, 'add', '.orchestration');
    git(repo, 'commit', '-q', '-m', 'Register INT-001');
    const head = git(repo, 'rev-parse', 'HEAD');
    const script = 'wt=$(intent checkout INT-01) && cd "$wt" && echo "// edited" >> src/a.ts && git commit -qam "edit"\necho "status=$? wt=[$wt] pwd=$PWD"';
    const r = run('sh', ['-c', script], repo, { PATH: `${binDir()}:${process.env.PATH}` });
    expect(r.stderr).toContain('Unknown intent INT-01');
    expect(r.stderr).toContain('intent new INT-01 --name');
    expect(r.stdout).toBe(`status=1 wt=[] pwd=${repo}\n`);
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(repo, 'status', '--porcelain')).toBe('');
    // The right id: the same line lands in the worktree and commits there.
    const good = run('sh', ['-c', script.replace('INT-01)', 'INT-001)')], repo, { PATH: `${binDir()}:${process.env.PATH}` });
    expect(good.stdout, good.stderr).toMatch(/^status=0 wt=\[.*INT-001\] pwd=.*INT-001\n$/);
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(repo, 'log', '-1', '--format=%s', 'intent/INT-001')).toBe('edit\n');
  });
});
