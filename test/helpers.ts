import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach } from 'vitest';

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

/** Runs a program asynchronously (for races); resolves with its exit code and output. */
export function spawnAsync(cmd: string, args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
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

const made: string[] = [];
afterEach(() => {
  while (made.length) rmSync(made.pop()!, { recursive: true, force: true });
});

const madeForFile: string[] = [];
afterAll(() => {
  while (madeForFile.length) rmSync(madeForFile.pop()!, { recursive: true, force: true });
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

/** A new repository (branch main) with `files` committed as the first commit. */
export function makeRepo(files: Record<string, string | Buffer> = { 'README.md': '# test\n' }): string {
  const dir = join(tempDir(), 'repo');
  mkdirSync(dir);
  git(dir, 'init', '-q', '-b', 'main');
  writeFiles(dir, files);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'initial');
  return dir;
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
  const dir = makeRepo(files);
  const r = intent(dir, ['init']);
  if (r.status !== 0) throw new Error(`intent init failed: ${r.stderr}`);
  writeFiles(dir, { '.orchestration/active_intents.yaml': registryYaml(intents) });
  git(dir, 'add', '.orchestration');
  git(dir, 'commit', '-q', '-m', 'register intents');
  return dir;
}

/** `intent checkout <id> --json` via the CLI; returns the worktree path. */
export function checkoutIntent(repo: string, id: string, extra: string[] = []): string {
  const r = intent(repo, ['checkout', id, '--json', ...extra]);
  if (r.status !== 0) throw new Error(`intent checkout ${id} failed (${r.status}): ${r.stderr}${r.stdout}`);
  return (JSON.parse(r.stdout) as { path: string }).path;
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
