// The hook-manager matrix, shared by test/integration/hook-managers-*.test.ts (one file per order,
// so that vitest runs them side by side): intent next to the real hook managers husky 9, lefthook 2
// and simple-git-hooks (from node_modules), a plain core.hooksPath folder, and the pre-commit
// framework (required in CI, reported as skipped elsewhere when it is missing). One prepared
// repository is copied per case (no npm install, no network).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { PKG_ROOT, expectRefused, forFile, git, intent, makeRepo, noteOf, registryYaml, run, tempDir, writeFiles, type Run } from '../helpers.js';

const NODE_MODULES = join(PKG_ROOT, 'node_modules');
const PRE_COMMIT = spawnSync('pre-commit', ['--version'], { encoding: 'utf8' }).status === 0;

export interface Manager {
  name: string;
  /** Installs the manager's hooks from `cwd` (a worktree of the repository). */
  install(cwd: string, env: Env): void;
  /** Folders (repository-relative) whose files the manager and intent write. */
  dirs: string[];
}
export type Env = Record<string, string>;

function must(r: Run, what: string): void {
  if (r.status !== 0) throw new Error(`${what} failed (${r.status}):\n${r.stdout}${r.stderr}`);
}

export const MANAGERS: Manager[] = [
  {
    name: 'husky',
    install: (cwd, env) => must(run(process.execPath, [join(NODE_MODULES, 'husky', 'bin.js')], cwd, env), 'husky'),
    dirs: ['.git/hooks', '.husky', '.husky/_'],
  },
  {
    name: 'lefthook',
    install: (cwd, env) => must(run(join(NODE_MODULES, '.bin', 'lefthook'), ['install'], cwd, env), 'lefthook install'),
    dirs: ['.git/hooks'],
  },
  {
    name: 'simple-git-hooks',
    install: (cwd, env) => must(run(process.execPath, [join(NODE_MODULES, 'simple-git-hooks', 'cli.js')], cwd, env), 'simple-git-hooks'),
    dirs: ['.git/hooks'],
  },
  {
    name: 'githooks',
    install: (cwd, env) => must(run('git', ['config', 'core.hooksPath', '.githooks'], cwd, env), 'git config core.hooksPath'),
    dirs: ['.git/hooks', '.githooks'],
  },
  ...(PRE_COMMIT
    ? [{
      name: 'pre-commit',
      install: (cwd: string, env: Env) => must(run('pre-commit', ['install'], cwd, env), 'pre-commit install'),
      dirs: ['.git/hooks'],
    }]
    : []),
];
/**
 * The pre-commit framework is one of the matrix's managers (a Python tool, not an npm package).
 * Without it its cases cannot run: in CI (CI set) the file fails, naming how to install it;
 * elsewhere (a contributor's `npm ci && npm test`) its cases are left out with a line saying so,
 * as the browser tests are without Chromium. `.ci/run` installs it with apt-get.
 */
export function preCommitRequired(): void {
  if (PRE_COMMIT) return;
  if (!process.env.CI) {
    console.warn('hook-manager matrix: the pre-commit framework is not installed, so its cases are left out (apt-get install pre-commit, or pip install pre-commit; .ci/run does, and CI fails without it).');
    return;
  }
  it('pre-commit', () => {
    throw new Error('the pre-commit framework is not installed (`pre-commit --version` failed): its cases of the hook-manager matrix cannot run. Install it (apt-get install pre-commit, or pip install pre-commit), as .ci/run does.');
  });
}

const mark = (name: string) => `echo ${name} >> "$INTENT_TEST_MARK"`;
const FILES = {
  'README.md': '# test\n',
  'src/auth/a.ts': 'export const a = 1;\n',
  'src/other.ts': 'export const other = 1;\n',
  '.orchestration/active_intents.yaml': registryYaml([{ id: 'INT-001', scope: ['src/auth/**'] }]),
  'package.json': JSON.stringify({ name: 'fixture', version: '1.0.0', 'simple-git-hooks': { 'pre-commit': mark('simple-git-hooks') } }, null, 2) + '\n',
  'lefthook.yml': `pre-commit:\n  jobs:\n    - run: ${mark('lefthook')}\n`,
  '.husky/pre-commit': `${mark('husky')}\n`,
  '.githooks/pre-commit': `#!/bin/sh\n${mark('githooks')}\n`,
  '.pre-commit-config.yaml':
    `repos:\n  - repo: local\n    hooks:\n      - id: mark\n        name: mark\n        entry: sh -c '${mark('pre-commit')}'\n        language: system\n        pass_filenames: false\n        always_run: true\n`,
};

let base = '';
let preCommitHome = '';
/** Prepares the repository the cases copy (call once per test file). */
export function prepare(): void {
  beforeAll(() => {
  ({ base, preCommitHome } = forFile(() => {
    const repo = makeRepo(FILES);
    spawnSync('chmod', ['755', join(repo, '.githooks', 'pre-commit')]);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'hook managers');
    return { base: repo, preCommitHome: tempDir() };
  }));
  });
}

/** A copy of the prepared repository, with its marker file and environment. */
export function copy(): { repo: string; env: Env; marks: () => string[] } {
  const dir = tempDir();
  const repo = join(dir, 'repo');
  cpSync(base, repo, { recursive: true, verbatimSymlinks: true });
  const marker = join(dir, 'marks');
  const env = { INTENT_TEST_MARK: marker, PRE_COMMIT_HOME: preCommitHome };
  return { repo, env, marks: () => (existsSync(marker) ? readFileSync(marker, 'utf8').split('\n').filter(Boolean) : []) };
}

/** Every file of the manager's folders: mode and bytes, or a link's target. */
export function snapshot(repo: string, dirs: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of dirs) {
    const dir = join(repo, d);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      const st = lstatSync(p);
      if (st.isDirectory() || name.endsWith('.sample')) continue;
      out[`${d}/${name}`] = st.isSymbolicLink() ? `-> ${readlinkSync(p)}` : `${(st.mode & 0o777).toString(8)} ${readFileSync(p).toString('base64')}`;
    }
  }
  return out;
}

export function ok(cwd: string, args: string[], env: Env = {}): string {
  const r = intent(cwd, args, env);
  expect(r.status, `intent ${args.join(' ')}:\n${r.stderr}${r.stdout}`).toBe(0);
  return r.stdout;
}

export function doctorOk(repo: string): boolean {
  return intent(repo, ['doctor', '--json']).status === 0;
}

let edit = 0;

/** `git commit -a` of one change; returns the run. */
export function commit(cwd: string, path: string, env: Env, extra: Env = {}): Run {
  edit++;
  writeFiles(cwd, { [path]: `export const v = ${edit};\n` });
  return run('git', ['commit', '-q', '-am', `edit ${edit}`], cwd, { ...env, ...extra });
}

/**
 * Governance in the intent worktree: an out-of-scope commit refused, an in-scope one recorded with
 * a note (a first attempt may be refused once, when the hooks restored their folder: an installer
 * that replaced pre-commit is found by prepare-commit-msg).
 */
export function governed(wt: string, env: Env): Run {
  let out = commit(wt, 'src/other.ts', env);
  if (out.status !== 0 && out.stderr.includes('refused this time')) out = run('git', ['commit', '-q', '-am', `edit ${edit} again`], wt, env);
  expectRefused(out, 'Scope Violation: INT-001 is not authorized to edit src/other.ts');
  git(wt, 'checkout', '--', 'src/other.ts');
  let r = commit(wt, 'src/auth/a.ts', env);
  if (r.status !== 0 && r.stderr.includes('refused this time')) r = run('git', ['commit', '-q', '-am', `edit ${edit} again`], wt, env);
  expect(r.status, r.stderr).toBe(0);
  expect(noteOf(wt)?.summary.startsWith('INT-001 ')).toBe(true);
  return r;
}

/**
 * The main worktree lost intent's hooks, and says so: the one-line warning and doctor; then --fix.
 * (A manager that only added a hook of its own there, pre-commit's framework in migration mode,
 * leaves intent's in place: doctor then only finds the intent worktrees' folder not passing on to
 * it yet, which the next hook or --fix puts right.)
 */
export function reportedAndFixed(repo: string): void {
  if (doctorOk(repo)) return;
  const failing = (JSON.parse(intent(repo, ['doctor', '--json']).stdout) as { checks: { subject: string; ok: boolean }[] }).checks.filter((c) => !c.ok);
  const warn = intent(repo, ['verify']).stderr.split('\n').filter((l) => l.includes('WARNING'));
  if (failing.every((c) => c.subject === 'worktree hooks')) expect(warn, 'no warning: the main worktree kept intent').toEqual([]);
  else {
    expect(warn, 'the one-line warning').toHaveLength(1);
    expect(warn[0]).toContain("the main worktree's hooks lost intent");
  }
  ok(repo, ['doctor', '--fix']);
  expect(doctorOk(repo), intent(repo, ['doctor']).stdout).toBe(true);
}

/** No intent left in the manager's folders or the git dir. */
export function noIntentLeft(repo: string, dirs: string[]): void {
  for (const [file, v] of Object.entries(snapshot(repo, dirs))) {
    expect(file).not.toMatch(/intent-chained$/);
    if (!v.startsWith('->')) expect(Buffer.from(v.split(' ')[1], 'base64').toString('latin1'), file).not.toContain('# >>> intent >>>');
  }
  expect(existsSync(join(repo, '.git', 'intent', 'hooks'))).toBe(false);
  expect(existsSync(join(repo, '.git', 'intent', 'bin'))).toBe(false);
}

