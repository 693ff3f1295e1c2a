import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, statSync, symlinkSync, utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, expect } from 'vitest';
import { removeTree, stopProcessesIn } from './remove-tree.js';

/** The package root (where dist/ and templates/ are). */
export const PKG_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const CLI = join(PKG_ROOT, 'dist', 'bin', 'intent.js');

export interface Run {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs a program to completion; never throws on a non-zero exit. */
export function run(cmd: string, args: string[], cwd: string, env: Record<string, string | undefined> = {}, input?: string): Run {
  const res = spawnSync(cmd, args, { cwd, env: { ...process.env, ...env }, encoding: 'utf8', input });
  // A program that exits without reading its input (a hook that refuses at once) is an outcome,
  // not an error: EPIPE on the input, with an exit status, is returned like any other exit.
  const unread = (res.error as NodeJS.ErrnoException | undefined)?.code === 'EPIPE' && res.status !== null;
  if (res.error && !unread) throw res.error;
  return { status: res.status ?? -1, stdout: res.stdout, stderr: res.stderr };
}

/** Runs a program asynchronously (for races, or a long-running CLI); resolves with its exit code and output. `env` is added to the test's. */
export function spawnAsync(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** A deterministic PRNG (mulberry32) for randomised tests: the same seed gives the same cases. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Runs git and throws with its output when it fails. */
export function git(cwd: string, ...args: string[]): string {
  const r = run('git', args, cwd);
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed (${r.status}):\n${r.stderr}${r.stdout}`);
  return r.stdout;
}

/** Runs the built `intent` CLI as a real process. */
export function intent(cwd: string, args: string[], env: Record<string, string | undefined> = {}): Run {
  return run(process.execPath, [CLI, ...args], cwd, env);
}

export { removeTree };

/** Whether process `pid` still runs (a zombie does not: it writes nothing more). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/**
 * Makes a template or fixture folder still before it is copied: the processes its build left
 * (the repository's hook server) are stopped and waited for, and the
 * hook server's folder is removed, so a copy is what a repository whose server never ran looks
 * like and `cp -a` never meets a file that goes while it copies.
 */
function settle(root: string): void {
  const stopped = stopProcessesIn(root);
  const until = Date.now() + 5000;
  while (stopped.some(running) && Date.now() < until) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (!e.isDirectory() || e.name === 'objects') continue;
      const p = join(dir, e.name);
      if (e.name === 'server' && dir.endsWith(`${sep}intent`) && existsSync(join(dir, '..', 'HEAD'))) rmSync(p, { recursive: true, force: true });
      else walk(p);
    }
  };
  walk(root);
}

const made: string[] = [];
afterEach(() => {
  while (made.length) removeTree(made.pop()!);
});

const madeForFile: string[] = [];
afterAll(() => {
  while (madeForFile.length) removeTree(madeForFile.pop()!);
});

/**
 * Runs `make` (in a `beforeAll`) so that the temporary directories it creates are shared by the
 * file's tests and removed after the last one, not after the first.
 */
export function forFile<T>(make: () => T): T {
  const start = made.length;
  const out = make();
  madeForFile.push(...made.splice(start));
  return out;
}

/** A fresh temporary directory, removed after the test. */
export function tempDir(prefix = 'intent-test-'): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(d);
  return d;
}

/** Writes files (creating folders) under `root`. */
export function writeFiles(root: string, files: Record<string, string | Buffer>): void {
  for (const [p, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, p)), { recursive: true });
    writeFileSync(join(root, p), content);
  }
}

export function read(root: string, p: string): string {
  return readFileSync(join(root, p), 'utf8');
}

/**
 * Repositories built once per test file and copied for each test: the dates and identities are
 * pinned, so a rebuilt repository would have the very same commits, and a copy costs one `cp -a`
 * instead of the git, `intent init`, `intent checkout` and hook processes that built it.
 *
 * A template is a folder holding `repo` (and, after a checkout, `repo.worktrees/`). Copies keep
 * hard links (`cp -a`: the hooks of intent worktrees are checked with `-ef`) and times; the few
 * files that name the folder (install record, worktree links, hooks of intent worktrees) are
 * rewritten to name the copy's folder, with their times kept.
 */
interface Template { root: string; key: string; worktree?: string }
const templates = new Map<string, Template>();
/** Repositories returned by the helpers → the template they are an unchanged copy of. */
const copies = new Map<string, Template>();
let templateRoot: string | null = null;
afterAll(() => {
  if (templateRoot) removeTree(templateRoot);
  templateRoot = null;
  templates.clear();
  copies.clear();
});

let templateCount = 0;
function newTemplateDir(): string {
  templateRoot ??= realpathSync(mkdtempSync(join(tmpdir(), 'intent-templates-')));
  const d = join(templateRoot, String(templateCount++));
  mkdirSync(d);
  return d;
}

/** Every file (and symbolic link, with `links`) under `dir`, links not followed, `.git/objects` left out. */
function filesUnder(dir: string, out: string[] = [], links = false): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (!(e.name === 'objects' && p.endsWith(`${sep}.git${sep}objects`))) filesUnder(p, out, links);
    } else if (e.isFile() || (links && e.isSymbolicLink())) out.push(p);
  }
  return out;
}

/**
 * Copies each folder `from` into its folder `to` (`cp -a`), then rewrites every file and symbolic
 * link under the copies that names one of the `from` folders to name its copy.
 */
function copyFolders(pairs: [from: string, to: string][]): void {
  for (const [from, to] of pairs) {
    const cp = run('cp', ['-a', `${from}/.`, to], to);
    if (cp.status !== 0) throw new Error(`cp -a ${from} failed: ${cp.stderr}`);
  }
  const names = pairs.map(([from]) => Buffer.from(from));
  const rename = (text: string): string => pairs.reduce((t, [from, to]) => t.split(from).join(to), text);
  for (const [, to] of pairs) {
    for (const f of filesUnder(to, [], true)) {
      if (lstatSync(f).isSymbolicLink()) {
        const target = readlinkSync(f);
        if (rename(target) !== target) {
          rmSync(f);
          symlinkSync(rename(target), f);
        }
        continue;
      }
      const bytes = readFileSync(f);
      if (!names.some((n) => bytes.includes(n))) continue;
      const st = statSync(f);
      writeFileSync(f, rename(bytes.toString('latin1')), 'latin1');
      utimesSync(f, st.atime, st.mtime);
    }
  }
}

function copyFolder(from: string, to: string): void {
  copyFolders([[from, to]]);
}

/**
 * What `build` returns, built once per `name` in a test file, then copied for each call: `build`
 * makes its folders with the helpers (`tempDir`, `governedRepo`, `checkoutIntent`, ...); each call
 * gets copies of those folders (`cp -a`, the files that name them rewritten) and `build`'s value
 * with every path into them changed to the copies'. For setups of several processes (commits,
 * clones) that many tests repeat; the dates and identities are pinned, so the copies hold the very
 * commits a rebuild would make.
 */
export function fixture<T>(name: string, build: () => T): T {
  let f = fixtures.get(name);
  if (!f) {
    const start = made.length;
    const value = build();
    const roots = made.splice(start);
    for (const r of roots) {
      copies.delete(join(r, 'repo'));
      settle(r);
    }
    f = { roots, value: JSON.stringify(value) };
    fixtures.set(name, f);
  }
  const pairs = f.roots.map((r): [string, string] => [r, tempDir()]);
  copyFolders(pairs);
  // A checkout in the copy's repository can be copied too (checkoutIntent), while it is unchanged.
  if (pairs.length === 1) copies.set(join(pairs[0][1], 'repo'), { root: pairs[0][0], key: `fixture ${name}` });
  return JSON.parse(pairs.reduce((t, [from, to]) => t.split(JSON.stringify(from).slice(1, -1)).join(JSON.stringify(to).slice(1, -1)), f.value)) as T;
}
const fixtures = new Map<string, { roots: string[]; value: string }>();
afterAll(() => {
  for (const f of fixtures.values()) for (const r of f.roots) removeTree(r);
  fixtures.clear();
});

/** Copies template `t` into a fresh temporary folder; returns that folder's `repo`. */
function copyTemplate(t: Template): string {
  const to = tempDir();
  copyFolder(t.root, to);
  const repo = join(to, 'repo');
  copies.set(repo, t);
  return repo;
}

/** The template built by `build` (given the template's `repo` folder) once per `key` in a file. */
function template(what: string, build: (repo: string) => void): Template {
  // What the processes that build it see of the environment is part of what a template is.
  const env = Object.entries(process.env).filter(([k]) => /^(GIT_|INTENT|HOME$|PATH$|CLAUDE|CURSOR|CLINE)/.test(k)).sort();
  const key = `${what} ${JSON.stringify(env)}`;
  let t = templates.get(key);
  if (!t) {
    const root = newTemplateDir();
    mkdirSync(join(root, 'repo'));
    build(join(root, 'repo'));
    settle(root);
    t = { root, key };
    templates.set(key, t);
  }
  return t;
}

/** Whether `repo` is still exactly the copy of its template the helpers made (nothing written since). */
function unchangedCopy(repo: string): Template | null {
  const t = copies.get(repo);
  if (!t) return null;
  const to = dirname(repo);
  const mine = filesUnder(to).map((f) => f.slice(to.length)).sort();
  const theirs = filesUnder(t.root).map((f) => f.slice(t.root.length)).sort();
  if (mine.join('\0') !== theirs.join('\0')) return null;
  for (const rel of mine) {
    const a = readFileSync(to + rel);
    const b = readFileSync(t.root + rel);
    if (!a.equals(b) && a.toString('latin1') !== b.toString('latin1').split(t.root).join(to)) return null;
  }
  return t;
}

function fileKey(files: Record<string, string | Buffer>): string {
  return JSON.stringify(Object.entries(files).map(([p, c]) => [p, typeof c === 'string' ? c : `buffer:${c.toString('base64')}`]));
}

/** A new repository (branch main) with `files` committed as the first commit. */
export function makeRepo(files: Record<string, string | Buffer> = { 'README.md': '# test\n' }): string {
  return copyTemplate(template(`plain ${fileKey(files)}`, (dir) => {
    git(dir, 'init', '-q', '-b', 'main');
    writeFiles(dir, files);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'initial');
  }));
}

/** A registry YAML for the given intents (id → scope), all PENDING unless given. */
export function registryYaml(intents: { id: string; name?: string; status?: string; scope: string[] }[]): string {
  const items = intents.map((i) =>
    `  - id: "${i.id}"\n    name: "${i.name ?? `Intent ${i.id}`}"\n    status: "${i.status ?? 'PENDING'}"\n    owned_scope: ${JSON.stringify(i.scope)}\n`,
  );
  return `active_intents:\n${items.join('')}`;
}

/**
 * A repository set up with `intent init` (via the real CLI), the given intents registered and
 * committed on main. Returns the repository path.
 */
export function governedRepo(
  intents: { id: string; name?: string; status?: string; scope: string[] }[],
  files: Record<string, string | Buffer> = { 'README.md': '# test\n' },
): string {
  return copyTemplate(template(`governed ${JSON.stringify(intents)} ${fileKey(files)}`, (dir) => {
    git(dir, 'init', '-q', '-b', 'main');
    writeFiles(dir, files);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'initial');
    const r = intent(dir, ['init']);
    if (r.status !== 0) throw new Error(`intent init failed: ${r.stderr}`);
    writeFiles(dir, { '.orchestration/active_intents.yaml': registryYaml(intents) });
    git(dir, 'add', '.orchestration');
    git(dir, 'commit', '-q', '-m', 'register intents');
  }));
}

/**
 * `intent checkout <id> --json` via the CLI; returns the worktree path. In a repository the helpers
 * made and nothing has changed since, the checkout is run once per file on the template and copied.
 */
export function checkoutIntent(repo: string, id: string, extra: string[] = []): string {
  const real = (cwd: string): string => {
    const r = intent(cwd, ['checkout', id, '--json', ...extra]);
    if (r.status !== 0) throw new Error(`intent checkout ${id} failed (${r.status}): ${r.stderr}${r.stdout}`);
    return (JSON.parse(r.stdout) as { path: string }).path;
  };
  const base = unchangedCopy(repo);
  if (!base) return real(repo);
  let worktree = '';
  const t = template(`${base.key} checkout ${JSON.stringify([id, extra])}`, (dir) => {
    rmSync(dir, { recursive: true });
    copyFolder(base.root, dirname(dir));
    worktree = real(dir);
    if (!worktree.startsWith(dirname(dir) + sep)) throw new Error(`checkoutIntent: the worktree ${worktree} is outside ${dirname(dir)}`);
  });
  if (worktree) t.worktree = worktree.slice(t.root.length);
  const to = dirname(repo);
  rmSync(to, { recursive: true, force: true });
  mkdirSync(to);
  copyFolder(t.root, to);
  copies.set(repo, t);
  return to + t.worktree!;
}

/**
 * A commit that gets past every check (`git -c core.hooksPath=/dev/null commit`: no hook runs),
 * then recorded the way a user would find and fix it: `intent repair`. Returns the new HEAD.
 */
export function bypassCommit(wt: string, args: string[]): string {
  const c = run('git', ['-c', 'core.hooksPath=/dev/null', 'commit', ...args], wt);
  if (c.status !== 0) throw new Error(`git commit ${args.join(' ')} failed: ${c.stderr}`);
  const r = intent(wt, ['repair']);
  if (r.status !== 0) throw new Error(`intent repair failed: ${r.stderr}${r.stdout}`);
  return git(wt, 'rev-parse', 'HEAD').trim();
}

/** The note of `rev` on refs/notes/intents split into summary and parsed record, or null. */
export function noteOf(cwd: string, rev = 'HEAD'): { summary: string; record: any; raw: string } | null {
  const r = run('git', ['notes', '--ref=intents', 'show', rev], cwd);
  if (r.status !== 0) return null;
  const [summary, json] = r.stdout.split('\n');
  return { summary, record: JSON.parse(json), raw: r.stdout };
}

/** The ledger lines of the repository whose main worktree is `repo`. */
export function ledgerLines(repo: string): string[] {
  try {
    return readFileSync(join(repo, '.orchestration', 'agent_trace.jsonl'), 'utf8').split('\n').filter((l) => l !== '');
  } catch {
    return [];
  }
}

/** A stack trace in a program's output: it crashed, whatever its exit status says. */
const STACK_LINE = /^\s+at .+:\d+:\d+\)?$/m;

/**
 * Asserts that a program refused, by its message: a non-zero exit (not a signal, not a crash with a
 * stack trace) whose output says `message`. A crash is not a refusal: a check that throws would
 * otherwise pass every "refused" test. Returns stdout and stderr together.
 */
export function expectRefused(r: Run, message: string | RegExp, what = 'the command'): string {
  const out = `${r.stdout}${r.stderr}`;
  expect(r.status, `${what} should be refused (exit 1 or more), got ${r.status}:\n${out}`).toBeGreaterThan(0);
  expect(out, `${what} crashed instead of refusing`).not.toMatch(STACK_LINE);
  if (typeof message === 'string') expect(out, `${what}: the refusal's message`).toContain(message);
  else expect(out, `${what}: the refusal's message`).toMatch(message);
  return out;
}

/** How many commits carry a note on refs/notes/intents. */
export function noteCount(cwd: string): number {
  const r = run('git', ['notes', '--ref=intents', 'list'], cwd);
  return r.status === 0 ? r.stdout.split('\n').filter(Boolean).length : 0;
}

/**
 * Runs `git commit <args>` in `cwd` (with `git`, another git program) and asserts it was refused
 * with `message` (by default intent's own "intent: commit blocked."; a user hook's message where
 * that hook refuses): HEAD unchanged, no new note and, given the main worktree `repo`, no new
 * ledger line. Returns git's stderr.
 */
export function refusedCommit(
  cwd: string,
  args: string[],
  opts: { repo?: string; env?: Record<string, string | undefined>; git?: string; message?: string | RegExp } = {},
): string {
  const before = { head: run('git', ['rev-parse', 'HEAD'], cwd).stdout, notes: noteCount(cwd), ledger: opts.repo ? ledgerLines(opts.repo).length : 0 };
  const r = run(opts.git ?? 'git', ['commit', ...args], cwd, opts.env ?? {});
  expectRefused(r, opts.message ?? 'intent: commit blocked.', `git commit ${args.join(' ')}`);
  expect(run('git', ['rev-parse', 'HEAD'], cwd).stdout, 'HEAD moved').toBe(before.head);
  expect(noteCount(cwd), 'a note was written').toBe(before.notes);
  if (opts.repo) expect(ledgerLines(opts.repo), 'the ledger grew').toHaveLength(before.ledger);
  return r.stderr;
}

/**
 * Waits until `what` holds, polling every 20 ms; fails after `ms` naming what it waited for. The
 * bound is generous (a loaded machine is slow): it is there so that a wait that never ends fails
 * the test with a reason instead of hanging it, never to time anything.
 */
export async function until(what: () => boolean, waitingFor: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!what()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting until ${waitingFor}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * The hook servers a test file's commits start, stopped (SIGTERM) after each test: they would
 * leave with their repositories within a second or so, and the next test should not share the
 * machine with them. Add each server's pid to the returned set (from the server's trace or its
 * pid file).
 */
/**
 * The hook server's trace lines (INTENT_HOOK_SERVER_TRACE) for `hook`, each server seen added to
 * `servers` (hookServersStoppedAfterEach stops them). For post-commit: one line per commit whether
 * or not its hook asked (see below).
 */
export function servedLines<T extends { server: number }>(trace: string, hook: string, servers: Set<number>): T[] {
  const lines = serverTrace<T>(trace, servers);
  return hook === 'post-commit' ? postCommitLines(lines) : lines.filter((l) => l.hook === hook);
}

/** Every line of the hook server's trace, each server seen added to `servers`. */
export function serverTrace<T extends { server: number }>(trace: string, servers: Set<number>): (T & { hook: string; commit?: string; marker?: boolean })[] {
  if (!existsSync(trace)) return [];
  const lines = readFileSync(trace, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as T & { hook: string; commit?: string; marker?: boolean });
  for (const l of lines) servers.add(l.server);
  return lines;
}

/**
 * The commits post-commit hooks recorded through the server, one line each: the hook's request, or,
 * when the hook found its commit recorded already and did not ask (lib/hooks/prefetch.ts
 * recordedMarker), the record the server made as soon as git made the commit (`post-commit:early`,
 * its marker written).
 */
export function postCommitLines<L extends { hook: string; commit?: string; marker?: boolean }>(lines: L[]): L[] {
  const asked = new Set(lines.filter((l) => l.hook === 'post-commit').map((l) => l.commit));
  return lines.filter((l) => l.hook === 'post-commit' || (l.hook === 'post-commit:early' && l.marker && !asked.has(l.commit)));
}

/**
 * A governed repository of `files` with intent INT-001 (scope src/**) checked out, and the
 * environment of commits served by a hook server that writes its trace to `trace`.
 */
export function servedIntent(files: Record<string, string>, prefix: string): { repo: string; wt: string; trace: string; env: Record<string, string> } {
  const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }], files);
  const wt = checkoutIntent(repo, 'INT-001');
  const trace = join(tempDir(prefix), 'trace.jsonl');
  return { repo, wt, trace, env: { INTENT_HOOK_SERVER: '1', INTENT_HOOK_SERVER_MS: '60000', INTENT_HOOK_SERVER_TRACE: trace } };
}

/**
 * Commits a new src/a.ts in `wt` once per value of `versions`, served; the first commit starts the
 * repository's hook server, which is waited for.
 */
export async function servedCommits(repo: string, wt: string, env: Record<string, string>, versions: number[]): Promise<void> {
  for (const [i, v] of versions.entries()) {
    writeFiles(wt, { 'src/a.ts': `export const a = ${v};\n` });
    git(wt, 'add', '-A');
    const c = run('git', ['commit', '-q', '-m', `in scope ${v}`], wt, env);
    expect(c.status, c.stderr).toBe(0);
    if (i === 0) await until(() => existsSync(join(repo, '.git', 'intent', 'server', 'pid')), 'the server runs');
  }
}

export function hookServersStoppedAfterEach(): Set<number> {
  const servers = new Set<number>();
  afterEach(() => {
    for (const pid of servers) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch { /* gone */ }
    }
    servers.clear();
  });
  return servers;
}

/** The repository's own TypeScript modules under lib/ smaller than `maxBytes`, in a fixed order, as [path, text]. */
export function libSources(maxBytes: number): [string, string][] {
  const out: [string, string][] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith('.ts') && statSync(p).size < maxBytes) out.push([p.replace(/\\/g, '/'), readFileSync(p, 'utf8')]);
    }
  };
  walk('lib');
  return out;
}
