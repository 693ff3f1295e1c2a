// Factory droid's hooks fed the payloads the real CLI sent (test/fixtures/droid/, captured by
// test/fixtures/capture-droid.mjs from droid 0.225.2; paths replaced by {{ROOT}}, {{HOME}} and
// {{PROJECT}}), through the commands `intent init --agent droid` registers in
// .factory/settings.json. What the real CLI does end to end is in test/e2e/droid.test.ts; here are
// the edges the scripted session does not reach, and the payloads that must be refused (fail closed).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { forFile, git, intent, tempDir, type Run } from '../helpers.js';
import { context, denied, fixturePayload, fixtureSession, hookAnswer, settingsHook, type FixtureSession, type Payload } from './claude-shaped-fixtures.js';

describe('Factory droid hooks with the payloads of droid 0.225.2', () => {
  let s: FixtureSession;
  let wt: string;
  let home: string;
  let n = 0;
  /** droid's settings: the custom model the fixtures' session ran (`custom:mock-0`). */
  const settings = (models: unknown[]) => writeFileSync(join(home, '.factory', 'settings.json'), JSON.stringify({ customModels: models }));

  beforeAll(() => forFile(() => {
    s = fixtureSession('droid', 'Droid', 'Create.PostToolUse');
    ({ wt, home } = s);
    settings([{ model: 'mock-coder', displayName: 'mock', provider: 'generic-chat-completion-api', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'x' }]);
  }));

  const payload = (name: string, session: string, change?: (p: Payload) => void) => fixturePayload(s, name, session, change);
  /** Runs the command .factory/settings.json registers for the event and tool, with `stdin`, as droid would (HOME is its home). */
  const hook = (event: string, tool: string, stdin: string, cwd = wt): Run => settingsHook(s, '.factory/settings.json', event, tool, stdin, { cwd, baseEnv: { HOME: home } });
  const answer = (p: Payload): any => hookAnswer(hook(p.hook_event_name, p.tool_name, JSON.stringify(p)));

  function handshake(session: string): void {
    const ctx = intent(wt, ['context', 'INT-001']).stdout;
    const a = answer(payload('Execute.PostToolUse', session, (p) => { p.tool_response = `${ctx}\n\n[Process exited with code 0]`; }));
    expect(context(a)).toContain('this session works on INT-001 now');
  }

  it('registers the hooks on the tools droid really names, in .factory/settings.json', () => {
    const h = JSON.parse(readFileSync(join(wt, '.factory', 'settings.json'), 'utf8')).hooks;
    const matches = (event: string, tool: string) => h[event].some((e: any) => new RegExp(e.matcher).test(tool));
    for (const t of ['Create', 'Edit', 'MultiEdit', 'ApplyPatch', 'Execute', 'Script']) expect(matches('PreToolUse', t), t).toBe(true);
    for (const t of ['Read', 'LS', 'Grep', 'Glob', 'TodoWrite', 'ExecuteX']) expect(matches('PreToolUse', t), t).toBe(false);
    for (const t of ['Create', 'Edit', 'Execute', 'Read', 'intent___select_active_intent']) expect(matches('PostToolUse', t), t).toBe(true);
    expect(h.PreToolUse[0].hooks[0]).toMatchObject({ type: 'command', timeout: 30 });
  });

  it('refuses a write before the handshake, allows it after, and credits the custom model of ~/.factory/settings.json', () => {
    const session = `d-${++n}`;
    const pre = payload('Create.PreToolUse', session);
    const reason = denied(answer(pre));
    expect(reason).toContain('intent: You must cite a valid active Intent ID.');
    handshake(session);
    expect(answer(pre)).toBeNull();
    writeFileSync(join(wt, 'src', 'new.txt'), 'line1\nline2\n');
    expect(answer(payload('Create.PostToolUse', session))).toEqual({
      hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'intent: staged src/new.txt under INT-001 (2 lines credited to custom/mock-coder).' },
    });
  });

  it('names the model as droid does: a Factory model by its id, a custom one by its entry (display name and index), none when the entry is gone', () => {
    const session = `d-${++n}`;
    handshake(session);
    const transcript = join(home, `t-${n}.jsonl`);
    const write = (file: string, modelId: string) => {
      writeFileSync(transcript, JSON.stringify({ type: 'message', message: { role: 'assistant', content: [], modelId } }) + '\n');
      const p = (name: string) => payload(name, session, (x) => { x.transcript_path = transcript; x.tool_input.file_path = join(wt, 'src', file); });
      expect(answer(p('Create.PreToolUse'))).toBeNull();
      writeFileSync(join(wt, 'src', file), 'x\n');
      return context(answer(p('Create.PostToolUse')));
    };
    expect(write('m1.txt', 'claude-opus-5')).toContain('credited to anthropic/claude-opus-5');
    settings([{ model: 'a', displayName: 'My Model' }, { model: 'gpt-4.1', displayName: 'My Model', provider: 'openai' }]);
    expect(write('m2.txt', 'custom:My-Model-1')).toContain('credited to openai/gpt-4.1');
    expect(write('m3.txt', 'custom:Gone-0')).toContain('Factory droid sent no model');
    settings([{ model: 'mock-coder', displayName: 'mock', provider: 'generic-chat-completion-api' }]);
  });

  it('refuses an out-of-scope Edit with the Scope Violation message, and a stale one', () => {
    const session = `d-${++n}`;
    handshake(session);
    expect(denied(answer(payload('Edit.PreToolUse', session, (p) => { p.tool_input.file_path = join(wt, 'docs', 'x.md'); }))))
      .toContain('intent: Scope Violation: INT-001 is not authorized to edit docs/x.md');
    writeFileSync(join(wt, 'src', 'stale.txt'), 'v1\n');
    const file = (p: Payload) => { p.tool_input.file_path = join(wt, 'src', 'stale.txt'); };
    expect(answer(payload('Read.PostToolUse', session, file))).toBeNull();
    writeFileSync(join(wt, 'src', 'stale.txt'), 'v2 by someone else\n');
    expect(denied(answer(payload('Edit.PreToolUse', session, file)))).toContain('Stale File: src/stale.txt changed since it was read');
  });

  it('stages what a shell command wrote, keyed by the session and the command (no call id in the payload)', () => {
    const session = `d-${++n}`;
    handshake(session);
    expect(answer(payload('Execute.PreToolUse.2', session))).toBeNull();
    writeFileSync(join(wt, 'src', 'a.txt'), 'one\nx\n');
    expect(context(answer(payload('Execute.PostToolUse.2', session)))).toBe('intent: the command changed src/a.txt (1 line credited to custom/mock-coder): staged.');
    // The same command in another session has a snapshot of its own: this one has none, so it reports nothing.
    expect(answer(payload('Execute.PostToolUse.2', `d-${++n}`))).toBeNull();
  });

  it('an ApplyPatch is checked file by file; the Script tool and the MCP handshake as droid names it', () => {
    const session = `d-${++n}`;
    const mcp = answer(payload('Execute.PostToolUse', session, (p) => {
      p.tool_name = 'intent___select_active_intent';
      p.tool_input = { intent_id: 'INT-001' };
      p.tool_response = '<intent_context id="INT-001">…</intent_context>';
    }));
    expect(context(mcp)).toContain('this session works on INT-001 now');
    const patch = (body: string) => answer(payload('Create.PreToolUse', session, (p) => { p.tool_name = 'ApplyPatch'; p.tool_input = { input: body }; }));
    expect(patch('*** Begin Patch\n*** Add File: src/p.txt\n+p\n*** End Patch\n')).toBeNull();
    expect(denied(patch('*** Begin Patch\n*** Add File: src/p.txt\n+p\n*** Add File: docs/p.md\n+p\n*** End Patch\n'))).toContain('not authorized to edit docs/p.md');
    expect(denied(patch('no patch at all'))).toContain('names no file path');
    const script = hook('PreToolUse', 'Script', JSON.stringify(payload('Execute.PreToolUse', session, (p) => { p.tool_name = 'Script'; p.tool_input = { code: 'x' }; })));
    expect(script.status).toBe(2);
    expect(script.stderr).toContain('Script tool is not governed');
  });

  describe('fails closed', () => {
    const refusedBefore = (stdin: string) => {
      const r = hook('PreToolUse', 'Create', stdin);
      expect(r.status, r.stdout).toBe(2);
      expect(r.stderr).toMatch(/^intent: /);
      return r.stderr;
    };

    it('refuses a payload that is not JSON, or has a field missing', () => {
      expect(refusedBefore('{"tool_name":')).toContain('the hook payload is not JSON');
      for (const field of ['tool_name', 'tool_input', 'session_id', 'cwd']) {
        const p = payload('Create.PreToolUse', `d-${++n}`);
        delete p[field];
        expect(refusedBefore(JSON.stringify(p)), field).toContain(`Factory droid payload has no "${field}"`);
      }
    });

    it('refuses another client\'s payload (Cline\'s camelCase, Qwen\'s shape with a string tool_input)', () => {
      expect(refusedBefore(JSON.stringify({ taskId: 't', hookName: 'PreToolUse', preToolUse: { toolName: 'write_to_file', parameters: {} } }))).toContain('"tool_name"');
      expect(refusedBefore(JSON.stringify({ session_id: 's', cwd: wt, tool_name: 'write_file', tool_input: 'src/x' }))).toContain('"tool_input"');
    });

    it('after the tool, a broken payload is reported to the model', () => {
      const r = hook('PostToolUse', 'Create', 'not json');
      expect(r.status).toBe(0);
      expect(JSON.parse(r.stdout).hookSpecificOutput.additionalContext).toContain('intent: the hook payload is not JSON');
    });

    it('refuses when the runner is missing from the clone', () => {
      const bare = tempDir('intent-droid-bare-');
      git(bare, 'init', '-q');
      const r = hook('PreToolUse', 'Create', JSON.stringify(payload('Create.PreToolUse', 'x')), bare);
      expect(r.status).toBe(2);
      expect(r.stderr).toContain('this clone has no intent hooks');
    });
  });
});
