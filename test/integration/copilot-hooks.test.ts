// GitHub Copilot CLI's hooks fed the payloads the real CLI sent (test/fixtures/copilot/, captured by
// test/fixtures/capture-copilot.mjs from Copilot 1.0.102; paths replaced by {{ROOT}} and {{HOME}}),
// through the commands `intent init --agent claude-code copilot` registers: the camelCase family
// from `.github/hooks/intent.json`, the snake_case one from `.claude/settings.json` (our Claude Code
// runner). The model and call ids come from the captured session log (events.jsonl), put where
// Copilot keeps it. What the real CLI does end to end is in test/e2e/copilot.test.ts; here are both
// families decided the same way, the double hook made harmless, Claude Code's own payloads still
// read as Claude Code's, and broken payloads refused.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PKG_ROOT, checkoutIntent, forFile, git, governedRepo, intent, makeRepo, run, tempDir, type Run } from '../helpers.js';
import { isCopilotPayload } from '../../lib/agents/copilot.js';

type Payload = Record<string, any>;
const FIXTURES = join(PKG_ROOT, 'test', 'fixtures');
const CAMEL = new Set(['preToolUse', 'postToolUse', 'postToolUseFailure']);

describe('GitHub Copilot CLI hooks with the payloads of Copilot 1.0.102', () => {
  let repo: string;
  let wt: string;
  let home: string;
  let fixtures: Record<string, Payload>;
  let events: string;
  let n = 0;

  beforeAll(() => forFile(() => {
    repo = governedRepo([{ id: 'INT-001', name: 'Copilot', scope: ['src/**'] }], { 'README.md': '# r\n', 'src/a.txt': 'one\n', 'docs/x.md': 'x\n' });
    expect(intent(repo, ['init', '--agent', 'claude-code', 'copilot']).status).toBe(0);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'agent hooks');
    wt = checkoutIntent(repo, 'INT-001');
    home = tempDir('intent-copilot-home-');
    const sub = (t: string) => t.split('{{ROOT}}').join(wt).split('{{HOME}}').join(home);
    fixtures = JSON.parse(sub(readFileSync(join(FIXTURES, 'copilot', 'payloads.json'), 'utf8'))).payloads;
    events = sub(readFileSync(join(FIXTURES, 'copilot', 'events.jsonl'), 'utf8'));
  }));

  const env = () => ({ HOME: home, COPILOT_HOME: join(home, '.copilot') });

  /** A new session with the captured session log (its call ids and models) where Copilot keeps it. */
  function session(log = true): string {
    const id = `copilot-${++n}`;
    if (log) {
      mkdirSync(join(home, '.copilot', 'session-state', id), { recursive: true });
      writeFileSync(join(home, '.copilot', 'session-state', id, 'events.jsonl'), events);
    }
    return id;
  }

  /** A fixture in session `id`, changed by `change`. */
  function payload(name: string, id: string, change: (p: Payload) => void = () => {}): Payload {
    const p = structuredClone(fixtures[name]);
    if (!p) throw new Error(`no fixture ${name}`);
    if ('sessionId' in p) p.sessionId = id;
    else p.session_id = id;
    change(p);
    return p;
  }

  /** The event a payload was captured for: its fixture key's second part. */
  function eventOf(p: Payload): string {
    return p.hook_event_name ?? (p.toolResult ? 'postToolUse' : p.error !== undefined ? 'postToolUseFailure' : 'preToolUse');
  }

  /** Runs the command registered for `event` (camelCase: .github/hooks/intent.json; PascalCase: .claude/settings.json) with `input` on stdin. */
  function hookRaw(event: string, input: string, tool = 'Write'): Run {
    if (CAMEL.has(event)) {
      const entry = JSON.parse(readFileSync(join(wt, '.github', 'hooks', 'intent.json'), 'utf8')).hooks[event].find((e: any) => JSON.stringify(e).includes('intent/bin/agent'));
      return run('bash', ['-c', entry.bash], wt, env(), input);
    }
    const entry = JSON.parse(readFileSync(join(wt, '.claude', 'settings.json'), 'utf8')).hooks[event].find((e: any) => new RegExp(`^(${e.matcher})$`).test(tool));
    if (!entry) throw new Error(`no ${event} hook matches ${tool}`);
    return run('bash', ['-c', entry.hooks[0].command], wt, env(), input);
  }

  function answer(p: Payload, event = eventOf(p)): any {
    const r = hookRaw(event, JSON.stringify(p), p.tool_name);
    expect(r.status, r.stderr).toBe(0);
    return r.stdout.trim() ? JSON.parse(r.stdout) : null;
  }

  /** The session ran `intent context INT-001` in its shell (the camelCase or the snake_case payload). */
  function handshake(id: string, family: 'camel' | 'snake' = 'camel'): any {
    const ctx = intent(wt, ['context', 'INT-001']).stdout;
    expect(ctx).toContain('<intent_context');
    const command = { command: 'intent context INT-001', description: 'context' };
    return family === 'camel'
      ? answer(payload('bash.postToolUse', id, (p) => { p.toolArgs = command; p.toolResult = { resultType: 'success', textResultForLlm: `${ctx}\n<shellId: 0 completed with exit code 0>` }; }))
      : answer(payload('Bash.PostToolUse', id, (p) => { p.tool_input = command; p.tool_result = { result_type: 'success', text_result_for_llm: ctx }; }));
  }

  it('registers the camelCase events in .github/hooks/intent.json, with a generous timeout', () => {
    const file = JSON.parse(readFileSync(join(wt, '.github', 'hooks', 'intent.json'), 'utf8'));
    expect(file.version).toBe(1);
    expect(Object.keys(file.hooks).sort()).toEqual(['postToolUse', 'postToolUseFailure', 'preToolUse']);
    for (const [event, arg] of [['preToolUse', 'pre-tool-use'], ['postToolUse', 'post-tool-use'], ['postToolUseFailure', 'post-tool-use-failure']]) {
      expect(file.hooks[event]).toEqual([{ type: 'command', bash: expect.stringContaining(`intent/bin/agent`), timeoutSec: 30 }]);
      expect(file.hooks[event][0].bash).toContain(` copilot ${arg}`);
    }
  });

  it('the camelCase family: a write refused before the handshake, staged and credited to the logged model after it', () => {
    const id = session();
    // (A refused call is retried as a new call, with a new id: the refused one here is not in the log.)
    const refused = answer(payload('create.preToolUse', id, (p) => { p.toolArgs = { path: join(wt, 'src', 'early.txt'), file_text: 'e\n' }; }));
    expect(refused).toEqual({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('intent: You must cite a valid active Intent ID.') });
    expect(refused.permissionDecisionReason).toContain('intent context INT-001');
    expect(handshake(id)).toEqual({ additionalContext: expect.stringContaining('this session works on INT-001 now') });
    expect(answer(payload('create.preToolUse', id))).toBeNull();
    writeFileSync(join(wt, 'src', 'new.txt'), 'line1\nline2\n');
    expect(answer(payload('create.postToolUse', id))).toEqual({ additionalContext: 'intent: staged src/new.txt under INT-001 (2 lines credited to openai/gpt-4.1).' });
    expect(git(wt, 'diff', '--cached', '--name-only')).toContain('src/new.txt');
  });

  it('both hook files for one call (Copilot runs both): the second hook leaves the call alone, so it is staged and reported once', () => {
    const id = session();
    handshake(id);
    expect(answer(payload('edit.preToolUse', id))).toBeNull();
    expect(answer(payload('Edit.PreToolUse', id))).toBeNull();
    writeFileSync(join(wt, 'src', 'new.txt'), 'line1\nline two\n');
    expect(answer(payload('edit.postToolUse', id))).toEqual({ additionalContext: expect.stringContaining('staged src/new.txt under INT-001') });
    expect(answer(payload('Edit.PostToolUse', id))).toBeNull();
    // A refusal by the first hook ends it: Copilot does not run the second (seen with 1.0.102).
    const out = answer(payload('create.preToolUse', id, (p) => { p.toolArgs = { path: join(wt, 'docs', 'y.md'), file_text: 'y\n' }; }));
    expect(out.permissionDecisionReason).toContain('Scope Violation: INT-001 is not authorized to edit docs/y.md');
  });

  it('the snake_case family from .claude/settings.json: read as Copilot\'s (its argument names), answered in the shape Copilot reads', () => {
    const id = session();
    // Copilot reads additionalContext at the top level after a tool (not Claude's hookSpecificOutput).
    expect(handshake(id, 'snake')).toEqual({ additionalContext: expect.stringContaining('this session works on INT-001 now') });
    const outside = answer(payload('Write.PreToolUse', id, (p) => { p.tool_input = { path: join(wt, 'docs', 'z.md'), file_text: 'z\n' }; }));
    expect(outside).toEqual({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('intent: Scope Violation: INT-001 is not authorized to edit docs/z.md') });
    const p = payload('Write.PreToolUse', id, (q) => { q.tool_input = { path: join(wt, 'src', 'snake.txt'), file_text: 's1\ns2\ns3\n' }; });
    expect(answer(p)).toBeNull();
    writeFileSync(join(wt, 'src', 'snake.txt'), 's1\ns2\ns3\n');
    // No entry in the log for these arguments: the model is the newest call's.
    const post = answer({ ...p, hook_event_name: 'PostToolUse', tool_result: { result_type: 'success', text_result_for_llm: 'Created file' } });
    expect(post).toEqual({ additionalContext: expect.stringMatching(/^intent: staged src\/snake\.txt under INT-001 \(3 lines credited to openai\/gpt-5\.2-codex\)\.$/) });
  });

  it('a shell command: the worktree snapshot before it, what it wrote in the scope staged and credited after it', () => {
    const id = session();
    handshake(id);
    expect(answer(payload('bash.preToolUse', id))).toBeNull();
    writeFileSync(join(wt, 'src', 'a.txt'), readFileSync(join(wt, 'src', 'a.txt'), 'utf8') + 'x\n');
    expect(answer(payload('bash.postToolUse', id)).additionalContext).toMatch(/the command changed src\/a\.txt \(\d+ lines? credited to openai\/gpt-4\.1\): staged\./);
    // The same call through the other file: nothing left to stage, nothing said twice.
    expect(answer(payload('Bash.PostToolUse', id))).toBeNull();
    // Arguments sent as a JSON string are read as the object: an out-of-scope write is refused before it runs.
    const outside = answer(payload('bash.preToolUse', id, (p) => { p.toolArgs = JSON.stringify({ command: "printf 'y\\n' > docs/y.md", description: 'x' }); }));
    expect(outside.permissionDecision).toBe('deny');
    expect(outside.permissionDecisionReason).toContain('docs/y.md');
    // What a human must approve is asked of the user (Copilot refuses it when nobody can answer).
    const rm = answer(payload('bash.preToolUse', id, (p) => { p.toolArgs = { command: 'rm src/a.txt', description: 'x' }; }));
    expect(rm).toEqual({ permissionDecision: 'ask', permissionDecisionReason: expect.stringContaining('intent: ') });
  });

  it('the freeform apply_patch (toolArgs is the patch itself; `Edit` with a string in the snake_case family): each file checked, staged and credited', () => {
    const id = session();
    handshake(id);
    const outside = (name: string) => payload(name, id, (p) => {
      const patch = `*** Begin Patch\n*** Add File: ${join(wt, 'src', 'ok.txt')}\n+ok\n*** Add File: ${join(wt, 'docs', 'p.md')}\n+no\n*** End Patch\n`;
      if ('toolArgs' in p) p.toolArgs = patch;
      else p.tool_input = patch;
    });
    expect(answer(outside('apply_patch.preToolUse')).permissionDecisionReason).toContain('Scope Violation: INT-001 is not authorized to edit docs/p.md');
    expect(answer(outside('Edit(apply_patch).PreToolUse'), 'PreToolUse').permissionDecisionReason).toContain('Scope Violation: INT-001 is not authorized to edit docs/p.md');
    expect(answer(payload('apply_patch.preToolUse', id))).toBeNull();
    writeFileSync(join(wt, 'src', 'patched.txt'), 'p1\np2\n');
    writeFileSync(join(wt, 'src', 'a.txt'), readFileSync(join(wt, 'src', 'a.txt'), 'utf8').replace(/^one$/m, 'uno'));
    const post = answer(payload('apply_patch.postToolUse', id)).additionalContext;
    expect(post).toContain('staged src/patched.txt under INT-001 (2 lines credited to openai/gpt-5.2-codex)');
    expect(post).toContain('staged src/a.txt under INT-001');
  });

  it('a patch that failed half way: what it applied is still staged', () => {
    const id = session();
    handshake(id);
    const patch = `*** Begin Patch\n*** Add File: ${join(wt, 'src', 'half.txt')}\n+h\n*** Update File: ${join(wt, 'src', 'missing.txt')}\n@@\n-a\n+b\n*** End Patch\n`;
    const failure = { sessionId: id, timestamp: 1, cwd: wt, toolName: 'apply_patch', toolArgs: patch, error: 'Error: Failed to read file to update' };
    expect(answer({ ...failure, error: undefined }, 'preToolUse')).toBeNull();
    writeFileSync(join(wt, 'src', 'half.txt'), 'h\n');
    expect(answer(failure, 'postToolUseFailure').additionalContext).toContain('staged src/half.txt under INT-001');
  });

  it('a failed create leaves nothing staged; a view records what was read, so a later edit of a changed file is refused as stale', () => {
    const id = session();
    handshake(id);
    const args = { path: join(wt, 'src', 'nodir', 'x.txt'), file_text: 'x\n' };
    expect(answer(payload('create.preToolUse.2', id, (p) => { p.toolArgs = args; }))).toBeNull();
    expect(answer(payload('create.postToolUseFailure', id, (p) => { p.toolArgs = args; }))).toBeNull();
    expect(git(wt, 'diff', '--cached', '--name-only')).not.toContain('nodir');
    expect(answer(payload('view.postToolUse', id))).toBeNull();
    writeFileSync(join(wt, 'src', 'a.txt'), 'changed behind the model\n');
    const stale = answer(payload('edit.preToolUse', id, (p) => { p.toolArgs = { path: join(wt, 'src', 'a.txt'), old_str: 'x', new_str: 'y' }; }));
    expect(stale.permissionDecisionReason).toContain('Stale File: src/a.txt changed since it was read');
  });

  it('no session log: the write is allowed before the tool, but not staged after it without a model, and the model is told', () => {
    const id = session(false);
    handshake(id);
    const p = payload('create.preToolUse', id, (q) => { q.toolArgs = { path: join(wt, 'src', 'nolog.txt'), file_text: 'n\n' }; });
    expect(answer(p)).toBeNull();
    writeFileSync(join(wt, 'src', 'nolog.txt'), 'n\n');
    const post = answer({ ...p, toolResult: { resultType: 'success', textResultForLlm: 'Created' } }, 'postToolUse');
    expect(post.additionalContext).toContain('the model that wrote');
    expect(post.additionalContext).toContain('GitHub Copilot CLI sent no model');
  });

  it('Claude Code\'s own payloads (test/fixtures/claude-code/payloads.json) are never taken for Copilot\'s, and are answered as Claude Code\'s', () => {
    const claude: Record<string, Payload> = JSON.parse(readFileSync(join(FIXTURES, 'claude-code', 'payloads.json'), 'utf8'));
    for (const [name, p] of Object.entries(claude)) expect(isCopilotPayload(p), name).toBe(false);
    for (const [name, p] of Object.entries(fixtures)) expect(isCopilotPayload(p), name).toBe(!CAMEL.has(eventOf(p)));
    const write = structuredClone(claude['Write.PreToolUse']);
    write.session_id = `claude-${++n}`;
    write.cwd = wt;
    write.tool_input = { file_path: join(wt, 'src', 'claude.txt'), content: 'c\n' };
    const r = hookRaw('PreToolUse', JSON.stringify(write));
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).hookSpecificOutput).toMatchObject({ hookEventName: 'PreToolUse', permissionDecision: 'deny' });
  });

  it('broken payloads are refused (fail closed), before the tool in both families', () => {
    const id = session();
    const refusedWith = (r: Run, text: string) => {
      expect(r.status, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(out.permissionDecision).toBe('deny');
      expect(out.permissionDecisionReason).toContain(text);
    };
    refusedWith(hookRaw('preToolUse', '{not json'), 'not JSON');
    refusedWith(hookRaw('preToolUse', JSON.stringify(payload('create.preToolUse', id, (p) => { delete p.toolArgs; }))), 'no tool arguments');
    refusedWith(hookRaw('preToolUse', JSON.stringify(payload('create.preToolUse', id, (p) => { p.toolArgs = 42; }))), 'no tool arguments');
    refusedWith(hookRaw('preToolUse', JSON.stringify(payload('create.preToolUse', id, (p) => { delete p.sessionId; }))), '"sessionId"');
    refusedWith(hookRaw('preToolUse', JSON.stringify(payload('create.preToolUse', id, (p) => { p.cwd = 7; }))), '"cwd"');
    refusedWith(hookRaw('PreToolUse', JSON.stringify(payload('Write.PreToolUse', id, (p) => { delete p.tool_input; }))), 'no tool arguments');
    // Another client's payload on Copilot's runner (Gemini CLI's write_file): a write like any other, refused without the handshake.
    const gem = JSON.parse(readFileSync(join(FIXTURES, 'gemini', 'payloads.json'), 'utf8').split('{{ROOT}}').join(wt)).payloads['write_file.BeforeTool'];
    refusedWith(hookRaw('preToolUse', JSON.stringify(gem)), 'You must cite a valid active Intent ID.');
    expect(existsSync(join(wt, 'src', 'new-gemini.txt'))).toBe(false);
  });

  it('a clone without intent\'s runner: the registered command refuses the call, saying why (Copilot shows a JSON reason, not an exit code\'s)', () => {
    const bare = makeRepo({ 'README.md': '# r\n' });
    const entry = JSON.parse(readFileSync(join(wt, '.github', 'hooks', 'intent.json'), 'utf8')).hooks.preToolUse[0];
    const r = run('bash', ['-c', entry.bash], bare, env(), JSON.stringify(fixtures['create.preToolUse']));
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('this clone has no intent hooks; run intent init') });
  });

  it('intent init --agent copilot keeps other hooks of .github/hooks/intent.json, and a re-run changes nothing', () => {
    const other = makeRepo({ 'README.md': '# r\n' });
    mkdirSync(join(other, '.github', 'hooks'), { recursive: true });
    const mine = { type: 'command', bash: 'echo mine', timeoutSec: 5 };
    writeFileSync(join(other, '.github', 'hooks', 'intent.json'), JSON.stringify({ version: 1, hooks: { preToolUse: [mine], sessionStart: [mine] } }));
    const first = intent(other, ['init', '--agent', 'copilot']);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout + first.stderr).toContain('trusted folder');
    const file = join(other, '.github', 'hooks', 'intent.json');
    const text = readFileSync(file, 'utf8');
    const hooks = JSON.parse(text).hooks;
    expect(hooks.sessionStart).toEqual([mine]);
    expect(hooks.preToolUse[0]).toEqual(mine);
    expect(hooks.preToolUse[1].bash).toContain('intent/bin/agent');
    expect(intent(other, ['init', '--agent', 'copilot']).status).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('intent doctor\'s copilot trust: config.json with Copilot\'s comment lines, a parent folder trusted, a worktree alone not enough', () => {
    const check = (config: string | null) => {
      const h = tempDir('intent-copilot-trust-');
      mkdirSync(join(h, '.copilot'));
      if (config !== null) writeFileSync(join(h, '.copilot', 'config.json'), config);
      return JSON.parse(intent(repo, ['doctor', '--json'], { HOME: h, COPILOT_HOME: join(h, '.copilot') }).stdout).checks.find((c: any) => c.subject === 'copilot trust');
    };
    const comments = '// User settings belong in settings.json.\n// This file is managed automatically.\n';
    expect(check(`${comments}${JSON.stringify({ trustedFolders: [repo] })}`)).toMatchObject({ ok: true });
    expect(check(JSON.stringify({ trustedFolders: [join(repo, '..')] }))).toMatchObject({ ok: true });
    expect(check(JSON.stringify({ trustedFolders: [wt] }))).toMatchObject({ ok: false });
    expect(check(null)).toMatchObject({ ok: false });
  });
});
