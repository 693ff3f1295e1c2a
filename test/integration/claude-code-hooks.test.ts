// Claude Code's hooks fed the payloads Claude Code 2.1.330 really sent (test/fixtures/claude-code/,
// captured headless against the mock Messages API by scripts/capture-claude-code-fixtures.ts;
// paths replaced by {{ROOT}} and {{TRANSCRIPTS}}),
// through the command `intent init --agent claude-code` registers. What the real CLI does end to
// end is in test/e2e/claude-code.test.ts; here are the cases it cannot produce (a user's change to
// a proposal, a runner that cannot start) and the edges of each event. Each test runs alone too
// (vitest -t), in any order: the fixtures' session makes its handshake in beforeAll, the handshake
// test uses a session of its own, and each test makes the writes it looks at itself, to files of
// its own (a write that repeats what another test committed would credit nothing).
import { chmodSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PKG_ROOT, checkoutIntent, forFile, git, governedRepo, intent, noteOf, run, tempDir, type Run } from '../helpers.js';

type Payload = Record<string, any>;
const FIXTURES = join(PKG_ROOT, 'test', 'fixtures', 'claude-code');
const SUBAGENT_MODEL = 'claude-haiku-5-5';

describe('Claude Code hooks with the payloads of Claude Code 2.1.330', () => {
  let repo: string;
  let wt: string;
  let fixtures: Record<string, Payload>;
  let uses = 0;

  beforeAll(() => forFile(() => {
    repo = governedRepo(
      [{ id: 'INT-001', name: 'Claude', scope: ['src/**'] }, { id: 'INT-002', name: 'Other', scope: ['lib/**'] }],
      { 'README.md': '# r\n', 'src/a.txt': 'hello\n', 'docs/x.md': 'x\n' },
    );
    expect(intent(repo, ['init', '--agent', 'claude-code']).status).toBe(0);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'claude code hooks');
    wt = checkoutIntent(repo, 'INT-001');
    const transcripts = tempDir('claude-projects-');
    const text = readFileSync(join(FIXTURES, 'payloads.json'), 'utf8').split('{{ROOT}}').join(wt).split('{{TRANSCRIPTS}}').join(transcripts);
    fixtures = JSON.parse(text);
    const main = fixtures['Write.PostToolUse'];
    // The session's transcript (the model of its newest assistant entry) and the subagent's, where Claude Code keeps them.
    writeFileSync(main.transcript_path, JSON.stringify({ type: 'assistant', sessionId: main.session_id, message: { role: 'assistant', model: 'claude-sonnet-4-5', content: [] } }) + '\n');
    const sub = fixtures['subagent.Write.PostToolUse'];
    const subFile = join(dirname(sub.transcript_path), sub.session_id, 'subagents', `agent-${sub.agent_id}.jsonl`);
    mkdirSync(dirname(subFile), { recursive: true });
    writeFileSync(subFile, readFileSync(join(FIXTURES, 'subagent-transcript.jsonl'), 'utf8').split('{{ROOT}}').join(wt));
  }));
  // The fixtures' session selects the worktree's intent (what the handshake test shows step by step).
  beforeAll(() => {
    expect(select(fixtures['Write.PreToolUse'].session_id)).toContain('this session works on INT-001 now');
  });

  /** A fixture with changes; every call gets its own tool_use_id, as in a session. */
  function payload(name: string, change: (p: Payload) => void = () => {}): Payload {
    const p = structuredClone(fixtures[name]);
    p.tool_use_id = `toolu_test_${++uses}`;
    change(p);
    return p;
  }

  /** Runs the command registered for `event` in .claude/settings.json, in the worktree. */
  function hook(p: Payload): Run {
    const settings = JSON.parse(readFileSync(join(wt, '.claude', 'settings.json'), 'utf8'));
    const entry = settings.hooks[p.hook_event_name].find((e: any) => new RegExp(`^(${e.matcher})$`).test(p.tool_name));
    if (!entry) throw new Error(`no ${p.hook_event_name} hook matches ${p.tool_name}`);
    return run('sh', ['-c', entry.hooks[0].command], wt, {}, JSON.stringify(p));
  }

  function answer(p: Payload): any {
    const r = hook(p);
    expect(r.status, r.stderr).toBe(0);
    return r.stdout.trim() ? JSON.parse(r.stdout) : null;
  }

  const context = (p: Payload) => answer(p)?.hookSpecificOutput?.additionalContext as string | undefined;

  function bash(command: string, runIt: () => void, event: 'PostToolUse' | 'PostToolUseFailure' = 'PostToolUse', session?: string): string | undefined {
    const pre = payload('Bash.PreToolUse', (p) => { p.tool_input.command = command; if (session) p.session_id = session; });
    // Allowed, or asked and approved by the user: either way the command runs.
    expect(answer(pre)?.hookSpecificOutput?.permissionDecision ?? 'allow').not.toBe('deny');
    runIt();
    const post = payload(event === 'PostToolUse' ? 'Bash.PostToolUse' : 'Bash.PostToolUseFailure', (p) => {
      p.tool_use_id = pre.tool_use_id;
      p.tool_input.command = command;
      p.cwd = wt;
      p.session_id = session ?? pre.session_id;
      p.transcript_path = pre.transcript_path;
    });
    return context(post);
  }

  const write = (name: string, path: string, content: string, change: (p: Payload) => void = () => {}) => payload(name, (p) => {
    p.tool_input = { file_path: join(wt, path), content };
    if (p.tool_response) p.tool_response = { ...p.tool_response, filePath: join(wt, path), content, originalFile: null };
    change(p);
  });

  /** `session` runs `intent context INT-001` (the handshake); returns what the hook told the model. */
  function select(session: string): string | undefined {
    return context(payload('Bash.PostToolUse', (p) => {
      p.session_id = session;
      p.tool_input.command = 'cd . && intent context INT-001 --max-bytes 4096';
      p.tool_response.stdout = '<intent_context id="INT-001">…</intent_context>\n';
    }));
  }

  /** The model's Write of `path` (two lines): the file written, then PostToolUse; what the hook told the model. */
  function modelWrite(path: string): string | undefined {
    writeFileSync(join(wt, path), 'line1\nline2\n');
    return context(write('Write.PostToolUse', path, 'line1\nline2\n'));
  }

  /** The model proposes `path`, the user changes its second line before it is written. */
  function userModifiedWrite(path: string): string | undefined {
    expect(answer(write('Write.PreToolUse', path, 'model one\nmodel two\n'))).toBeNull();
    writeFileSync(join(wt, path), 'model one\nthe user wrote this\n');
    return context(write('Write.PostToolUse', path, 'model one\nmodel two\n', (p) => {
      p.tool_response.content = 'model one\nthe user wrote this\n';
      p.tool_response.userModified = true;
    }));
  }

  /** A subagent writes `path` (one line). */
  function subagentWrite(path: string): string | undefined {
    const at = (p: Payload) => {
      p.tool_input = { ...p.tool_input, file_path: join(wt, path) };
      if (p.tool_response) p.tool_response = { ...p.tool_response, filePath: join(wt, path) };
    };
    const pre = payload('subagent.Write.PostToolUse', (p) => { p.hook_event_name = 'PreToolUse'; delete p.tool_response; at(p); });
    expect(answer(pre)).toBeNull();
    writeFileSync(join(wt, path), 'from sub\n');
    return context(payload('subagent.Write.PostToolUse', at));
  }

  it('registers the events and tools Claude Code 2.1 has (no MultiEdit), and the MCP handshake', () => {
    const hooks = JSON.parse(readFileSync(join(wt, '.claude', 'settings.json'), 'utf8')).hooks;
    expect(Object.keys(hooks).sort()).toEqual(['PostToolUse', 'PostToolUseFailure', 'PreToolUse']);
    expect(JSON.stringify(hooks)).not.toContain('MultiEdit');
    expect(hooks.PostToolUse[0].matcher).toContain('mcp__.*__select_active_intent');
  });

  it('a runner that cannot start or crashes blocks the tool (exit 2), never exit 127 or 1', () => {
    const runner = join(repo, '.git', 'intent', 'bin', 'agent');
    const saved = join(tempDir(), 'agent');
    copyFileSync(runner, saved);
    try {
      for (const code of [127, 1, 126]) {
        writeFileSync(runner, `#!/bin/sh\nexit ${code}\n`);
        chmodSync(runner, 0o755);
        const r = hook(write('Write.PreToolUse', 'src/new.txt', 'x\n'));
        expect(r.status, `runner exit ${code}`).toBe(2);
        expect(r.stderr).toContain(`the hook runner failed (exit ${code}); the tool call is refused`);
      }
      chmodSync(runner, 0o644);
      const missing = hook(write('Write.PreToolUse', 'src/new.txt', 'x\n'));
      expect(missing.status).toBe(2);
      expect(missing.stderr).toContain('this clone has no intent hooks');
    } finally {
      copyFileSync(saved, runner);
      chmodSync(runner, 0o755);
    }
  });

  it('refuses writes until the session selected the worktree\'s intent (intent context or the MCP tool)', () => {
    const session = 'handshake-test-session';
    const own = (p: Payload) => { p.session_id = session; };
    const refused = answer(write('Write.PreToolUse', 'src/new.txt', 'line1\nline2\n', own));
    expect(refused.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(refused.hookSpecificOutput.permissionDecisionReason).toContain('You must cite a valid active Intent ID.');
    // Another intent's context does not select this worktree's.
    const wrong = bash('intent context INT-002', () => {}, 'PostToolUse', session);
    expect(wrong).toBeUndefined(); // stdout has no context block in this payload: nothing selected
    const other = context(payload('Bash.PostToolUse', (p) => {
      own(p);
      p.tool_input.command = 'intent context INT-002';
      p.tool_response.stdout = '<intent_context id="INT-002">…</intent_context>\n';
    }));
    expect(other).toContain('INT-002 is not this worktree\'s intent (it works on INT-001');
    expect(answer(write('Write.PreToolUse', 'src/new.txt', 'x\n', own)).hookSpecificOutput.permissionDecision).toBe('deny');
    // A command that only mentions it, without the block in its output, selects nothing either.
    expect(context(payload('Bash.PostToolUse', (p) => { own(p); p.tool_input.command = 'echo intent context INT-001'; }))).toBeUndefined();
    expect(answer(write('Write.PreToolUse', 'src/new.txt', 'x\n', own)).hookSpecificOutput.permissionDecision).toBe('deny');

    expect(select(session)).toContain('this session works on INT-001 now');
    expect(answer(write('Write.PreToolUse', 'src/new.txt', 'line1\nline2\n', own))).toBeNull();

    // The MCP tool, for another session.
    const mcp = payload('Write.PostToolUse', (p) => {
      p.session_id = 'another-session';
      p.tool_name = 'mcp__intent__select_active_intent';
      p.tool_input = { intent_id: 'INT-001' };
      p.tool_response = [{ type: 'text', text: '<intent_context id="INT-001">…</intent_context>' }];
    });
    expect(context(mcp)).toContain('this session works on INT-001 now');
  });

  it('PostToolUse of a Write stages and credits; PostToolUseFailure stages nothing', () => {
    expect(modelWrite('src/new.txt')).toBe('intent: staged src/new.txt under INT-001 (2 lines credited to anthropic/claude-sonnet-4-5).');
    expect(answer(write('Write.PreToolUse', 'src/failed.txt', 'no\n'))).toBeNull();
    const failed = payload('Bash.PostToolUseFailure', (p) => {
      p.session_id = fixtures['Write.PreToolUse'].session_id;
      p.tool_name = 'Write';
      p.tool_input = { file_path: join(wt, 'src/failed.txt'), content: 'no\n' };
    });
    expect(failed).toMatchObject({ hook_event_name: 'PostToolUseFailure', error: expect.any(String), is_interrupt: false });
    expect(answer(failed)).toBeNull();
    expect(git(wt, 'diff', '--cached', '--name-only').split('\n')).not.toContain('src/failed.txt');
  });

  it('credits only the lines the model proposed when the user changed the proposal (userModified)', () => {
    expect(userModifiedWrite('src/um.txt')).toContain('(1 line credited to anthropic/claude-sonnet-4-5)');

    // An Edit the user changed: the proposal is the file before with the model's replacement.
    const before = readFileSync(join(wt, 'src/a.txt'), 'utf8');
    const edit = payload('Edit.PostToolUse', (p) => {
      p.tool_input = { file_path: join(wt, 'src/a.txt'), old_string: 'hello', new_string: 'hello\nfrom the model\nand more', replace_all: false };
      p.tool_response = { ...p.tool_response, filePath: join(wt, 'src/a.txt'), originalFile: before, userModified: true };
    });
    expect(answer({ ...edit, hook_event_name: 'PreToolUse', tool_response: undefined })).toBeNull();
    writeFileSync(join(wt, 'src/a.txt'), 'hello\nfrom the model\nthe user\n');
    expect(context(edit)).toContain('(1 line credited to anthropic/claude-sonnet-4-5)');
  });

  it('credits a subagent\'s write to the subagent\'s model, from its own transcript', () => {
    expect(subagentWrite('src/sub.txt')).toBe(`intent: staged src/sub.txt under INT-001 (1 line credited to anthropic/${SUBAGENT_MODEL}).`);
  });

  it('finds what Bash wrote: a sed -i over the model\'s line stays the model\'s; a failed command\'s writes count; out of scope is reported', () => {
    modelWrite('src/bash.txt');
    const sed = bash("sed -i 's/line1/LINE1/' src/bash.txt", () => writeFileSync(join(wt, 'src/bash.txt'), 'LINE1\nline2\n'));
    expect(sed).toBe('intent: the command changed src/bash.txt (2 lines credited to anthropic/claude-sonnet-4-5): staged.');
    const failed = bash("printf 'more\\n' >> src/a.txt; false", () => writeFileSync(join(wt, 'src/a.txt'), readFileSync(join(wt, 'src/a.txt'), 'utf8') + 'more\n'), 'PostToolUseFailure');
    expect(failed).toContain('the command changed src/a.txt');
    const out = bash('./generate', () => { writeFileSync(join(wt, 'docs/gen.md'), 'generated\n'); writeFileSync(join(wt, 'src/gen.txt'), 'g\n'); });
    expect(out).toContain('the command changed docs/gen.md, which this session may not write: outside INT-001\'s scope');
    expect(out).toContain('Undo these changes');
    expect(out).toContain('the command changed src/gen.txt (1 line credited to anthropic/claude-sonnet-4-5): staged.');
    const staged = git(wt, 'diff', '--cached', '--name-only').trim().split('\n');
    expect(staged).toEqual(expect.arrayContaining(['src/bash.txt', 'src/a.txt', 'src/gen.txt']));
    expect(staged).not.toContain('docs/gen.md');
    // A session without the handshake: its shell writes are reported, not staged.
    const stranger = bash('./generate2', () => writeFileSync(join(wt, 'src/stranger.txt'), 's\n'), 'PostToolUse', 'stranger-session');
    expect(stranger).toContain('src/stranger.txt, which this session may not write: You must cite a valid active Intent ID.');
    expect(git(wt, 'diff', '--cached', '--name-only')).not.toContain('src/stranger.txt');
  });

  it('commits: the note credits the model, the subagent\'s model and the user', () => {
    modelWrite('src/c-new.txt');
    userModifiedWrite('src/c-um.txt');
    subagentWrite('src/c-sub.txt');
    run('rm', ['-f', join(wt, 'docs/gen.md'), join(wt, 'src/stranger.txt')], wt);
    git(wt, 'commit', '-q', '-m', 'claude code work');
    const files = noteOf(wt)!.record.files as any[];
    const of = (path: string, type: string) => files.find((f) => f.path === path)?.conversations.filter((c: any) => c.contributor.type === type)
      .flatMap((c: any) => c.ranges.map((r: any) => [c.contributor.model_id ?? type, r.start_line, r.end_line]));
    expect(of('src/c-new.txt', 'ai')).toEqual([['anthropic/claude-sonnet-4-5', 1, 2]]);
    expect(of('src/c-um.txt', 'ai')).toEqual([['anthropic/claude-sonnet-4-5', 1, 1]]);
    expect(of('src/c-um.txt', 'human')).toEqual([['human', 2, 2]]);
    expect(of('src/c-sub.txt', 'ai')).toEqual([[`anthropic/${SUBAGENT_MODEL}`, 1, 1]]);
  });
});
