// The driver of the bad-input corpus (test/corpus/*.ts), run by test/integration/corpus-*.test.ts:
// every case builds a real temporary repository, runs the real `intent` CLI and real `git commit`
// with the hooks `intent init` installed, and checks what must happen: a clear error naming what
// and where, or correct handling, and nothing lost. The cases are split over two test files so
// that vitest runs them in two forks side by side (one file held the slowest tail of the suite).
//
// Cases run a few at a time (CORPUS_CONCURRENCY, default 2 in each of the two files) with
// asynchronous processes, so the git and hook processes of one case overlap with another's. Each case's repository is built by
// copying a prepared `intent init`ed template (one per object format and pre-init config) and
// committing its base files with hooks off: only the steps run the hooks under test.
// CORPUS_FILTER=<substring> runs only matching cases; CORPUS_KEEP=1 keeps the temporary folders.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync,
  rmSync, symlinkSync, writeFileSync, chmodSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, it, type ExpectStatic } from 'vitest';
import { CLI, removeTree } from '../helpers.js';
import { validate as validTrace } from '../trace-validator.js';
import { BASE_FILES, intentYaml, type Case, type CommitExpect, type Env, type Expect, type FileContent, type FileMap, type Setup, type Step, type VerifyExpect, type Where } from './types.js';

const KEY = 'dev.intent';
const CONCURRENCY = Math.max(1, Number(process.env.CORPUS_CONCURRENCY ?? 2));
const KEEP = process.env.CORPUS_KEEP === '1';
const FILTER = process.env.CORPUS_FILTER ?? '';
const TIMES = process.env.CORPUS_TIMES === '1';
const NO_HOOKS = ['-c', 'core.hooksPath=/dev/null'];

// ---------------------------------------------------------------------------------------------
// Processes

interface Proc {
  status: number;
  stdout: Buffer;
  stderr: Buffer;
  out: string;
  err: string;
}

function exec(cmd: string, args: string[], cwd: string, env: Env = {}, input?: string): Promise<Proc> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout!.on('data', (b: Buffer) => out.push(b));
    child.stderr!.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const stdout = Buffer.concat(out);
      const stderr = Buffer.concat(err);
      resolve({
        status: code ?? (signal ? 128 : -1),
        stdout,
        stderr,
        out: stdout.toString('utf8'),
        err: stderr.toString('utf8'),
      });
    });
    if (input !== undefined) {
      child.stdin!.on('error', () => { /* the program did not read its input */ });
      child.stdin!.end(input);
    }
  });
}

async function git(cwd: string, ...args: string[]): Promise<string> {
  const r = await exec('git', args, cwd);
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed in ${cwd} (${r.status}):\n${r.err}${r.out}`);
  return r.out;
}

async function gitBytes(cwd: string, ...args: string[]): Promise<Buffer> {
  const r = await exec('git', args, cwd);
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed in ${cwd} (${r.status}):\n${r.err}`);
  return r.stdout;
}

function intentCli(cwd: string, args: string[], env: Env = {}): Promise<Proc> {
  return exec(process.execPath, [CLI, ...args], cwd, env);
}

/** At most CONCURRENCY cases run at once. */
const slots: (() => void)[] = [];
let running = 0;
async function withSlot<T>(fn: () => Promise<T>): Promise<T> {
  if (running >= CONCURRENCY) await new Promise<void>((r) => slots.push(r));
  running++;
  try {
    return await fn();
  } finally {
    running--;
    slots.shift()?.();
  }
}

// ---------------------------------------------------------------------------------------------
// Files

let block: Buffer | null = null;
/** 1 MiB of deterministic pseudo-random bytes (xorshift32). */
function randomBlock(): Buffer {
  if (block) return block;
  block = Buffer.alloc(1 << 20);
  let x = 0x9e3779b9;
  for (let i = 0; i < block.length; i += 4) {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    block.writeUInt32LE(x, i);
  }
  return block;
}

function bytesOf(c: Exclude<FileContent, { symlink: string }>): Buffer {
  if (typeof c === 'string') return Buffer.from(c, 'utf8');
  if ('bytes' in c) return Buffer.from(c.bytes);
  if ('exec' in c) return Buffer.from(c.exec, 'utf8');
  if ('repeat' in c) return Buffer.from(c.repeat.repeat(c.times), 'utf8');
  const out = Buffer.alloc(c.random);
  const b = randomBlock();
  for (let at = 0; at < out.length; at += b.length) b.copy(out, at, 0, Math.min(b.length, out.length - at));
  if (c.header) Buffer.from(c.header).copy(out, 0);
  return out;
}

function writeFileMap(root: string, files: FileMap): void {
  for (const [rel, content] of Object.entries(files)) {
    const p = join(root, rel);
    mkdirSync(dirname(p), { recursive: true });
    let isLink = false;
    try {
      isLink = lstatSync(p).isSymbolicLink();
    } catch { /* does not exist */ }
    if (typeof content === 'object' && 'symlink' in content) {
      rmSync(p, { force: true, recursive: true });
      symlinkSync(content.symlink, p);
    } else {
      if (isLink) rmSync(p);
      writeFileSync(p, bytesOf(content));
      if (typeof content === 'object' && 'exec' in content) chmodSync(p, 0o755);
    }
  }
}

function renderRegistry(r: Setup['registry']): Buffer {
  if (r === undefined) return Buffer.from(`active_intents:\n${intentYaml({ id: 'INT-001', name: 'Corpus Intent', scope: ['src/**'] })}`);
  if (typeof r === 'string') return Buffer.from(r, 'utf8');
  if ('bytes' in r) return Buffer.from(r.bytes);
  return Buffer.from(`active_intents:\n${r.map(intentYaml).join('')}`);
}

// ---------------------------------------------------------------------------------------------
// Repositories

interface Ctx {
  root: string;
  main: string;
  wt: string | null;
  /** The checked-out intent, or null. */
  intent: string | null;
}

let templateRoot: string | null = null;
const templates = new Map<string, Promise<string>>();
afterAll(() => {
  if (templateRoot && !KEEP) removeTree(templateRoot);
});

function freshDir(prefix: string): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

async function commitAll(cwd: string, message: string): Promise<void> {
  await git(cwd, 'add', '-A');
  await git(cwd, ...NO_HOOKS, 'commit', '-q', '--allow-empty', '-m', message);
}

/** A repository after `intent init`, one per object format / pre-init config; copied per case. */
function template(setup: Setup): Promise<string> {
  const key = JSON.stringify([setup.objectFormat ?? 'sha1', setup.gitConfig ?? {}, setup.preInit ?? {}]);
  let t = templates.get(key);
  if (!t) {
    t = (async () => {
      templateRoot ??= freshDir('intent-corpus-templates-');
      const dir = join(templateRoot, `t${templates.size}`);
      await git(templateRoot, 'init', '-q', '-b', 'main', ...(setup.objectFormat ? [`--object-format=${setup.objectFormat}`] : []), dir);
      for (const [k, v] of Object.entries(setup.gitConfig ?? {})) await git(dir, 'config', k, v);
      writeFileMap(dir, setup.preInit ?? {});
      await commitAll(dir, 'before intent init');
      const r = await intentCli(dir, ['init']);
      if (r.status !== 0) throw new Error(`intent init failed in the template: ${r.err}`);
      await commitAll(dir, 'intent init');
      return dir;
    })();
    templates.set(key, t);
  }
  return t;
}

async function build(root: string, setup: Setup = {}): Promise<Ctx> {
  const main = join(root, 'repo');
  const ctx: Ctx = { root, main, wt: null, intent: null };
  const kind = setup.repo ?? 'governed';
  const fmt = setup.objectFormat ? [`--object-format=${setup.objectFormat}`] : [];
  for (const [name, files] of Object.entries(setup.extraRepos ?? {})) {
    await git(root, 'init', '-q', '-b', 'main', join(root, name));
    writeFileMap(join(root, name), files);
    await commitAll(join(root, name), name);
  }
  if (kind === 'none') {
    mkdirSync(main);
    return ctx;
  }
  if (kind === 'bare') {
    await git(root, 'init', '-q', '--bare', ...fmt, main);
    return ctx;
  }
  if (kind === 'empty') {
    await git(root, 'init', '-q', '-b', 'main', ...fmt, main);
    for (const [k, v] of Object.entries(setup.gitConfig ?? {})) await git(main, 'config', k, v);
    writeFileMap(main, { ...(setup.preInit ?? {}), ...(setup.mainFiles ?? {}) });
    return ctx;
  }
  const tpl = await template(setup);
  const cp = await exec('cp', ['-a', tpl, main], root);
  if (cp.status !== 0) throw new Error(`cp -a failed: ${cp.err}`);
  writeFileMap(main, setup.files ?? BASE_FILES);
  writeFileSync(join(main, '.orchestration', 'active_intents.yaml'), renderRegistry(setup.registry));
  await commitAll(main, 'base');
  writeFileMap(main, setup.mainFiles ?? {});
  const id = setup.checkout === undefined ? 'INT-001' : setup.checkout;
  if (id) {
    const r = await intentCli(main, ['checkout', id, '--json']);
    if (r.status !== 0) throw new Error(`setup: intent checkout ${id} failed (${r.status}): ${r.err}${r.out}`);
    ctx.wt = (JSON.parse(r.out) as { path: string }).path;
    ctx.intent = id;
  }
  return ctx;
}

function placeholders(s: string, ctx: Ctx): string {
  return s
    .replaceAll('{reg}', join(ctx.main, '.orchestration', 'active_intents.yaml'))
    .replaceAll('{main}', ctx.main)
    .replaceAll('{wt}', ctx.wt ?? '{wt: no worktree}')
    .replaceAll('{root}', ctx.root);
}

function where(ctx: Ctx, w: Where | undefined, fallback: Where): string {
  const at = w ?? fallback;
  if (at === 'main') return ctx.main;
  if (at === 'wt') {
    if (!ctx.wt) throw new Error('the case has no checked-out worktree');
    return ctx.wt;
  }
  return join(ctx.root, at.slice('dir:'.length));
}

// ---------------------------------------------------------------------------------------------
// Snapshots: what "nothing lost" compares

function walk(dir: string, top: string, out: Record<string, string>): void {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (dir === top && name === '.git') continue;
    const st = lstatSync(p);
    const rel = p.slice(top.length + 1);
    if (st.isSymbolicLink()) out[rel] = `link ${readlinkSync(p)}`;
    else if (st.isDirectory()) {
      out[rel + '/'] = 'dir';
      walk(p, top, out);
    } else out[rel] = `${(st.mode & 0o777).toString(8)} ${createHash('sha256').update(readFileSync(p)).digest('hex')}`;
  }
}

interface Snapshot {
  state: Record<string, unknown>;
  agentMd: string | null;
}

const AGENT_MD = join('.orchestration', 'AGENT.md');

/**
 * Every worktree's files (AGENT.md of the main worktree aside: refusals append lessons to it by
 * design) and index, the refs (notes included), the worktree list.
 */
async function snapshot(ctx: Ctx): Promise<Snapshot> {
  const state: Record<string, unknown> = {};
  if (!existsSync(join(ctx.main, '.git')) || !lstatSync(join(ctx.main, '.git')).isDirectory()) {
    const files: Record<string, string> = {};
    walk(ctx.main, ctx.main, files);
    return { state: { files }, agentMd: null };
  }
  const list = await git(ctx.main, 'worktree', 'list', '--porcelain');
  state.worktrees = list;
  state.refs = await git(ctx.main, 'for-each-ref', '--format=%(refname) %(objectname)');
  for (const line of list.split('\n')) {
    if (!line.startsWith('worktree ')) continue;
    const wt = line.slice('worktree '.length);
    if (!existsSync(wt)) continue;
    const files: Record<string, string> = {};
    walk(wt, wt, files);
    if (wt === ctx.main) delete files[AGENT_MD];
    state[`files ${wt}`] = files;
    state[`index ${wt}`] = (await git(wt, 'ls-files', '-s', '-z')).split('\0');
    state[`HEAD ${wt}`] = (await exec('git', ['rev-parse', '-q', '--verify', 'HEAD'], wt)).out.trim();
  }
  const md = join(ctx.main, AGENT_MD);
  return { state, agentMd: existsSync(md) ? readFileSync(md, 'utf8') : null };
}

function expectUnchanged(expect: ExpectStatic, before: Snapshot, after: Snapshot, what: string): void {
  expect(after.state, `${what}: nothing may change`).toEqual(before.state);
  if (before.agentMd !== null) {
    expect(after.agentMd?.startsWith(before.agentMd), `${what}: AGENT.md is only appended to`).toBe(true);
  }
}

// ---------------------------------------------------------------------------------------------
// Checks

function expectOutput(expect: ExpectStatic, r: Proc, e: Expect, ctx: Ctx, what: string): void {
  const show = `${what} (exit ${r.status})\n--- stdout\n${r.out}\n--- stderr\n${r.err}`;
  const exit = e.exit ?? 0;
  if (exit === 'nonzero') expect(r.status, show).not.toBe(0);
  else expect(r.status, show).toBe(exit);
  expect(r.err, `${show}\n(no internal error)`).not.toMatch(/internal error|Please report this|^\s+at .+:\d+:\d+\)?$/m);
  for (const s of e.stdoutContains ?? []) expect(r.out, show).toContain(placeholders(s, ctx));
  for (const s of e.stderrContains ?? []) expect(r.err, show).toContain(placeholders(s, ctx));
  for (const s of e.stderrNotContains ?? []) expect(r.err, show).not.toContain(placeholders(s, ctx));
}

/** The lines start..end (1-based, inclusive) of `content`, each with its "\n" where it has one. */
function linesBytes(content: Buffer, start: number, end: number): Buffer {
  const parts: Buffer[] = [];
  let line = 1;
  let from = 0;
  while (from < content.length && line <= end) {
    const nl = content.indexOf(0x0a, from);
    const to = nl === -1 ? content.length : nl + 1;
    if (line >= start) parts.push(content.subarray(from, to));
    line++;
    from = to;
  }
  if (line <= end) throw new Error(`lines ${start}..${end} are beyond the end of a file of ${line - 1} lines`);
  return Buffer.concat(parts);
}

async function headOf(cwd: string): Promise<string | null> {
  const r = await exec('git', ['rev-parse', '-q', '--verify', 'HEAD'], cwd);
  return r.status === 0 ? r.out.trim() : null;
}

async function noteCount(cwd: string): Promise<number> {
  const r = await exec('git', ['notes', '--ref=intents', 'list'], cwd);
  return r.status === 0 ? r.out.split('\n').filter(Boolean).length : 0;
}

function ledger(ctx: Ctx): string[] {
  const p = join(ctx.main, '.orchestration', 'agent_trace.jsonl');
  return existsSync(p) ? readFileSync(p, 'utf8').split('\n').filter(Boolean) : [];
}

/** git's own list of the paths commit `sha` changes against its first parent (new side of renames). */
async function changedPaths(cwd: string, sha: string): Promise<string[]> {
  const parents = (await git(cwd, 'rev-list', '--parents', '-n', '1', sha)).trim().split(' ').slice(1);
  const args = ['-c', 'core.quotePath=true', 'diff-tree', '-r', '-z', '--name-status', '-M50%', '--no-commit-id', '--ignore-submodules=none'];
  const out = await gitBytes(cwd, ...(parents.length ? [...args, parents[0], sha] : [...args, '--root', sha]));
  const fields = out.toString('utf8').split('\0');
  if (fields[fields.length - 1] === '') fields.pop();
  const paths: string[] = [];
  for (let i = 0; i < fields.length; ) {
    const st = fields[i++];
    if (st[0] === 'R' || st[0] === 'C') {
      i++;
      paths.push(fields[i++]);
    } else paths.push(fields[i++]);
  }
  return paths.sort();
}

/** The committed bytes of `paths` in commit `sha`: one ls-tree, one cat-file --batch. */
async function committedBlobs(cwd: string, sha: string, paths: string[]): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  if (!paths.length) return out;
  const want = new Set(paths);
  const oids = new Map<string, string>();
  for (const rec of (await gitBytes(cwd, 'ls-tree', '-r', '-z', '--full-tree', sha)).toString('utf8').split('\0')) {
    const m = /^\d+ blob ([0-9a-f]+)\t([\s\S]+)$/.exec(rec);
    if (m && want.has(m[2])) oids.set(m[2], m[1]);
  }
  const order = [...oids.entries()];
  const r = await exec('git', ['cat-file', '--batch'], cwd, {}, order.map(([, oid]) => oid).join('\n') + '\n');
  let pos = 0;
  for (const [path] of order) {
    const nl = r.stdout.indexOf(0x0a, pos);
    const size = Number(r.stdout.subarray(pos, nl).toString('utf8').split(' ')[2]);
    out.set(path, r.stdout.subarray(nl + 1, nl + 1 + size));
    pos = nl + 1 + size + 1;
  }
  return out;
}

async function checkNote(expect: ExpectStatic, ctx: Ctx, cwd: string, sha: string, intent: string, e: CommitExpect, ledgerBefore: number): Promise<void> {
  const raw = await exec('git', ['notes', '--ref=intents', 'show', sha], cwd);
  expect(raw.status, `commit ${sha} has a note on refs/notes/intents`).toBe(0);
  const lines = raw.out.split('\n');
  expect(lines.length, 'a note is a summary line and one JSON line').toBe(3);
  const [summary, json] = lines;
  const record = JSON.parse(json);
  expect(record.vcs.revision).toBe(sha);
  expect(validTrace(record), JSON.stringify(validTrace.errors)).toBe(true);
  const meta = record.metadata[KEY];
  expect(meta.intent_id).toBe(intent);
  expect(summary.startsWith(`${intent} `), summary).toBe(true);
  expect(meta.scope_violations).toEqual([]);
  for (const s of e.summaryContains ?? []) expect(summary).toContain(s);

  // One new ledger line, equal to the note plus the chain link.
  const led = ledger(ctx);
  expect(led.length, 'the ledger grew by one line').toBe(ledgerBefore + 1);
  expect(JSON.parse(led[led.length - 1]).vcs.revision).toBe(sha);

  // The note's paths are git's changed paths.
  const paths = record.files.map((f: { path: string }) => f.path).sort();
  expect(paths, 'the note lists exactly the paths git says the commit changed').toEqual(await changedPaths(cwd, sha));

  // Every range hashes exactly the committed lines' bytes (blobs read in one batch).
  const files = record.files as { path: string; conversations: { ranges: { start_line: number; end_line: number; content_hash: string }[] }[] }[];
  const blobs = await committedBlobs(cwd, sha, files.filter((f) => f.conversations.some((c) => c.ranges.length)).map((f) => f.path));
  for (const f of files) {
    const ranges = f.conversations.flatMap((c) => c.ranges);
    if (ranges.length) {
      const blob = blobs.get(f.path);
      expect(blob, `${JSON.stringify(f.path)} is a file of commit ${sha}`).toBeDefined();
      for (const r of ranges) {
        const want = 'sha256:' + createHash('sha256').update(linesBytes(blob!, r.start_line, r.end_line)).digest('hex');
        expect(r.content_hash, `${f.path}:${r.start_line}-${r.end_line}`).toBe(want);
      }
    }
    if (e.ranges && f.path in e.ranges) {
      expect(ranges.map((r) => [r.start_line, r.end_line]), `ranges of ${JSON.stringify(f.path)}`).toEqual(e.ranges[f.path]);
    }
  }
  for (const p of Object.keys(e.ranges ?? {})) expect(paths, 'a path with expected ranges is in the note').toContain(p);
  for (const [p, m] of Object.entries(e.meta ?? {})) {
    expect(meta.files[p], `metadata of ${JSON.stringify(p)}`).toMatchObject(m);
  }
}

function violationPaths(stderr: string): string[] {
  const prefix = /^Scope Violation: \S+ is not authorized to edit (.*)$/;
  return stderr.split('\n').flatMap((l) => {
    const m = prefix.exec(l);
    return m ? [m[1]] : [];
  }).sort();
}

async function runCommit(expect: ExpectStatic, ctx: Ctx, step: Extract<Step, { commit: string[] }>, n: number): Promise<void> {
  const cwd = where(ctx, step.in, 'wt');
  const env = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, placeholders(v, ctx)]));
  const e = step.expect;
  const ok = (e.exit ?? 0) === 0;
  const before = { head: await headOf(cwd), notes: await noteCount(cwd), ledger: ledger(ctx).length };
  const snap = !ok && e.unchanged !== false ? await snapshot(ctx) : null;
  const args = step.commit.map((a) => placeholders(a, ctx));
  const r = await exec('git', ['commit', ...args], cwd, env);
  const what = `step ${n}: git commit ${args.join(' ')}`;
  expectOutput(expect, r, e, ctx, what);
  const after = await headOf(cwd);
  if (!ok) {
    expect(r.err, what).toContain('intent: commit blocked.');
    expect(after, `${what}: HEAD did not move`).toBe(before.head);
    expect(await noteCount(cwd)).toBe(before.notes);
    expect(ledger(ctx).length).toBe(before.ledger);
    if (snap) expectUnchanged(expect, snap, await snapshot(ctx), what);
    if (e.violations) expect(violationPaths(r.err), `${what}: Scope Violation lines`).toEqual([...e.violations].sort());
    return;
  }
  expect(r.err, what).not.toContain('WARNING');
  expect(after, `${what}: a new commit`).not.toBe(before.head);
  const intent = e.governed !== undefined ? e.governed : step.in === 'main' || (step.in === undefined && !ctx.wt) ? env.INTENT_ID ?? null : ctx.intent;
  if (intent) await checkNote(expect, ctx, cwd, after!, intent, e, before.ledger);
  else {
    expect((await exec('git', ['notes', '--ref=intents', 'show', after!], cwd)).status, `${what}: no note`).not.toBe(0);
    expect(await noteCount(cwd)).toBe(before.notes);
    expect(ledger(ctx).length).toBe(before.ledger);
  }
}

async function runVerify(expect: ExpectStatic, ctx: Ctx, step: Extract<Step, { verify: string[] }>, n: number): Promise<void> {
  const cwd = where(ctx, step.in, ctx.wt ? 'wt' : 'main');
  const e: VerifyExpect = step.expect ?? {};
  const args = step.verify.map((a) => placeholders(a, ctx));
  const r = await intentCli(cwd, ['verify', '--json', ...args]);
  const what = `step ${n}: intent verify ${args.join(' ')} (exit ${r.status})\n${r.out}${r.err}`;
  expect(r.err, what).not.toMatch(/internal error|Please report this/);
  expect([0, 1], what).toContain(r.status);
  const res = JSON.parse(r.out) as { findings: { code: string }[] };
  const codes = res.findings.map((f) => f.code).sort();
  if (e.findings !== 'any') {
    const want = [...(e.findings ?? [])].sort();
    expect(codes, what).toEqual(want);
    expect(r.status, what).toBe(want.length ? 1 : 0);
  }
}

async function runStep(expect: ExpectStatic, ctx: Ctx, step: Step, n: number): Promise<void> {
  if ('write' in step) return writeFileMap(where(ctx, step.in, 'wt'), step.write);
  if ('remove' in step) {
    for (const p of step.remove) rmSync(join(where(ctx, step.in, 'wt'), p), { recursive: true });
    return;
  }
  if ('chmod' in step) {
    for (const [p, mode] of Object.entries(step.chmod)) chmodSync(join(where(ctx, step.in, 'wt'), p), mode);
    return;
  }
  if ('file' in step) {
    const text = readFileSync(join(where(ctx, step.in, 'wt'), step.file), 'utf8');
    for (const re of step.matches ?? []) expect(text, `step ${n}: ${step.file} matches ${re}`).toMatch(re);
    for (const re of step.notMatches ?? []) expect(text, `step ${n}: ${step.file} does not match ${re}`).not.toMatch(re);
    return;
  }
  if ('commit' in step) return runCommit(expect, ctx, step, n);
  if ('verify' in step) return runVerify(expect, ctx, step, n);
  const isGit = 'git' in step;
  const args = (isGit ? step.git : step.intent).map((a) => placeholders(a, ctx));
  const cwd = where(ctx, step.in, isGit && ctx.wt ? 'wt' : 'main');
  const env = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, placeholders(v, ctx)]));
  const e: Expect = step.expect ?? {};
  const failing = (e.exit ?? 0) !== 0;
  const snap = failing && e.unchanged !== false ? await snapshot(ctx) : null;
  const r = isGit ? await exec('git', args, cwd, env) : await intentCli(cwd, args, env);
  expectOutput(expect, r, e, ctx, `step ${n}: ${isGit ? 'git' : 'intent'} ${args.join(' ')}`);
  if (snap) expectUnchanged(expect, snap, await snapshot(ctx), `step ${n}`);
}

// ---------------------------------------------------------------------------------------------

/** The cases of `categories` as concurrent tests (a few at a time, CORPUS_CONCURRENCY). */
export function corpusTests(categories: Record<string, Case[]>): void {
  const all = Object.entries(categories).flatMap(([cat, cases]) => cases.map((c) => ({ cat, c })));
  describe.concurrent('bad-input corpus', () => {
    for (const { cat, c } of all) {
      const name = `${cat}: ${c.name}`;
      if (FILTER && !name.includes(FILTER)) continue;
      it(name, async ({ expect }) => {
        await withSlot(async () => {
          const t0 = performance.now();
          const root = freshDir('intent-corpus-');
          const times: string[] = [];
          try {
            const ctx = await build(root, c.setup);
            times.push(`setup ${((performance.now() - t0) / 1000).toFixed(2)}`);
            for (let i = 0; i < c.steps.length; i++) {
              const t = performance.now();
              await runStep(expect, ctx, c.steps[i], i + 1);
              times.push(`${Object.keys(c.steps[i])[0]} ${((performance.now() - t) / 1000).toFixed(2)}`);
            }
          } finally {
            if (TIMES) console.log(`${((performance.now() - t0) / 1000).toFixed(2)} s  ${name}: ${times.join(', ')}`);
            if (!KEEP) removeTree(root);
            else console.log(`kept ${name}: ${root}`);
          }
        });
      }, (c.timeout ?? 120) * 1000);
    }
  });
}
