// OpenCode's governance without OpenCode: the runner (`<git common dir>/intent/bin/agent opencode
// <event>`) fed the payloads intent's plugin sent during a real OpenCode 1.18.33 session
// (test/fixtures/opencode/payloads.json, captured by test/e2e/opencode.test.ts; paths replaced by
// {{ROOT}}), and the plugin file `intent init --agent opencode` writes run under node with hook
// inputs of the shapes OpenCode gave it (test/fixtures/opencode/hook-inputs.json), against real
// repositories. What the real OpenCode does end to end is in test/e2e/opencode.test.ts; here are
// the edges it does not reach and the fail-closed cases.
import { appendFileSync, chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PKG_ROOT, checkoutIntent, forFile, git, governedRepo, intent, run, tempDir } from '../helpers.js';

type Payload = Record<string, any>;
const FIXTURES = join(PKG_ROOT, 'test', 'fixtures', 'opencode');
const PLUGIN = join('.opencode', 'plugin', 'intent.js');

function fixtures(file: string, key: string, wt: string): Record<string, Payload> {
  return JSON.parse(readFileSync(join(FIXTURES, file), 'utf8').split('{{ROOT}}').join(wt))[key];
}

/** Runs the hook runner as the plugin does; its answer parsed. */
function hook(wt: string, event: 'tool-execute-before' | 'tool-execute-after', body: Payload | string): { code: number; answer: any; stderr: string } {
  const runner = join(git(wt, 'rev-parse', '--path-format=absolute', '--git-common-dir').trim(), 'intent', 'bin', 'agent');
  const r = run(runner, ['opencode', event], wt, {}, typeof body === 'string' ? body : JSON.stringify(body));
  let answer: any;
  try { answer = JSON.parse(r.stdout); } catch { answer = r.stdout; }
  return { code: r.status, answer, stderr: r.stderr };
}

type Step = { hook: string; input: Payload; output: Payload } | { write: string; content: string; append?: boolean };

/**
 * Loads the plugin file from `dir` under node (as OpenCode's runtime would: an ES module whose
 * exported function gets `{directory, worktree}`) and runs `steps` in order: each hook's outcome
 * (its error message, or the output object after it) is returned.
 */
function plugin(dir: string, file: string, steps: Step[]): { error?: string; output?: Payload }[] {
  const script = `
    import { appendFileSync, writeFileSync } from 'node:fs';
    import { pathToFileURL } from 'node:url';
    const [file, dir, steps] = [process.argv[1], process.argv[2], JSON.parse(process.argv[3])];
    const mod = await import(pathToFileURL(file).href);
    const fns = Object.values(mod).filter((f) => typeof f === 'function');
    if (fns.length !== 1) throw new Error('the plugin exports ' + fns.length + ' functions');
    const hooks = await fns[0]({ directory: dir, worktree: dir, project: {}, client: {}, $: undefined });
    const out = [];
    for (const s of steps) {
      if (s.write) { (s.append ? appendFileSync : writeFileSync)(s.write, s.content); continue; }
      try { await hooks[s.hook](s.input, s.output); out.push({ output: s.output }); } catch (e) { out.push({ error: e.message }); }
    }
    process.stdout.write(JSON.stringify(out));`;
  const r = run(process.execPath, ['--input-type=module', '-e', script, file, dir, JSON.stringify(steps)], dir);
  if (r.status !== 0) throw new Error(`the plugin's driver failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout);
}

describe('OpenCode: the runner with the payloads of OpenCode 1.18.33, and the plugin file under node', () => {
  let repo: string;
  let wt: string;
  let p: Record<string, Payload>;
  let inputs: Record<string, Payload>;
  let n = 0;

  beforeAll(() => forFile(() => {
    repo = governedRepo([{ id: 'INT-001', name: 'OpenCode', scope: ['src/**'] }], { 'README.md': '# r\n', 'src/a.ts': 'export const a = 1;\n', 'docs/x.md': 'x\n', 'package.json': '{"scripts":{"test":"echo y >> docs/x.md"}}\n' });
    expect(intent(repo, ['init', '--agent', 'opencode']).status).toBe(0);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'opencode plugin');
    wt = checkoutIntent(repo, 'INT-001');
    p = fixtures('payloads.json', 'payloads', wt);
    inputs = fixtures('hook-inputs.json', 'inputs', wt);
  }));

  /** A fixture payload in a session of its own (or the given one). */
  function payload(name: string, session?: string, change: (x: Payload) => void = () => {}): Payload {
    const x = structuredClone(p[name]);
    if (!x) throw new Error(`no fixture ${name}`);
    x.sessionID = session ?? `ses_test${++n}`;
    change(x);
    return x;
  }

  /** A session that made its handshake (the captured `intent context INT-001` call and its output). */
  function handshake(): string {
    const session = `ses_hs${++n}`;
    expect(hook(wt, 'tool-execute-before', payload('handshake.before', session)).answer).toEqual({ decision: 'allow' });
    const after = hook(wt, 'tool-execute-after', payload('handshake.after', session));
    expect(after.answer.note).toContain('this session works on INT-001 now');
    return session;
  }

  it('init writes the plugin with the marker, is idempotent, and does not overwrite a file of that name that is not ours', () => {
    const text = readFileSync(join(repo, PLUGIN), 'utf8');
    expect(text).toContain('intent/bin/agent');
    expect(text).toContain("'tool.execute.before'");
    expect(intent(repo, ['init', '--agent', 'opencode']).status).toBe(0);
    expect(readFileSync(join(repo, PLUGIN), 'utf8')).toBe(text);
    const other = governedRepo([{ id: 'INT-001', scope: ['src/**'] }]);
    mkdirSync(join(other, '.opencode', 'plugin'), { recursive: true });
    writeFileSync(join(other, PLUGIN), 'export const Mine = async () => ({});\n');
    const r = intent(other, ['init', '--agent', 'opencode']);
    expect(r.status).not.toBe(0);
    expect(r.stderr + r.stdout).toContain('is not intent\'s');
    expect(readFileSync(join(other, PLUGIN), 'utf8')).toBe('export const Mine = async () => ({});\n');
  });

  it('intent doctor: the plugin committed and the same in the worktree, loaded by OpenCode unless it is told to load no project plugin', () => {
    const check = (env: Record<string, string | undefined> = {}) => {
      const r = JSON.parse(intent(repo, ['doctor', '--json'], env).stdout);
      return (s: string) => r.checks.find((c: any) => c.subject === s);
    };
    const ok = check({ OPENCODE_PURE: undefined, OPENCODE_DISABLE_PROJECT_CONFIG: undefined });
    expect(ok(`agent ${PLUGIN}`)).toMatchObject({ ok: true });
    expect(ok('opencode plugin')).toMatchObject({ ok: true });
    expect(check({ OPENCODE_PURE: '1' })('opencode plugin')).toMatchObject({ ok: false, message: expect.stringContaining('OPENCODE_PURE is set') });
    expect(check({ OPENCODE_DISABLE_PROJECT_CONFIG: 'true' })('opencode plugin').ok).toBe(false);
    // A worktree whose plugin differs (an old branch, a local edit) is named.
    const file = join(wt, PLUGIN);
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text + '// edited\n');
    try {
      expect(check()(`agent ${PLUGIN}`)).toMatchObject({ ok: false, message: expect.stringContaining(wt) });
    } finally {
      writeFileSync(file, text);
    }
    // A file of that name that is not ours.
    const other = governedRepo([{ id: 'INT-001', scope: ['src/**'] }]);
    mkdirSync(join(other, '.opencode', 'plugin'), { recursive: true });
    writeFileSync(join(other, PLUGIN), 'export const Mine = async () => ({});\n');
    const theirs = JSON.parse(intent(other, ['doctor', '--json']).stdout).checks.find((c: any) => c.subject === 'opencode plugin');
    expect(theirs).toMatchObject({ ok: false, message: expect.stringContaining("is not intent's plugin") });
  });

  it('the captured session: a write before the handshake refused, the handshake, an in-scope write staged and credited to the model of the payload', () => {
    const s = `ses_main${++n}`;
    const early = hook(wt, 'tool-execute-before', payload('write-before-handshake.before', s));
    expect(early.code).toBe(0);
    expect(early.answer.decision).toBe('deny');
    expect(early.answer.reason).toContain('You must cite a valid active Intent ID.');
    hook(wt, 'tool-execute-before', payload('handshake.before', s));
    expect(hook(wt, 'tool-execute-after', payload('handshake.after', s)).answer.note).toContain('this session works on INT-001 now');
    expect(hook(wt, 'tool-execute-before', payload('write.before', s)).answer).toEqual({ decision: 'allow' });
    writeFileSync(join(wt, 'src', 'new.ts'), p['write.before'].args.content);
    const after = hook(wt, 'tool-execute-after', payload('write.after', s));
    expect(after.answer.note).toBe('intent: staged src/new.ts under INT-001 (2 lines credited to mock/m).');
    expect(git(wt, 'diff', '--cached', '--name-only')).toContain('src/new.ts');
  });

  it('the handshake through the MCP tool intent_select_active_intent (`intent mcp` as an OpenCode MCP server)', () => {
    const s = `ses_mcp${++n}`;
    expect(hook(wt, 'tool-execute-before', payload('mcp-handshake.before', s)).answer).toEqual({ decision: 'allow' });
    expect(hook(wt, 'tool-execute-after', payload('mcp-handshake.after', s)).answer.note).toContain('this session works on INT-001 now');
    expect(hook(wt, 'tool-execute-before', payload('write.before', s)).answer).toEqual({ decision: 'allow' });
    // Another intent's id selects nothing here.
    const other = `ses_mcp${++n}`;
    expect(hook(wt, 'tool-execute-after', payload('mcp-handshake.after', other, (x) => { x.args.intent_id = 'INT-999'; })).answer.note).toContain('INT-999 is not this worktree\'s intent');
    expect(hook(wt, 'tool-execute-before', payload('write.before', other)).answer.decision).toBe('deny');
  });

  it('refuses an out-of-scope write and a shell command that would run outside the worktree', () => {
    const s = handshake();
    const out = hook(wt, 'tool-execute-before', payload('write-out-of-scope.before', s)).answer;
    expect(out.decision).toBe('deny');
    expect(out.reason).toContain('Scope Violation: INT-001 is not authorized to edit docs/new.md');
    const away = hook(wt, 'tool-execute-before', payload('bash-outside.before', s)).answer;
    expect(away.decision).toBe('deny');
    expect(away.reason).toContain("outside this session's worktree");
    // An absolute workdir outside, too.
    const abs = hook(wt, 'tool-execute-before', payload('shell-write.before', s, (x) => { x.args.workdir = tempDir(); })).answer;
    expect(abs.decision).toBe('deny');
  });

  it('a shell write in the scope is staged after the command (snapshot by callID); a shell write outside it is reported', () => {
    const s = handshake();
    expect(hook(wt, 'tool-execute-before', payload('shell-write.before', s)).answer).toEqual({ decision: 'allow' });
    appendFileSync(join(wt, 'src', 'a.ts'), 'export const viaShell = 3;\n');
    expect(hook(wt, 'tool-execute-after', payload('shell-write.after', s)).answer.note).toContain('the command changed src/a.ts (1 line credited to mock/m): staged.');
    // A redirection out of the scope is seen in the command itself: refused before it runs.
    const plain = hook(wt, 'tool-execute-before', payload('shell-write.before', s, (x) => { x.args.command = 'echo y >> docs/x.md'; })).answer;
    expect(plain.decision).toBe('deny');
    expect(plain.reason).toContain('docs/x.md');
    // One whose writes cannot be seen before it runs: found after it, reported to the model, not staged.
    const id = (x: Payload) => { x.callID = 'call_outside_1'; x.args.command = 'npm test'; };
    expect(hook(wt, 'tool-execute-before', payload('shell-write.before', s, id)).answer).toEqual({ decision: 'allow' });
    appendFileSync(join(wt, 'docs', 'x.md'), 'y\n');
    const told = hook(wt, 'tool-execute-after', payload('shell-write.after', s, id)).answer.note;
    expect(told).toContain('the command changed docs/x.md, which this session may not write');
    git(wt, 'checkout', '--', 'docs/x.md');
  });

  it('a read is recorded after it: an edit of a file changed since is refused as stale', () => {
    const s = handshake();
    expect(hook(wt, 'tool-execute-after', payload('read.after', s)).answer).toEqual({});
    appendFileSync(join(wt, 'src', 'a.ts'), '// changed by someone else\n');
    const edit = hook(wt, 'tool-execute-before', payload('edit.before', s)).answer;
    expect(edit.decision).toBe('deny');
    expect(edit.reason).toContain('Stale File: src/a.ts changed since it was read');
  });

  it('apply_patch: each file of the patch is checked (relative to the directory)', () => {
    const s = handshake();
    // The captured apply_patch of a GPT-class model: allowed, then staged and credited to that model.
    expect(hook(wt, 'tool-execute-before', payload('patch-add.before', s)).answer).toEqual({ decision: 'allow' });
    writeFileSync(join(wt, 'src', 'patched.ts'), 'export const p = 1;\n');
    expect(hook(wt, 'tool-execute-after', payload('patch-add.after', s)).answer.note).toBe('intent: staged src/patched.ts under INT-001 (1 line credited to mock/gpt-5-mock).');
    expect(hook(wt, 'tool-execute-before', payload('patch-out-of-scope.before', s)).answer.reason).toContain('Scope Violation: INT-001 is not authorized to edit docs/x.md');
    const patch = (text: string) => payload('write.before', s, (x) => { x.tool = 'apply_patch'; x.args = { patchText: text }; });
    expect(hook(wt, 'tool-execute-before', patch('*** Begin Patch\n*** Add File: src/p.ts\n+x\n*** End Patch\n')).answer).toEqual({ decision: 'allow' });
    const mixed = hook(wt, 'tool-execute-before', patch('*** Begin Patch\n*** Add File: src/q.ts\n+x\n*** Update File: docs/x.md\n@@\n-x\n+y\n*** End Patch\n')).answer;
    expect(mixed.decision).toBe('deny');
    expect(mixed.reason).toContain('docs/x.md');
    expect(hook(wt, 'tool-execute-before', patch('not a patch')).answer.decision).toBe('deny');
  });

  it('an unknown tool that names a file outside the scope is checked as a write; read-only tools get no opinion', () => {
    const s = handshake();
    const mcp = hook(wt, 'tool-execute-before', payload('write.before', s, (x) => { x.tool = 'files_write'; x.args = { path: 'docs/y.md' }; })).answer;
    expect(mcp.decision).toBe('deny');
    expect(hook(wt, 'tool-execute-before', payload('write.before', s, (x) => { x.tool = 'grep'; x.args = { pattern: 'x' }; })).answer).toEqual({ decision: 'allow' });
  });

  it('fails closed: broken JSON, missing fields, another client\'s payload, the wrong event, no model after a write', () => {
    const deny = (r: ReturnType<typeof hook>) => {
      expect(r.code).toBe(0);
      expect(r.answer.decision).toBe('deny');
      return r.answer.reason as string;
    };
    expect(deny(hook(wt, 'tool-execute-before', '{not json'))).toContain('not JSON');
    expect(deny(hook(wt, 'tool-execute-before', payload('write.before', undefined, (x) => { delete x.sessionID; })))).toContain('"sessionID"');
    expect(deny(hook(wt, 'tool-execute-before', payload('write.before', undefined, (x) => { delete x.args; })))).toContain('"args"');
    expect(deny(hook(wt, 'tool-execute-before', payload('write.before', undefined, (x) => { x.directory = 'relative/dir'; })))).toContain('absolute');
    const claude = { session_id: 's', tool_name: 'Write', tool_input: { file_path: 'src/z.ts', content: 'x' }, cwd: wt, hook_event_name: 'PreToolUse' };
    expect(deny(hook(wt, 'tool-execute-before', claude))).toContain("not a payload of intent's OpenCode plugin");
    expect(deny(hook(wt, 'tool-execute-before', payload('write.after')))).toContain('"event"');
    // After the tool nothing can be refused: the model is told (a note appended to the output).
    expect(hook(wt, 'tool-execute-after', '[]').answer.note).toContain('must be a JSON object');
    const s = handshake();
    hook(wt, 'tool-execute-before', payload('write.before', s, (x) => { x.args.filePath = 'src/nomodel.ts'; }));
    writeFileSync(join(wt, 'src', 'nomodel.ts'), 'x\n');
    const none = hook(wt, 'tool-execute-after', payload('write.after', s, (x) => { x.args.filePath = 'src/nomodel.ts'; delete x.model; }));
    expect(none.answer.note).toContain('the model that wrote');
    expect(git(wt, 'diff', '--cached', '--name-only')).not.toContain('src/nomodel.ts');
  });

  it('the plugin under node: the model from chat.params, a refusal thrown before the tool, the note appended after it', () => {
    const file = join(wt, PLUGIN);
    const session = 'ses_plugin1';
    const ctx = (name: string, change: (x: Payload) => void = () => {}) => {
      const x = structuredClone(inputs[name]);
      if (x.input) x.input.sessionID = session;
      change(x);
      return x;
    };
    const context = intent(wt, ['context', 'INT-001']).stdout;
    const target = join(wt, 'src', 'plugin.ts');
    const steps: Step[] = [
      // The title agent's turn names a model too; it is not the session's.
      { hook: 'chat.params', ...ctx('chat.params.title', (x) => { x.input.model = { ...x.input.model, providerID: 'small', id: 'title-model' }; }) },
      { hook: 'chat.params', ...ctx('chat.params.build') },
      { hook: 'tool.execute.before', ...ctx('write.before', (x) => { x.output.args.filePath = 'src/plugin.ts'; }) },
      { hook: 'tool.execute.before', ...ctx('handshake.before') },
      { hook: 'tool.execute.after', ...ctx('handshake.after', (x) => { x.output.output = context; x.output.metadata.output = context; }) },
      { hook: 'tool.execute.before', ...ctx('write.before', (x) => { x.output.args.filePath = 'src/plugin.ts'; }) },
      { write: target, content: 'one\ntwo\nthree\n' },
      { hook: 'tool.execute.after', ...ctx('write.after', (x) => { x.input.args.filePath = 'src/plugin.ts'; }) },
      { hook: 'tool.execute.before', ...ctx('write-out-of-scope.before') },
      // An MCP tool's result is MCP's shape: the note goes in as one more text part.
      { hook: 'tool.execute.after', ...ctx('mcp-handshake.after') },
      // Read-only tools are not asked about (no runner call, nothing thrown).
      { hook: 'tool.execute.before', input: { tool: 'grep', sessionID: session, callID: 'c_grep' }, output: { args: { pattern: 'x' } } },
    ];
    const out = plugin(wt, file, steps);
    expect(out).toHaveLength(10);
    expect(out[2].error).toContain('You must cite a valid active Intent ID.');
    expect(out[4].output!.output).toContain('intent: this session works on INT-001 now');
    expect(out[5].error).toBeUndefined();
    expect(out[6].output!.output).toBe('Wrote file successfully.\n\nintent: staged src/plugin.ts under INT-001 (3 lines credited to mock/m).');
    expect(out[7].error).toContain('Scope Violation: INT-001 is not authorized to edit docs/new.md');
    expect(existsSync(join(wt, 'docs', 'new.md'))).toBe(false);
    const mcp = out[8].output!.content;
    expect(mcp[0].text).toContain('<intent_context');
    expect(mcp[mcp.length - 1]).toEqual({ type: 'text', text: 'intent: this session works on INT-001 now; writes inside its scope are allowed and credited to the model.' });
    expect(out[9]).toEqual({ output: { args: { pattern: 'x' } } });
  });

  it('the plugin fails closed: no runner, a runner that fails, a runner that answers no JSON, a folder outside git', () => {
    const refused = (dir: string) => plugin(dir, join(dir, PLUGIN), [{ hook: 'tool.execute.before', input: { tool: 'write', sessionID: 's', callID: 'c' }, output: { args: { filePath: 'a.txt', content: 'x' } } }])[0].error;
    const bare = tempDir('intent-opencode-bare-');
    git(bare, 'init', '-q');
    mkdirSync(join(bare, '.opencode', 'plugin'), { recursive: true });
    copyFileSync(join(wt, PLUGIN), join(bare, PLUGIN));
    expect(refused(bare)).toMatch(/^intent: this clone has no intent hooks \(no runner at .*intent\/bin\/agent.*run intent init\. The tool call is refused\.$/);
    const runner = join(bare, '.git', 'intent', 'bin', 'agent');
    mkdirSync(join(bare, '.git', 'intent', 'bin'), { recursive: true });
    writeFileSync(runner, '#!/bin/sh\necho broken >&2\nexit 1\n');
    chmodSync(runner, 0o755);
    expect(refused(bare)).toContain('the hook runner failed (exit 1: broken); run intent init to repair it. The tool call is refused.');
    writeFileSync(runner, '#!/bin/sh\necho hello\n');
    expect(refused(bare)).toContain('the hook runner gave no answer');
    // JSON, but no decision (an after-tool answer before the tool): refused too.
    writeFileSync(runner, '#!/bin/sh\necho {}\n');
    expect(refused(bare)).toContain('the hook runner gave no decision ({})');
    const outside = tempDir('intent-opencode-nogit-');
    mkdirSync(join(outside, '.opencode', 'plugin'), { recursive: true });
    copyFileSync(join(wt, PLUGIN), join(outside, PLUGIN));
    expect(refused(outside)).toContain('this clone has no intent hooks');
    expect(existsSync(join(bare, 'a.txt'))).toBe(false);
  });
});
