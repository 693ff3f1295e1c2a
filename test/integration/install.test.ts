// `intent init` as a real process, and the hooks it installs exercised by real `git commit`:
// idempotence, notes config, coexistence with existing hooks, core.hooksPath, husky, lefthook,
// no `intent` on PATH, a missing runner, and the CLI's usage errors.
import { accessSync, chmodSync, constants, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  PKG_ROOT,
  checkoutIntent,
  git,
  governedRepo,
  intent,
  ledgerLines,
  makeRepo,
  noteCount,
  noteOf,
  refusedCommit,
  registryYaml,
  run,
  tempDir,
  writeFiles,
  type Run,
} from '../helpers.js';
import { scaffoldName } from '../../lib/lifecycle/init.js';

type Env = Record<string, string | undefined>;

const TEMPLATES = join(PKG_ROOT, 'templates', 'orchestration');
const BEGIN = '# >>> intent >>>';
const END = '# <<< intent <<<';
const violation = (path: string, id = 'INT-001'): string => `Scope Violation: ${id} is not authorized to edit ${path}`;

const FILES = {
  'README.md': '# test\n',
  'src/auth/a.ts': 'export const a = 1;\n',
  'src/other.ts': 'export const other = 1;\n',
};

function head(cwd: string): string {
  return git(cwd, 'rev-parse', 'HEAD').trim();
}


function isExecutable(file: string): boolean {
  return (statSync(file).mode & 0o111) !== 0;
}

function initOk(cwd: string, args: string[] = [], env: Env = {}): Run {
  const r = intent(cwd, ['init', ...args], env);
  expect(r.status, `intent init failed:\n${r.stderr}${r.stdout}`).toBe(0);
  return r;
}

function initJson(cwd: string, env: Env = {}): any {
  return JSON.parse(initOk(cwd, ['--json'], env).stdout);
}

/**
 * `git commit` that must be refused: HEAD, notes and ledger unchanged. Returns stderr, whose
 * message each caller asserts (intent's, or the user hook's that refused).
 */
function refused(repo: string, cwd: string, args: string[], env: Env = {}, gitBin = 'git'): string {
  return refusedCommit(cwd, args, { repo, env, git: gitBin, message: /\S/ });
}

/** `git commit` that must be made; with `governed` the new commit has that intent's note. */
function committed(repo: string, cwd: string, args: string[], env: Env = {}, governed: string | null = 'INT-001', gitBin = 'git'): Run {
  const before = { head: head(cwd), ledger: ledgerLines(repo).length };
  const r = run(gitBin, ['commit', ...args], cwd, env);
  expect(r.status, `git commit ${args.join(' ')} should succeed:\n${r.stdout}${r.stderr}`).toBe(0);
  const after = head(cwd);
  expect(after).not.toBe(before.head);
  if (governed) {
    const note = noteOf(cwd, after);
    expect(note, `a note on the new commit; stderr:\n${r.stderr}`).not.toBeNull();
    expect(note!.summary.startsWith(`${governed} `)).toBe(true);
    expect(ledgerLines(repo)).toHaveLength(before.ledger + 1);
  } else {
    expect(noteOf(cwd, after)).toBeNull();
  }
  return r;
}

/** Registers INT-001 (src/auth/**) in the main worktree and commits the given paths as a human. */
function register(repo: string, add: string[] = ['.orchestration'], status = 'PENDING'): void {
  writeFiles(repo, { '.orchestration/active_intents.yaml': registryYaml([{ id: 'INT-001', name: 'JWT', status, scope: ['src/auth/**'] }]) });
  git(repo, 'add', ...add);
  git(repo, 'commit', '-q', '-m', 'register intents');
}

let edits = 0;

/** Out-of-scope refused, in-scope recorded, in an intent worktree. */
function expectEnforced(repo: string, wt: string, env: Env = {}, gitBin = 'git'): void {
  edits++;
  writeFiles(wt, { 'src/other.ts': `export const other = "changed ${edits}";\n` });
  const err = refused(repo, wt, ['-q', '-a', '-m', 'out of scope'], env, gitBin);
  expect(err).toContain(violation('src/other.ts'));
  git(wt, 'checkout', '--', 'src/other.ts');
  writeFiles(wt, { 'src/auth/a.ts': `export const a = "changed ${edits}";\n` });
  committed(repo, wt, ['-q', '-a', '-m', 'in scope'], env, 'INT-001', gitBin);
}

/** The first executable called `name` on this process's PATH. */
function which(name: string): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      if (statSync(file).isFile()) return file;
    } catch {
      /* not here */
    }
  }
  throw new Error(`${name} is not on PATH`);
}

describe('intent init', () => {
  it('works from a subfolder and scaffolds .orchestration/ from the templates at the repository root', () => {
    const repo = makeRepo({ ...FILES, 'src/deep/er/x.ts': 'x\n' });
    const sub = join(repo, 'src', 'deep', 'er');
    const r = initOk(sub);
    expect(r.stdout).toContain(`initialised ${repo}`);
    expect(existsSync(join(sub, '.orchestration'))).toBe(false);
    for (const template of readdirSync(TEMPLATES)) {
      const name = scaffoldName(template);
      expect(readFileSync(join(repo, '.orchestration', name), 'utf8'), name).toBe(readFileSync(join(TEMPLATES, template), 'utf8'));
      expect(r.stdout).toContain(`created  .orchestration/${name}`);
    }
    for (const hook of ['pre-commit', 'post-commit', 'post-rewrite']) {
      const file = join(repo, '.git', 'hooks', hook);
      expect(isExecutable(file)).toBe(true);
      const text = readFileSync(file, 'utf8');
      expect(text.startsWith('#!/bin/sh\n')).toBe(true);
      expect(text).toContain(BEGIN);
      expect(text).toContain(END);
      expect(text).toContain(`hook" ${hook} "$@"`);
    }
    const runner = join(repo, '.git', 'intent', 'bin', 'hook');
    expect(isExecutable(runner)).toBe(true);
    // The scaffold is usable straight away: the template registry parses (no intents yet).
    writeFiles(repo, { 'README.md': '# changed\n' });
    committed(repo, repo, ['-q', '-a', '-m', 'human commit after init'], {}, null);
  });

  it('never overwrites an existing registry or other .orchestration/ files', () => {
    const repo = makeRepo(FILES);
    const mine = registryYaml([{ id: 'INT-042', name: 'Mine', scope: ['src/**'] }]);
    writeFiles(repo, { '.orchestration/active_intents.yaml': mine, '.orchestration/AGENT.md': '# my lessons\n' });
    const out = initJson(repo);
    expect(out.kept.sort()).toEqual(['.orchestration/AGENT.md', '.orchestration/active_intents.yaml']);
    expect(out.created).not.toContain('.orchestration/active_intents.yaml');
    expect(out.created.length).toBeGreaterThan(0);
    expect(readFileSync(join(repo, '.orchestration', 'active_intents.yaml'), 'utf8')).toBe(mine);
    expect(readFileSync(join(repo, '.orchestration', 'AGENT.md'), 'utf8')).toBe('# my lessons\n');
  });

  it('is idempotent: a second run changes nothing and says so; hook files stay byte-identical', () => {
    const repo = makeRepo(FILES);
    initOk(repo);
    const files = ['.git/hooks/pre-commit', '.git/hooks/post-commit', '.git/intent/bin/hook', ...readdirSync(TEMPLATES).map((n) => `.orchestration/${scaffoldName(n)}`)];
    const snapshot = (): Record<string, string> => Object.fromEntries(files.map((f) => [f, readFileSync(join(repo, f)).toString('base64')]));
    const before = snapshot();
    const config = git(repo, 'config', '--list', '--local');

    const second = initOk(repo);
    expect(second.stdout).toContain('nothing changed');
    const json = initJson(join(repo, 'src'));
    expect(json.changed).toBe(false);
    expect(json.created).toEqual([]);
    expect(json.runnerChanged).toBe(false);
    expect(json.config).toEqual([]);
    expect(json.hooks.map((h: { action: string }) => h.action)).toEqual(['unchanged', 'unchanged', 'unchanged', 'unchanged', 'unchanged', 'unchanged', 'unchanged']);
    expect(snapshot()).toEqual(before);
    expect(git(repo, 'config', '--list', '--local')).toBe(config);
  });

  it('sets notes.rewriteRef to a glob naming refs/notes/intents exactly once, keeping what was there; no warning on the first amend', () => {
    const repo = makeRepo(FILES);
    initOk(repo);
    initOk(repo);
    expect(git(repo, 'config', '--get-all', 'notes.rewriteRef').split('\n').filter(Boolean)).toEqual(['refs/notes/intent[s]']);
    // Before the first governed commit refs/notes/intents does not exist: a plain ref made git warn
    // "notes ref refs/notes/intents is invalid" on every amend.
    const amend = run('git', ['commit', '--amend', '-q', '-m', 'amended'], repo);
    expect(amend.status).toBe(0);
    expect(amend.stderr).not.toContain('invalid');

    const other = makeRepo(FILES);
    git(other, 'config', '--add', 'notes.rewriteRef', 'refs/notes/commits');
    initOk(other);
    initOk(other);
    expect(git(other, 'config', '--get-all', 'notes.rewriteRef').split('\n').filter(Boolean)).toEqual(['refs/notes/commits', 'refs/notes/intent[s]']);

    // What earlier versions set is replaced by the glob, in place.
    const older = makeRepo(FILES);
    git(older, 'config', '--add', 'notes.rewriteRef', 'refs/notes/intents');
    git(older, 'config', '--add', 'notes.rewriteRef', 'refs/notes/commits');
    expect(initJson(older).config).toContain('notes.rewriteRef += refs/notes/intent[s]');
    expect(git(older, 'config', '--get-all', 'notes.rewriteRef').split('\n').filter(Boolean)).toEqual(['refs/notes/intent[s]', 'refs/notes/commits']);
  });

  it("brings existing intent worktrees' hooks up to date (an older version's hook folder had no merge hooks)", () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }], { 'src/a.ts': 'a\n' });
    const wt = checkoutIntent(repo, 'INT-001');
    const hook = join(repo, '.git', 'intent', 'hooks', 'pre-merge-commit');
    const current = readFileSync(hook, 'utf8');
    expect(current).toMatch(/^if true; then$/m);
    // what an older version wrote: only the chain to the repository's own hook
    writeFileSync(hook, current.replace(/^if true; then$/m, 'if false; then'));
    // init says what it rewrote (it used to report "nothing changed" here)
    const out = initJson(repo);
    expect(out.changed).toBe(true);
    expect(out.worktreeHooks).toEqual(['pre-merge-commit']);
    expect(readFileSync(hook, 'utf8')).toBe(current);
    expect(initJson(repo).changed).toBe(false);
    // and the merge hook is enforced in the worktree that existed before
    git(wt, 'checkout', '-q', '-b', 'side');
    writeFiles(wt, { 'docs/out.md': 'out\n' });
    git(wt, 'add', '-A');
    git(wt, '-c', 'core.hooksPath=/dev/null', 'commit', '-q', '-m', 'out of scope, hooks skipped');
    git(wt, 'checkout', '-q', 'intent/INT-001');
    const r = run('git', ['merge', '--no-ff', '-m', 'merge side', 'side'], wt);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('Scope Violation: INT-001 is not authorized to edit docs/out.md');
  });
});

describe('intent init next to existing hooks', () => {
  it('inserts its block into an existing shell pre-commit hook; the user hook still runs and can still block', () => {
    const repo = makeRepo(FILES);
    const scratch = tempDir();
    const marker = join(scratch, 'marker');
    const blockFile = join(scratch, 'block');
    const userLines = `# my team's checks\necho "user hook ran" >> '${marker}'\nif [ -f '${blockFile}' ]; then echo "user hook: lint failed" >&2; exit 1; fi\nexit 0\n`;
    const hookFile = join(repo, '.git', 'hooks', 'pre-commit');
    writeFileSync(hookFile, `#!/bin/sh\n${userLines}`);
    chmodSync(hookFile, 0o755);

    const out = initJson(repo);
    expect(out.hooks[0]).toMatchObject({ hook: 'pre-commit', action: 'inserted' });
    const text = readFileSync(hookFile, 'utf8');
    expect(text.startsWith('#!/bin/sh\n' + BEGIN)).toBe(true);
    expect(text.endsWith(`${END}\n${userLines}`)).toBe(true);
    expect(existsSync(`${hookFile}.intent-chained`)).toBe(false);
    expect(initJson(repo).changed).toBe(false);
    expect(readFileSync(hookFile, 'utf8')).toBe(text);

    register(repo);
    const marks = (): number => (existsSync(marker) ? readFileSync(marker, 'utf8').split('\n').filter(Boolean).length : 0);
    expect(marks()).toBe(1);

    writeFileSync(blockFile, '');
    writeFiles(repo, { 'README.md': '# changed\n' });
    expect(refused(repo, repo, ['-q', '-a', '-m', 'user hook blocks'])).toContain('user hook: lint failed');
    expect(marks()).toBe(2);

    const wt = checkoutIntent(repo, 'INT-001');
    writeFiles(wt, { 'src/auth/a.ts': 'export const a = 2;\n' });
    expect(refused(repo, wt, ['-q', '-a', '-m', 'in scope, user hook blocks'])).toContain('user hook: lint failed');
    rmSync(blockFile);
    expectEnforced(repo, wt);
    // In an intent worktree intent's check is prepare-commit-msg's, after the team's pre-commit:
    // the out-of-scope attempt ran the user's lines too (and was stopped after them).
    expect(marks()).toBe(5);
  });

  it('chains to an existing non-shell hook, moved to pre-commit.intent-chained and run after ours', () => {
    const repo = makeRepo(FILES);
    const scratch = tempDir();
    const marker = join(scratch, 'marker');
    const blockFile = join(scratch, 'block');
    const original =
      '#!/usr/bin/env node\n' +
      "const fs = require('node:fs');\n" +
      `fs.appendFileSync(${JSON.stringify(marker)}, 'node hook ' + process.argv.slice(2).join(' ') + '\\n');\n` +
      `if (fs.existsSync(${JSON.stringify(blockFile)})) { console.error('node hook: blocked'); process.exit(1); }\n`;
    const hookFile = join(repo, '.git', 'hooks', 'pre-commit');
    writeFileSync(hookFile, original);
    chmodSync(hookFile, 0o755);

    const out = initJson(repo);
    expect(out.hooks[0]).toMatchObject({ hook: 'pre-commit', action: 'chained', chainedTo: `${hookFile}.intent-chained` });
    expect(readFileSync(`${hookFile}.intent-chained`, 'utf8')).toBe(original);
    expect(isExecutable(`${hookFile}.intent-chained`)).toBe(true);
    const ours = readFileSync(hookFile, 'utf8');
    expect(ours).toContain(BEGIN);
    expect(ours.indexOf('"$0.intent-chained"')).toBeGreaterThan(ours.indexOf(END));
    // A second run neither chains again nor fails on the existing .intent-chained file.
    expect(initJson(repo).changed).toBe(false);
    expect(readFileSync(hookFile, 'utf8')).toBe(ours);
    expect(readFileSync(`${hookFile}.intent-chained`, 'utf8')).toBe(original);

    register(repo);
    const marks = (): number => (existsSync(marker) ? readFileSync(marker, 'utf8').split('\n').filter(Boolean).length : 0);
    expect(marks()).toBe(1);
    writeFileSync(blockFile, '');
    writeFiles(repo, { 'README.md': '# changed\n' });
    expect(refused(repo, repo, ['-q', '-a', '-m', 'node hook blocks'])).toContain('node hook: blocked');
    expect(marks()).toBe(2);
    rmSync(blockFile);

    const wt = checkoutIntent(repo, 'INT-001');
    expectEnforced(repo, wt);
    // The team's pre-commit runs before intent's check (prepare-commit-msg's in intent worktrees):
    // for the refused attempt too.
    expect(marks()).toBe(4);
  });

  it('keeps a lefthook-style hook: block inserted, lefthook still called and still able to block', () => {
    const repo = makeRepo(FILES);
    const scratch = tempDir();
    const bin = join(scratch, 'bin');
    const marker = join(scratch, 'marker');
    const blockFile = join(scratch, 'block');
    mkdirSync(bin);
    // A stand-in for the lefthook binary.
    writeFileSync(
      join(bin, 'lefthook'),
      `#!/bin/sh\n[ "$1" = "-h" ] && exit 0\necho "lefthook $*" >> '${marker}'\nif [ -f '${blockFile}' ]; then echo "lefthook: lint failed" >&2; exit 1; fi\nexit 0\n`,
    );
    chmodSync(join(bin, 'lefthook'), 0o755);
    // Shaped like the hook `lefthook install` writes into .git/hooks.
    const lefthookHook = [
      '#!/bin/sh',
      '',
      'if [ "$LEFTHOOK" = "0" ]; then',
      '  exit 0',
      'fi',
      '',
      'call_lefthook()',
      '{',
      '  dir="$(git rev-parse --show-toplevel)"',
      '  if lefthook -h >/dev/null 2>&1',
      '  then',
      '    eval lefthook $@',
      '  elif test -f "$dir/node_modules/lefthook/bin/index.js"',
      '  then',
      '    eval "\\"$dir/node_modules/lefthook/bin/index.js\\" $@"',
      '  else',
      '    echo "Can\'t find lefthook in PATH"',
      '  fi',
      '}',
      '',
      'call_lefthook "run pre-commit $@"',
      '',
    ].join('\n');
    const hookFile = join(repo, '.git', 'hooks', 'pre-commit');
    writeFileSync(hookFile, lefthookHook);
    chmodSync(hookFile, 0o755);
    const env = { PATH: `${bin}${delimiter}${process.env.PATH}` };

    expect(initJson(repo).hooks[0].action).toBe('inserted');
    const text = readFileSync(hookFile, 'utf8');
    const [shebang, ...rest] = lefthookHook.split('\n');
    expect(text.startsWith(`${shebang}\n${BEGIN}`)).toBe(true);
    expect(text.endsWith(`${END}\n${rest.join('\n')}`)).toBe(true);

    writeFiles(repo, { '.orchestration/active_intents.yaml': registryYaml([{ id: 'INT-001', scope: ['src/auth/**'] }]) });
    git(repo, 'add', '.orchestration');
    committed(repo, repo, ['-q', '-m', 'register'], env, null);
    expect(readFileSync(marker, 'utf8')).toBe('lefthook run pre-commit\n');

    writeFileSync(blockFile, '');
    writeFiles(repo, { 'README.md': '# changed\n' });
    expect(refused(repo, repo, ['-q', '-a', '-m', 'lefthook blocks'], env)).toContain('lefthook: lint failed');
    rmSync(blockFile);
    git(repo, 'checkout', '--', 'README.md');

    const wt = checkoutIntent(repo, 'INT-001');
    expectEnforced(repo, wt, env);
    // lefthook runs for both attempts: intent's check (prepare-commit-msg's) comes after it.
    expect(readFileSync(marker, 'utf8').split('\n').filter(Boolean)).toHaveLength(4);
  });
});

describe('core.hooksPath', () => {
  it('installs into a hooks directory inside the repository (.githooks) and enforces there', () => {
    const repo = makeRepo(FILES);
    const scratch = tempDir();
    const marker = join(scratch, 'marker');
    writeFiles(repo, { '.githooks/pre-commit': `#!/bin/sh\necho team-hook >> '${marker}'\n` });
    chmodSync(join(repo, '.githooks', 'pre-commit'), 0o755);
    git(repo, 'config', 'core.hooksPath', '.githooks');

    const out = initJson(repo);
    expect(out.hooksDir).toBe(join(repo, '.githooks'));
    expect(out.hooks.map((h: { file: string }) => h.file)).toEqual([join(repo, '.githooks', 'pre-commit'), join(repo, '.githooks', 'commit-msg'), join(repo, '.githooks', 'post-commit'), join(repo, '.githooks', 'pre-merge-commit'), join(repo, '.githooks', 'post-merge'), join(repo, '.githooks', 'post-rewrite'), join(repo, '.githooks', 'pre-push')]);
    expect(existsSync(join(repo, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(readFileSync(join(repo, '.githooks', 'pre-commit'), 'utf8')).toContain(BEGIN);
    expect(initJson(repo).changed).toBe(false);

    // The team commits its hooks directory together with the registry.
    register(repo, ['.githooks', '.orchestration']);
    expect(readFileSync(marker, 'utf8')).toBe('team-hook\n');
    const wt = checkoutIntent(repo, 'INT-001');
    expectEnforced(repo, wt);
    // In the main worktree, a named intent is enforced too.
    writeFiles(repo, { 'src/other.ts': 'export const other = 9;\n' });
    const err = refused(repo, repo, ['-q', '-a', '-m', 'main, named, out of scope'], { INTENT_ID: 'INT-001' });
    expect(err).toContain(violation('src/other.ts'));
  });

  it('governs intent worktrees when core.hooksPath is relative and the hooks were installed but not committed', () => {
    const repo = makeRepo(FILES);
    git(repo, 'config', 'core.hooksPath', '.githooks');
    initOk(repo);
    // The documented next step: register intents (only .orchestration/ is committed), then check out.
    register(repo);
    const wt = checkoutIntent(repo, 'INT-001');
    expectEnforced(repo, wt);
  });

  it('installs into an absolute hooks directory outside the repository and enforces there', () => {
    const repo = makeRepo(FILES);
    const hooksDir = join(tempDir(), 'shared hooks');
    git(repo, 'config', 'core.hooksPath', hooksDir);

    const out = initJson(repo);
    expect(out.hooksDir).toBe(hooksDir);
    for (const hook of ['pre-commit', 'post-commit']) {
      expect(isExecutable(join(hooksDir, hook))).toBe(true);
      expect(existsSync(join(repo, '.git', 'hooks', hook))).toBe(false);
    }
    expect(initJson(repo).changed).toBe(false);
    register(repo);
    const wt = checkoutIntent(repo, 'INT-001');
    expectEnforced(repo, wt);
  });
});

describe('husky v9', () => {
  /** The files husky 9's installer writes: hooksPath .husky/_, the runner `h`, one stub per hook. */
  function huskyRepo(): { repo: string; marker: string } {
    const repo = makeRepo({ ...FILES, 'package.json': '{ "name": "x", "scripts": { "prepare": "husky" } }\n' });
    const marker = join(tempDir(), 'marker');
    const h = [
      '#!/usr/bin/env sh',
      '[ "$HUSKY" = "2" ] && set -x',
      'n=$(basename "$0")',
      's=$(dirname "$(dirname "$0")")/$n',
      '',
      '[ ! -f "$s" ] && exit 0',
      '',
      'i="${XDG_CONFIG_HOME:-$HOME/.config}/husky/init.sh"',
      '[ -f "$i" ] && . "$i" "$n"',
      '',
      '[ "${HUSKY-}" = "0" ] && exit 0',
      '',
      'export PATH="node_modules/.bin:$PATH"',
      'sh -e "$s" "$@"',
      'c=$?',
      '',
      '[ $c != 0 ] && echo "husky - $n script failed (code $c)"',
      '[ $c = 127 ] && echo "husky - command not found in PATH=$PATH"',
      'exit $c',
      '',
    ].join('\n');
    writeFiles(repo, { '.husky/_/.gitignore': '*', '.husky/_/h': h, '.husky/_/husky.sh': '' });
    for (const hook of ['pre-commit', 'prepare-commit-msg', 'commit-msg', 'post-commit', 'post-rewrite', 'pre-push']) {
      writeFiles(repo, { [`.husky/_/${hook}`]: '#!/usr/bin/env sh\n. "${0%/*}/h"' });
      chmodSync(join(repo, '.husky', '_', hook), 0o755);
    }
    // The user's husky hook: a plain script without shebang, run by `h` with `sh -e`.
    writeFiles(repo, { '.husky/pre-commit': `echo husky-user-hook >> '${marker}'\n` });
    git(repo, 'config', 'core.hooksPath', '.husky/_');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'husky');
    expect(readFileSync(marker, 'utf8')).toBe('husky-user-hook\n');
    return { repo, marker };
  }

  it("puts its block in .husky/<hook> (not husky's generated stubs) and is enforced through husky", () => {
    const { repo, marker } = huskyRepo();
    const stubBefore = readFileSync(join(repo, '.husky', '_', 'pre-commit'));
    const hBefore = readFileSync(join(repo, '.husky', '_', 'h'));

    const out = initJson(repo);
    expect(out.hooksDir).toBe(join(repo, '.husky'));
    expect(out.hooks.map((x: { file: string }) => x.file)).toEqual([join(repo, '.husky', 'pre-commit'), join(repo, '.husky', 'commit-msg'), join(repo, '.husky', 'post-commit'), join(repo, '.husky', 'pre-merge-commit'), join(repo, '.husky', 'post-merge'), join(repo, '.husky', 'post-rewrite'), join(repo, '.husky', 'pre-push')]);
    const user = readFileSync(join(repo, '.husky', 'pre-commit'), 'utf8');
    expect(user.startsWith(BEGIN)).toBe(true);
    expect(user.endsWith(`${END}\necho husky-user-hook >> '${marker}'\n`)).toBe(true);
    expect(readFileSync(join(repo, '.husky', 'post-commit'), 'utf8')).toContain(BEGIN);
    expect(readFileSync(join(repo, '.husky', '_', 'pre-commit')).equals(stubBefore)).toBe(true);
    expect(readFileSync(join(repo, '.husky', '_', 'h')).equals(hBefore)).toBe(true);
    expect(existsSync(join(repo, '.husky', '_', 'pre-commit.intent-chained'))).toBe(false);
    expect(initJson(repo).changed).toBe(false);

    // Main worktree: a named intent is enforced through husky's runner; the user's hook still runs.
    register(repo, ['.orchestration', '.husky'], 'IN_PROGRESS');
    expect(readFileSync(marker, 'utf8')).toBe('husky-user-hook\nhusky-user-hook\n');
    writeFiles(repo, { 'src/other.ts': 'export const other = 2;\n' });
    const err = refused(repo, repo, ['-q', '-a', '-m', 'named, out of scope'], { INTENT_ID: 'INT-001' });
    expect(err).toContain(violation('src/other.ts'));
    git(repo, 'checkout', '--', 'src/other.ts');
    writeFiles(repo, { 'src/auth/a.ts': 'export const a = 2;\n' });
    committed(repo, repo, ['-q', '-a', '-m', 'named, in scope'], { INTENT_ID: 'INT-001' });
    expect(readFileSync(marker, 'utf8')).toBe('husky-user-hook\n'.repeat(3));

    // requireIntent: a human commit without an intent is refused through husky too.
    writeFiles(repo, { '.intentrc.json': '{ "requireIntent": true }\n', 'README.md': '# changed\n' });
    expect(refused(repo, repo, ['-q', '-a', '-m', 'human'])).toContain('You must cite a valid active Intent ID.');
  });

  it('governs commits in intent worktrees of a husky repository', () => {
    const { repo } = huskyRepo();
    initOk(repo);
    register(repo, ['.orchestration', '.husky']);
    const wt = checkoutIntent(repo, 'INT-001');
    expectEnforced(repo, wt);
  });
});

describe('hooks without intent on PATH', () => {
  it('enforce with PATH holding only git and sh', () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/auth/**'] }], FILES);
    const wt = checkoutIntent(repo, 'INT-001');
    const gitBin = which('git');
    const shBin = which('sh');

    // PATH = a folder with git, sh and node, and no intent: the machine's own directories may hold
    // an intent installed globally (as the README says to), which this case must not find.
    const withNode = join(tempDir(), 'bin');
    mkdirSync(withNode);
    for (const [name, target] of [['git', gitBin], ['sh', shBin], ['node', process.execPath]]) symlinkSync(target, join(withNode, name));
    const probe = run(shBin, ['-c', 'command -v intent || echo none'], wt, { PATH: withNode });
    expect(probe.stdout.trim()).toBe('none');
    expectEnforced(repo, wt, { PATH: withNode }, join(withNode, 'git'));

    // Stricter: a PATH with nothing but git and sh (so not node either, wherever it lives).
    const bin = join(tempDir(), 'bin');
    mkdirSync(bin);
    symlinkSync(gitBin, join(bin, 'git'));
    symlinkSync(shBin, join(bin, 'sh'));
    const onlyGitSh = run(shBin, ['-c', 'command -v intent || echo no-intent; command -v node || echo no-node'], wt, { PATH: bin });
    expect(onlyGitSh.stdout.split('\n').filter(Boolean)).toEqual(['no-intent', 'no-node']);
    expectEnforced(repo, wt, { PATH: bin }, join(bin, 'git'));
  });
});

describe('a missing or broken hook runner', () => {
  it('makes pre-commit fail closed, telling to run intent init; intent init repairs it', () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/auth/**'] }], FILES);
    const wt = checkoutIntent(repo, 'INT-001');
    const runner = join(repo, '.git', 'intent', 'bin', 'hook');
    const original = readFileSync(runner, 'utf8');
    expect(original).toMatch(/^entry=/m);
    rmSync(runner);

    writeFiles(wt, { 'src/auth/a.ts': 'export const a = 2;\n' });
    let err = refused(repo, wt, ['-q', '-a', '-m', 'no runner, intent worktree']);
    expect(err).toContain('intent init');
    expect(err).toContain('missing');
    writeFiles(repo, { 'README.md': '# changed\n' });
    err = refused(repo, repo, ['-q', '-a', '-m', 'no runner, main worktree']);
    expect(err).toContain('intent init');
    git(repo, 'checkout', '--', 'README.md');

    const json = initJson(repo);
    expect(json.runnerChanged).toBe(true);
    expect(json.changed).toBe(true);
    expect(readFileSync(runner, 'utf8')).toBe(original);
    committed(repo, wt, ['-q', '-a', '-m', 'runner back']);

    // The runner points at a hook program that is gone (package moved): also blocked.
    writeFileSync(runner, original.replace(/^entry=.*$/m, `entry='${join(tempDir(), 'gone', 'hook.js')}'`));
    writeFiles(wt, { 'src/auth/a.ts': 'export const a = 3;\n' });
    err = refused(repo, wt, ['-q', '-a', '-m', 'hook program gone']);
    expect(err).toContain('missing');
    expect(err).toContain('intent init');
    expect(initJson(repo).runnerChanged).toBe(true);
    committed(repo, wt, ['-q', '-a', '-m', 'repaired again']);
  });

  it('blocks commits in an intent worktree when the runner is missing, also with hooks kept in the tree', () => {
    const repo = makeRepo(FILES);
    git(repo, 'config', 'core.hooksPath', '.githooks');
    initOk(repo);
    register(repo, ['.githooks', '.orchestration']);
    const wt = checkoutIntent(repo, 'INT-001');
    rmSync(join(repo, '.git', 'intent', 'bin', 'hook'));
    writeFiles(wt, { 'src/other.ts': 'export const other = 2;\n' });
    const err = refused(repo, wt, ['-q', '-a', '-m', 'no runner, out of scope']);
    expect(err).toContain('intent init');
  });
});

describe('the intent CLI', () => {
  it('refuses init outside a git repository with a clear message and exit 1', () => {
    const dir = tempDir();
    const env = { GIT_CEILING_DIRECTORIES: dirname(dir) };
    const r = intent(dir, ['init'], env);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('not inside a git repository');
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(join(dir, '.orchestration'))).toBe(false);
    const j = intent(dir, ['init', '--json'], env);
    expect(j.status).toBe(1);
    expect(JSON.parse(j.stdout).error.code).toBe('NOT_A_REPOSITORY');
  });

  it('shows help with examples and exits 0', () => {
    const dir = tempDir();
    const sub = intent(dir, ['init', '--help']);
    expect(sub.status).toBe(0);
    expect(sub.stdout).toContain('Usage: intent init');
    expect(sub.stdout).toContain('Examples:');
    expect(sub.stdout).toContain('intent init --json');
    const top = intent(dir, ['--help']);
    expect(top.status).toBe(0);
    expect(top.stdout).toContain('Usage: intent');
    expect(top.stdout).toContain('init');
    expect(top.stdout).toMatch(/Examples:[\s\S]*intent init/);
  });

  it('exits 2 on an unknown command or option', () => {
    const dir = tempDir();
    const r = intent(dir, ['frobnicate']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("unknown command 'frobnicate'");
    const o = intent(dir, ['init', '--frobnicate']);
    expect(o.status).toBe(2);
    expect(o.stderr).toContain('--frobnicate');
  });

  it('with --json, a usage error is JSON on stdout (exit 2), not commander text', () => {
    const dir = tempDir();
    for (const args of [['verify', '--frobnicate', '--json'], ['checkout', '--json'], ['blame', '--json']]) {
      const r = intent(dir, args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toBe('');
      const err = JSON.parse(r.stdout).error;
      expect(err.code).toBe('USAGE');
      expect(err.message).toMatch(/\(run with --help for usage\)$/);
    }
  });
});
