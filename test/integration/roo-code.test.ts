import { build } from 'esbuild';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ModelInfo, ProviderSettings } from '@roo-code/types';
import { beforeAll, describe, expect, it } from 'vitest';
import * as source from '../../lib/agents/roo-code.js';
import { checkoutIntent, git, governedRepo, noteOf, PKG_ROOT, run, tempDir } from '../helpers.js';

/*
 * The Roo Code layer, driven the way integrations/roo-code/roo-code.patch drives it, against a
 * real repository and intent worktree: once through the TypeScript module, once through the
 * build Roo really loads (the package's `./roo-code` export bundled by esbuild with the options
 * of Roo's src/esbuild.mjs, then `require()`d from a directory with no node_modules).
 */

type Glue = typeof source;

// ---------------------------------------------------------------------------------------------
// A fake of Roo's Task: the members the patch reads, typed with @roo-code/types where Roo's own
// types are public (the provider settings, the model info); the rest copies src/core/task/Task.ts
// and src/integrations/editor/DiffViewProvider.ts at the pinned commit.

type RecordSource = 'read_tool' | 'user_edited' | 'roo_edited' | 'file_mentioned';

interface FakeDiffView {
  editType: 'create' | 'modify' | undefined;
  originalContent: string | undefined;
  /** `open(relPath)`: reads the original (`""` for a new file, which it creates empty, as Roo does). */
  open(relPath: string): Promise<void>;
  update(content: string, isFinal: boolean): Promise<void>;
  /** `saveChanges()`: writes what is in the diff editor, with the user's own edits. */
  saveChanges(userEdit?: (content: string) => string): Promise<{ finalContent: string | undefined }>;
  reset(): Promise<void>;
}

interface FakeRooTask {
  readonly taskId: string;
  readonly cwd: string;
  readonly api: { getModel(): { id: string; info: ModelInfo } };
  readonly apiConfiguration: ProviderSettings;
  readonly diffViewProvider: FakeDiffView;
  readonly fileContextTracker: { tracked: [string, RecordSource][]; trackFileContext(path: string, source: RecordSource): Promise<void> };
}

function fakeTask(cwd: string, taskId: string): FakeRooTask {
  let relPath: string | undefined;
  let pending: string | undefined;
  const diffViewProvider: FakeDiffView = {
    editType: undefined,
    originalContent: undefined,
    async open(p) {
      relPath = p;
      const abs = join(cwd, p);
      if (existsSync(abs)) {
        this.originalContent = readFileSync(abs, 'utf8');
      } else {
        this.originalContent = '';
        mkdirSync(dirname(abs), { recursive: true });
        writeFileSync(abs, '');
      }
    },
    async update(content) {
      pending = content;
    },
    async saveChanges(userEdit) {
      if (!relPath || pending === undefined) return { finalContent: undefined };
      const finalContent = userEdit ? userEdit(pending) : pending;
      writeFileSync(join(cwd, relPath), finalContent);
      return { finalContent };
    },
    async reset() {
      relPath = undefined;
      pending = undefined;
      this.originalContent = undefined;
      this.editType = undefined;
    },
  };
  const info: ModelInfo = { maxTokens: 8192, contextWindow: 200_000, supportsPromptCache: true };
  const tracked: [string, RecordSource][] = [];
  return {
    taskId,
    cwd,
    api: { getModel: () => ({ id: 'claude-sonnet-4-5', info }) },
    apiConfiguration: { apiProvider: 'anthropic', apiModelId: 'claude-sonnet-4-5' },
    diffViewProvider,
    fileContextTracker: { tracked, async trackFileContext(path, src) { tracked.push([path, src]); } },
  };
}

// The patched tools, reduced to their calls into the glue (see the patch for the real ones).

/** ReadFileTool: reads, then `intentRead` next to `trackFileContext(relPath, "read_tool")`. */
async function readFile(glue: Glue, task: FakeRooTask, relPath: string): Promise<string> {
  const content = readFileSync(join(task.cwd, relPath), 'utf8');
  glue.rooRead(task, relPath);
  await task.fileContextTracker.trackFileContext(relPath, 'read_tool');
  return content;
}

/** Line numbers as read_file shows them ("1 | text"). */
const numbered = (text: string) => text.split('\n').filter((l, i, a) => i < a.length - 1 || l !== '').map((l, i) => `${i + 1} | ${l}`).join('\n');

/**
 * WriteToFileTool: strips read_file's line numbers, gates before approval (reverting the diff
 * view), saves through the diff view (where the user may edit), then stages: one result.
 */
async function writeToFile(glue: Glue, task: FakeRooTask, relPath: string, content: string, userEdit?: (c: string) => string): Promise<string> {
  const dv = task.diffViewProvider;
  await dv.open(relPath); // handlePartial opened the diff view while the call streamed
  const everyLineNumbered = content.split('\n').every((l) => /^\s*\d+ \| /.test(l));
  const newContent = everyLineNumbered ? content.split('\n').map((l) => l.replace(/^\s*\d+ \| /, '')).join('\n') : content;
  const gate = await glue.rooCheck(task, relPath);
  if (!gate.ok) {
    if (dv.originalContent === '' && readFileSync(join(task.cwd, relPath), 'utf8') === '') unlinkSync(join(task.cwd, relPath)); // revertChanges
    await dv.reset();
    return `ERROR ${gate.error}`;
  }
  await dv.update(newContent, true);
  await dv.saveChanges(userEdit);
  await task.fileContextTracker.trackFileContext(relPath, 'roo_edited');
  const staged = await glue.rooSaved(task, 'write_to_file', relPath, { originalContent: dv.originalContent, newContent });
  await dv.reset();
  return `saved ${relPath}` + (staged.ok ? '' : `\n\nERROR ${staged.error}`);
}

/** execute_command: deny → the tool error; ask → `askApproval(..., isProtected = true)`, a human decides. */
async function executeCommand(glue: Glue, task: FakeRooTask, command: string, human: (cmd: string) => boolean): Promise<string> {
  const policy = await glue.rooCommand(task, command);
  if (policy.decision === 'deny') return `ERROR intent refused this command: ${policy.reason}`;
  if (policy.decision === 'ask' && !human(command)) return 'denied by the user';
  return `ran ${command}`;
}

function errorOf(text: string): { code: string; message: string } {
  expect(text.startsWith('ERROR ')).toBe(true);
  return JSON.parse(text.slice('ERROR '.length)).error;
}

function aiLines(wt: string, path: string): number[] {
  const f = noteOf(wt)!.record.files.find((x: any) => x.path === path);
  return f.conversations.filter((c: any) => c.contributor.type === 'ai')
    .flatMap((c: any) => c.ranges.flatMap((r: any) => Array.from({ length: r.end_line - r.start_line + 1 }, (_, i) => r.start_line + i)));
}

// ---------------------------------------------------------------------------------------------
// The build Roo loads.

const ROO_EXTERNALS = ['vscode', 'esbuild', 'global-agent'];
let bundled: Glue;
let bundleText = '';
let bundleInputs: string[] = [];

beforeAll(async () => {
  // A "Roo" source tree outside the project that depends on the package (node_modules link).
  const roo = tempDir('roo-ext-');
  mkdirSync(join(roo, 'src', 'node_modules'), { recursive: true });
  symlinkSync(PKG_ROOT, join(roo, 'src', 'node_modules', 'intent-governance'), 'dir');
  writeFileSync(join(roo, 'src', 'extension.ts'), 'export * from "intent-governance/roo-code"\n');
  // src/esbuild.mjs's extensionConfig at the pinned commit (plugins copy assets only).
  const res = await build({
    bundle: true, minify: false, sourcemap: true, logLevel: 'silent', format: 'cjs', sourcesContent: false, platform: 'node',
    entryPoints: [join(roo, 'src', 'extension.ts')], outfile: join(roo, 'src', 'dist', 'extension.js'),
    external: ROO_EXTERNALS, metafile: true, absWorkingDir: join(roo, 'src'),
  });
  expect(res.errors).toEqual([]);
  expect(res.warnings.map((w) => w.text)).toEqual([]);
  bundleInputs = Object.keys(res.metafile!.inputs);
  // Packaged with `vsce package --no-dependencies`: the extension runs with no node_modules.
  const run = tempDir('roo-vsix-');
  cpSync(join(roo, 'src', 'dist'), join(run, 'dist'), { recursive: true });
  rmSync(roo, { recursive: true, force: true });
  bundleText = readFileSync(join(run, 'dist', 'extension.js'), 'utf8');
  bundled = createRequire(join(run, 'dist', 'extension.js'))(join(run, 'dist', 'extension.js')) as Glue;
}, 60_000);

describe('the Roo Code build (dist/roo-code.cjs through Roo\'s esbuild options)', () => {
  it('comes from the self-contained CommonJS build and needs nothing but Node at run time', () => {
    // esbuild picks the export's `module` condition: the CJS bundle, not the ESM modules of dist/lib.
    expect(bundleInputs.some((p) => p.endsWith('dist/roo-code.cjs'))).toBe(true);
    expect(bundleInputs.filter((p) => p.includes('dist/lib/'))).toEqual([]);
    const required = [...bundleText.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]!);
    const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
    expect(required.filter((m) => !builtins.has(m))).toEqual([]);
    expect(bundleText).not.toMatch(/import\.meta/);
    expect(Object.keys(bundled).sort()).toEqual(Object.keys(source).sort());
    expect(bundled.SELECT_ACTIVE_INTENT_TOOL).toEqual(source.SELECT_ACTIVE_INTENT_TOOL);
  });
});

describe('integrations/roo-code/roo-code.patch (checked against the Roo tree by scripts/check-roo-patch.sh)', () => {
  const patch = readFileSync(join(PKG_ROOT, 'integrations', 'roo-code', 'roo-code.patch'), 'utf8');

  it('is a well-formed patch against the pinned commit that touches every write tool, read_file and execute_command', () => {
    const stat = run('git', ['apply', '--numstat', join(PKG_ROOT, 'integrations', 'roo-code', 'roo-code.patch')], PKG_ROOT);
    expect(stat.status, stat.stderr).toBe(0);
    const files = [...patch.matchAll(/^diff --git a\/(\S+) b\//gm)].map((m) => m[1]);
    const tools = ['WriteToFileTool', 'ApplyDiffTool', 'EditTool', 'SearchReplaceTool', 'EditFileTool', 'ApplyPatchTool', 'ExecuteCommandTool', 'ReadFileTool', 'SelectActiveIntentTool'];
    expect(files).toEqual(expect.arrayContaining(tools.map((t) => `src/core/tools/${t}.ts`)));
    expect(readFileSync(join(PKG_ROOT, 'integrations', 'roo-code', 'README.md'), 'utf8')).toMatch(/^Pinned commit: `[0-9a-f]{40}`/m);
  });

  it('imports from intent-governance/roo-code only what the entry exports', () => {
    const imports = [...patch.matchAll(/^\+import \{([^}]+)\} from "intent-governance\/roo-code"/gm), ...patch.matchAll(/^\+import \{\n((?:\+\s+\w+,?\n)+)\+\} from "intent-governance\/roo-code"/gm)]
      .flatMap((m) => m[1]!.replace(/\+/g, '').split(',').map((n) => n.trim()).filter(Boolean));
    expect(imports.length).toBeGreaterThan(5);
    expect(imports.filter((n) => !(n in source))).toEqual([]);
  });
});

describe.each([
  ['the TypeScript module', () => source, 'task-ts'],
  ['the bundled build', () => bundled, 'task-cjs'],
] as const)('Roo Code write path through %s', (_name, glue, taskId) => {
  it('handshake, scope, stale file, staging with credit, command policy', async () => {
    const g = glue();
    const repo = governedRepo(
      [{ id: 'INT-001', scope: ['src/auth/**'] }, { id: 'INT-002', scope: ['docs/**'], status: 'IN_PROGRESS' }],
      { 'src/auth/jwt.ts': 'a\nb\n', 'docs/x.md': 'x\n' },
    );
    const wt = checkoutIntent(repo, 'INT-001');
    const task = fakeTask(wt, taskId);

    // Handshake: no write before select_active_intent; another intent's id is refused.
    const early = errorOf(await writeToFile(g, task, 'src/auth/new.ts', 'n\n'));
    expect(early.code).toBe('NO_ACTIVE_INTENT');
    expect(early.message).toContain('You must cite a valid active Intent ID.');
    expect(early.message).toContain('"INT-001"');
    expect(existsSync(join(wt, 'src/auth/new.ts'))).toBe(false); // the empty file the diff view made is gone
    const other = await g.rooSelectIntent(task, 'INT-002');
    expect(other.ok).toBe(false);
    expect((other as { error: string }).error).toContain('You must cite a valid active Intent ID.');
    expect(errorOf(await writeToFile(g, task, 'src/auth/new.ts', 'n\n')).code).toBe('NO_ACTIVE_INTENT');
    const selected = await g.rooSelectIntent(task, 'INT-001');
    expect(selected).toMatchObject({ ok: true, intent: 'INT-001' });
    expect((selected as { context: string }).context).toMatch(/^<intent_context id="INT-001"/);
    expect((selected as { context: string }).context).toContain('src/auth/**');
    // The selection is kept under the worktree's git dir (agents/handshake, keyed by the task id):
    // another instance of the glue, as after a restart of the extension host, sees it.
    expect(await (g === source ? bundled : source).rooCheck(task, 'src/auth/jwt.ts')).toEqual({ ok: true });
    // Another task of the same window has not selected anything.
    expect(errorOf(await writeToFile(g, fakeTask(wt, 'task-other'), 'src/auth/new.ts', 'n\n')).code).toBe('NO_ACTIVE_INTENT');

    // Out of scope: refused before approval, nothing written.
    const scope = errorOf(await writeToFile(g, task, 'docs/x.md', 'y\n'));
    expect(scope.code).toBe('SCOPE_VIOLATION');
    expect(scope.message).toContain('Scope Violation: INT-001 is not authorized to edit docs/x.md');
    expect(readFileSync(join(wt, 'docs/x.md'), 'utf8')).toBe('x\n');

    // Stale: the model read jwt.ts, then the user changed it on disk.
    await readFile(g, task, 'src/auth/jwt.ts');
    writeFileSync(join(wt, 'src/auth/jwt.ts'), 'a\nb\nuser\n');
    const stale = errorOf(await writeToFile(g, task, 'src/auth/jwt.ts', 'a\nb\nmodel\n'));
    expect(stale.code).toBe('STALE_FILE');
    expect(readFileSync(join(wt, 'src/auth/jwt.ts'), 'utf8')).toBe('a\nb\nuser\n');

    // Read again; the model sends line-numbered content; the user edits one line in the diff view.
    const current = await readFile(g, task, 'src/auth/jwt.ts');
    const proposed = `${current}model1\nmodel2\n`;
    const out = await writeToFile(g, task, 'src/auth/jwt.ts', numbered(proposed), (c) => c.replace('model2', 'user-tweak'));
    expect(out).toBe('saved src/auth/jwt.ts');
    expect(readFileSync(join(wt, 'src/auth/jwt.ts'), 'utf8')).toBe('a\nb\nuser\nmodel1\nuser-tweak');
    expect(git(wt, 'diff', '--cached', '--name-only').trim()).toBe('src/auth/jwt.ts');
    // The model's own write is now what it last saw: a second edit is not stale.
    expect(await writeToFile(g, task, 'src/auth/new.ts', '1 | n1\n2 | n2')).toBe('saved src/auth/new.ts');
    git(wt, 'commit', '-q', '-m', 'roo');
    expect(aiLines(wt, 'src/auth/jwt.ts')).toEqual([4]);
    expect(aiLines(wt, 'src/auth/new.ts')).toEqual([1, 2]);
    const conv = noteOf(wt)!.record.files.find((x: any) => x.path === 'src/auth/new.ts').conversations[0];
    expect(conv).toMatchObject({ contributor: { type: 'ai', model_id: 'anthropic/claude-sonnet-4-5' }, url: `roo-code://task/${task.taskId}` });

    // apply_patch: delete and move go through the glue; out-of-scope targets are refused.
    expect((await g.rooCheck(task, 'src/auth/new.ts', 'docs/new.ts')).ok).toBe(false);
    expect(await g.rooDelete(task, 'apply_patch', 'src/auth/jwt.ts')).toMatchObject({ ok: true, result: { operation: 'delete' } });
    expect(await g.rooMove(task, 'apply_patch', 'src/auth/new.ts', 'src/auth/moved.ts', 'n1\nn2\nn3\n')).toMatchObject({ ok: true, result: { operation: 'move' } });
    expect(git(wt, 'diff', '--cached', '--name-status', '--no-renames').split('\n').filter(Boolean).sort())
      .toEqual(['A\tsrc/auth/moved.ts', 'D\tsrc/auth/jwt.ts', 'D\tsrc/auth/new.ts']);

    // execute_command: deny is the tool's error; ask needs the human; allow runs.
    const asked: string[] = [];
    const human = (cmd: string) => (asked.push(cmd), false);
    expect(await executeCommand(g, task, 'echo x > docs/x.md', human)).toMatch(/^ERROR intent refused this command: /);
    expect(await executeCommand(g, task, 'rm src/auth/moved.ts', human)).toBe('denied by the user');
    expect(await executeCommand(g, task, 'git status', human)).toBe('ran git status');
    expect(asked).toEqual(['rm src/auth/moved.ts']);
    expect(existsSync(join(wt, 'src/auth/moved.ts'))).toBe(true);
  });
});

describe.each([
  ['the TypeScript module', () => source, 'set-ts'],
  ['the bundled build', () => bundled, 'set-cjs'],
] as const)('Roo Code governance setting and the main worktree, through %s (issue 27)', (_name, glue, taskId) => {
  it('auto (the default): off outside a governed repository, so Roo works as without the patch', async () => {
    const g = glue();
    g.rooConfigure({});
    const plain = tempDir();
    git(plain, 'init', '-q', '-b', 'main');
    writeFileSync(join(plain, 'a.txt'), 'a\n');
    const task = fakeTask(plain, taskId);
    expect(g.rooGoverned(plain)).toBe(false);
    expect(g.rooIntentPrompt(plain)).toBe('');
    expect(await writeToFile(g, task, 'b.txt', 'b\n')).toBe('saved b.txt');
    expect(await g.rooCommand(task, 'rm a.txt')).toEqual({ decision: 'allow', reason: '' });
    expect(await g.rooMove(task, 'apply_patch', 'b.txt', 'sub/c.txt', 'c\n')).toEqual({ ok: true });
    expect(readFileSync(join(plain, 'sub/c.txt'), 'utf8')).toBe('c\n');
    expect(existsSync(join(plain, 'b.txt'))).toBe(false);
    expect(await g.rooDelete(task, 'apply_patch', 'a.txt')).toEqual({ ok: true });
    expect(existsSync(join(plain, 'a.txt'))).toBe(false);
    expect(git(plain, 'diff', '--cached', '--name-only')).toBe('');
    expect((await g.rooSelectIntent(task, 'INT-001')).ok).toBe(false);
    // Not a repository at all (Roo's own tool tests use cwd "/"): no refusal either.
    expect(await g.rooCheck(fakeTask('/', taskId), 'x.ts')).toEqual({ ok: true });
  });

  it('auto in a governed repository: on; "off" turns it off there, "on" turns it on outside', async () => {
    const g = glue();
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }], { 'src/a.ts': 'a\n' });
    const wt = checkoutIntent(repo, 'INT-001');
    const task = fakeTask(wt, `${taskId}-on`);
    try {
      g.rooConfigure({ governance: 'auto' });
      expect(g.rooGoverned(wt)).toBe(true);
      expect(g.rooGoverned(join(wt, 'src'))).toBe(true);
      expect(g.rooIntentPrompt(wt)).toContain('INTENT GOVERNANCE');
      expect(errorOf(await writeToFile(g, task, 'src/b.ts', 'b\n')).code).toBe('NO_ACTIVE_INTENT');
      g.rooConfigure({ governance: 'off' });
      expect(g.rooGoverned(wt)).toBe(false);
      expect(await writeToFile(g, task, 'src/b.ts', 'b\n')).toBe('saved src/b.ts');
      g.rooConfigure({ governance: 'on' });
      expect(g.rooGoverned(tempDir())).toBe(true);
      g.rooConfigure({ governance: 'bogus' });
      expect(g.rooGoverned(tempDir())).toBe(false);
    } finally {
      g.rooConfigure({});
    }
  });

  it('the main worktree of a governed repository refuses every write and select_active_intent, naming intent checkout (docs/roo-code.md)', async () => {
    const g = glue();
    g.rooConfigure({});
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'], status: 'IN_PROGRESS' }], { 'src/a.ts': 'a\n' });
    const task = fakeTask(repo, `${taskId}-main`);
    const sel = await g.rooSelectIntent(task, 'INT-001');
    expect(sel.ok).toBe(false);
    expect((sel as { error: string }).error).toContain('main worktree of a governed repository');
    expect((sel as { error: string }).error).toContain('intent checkout');
    const w = errorOf(await writeToFile(g, task, 'src/a.ts', 'b\n'));
    expect(w.code).toBe('NO_ACTIVE_INTENT');
    expect(w.message).toContain('intent checkout <ID>');
    expect(readFileSync(join(repo, 'src/a.ts'), 'utf8')).toBe('a\n');
    expect((await g.rooDelete(task, 'apply_patch', 'src/a.ts')).ok).toBe(false);
    expect(existsSync(join(repo, 'src/a.ts'))).toBe(true);
    expect((await g.rooCommand(task, 'rm src/a.ts')).decision).not.toBe('allow');
  });
});

describe.each([
  ['the TypeScript module', () => source, 'async-ts'],
  ['the bundled build', () => bundled, 'async-cjs'],
] as const)('Roo Code calls never wait for git in-line, through %s (issue 27)', (_name, glue, taskId) => {
  it('each call returns while its git processes are held back, and completes once they may run', async () => {
    const g = glue();
    g.rooConfigure({});
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }], { 'src/a.ts': 'a\n', 'src/b.ts': 'b\n' });
    const wt = checkoutIntent(repo, 'INT-001');
    const task = fakeTask(wt, taskId);
    // A git that waits for a gate file before it runs. A caller that waits for git in-line
    // (spawnSync) cannot open the gate: its git gives up after 10 s with exit 97, and the call
    // fails. A caller that does not wait gets its promise back at once; the test opens the gate.
    const shim = tempDir();
    const gate = join(shim, 'gate');
    const calls = join(shim, 'calls.log');
    const realGit = run('sh', ['-c', 'command -v git'], wt).stdout.trim();
    writeFileSync(join(shim, 'git'), [
      '#!/bin/sh',
      'i=0',
      `while [ ! -e '${gate}' ]; do`,
      '  i=$((i+1)); if [ $i -gt 1000 ]; then echo "git was run while its caller blocked: the gate never opened" >&2; exit 97; fi',
      '  sleep 0.01',
      'done',
      `echo "$*" >> '${calls}'`,
      `exec '${realGit}' "$@"`,
      '',
    ].join('\n'), { mode: 0o755 });
    const path = process.env.PATH;
    const unblocked = async <T>(call: () => Promise<T>): Promise<T> => {
      rmSync(gate, { force: true });
      const pending = call();
      writeFileSync(gate, '');
      return pending;
    };
    process.env.PATH = `${shim}:${path}`;
    try {
      expect(await unblocked(() => g.rooSelectIntent(task, 'INT-001'))).toMatchObject({ ok: true, intent: 'INT-001' });
      g.rooRead(task, 'src/a.ts');
      expect(await unblocked(() => g.rooCheck(task, 'src/a.ts'))).toEqual({ ok: true });
      writeFileSync(join(wt, 'src/a.ts'), 'a\nmodel\n');
      expect(await unblocked(() => g.rooSaved(task, 'write_to_file', 'src/a.ts', { originalContent: 'a\n', newContent: 'a\nmodel\n' })))
        .toMatchObject({ ok: true, result: { operation: 'record', aiLines: 1, staged: true } });
      expect((await unblocked(() => g.rooCheck(task, 'docs/x.md'))).ok).toBe(false);
      expect(await unblocked(() => g.rooMove(task, 'apply_patch', 'src/b.ts', 'src/c.ts', 'c\n'))).toMatchObject({ ok: true, result: { operation: 'move' } });
      expect(await unblocked(() => g.rooDelete(task, 'apply_patch', 'src/c.ts'))).toMatchObject({ ok: true, result: { operation: 'delete' } });
      expect((await unblocked(() => g.rooCommand(task, 'echo x > docs/x.md'))).decision).toBe('deny');
      // Two calls at once (apply_patch gates every file together): both complete.
      const both = await unblocked(() => Promise.all([g.rooCheck(task, 'src/a.ts'), g.rooCheck(task, 'src/d.ts')]));
      expect(both).toEqual([{ ok: true }, { ok: true }]);
    } finally {
      process.env.PATH = path;
    }
    // The calls did run git, through the gate.
    const ran = readFileSync(calls, 'utf8').split('\n').map((l) => l.split(' ').find((w) => /^[a-z][a-z-]+$/.test(w)));
    for (const sub of ['rev-parse', 'log', 'add', 'ls-files', 'rm']) expect(ran).toContain(sub);
    expect(git(wt, 'diff', '--cached', '--name-status', '--no-renames').split('\n').filter(Boolean).sort())
      .toEqual(['D\tsrc/b.ts', 'M\tsrc/a.ts']);
  });
});

describe('the packed tarball under Roo\'s pnpm overrides (brace-expansion forced to 2.0.2)', () => {
  it('installs, and both require and import get the self-contained build that does not use the project\'s brace-expansion', () => {
    const work = tempDir();
    const packed = run('npm', ['pack', '--ignore-scripts', '--pack-destination', work], PKG_ROOT);
    expect(packed.status, packed.stderr).toBe(0);
    const tgz = packed.stdout.trim().split('\n').pop()!;
    const project = join(work, 'project');
    mkdirSync(project);
    // Roo's root package.json forces brace-expansion 2.0.2 (pnpm.overrides); npm's overrides do the same here.
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'roo-like', version: '1.0.0', private: true, overrides: { 'brace-expansion': '2.0.2' } }));
    const inst = run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', join(work, tgz)], project);
    expect(inst.status, inst.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(project, 'node_modules', 'brace-expansion', 'package.json'), 'utf8')).version).toBe('2.0.2');
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/{a,b}/**'] }], { 'src/a/x.ts': 'a\n' });
    const wt = checkoutIntent(repo, 'INT-001');
    // A scope glob with braces: minimatch expands it, with the bundled brace-expansion.
    const probe = (m: string, resolved: string) => `(async () => { const t = { cwd: ${JSON.stringify(wt)}, taskId: 'tgz', api: { getModel: () => ({ id: 'm' }) } };` +
      ` if (!(await ${m}.rooSelectIntent(t, 'INT-001')).ok) throw new Error('select');` +
      ` console.log(JSON.stringify([(await ${m}.rooCheck(t, 'src/b/y.ts')).ok, (await ${m}.rooCheck(t, 'docs/z.md')).ok]));` +
      ` console.log(${resolved}.endsWith('roo-code.cjs')) })().catch((e) => { console.error(e); process.exit(1); })`;
    const cjs = run('node', ['-e', `const m = require('intent-governance/roo-code'); ${probe('m', "require.resolve('intent-governance/roo-code')")}`], project);
    expect(cjs.stdout, cjs.stderr).toBe('[true,false]\ntrue\n');
    const esm = run('node', ['--input-type=module', '-e', `import * as m from 'intent-governance/roo-code'; ${probe('m', "import.meta.resolve('intent-governance/roo-code')")}`], project);
    expect(esm.stdout, esm.stderr).toBe('[true,false]\ntrue\n');
  });
});
