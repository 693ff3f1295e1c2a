import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutIntent, forFile, git, governedRepo, noteOf, run, tempDir, until, writeFiles } from '../helpers.js';
import { createServer } from 'node:net';
import { aheadKey, alive } from '../../lib/mutation/ahead.js';
import { treeDiff } from '../../lib/git/diff.js';

// Classifying ahead (lib/mutation/ahead.ts): pre-commit starts a worker for a refactor-like
// change, post-commit takes its result. Real `git commit` with the installed hooks; post-commit
// reports how it got its classes through INTENT_CLASSIFY_TRACE. Each test runs alone too (vitest -t):
// a test changes the files it commits from whatever an earlier one left (renameLocal, swap).

const AUTH = 'export function login(user: string) {\n  const ttl = 3600;\n  return `${user}:${ttl}`;\n}\n\nexport function logout(user: string) {\n  return user;\n}\n';
const MATH = 'export function diff(a: number, b: number) {\n  return a - b;\n}\n';

let repo: string;
let wtA: string;
let wtB: string;
let traceDir: string;
let n = 0;

beforeAll(() => forFile(() => {
  repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }, { id: 'INT-002', scope: ['lib/**'] }], {
    'src/auth.ts': AUTH, 'src/math.ts': MATH, 'lib/auth.ts': AUTH, 'lib/math.ts': MATH, 'README.md': '# t\n',
  });
  wtA = checkoutIntent(repo, 'INT-001');
  wtB = checkoutIntent(repo, 'INT-002');
  traceDir = tempDir('intent-ahead-trace-');
}));

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
});

const aheadDir = () => join(repo, '.git', 'intent', 'classify-ahead');
const files = (suffix: string) => (existsSync(aheadDir()) ? readdirSync(aheadDir()).filter((f) => f.endsWith(suffix)) : []);

/** Stages `changes` in `wt`; returns the trace file post-commit will write to. */
function stage(wt: string, changes: Record<string, string>): string {
  writeFiles(wt, changes);
  git(wt, 'add', '-A');
  return join(traceDir, `trace-${++n}.jsonl`);
}

function traced(file: string): { outcome: string }[] {
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

/** How post-commit got its classes, without the line it writes before waiting for a worker. */
function outcomes(file: string): string[] {
  return traced(file).map((t) => t.outcome).filter((o) => o !== 'waiting');
}

function classes(wt: string): Record<string, string> {
  const meta = noteOf(wt)!.record.metadata['dev.intent'];
  return Object.fromEntries(Object.entries(meta.files as Record<string, { mutation_class: string }>).map(([p, f]) => [p, f.mutation_class]));
}

/** The key post-commit will compute for what is staged in `wt` (for planting entries). */
function stagedKey(wt: string): string {
  const tree = git(wt, 'write-tree').trim();
  return aheadKey(treeDiff(wt, git(wt, 'rev-parse', 'HEAD').trim(), tree));
}

/** Waits until the workers are done (their pending markers gone). */
async function workersDone(): Promise<void> {
  await until(() => !files('.pending').length, `no pending marker is left in ${aheadDir()} (the workers are done)`);
}

let renames = 0;
/**
 * `text` (src/auth.ts, a version of AUTH) with its local variable renamed to a fresh name, whatever
 * an earlier test called it: a consistent rename, so a refactor in any order of the tests.
 */
function renameLocal(text: string): string {
  const name = /const (\w+) = 3600;/.exec(text)?.[1];
  if (!name) throw new Error(`src/auth.ts has no 'const <name> = 3600;' to rename:\n${text}`);
  return text.replace(new RegExp(`\\b${name}\\b`, 'g'), `ttl${++renames}`);
}

/** A process that stands for a worker and never writes a result. */
function fakeWorker(parent: string): ChildProcess {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120000)'], { stdio: 'ignore' });
  children.push(child);
  mkdirSync(aheadDir(), { recursive: true });
  writeFileSync(join(aheadDir(), 'planted.pending'), JSON.stringify({ parent, tree: '0'.repeat(40), pid: child.pid }));
  return child;
}

describe('classifying ahead of post-commit', () => {
  it('a refactor is classified by the worker pre-commit starts; post-commit uses and removes its entry', async () => {
    const trace = stage(wtA, { 'src/auth.ts': renameLocal(readFileSync(join(wtA, 'src/auth.ts'), 'utf8')) });
    const r = run('git', ['commit', '-q', '-m', 'rename ttl'], wtA, { INTENT_CLASSIFY_TRACE: trace });
    expect(r.status, r.stderr).toBe(0);
    expect(outcomes(trace)).toEqual([expect.stringMatching(/^(cache|waited)$/)]);
    expect(classes(wtA)).toEqual({ 'src/auth.ts': 'AST_REFACTOR' });
    await workersDone();
    expect(files('.json')).toEqual([]);
    // The worker wrote the compiler's code cache before it took its marker away (not when it
    // exits, after whoever waited for the marker may have gone on, e.g. to remove the repository).
    expect(readdirSync(join(repo, '.git', 'intent')).filter((f) => /^typescript-.*\.v8cache$/.test(f))).toHaveLength(1);
  });

  it('a refactor committed with other files (prose, data) is still predicted from its TS part alone', async () => {
    const data = JSON.stringify({ rows: Array.from({ length: 2000 }, (_, i) => ({ i, v: `row ${i}` })) }, null, 1);
    const trace = stage(wtA, { 'src/auth.ts': readFileSync(join(wtA, 'src/auth.ts'), 'utf8').replace('logout(user: string) {\n  return user;', 'logout(who: string) {\n  return who;'), 'src/notes.md': 'New behaviour: logout clears.\n', 'src/data.json': data });
    // The repository's own attributes come first: with every file diffable the patch has their
    // lines too, and the prediction must skip them.
    writeFileSync(join(repo, '.git', 'info', 'attributes'), '* diff\n');
    const r = run('git', ['commit', '-q', '-m', 'rename a parameter, notes, data'], wtA, { INTENT_CLASSIFY_TRACE: trace });
    rmSync(join(repo, '.git', 'info', 'attributes'));
    expect(r.status, r.stderr).toBe(0);
    expect(outcomes(trace)).toEqual([expect.stringMatching(/^(cache|waited)$/)]);
    expect(classes(wtA)).toEqual({ 'src/auth.ts': 'AST_REFACTOR', 'src/data.json': 'INTENT_EVOLUTION', 'src/notes.md': 'INTENT_EVOLUTION' });
    await workersDone();
  });

  it('an ordinary change starts no worker', async () => {
    // One token more than whatever src/math.ts returns now: the token filter settles it.
    const trace = stage(wtA, { 'src/math.ts': readFileSync(join(wtA, 'src/math.ts'), 'utf8').replace(/return (.*);/, 'return $1 - 1;') });
    const r = run('git', ['commit', '-q', '-m', 'off by one'], wtA, { INTENT_CLASSIFY_TRACE: trace });
    expect(r.status, r.stderr).toBe(0);
    expect(traced(trace).map((t) => t.outcome)).toEqual(['no-syntax']);
    expect(files('.pending')).toEqual([]);
    expect(classes(wtA)).toEqual({ 'src/math.ts': 'INTENT_EVOLUTION' });

    // Reworded prose keeps its token signature, but no compiler is needed for it: no worker either.
    writeFiles(wtA, { 'src/notes.md': 'The token expires after one hour.\n' });
    git(wtA, 'add', '-A');
    git(wtA, 'commit', '-q', '-m', 'notes');
    // (With every file diffable by the repository's attributes, the prose's lines are in the patch.)
    const prose = stage(wtA, { 'src/notes.md': 'The session lapses after some time.\n' });
    writeFileSync(join(repo, '.git', 'info', 'attributes'), '* diff\n');
    const p = run('git', ['commit', '-q', '-m', 'reword'], wtA, { INTENT_CLASSIFY_TRACE: prose });
    rmSync(join(repo, '.git', 'info', 'attributes'));
    expect(p.status, p.stderr).toBe(0);
    expect(traced(prose).map((t) => t.outcome)).toEqual(['no-compiler']);
    await workersDone();
    expect(files('.json')).toEqual([]);
    expect(classes(wtA)).toEqual({ 'src/notes.md': 'INTENT_EVOLUTION' });
  });

  it('a refactor-like commit that pre-commit refuses starts no worker', async () => {
    // INT-001 owns src/**: the rename in lib/ is refused. A worker started before the refusal would
    // leave its pending marker (written before pre-commit returns) or, once done, its entry.
    stage(wtA, { 'lib/auth.ts': AUTH.replace(/\bttl\b/g, 'lifetime') });
    const r = run('git', ['commit', '-q', '-m', 'rename out of scope'], wtA);
    git(wtA, 'reset', '-q', '--hard');
    git(wtA, 'clean', '-fdq');
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('not authorized to edit lib/auth.ts');
    expect(existsSync(aheadDir()) ? readdirSync(aheadDir()).filter((f) => !f.endsWith('.sock')) : []).toEqual([]);
  });

  it('a change with the same tokens that the syntax comparison finds to be new behaviour keeps its class', async () => {
    // The operands swapped: the same tokens, another result.
    const trace = stage(wtA, { 'src/math.ts': readFileSync(join(wtA, 'src/math.ts'), 'utf8').replace(/return (\w+) - (\w+)/, 'return $2 - $1') });
    const r = run('git', ['commit', '-q', '-m', 'swap'], wtA, { INTENT_CLASSIFY_TRACE: trace });
    expect(r.status, r.stderr).toBe(0);
    expect(outcomes(trace)).toEqual([expect.stringMatching(/^(cache|waited)$/)]);
    expect(classes(wtA)).toEqual({ 'src/math.ts': 'INTENT_EVOLUTION' });
    await workersDone();
  });

  it('a garbled entry, an entry with another key inside and one that contradicts the cheap rules are ignored, with a warning', async () => {
    const plant = (i: number) => `export function twice(v${i}: number) {\n  return v${i} * 2;\n}\n`;
    stage(wtA, { 'src/plant.ts': plant(0) });
    git(wtA, 'commit', '-q', '-m', 'plant.ts');
    const bad = [
      () => '{"format":1,"key":',
      (key: string) => JSON.stringify({ format: 1, key: key.replace(/^./, (c) => (c === '0' ? '1' : '0')), classes: {}, worker: { pid: 1, wall_ms: 1, cpu_ms: 1 } }),
      // src/auth.ts only gains or loses a blank line (the byte rule settles it as a refactor): the entry says otherwise.
      (key: string) => JSON.stringify({
        format: 1, key, worker: { pid: 1, wall_ms: 1, cpu_ms: 1 },
        classes: { 'src/auth.ts': { cls: 'INTENT_EVOLUTION' }, 'src/plant.ts': { cls: 'AST_REFACTOR' } },
      }),
    ];
    for (const [i, make] of bad.entries()) {
      const auth = readFileSync(join(wtA, 'src/auth.ts'), 'utf8');
      const trace = stage(wtA, { 'src/auth.ts': i % 2 ? auth.replace(/\n\n$/, '\n') : `${auth}\n`, 'src/plant.ts': plant(i + 1) });
      const key = stagedKey(wtA);
      mkdirSync(aheadDir(), { recursive: true });
      writeFileSync(join(aheadDir(), `${key}.json`), make(key));
      // No worker: the planted entry is all post-commit finds.
      const r = run('git', ['commit', '-q', '-m', `planted ${i}`], wtA, { INTENT_CLASSIFY_TRACE: trace, INTENT_CLASSIFY_AHEAD: '0' });
      expect(r.status, r.stderr).toBe(0);
      expect(traced(trace).map((t) => t.outcome)).toEqual(['rejected']);
      expect(r.stderr).toContain('ignored the classification cache entry');
      expect(classes(wtA)).toEqual({ 'src/auth.ts': 'AST_REFACTOR', 'src/plant.ts': 'AST_REFACTOR' });
      expect(files('.json')).toEqual([]);
    }
  });

  it('git commit --no-verify still gets the right class', async () => {
    const trace = stage(wtA, { 'src/auth.ts': renameLocal(readFileSync(join(wtA, 'src/auth.ts'), 'utf8')) });
    const r = run('git', ['commit', '--no-verify', '-q', '-m', 'rename lifetime'], wtA, { INTENT_CLASSIFY_TRACE: trace });
    expect(r.status, r.stderr).toBe(0);
    expect(outcomes(trace)).toEqual([expect.stringMatching(/^(cache|waited|computed)$/)]);
    expect(classes(wtA)).toEqual({ 'src/auth.ts': 'AST_REFACTOR' });
    await workersDone();
  });

  it('two worktrees committing at once do not mix their results', async () => {
    const traceA = stage(wtA, { 'src/auth.ts': renameLocal(readFileSync(join(wtA, 'src/auth.ts'), 'utf8')) });
    const traceB = stage(wtB, { 'lib/math.ts': MATH.replace('a - b', 'b - a') });
    const commit = (wt: string, trace: string) => new Promise<number>((resolve) => {
      const c = spawn('git', ['commit', '-q', '-m', 'at once'], { cwd: wt, env: { ...process.env, INTENT_CLASSIFY_TRACE: trace }, stdio: 'ignore' });
      c.on('close', (code) => resolve(code ?? -1));
    });
    expect(await Promise.all([commit(wtA, traceA), commit(wtB, traceB)])).toEqual([0, 0]);
    expect(classes(wtA)).toEqual({ 'src/auth.ts': 'AST_REFACTOR' });
    expect(classes(wtB)).toEqual({ 'lib/math.ts': 'INTENT_EVOLUTION' });
    for (const t of [traceA, traceB]) expect(outcomes(t)).toEqual([expect.stringMatching(/^(cache|waited)$/)]);
    await workersDone();
  });

  it('a worker that never answers is waited for up to the bound; one that is killed, not at all', async () => {
    const parent = git(wtA, 'rev-parse', 'HEAD').trim();
    const stuck = fakeWorker(parent);
    let trace = stage(wtA, { 'src/auth.ts': renameLocal(readFileSync(join(wtA, 'src/auth.ts'), 'utf8')) });
    let r = run('git', ['commit', '-q', '-m', 'stuck worker'], wtA, { INTENT_CLASSIFY_TRACE: trace, INTENT_CLASSIFY_AHEAD: '0', INTENT_CLASSIFY_WAIT_MS: '300' });
    expect(r.status, r.stderr).toBe(0);
    expect(traced(trace).map((t) => t.outcome)).toEqual(['waiting', 'timeout']);
    expect(classes(wtA)).toEqual({ 'src/auth.ts': 'AST_REFACTOR' });

    // A bound far beyond the test's own time limit: only the worker's death ends the wait.
    const worker = fakeWorker(git(wtA, 'rev-parse', 'HEAD').trim());
    trace = stage(wtA, { 'src/auth.ts': renameLocal(readFileSync(join(wtA, 'src/auth.ts'), 'utf8')) });
    const done = new Promise<number>((resolve) => {
      const c = spawn('git', ['commit', '-q', '-m', 'killed worker'], {
        cwd: wtA, env: { ...process.env, INTENT_CLASSIFY_TRACE: trace, INTENT_CLASSIFY_AHEAD: '0', INTENT_CLASSIFY_WAIT_MS: '600000' }, stdio: 'ignore',
      });
      c.on('close', (code) => resolve(code ?? -1));
    });
    // Kill it once post-commit is waiting for it (the trace says so before the wait).
    const waiting = trace;
    await until(() => existsSync(waiting) && traced(waiting).some((t) => t.outcome === 'waiting'), 'post-commit traced that it waits for the worker');
    worker.kill('SIGKILL');
    expect(await done).toBe(0);
    expect(traced(trace).map((t) => t.outcome)).toEqual(['waiting', 'worker-gone']);
    expect(classes(wtA)).toEqual({ 'src/auth.ts': 'AST_REFACTOR' });
    r = run('git', ['status', '--porcelain'], wtA);
    expect(r.stdout).toBe('');
    // The stuck stand-in leaves with its marker: a later test waits for the workers to be done.
    stuck.kill('SIGKILL');
    rmSync(join(aheadDir(), 'planted.pending'), { force: true });
  });
});

describe('the resident worker', () => {
  const RESIDENT = { INTENT_CLASSIFY_RESIDENT_MS: '600000' };
  let res: string;
  let wt: string;
  const pids = new Set<number>();
  beforeAll(() => forFile(() => {
    res = governedRepo([{ id: 'INT-001', scope: ['src/**'] }], { 'src/auth.ts': AUTH, 'README.md': '# t\n' });
    wt = checkoutIntent(res, 'INT-001');
  }));
  afterAll(() => {
    for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
  });
  const dir = () => join(res, '.git', 'intent', 'classify-ahead');
  const sock = () => join(dir(), 'worker.sock');
  const idle = () => until(() => !existsSync(dir()) || !readdirSync(dir()).some((f) => f.endsWith('.pending')), 'the worker took its pending marker away');
  const gone = (pid: number) => until(() => !alive(pid), `the worker (pid ${pid}) has left`);
  /** Commits a consistent rename in `wt` (git run without blocking this process); how post-commit got its classes. */
  async function rename(env: Record<string, string> = RESIDENT): Promise<{ outcome: string; worker_pid?: number }> {
    const trace = stage(wt, { 'src/auth.ts': renameLocal(readFileSync(join(wt, 'src/auth.ts'), 'utf8')) });
    const code = await new Promise<number>((resolve) => {
      const c = spawn('git', ['commit', '-q', '-m', `rename ${renames}`], { cwd: wt, env: { ...process.env, ...env, INTENT_CLASSIFY_TRACE: trace }, stdio: 'ignore' });
      c.on('close', (n) => resolve(n ?? -1));
    });
    expect(code).toBe(0);
    expect(classes(wt)).toEqual({ 'src/auth.ts': 'AST_REFACTOR' });
    await idle();
    const last = traced(trace).filter((t) => t.outcome !== 'waiting').at(-1) as { outcome: string; worker_pid?: number };
    if (last.worker_pid) pids.add(last.worker_pid);
    return last;
  }

  it('stays after its job and classifies the next refactor commits; a killed one is replaced', async () => {
    const first = await rename();
    expect(first.outcome).toMatch(/^(cache|waited)$/);
    expect(alive(first.worker_pid!)).toBe(true);
    expect(existsSync(sock())).toBe(true);
    const second = await rename();
    expect(second.outcome).toMatch(/^(cache|waited)$/);
    expect(second.worker_pid).toBe(first.worker_pid);

    // Killed, it leaves its socket behind: nobody answers there, so pre-commit starts a new worker.
    process.kill(first.worker_pid!, 'SIGKILL');
    await gone(first.worker_pid!);
    expect(existsSync(sock())).toBe(true);
    const third = await rename();
    expect(third.outcome).toMatch(/^(cache|waited)$/);
    expect(third.worker_pid).not.toBe(first.worker_pid);
    const fourth = await rename();
    expect(fourth.worker_pid).toBe(third.worker_pid);
    process.kill(third.worker_pid!, 'SIGTERM');
    await gone(third.worker_pid!);
  });

  it("a listener on the socket that is not intent's worker changes no class", async () => {
    rmSync(sock(), { force: true });
    mkdirSync(dir(), { recursive: true });
    // It claims every job and does nothing: post-commit finds neither entry nor marker and classifies.
    let answer = `${JSON.stringify({ ok: true, pid: process.pid })}\n`;
    let asked = 0;
    const fake = createServer((c) => {
      c.on('data', () => {
        asked++;
        c.end(answer);
      });
    });
    await new Promise<void>((r) => fake.listen(sock(), r));
    try {
      expect((await rename()).outcome).toBe('computed');
      // One that answers nonsense is passed over: pre-commit starts a worker of its own.
      answer = 'no\n';
      const r = await rename();
      expect(r.outcome).toMatch(/^(cache|waited)$/);
      expect(asked).toBe(2);
    } finally {
      await new Promise((r) => fake.close(r));
    }
  });

  it('leaves when idle for INTENT_CLASSIFY_RESIDENT_MS, and takes its socket with it', async () => {
    const r = await rename({ INTENT_CLASSIFY_RESIDENT_MS: '200' });
    expect(r.outcome).toMatch(/^(cache|waited)$/);
    await gone(r.worker_pid!);
    expect(existsSync(sock())).toBe(false);
  });
});
