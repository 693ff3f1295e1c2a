/**
 * Qwen Code's hook protocol (0.24.4; lib/agents/protocols.ts dispatches here). Qwen Code is a
 * Gemini CLI fork with Claude Code's hooks: `.qwen/settings.json` `hooks.PreToolUse` /
 * `PostToolUse` / `PostToolUseFailure`, answered like Claude Code's
 * (`hookSpecificOutput.permissionDecision`, `additionalContext`; exit 2 + stderr blocks too), with
 * Gemini CLI's tool names: `write_file {file_path, content}`, `edit {file_path, old_string,
 * new_string}` (`replace` is its old name), `notebook_edit {notebook_path, …}`,
 * `run_shell_command {command, description, directory?, is_background?}`, `read_file
 * {file_path}`, MCP tools as `mcp__<server>__<tool>`. The payload is Claude Code's plus
 * `timestamp`, `prompt_id` and `tool_call_id` (the model's call id; `tool_use_id` is Qwen's own);
 * `tool_response` is `{llmContent, returnDisplay}`. A tool that fails (a shell command's non-zero
 * exit too) comes back as `PostToolUseFailure` with `error` instead of `tool_response`. No model in
 * the payload: the session's transcript (JSONL at `transcript_path`) has it in each `"type":
 * "assistant"` entry, written before the tool runs; Qwen also puts it in the hook's environment
 * (`QWEN_CODE_MODEL`). Qwen's shell keeps git's hooks on.
 */
import { isAbsolute, relative, resolve } from 'node:path';
import { IntentError } from '../core/errors.js';
import { hostEnv } from '../core/settings.js';
import { GEMINI_READ_TOOLS, GEMINI_SHELL_TOOLS, GEMINI_WRITE_TOOLS, responseText } from './gemini.js';
import { contextCommand, type ToolCall, type Verdict } from './hook-adapters.js';
import { modelOfNewest } from './transcript-tail.js';
import { claudeShapedAnswer, type HookAnswer as Answer, type Json, needIn, obj, str } from './payload.js';

/** The events this agent's hook program answers (as typed on the command line). */
export const QWEN_EVENTS: readonly string[] = ['pre-tool-use', 'post-tool-use', 'post-tool-use-failure'];

const WRITE = new Set([...GEMINI_WRITE_TOOLS, 'notebook_edit']);

const need = needIn('Qwen Code');

/** The model of the newest assistant turn in a Qwen Code transcript (JSONL), read from its last megabyte. */
export function modelFromQwenTranscript(path: string | undefined): string | undefined {
  return modelOfNewest(path, 'assistant');
}

function kindOf(tool: string, input: Json): ToolCall['kind'] {
  if (WRITE.has(tool)) return 'write';
  if (GEMINI_SHELL_TOOLS.has(tool)) return 'shell';
  if (GEMINI_READ_TOOLS.has(tool)) return 'read';
  if (tool.startsWith('mcp__')) return 'other';
  // An unknown tool that names a file may write it: check it like a write (fail closed).
  return str(input, 'file_path') ?? str(input, 'notebook_path') ?? str(input, 'path') ? 'write' : 'other';
}

/** Parses one Qwen Code hook payload (`pre-tool-use`, `post-tool-use` or `post-tool-use-failure`). */
export function parseQwen(event: string, p: Json, qualify: (model: string | undefined, fallbackProvider: string) => string | undefined): ToolCall {
  const tool = need(p, 'tool_name');
  const input = obj(p.tool_input);
  if (!input) throw new IntentError('INVALID_INPUT', 'Qwen Code payload has no "tool_input" object; refusing it.', { field: 'tool_input' });
  const session = need(p, 'session_id');
  const cwd = need(p, 'cwd');
  const post = event !== 'pre-tool-use';
  const failed = event === 'post-tool-use-failure';
  if (tool === 'exec' && !post) {
    // Code mode's exec runs a script that calls the other tools: what it writes is not seen here.
    throw new IntentError('INVALID_INPUT', 'Qwen Code\'s code-mode tool "exec" is not governed by intent; use write_file, edit and run_shell_command.', { tool });
  }
  const kind = kindOf(tool, input);
  const command = str(input, 'command');
  let dir = cwd;
  if (kind === 'shell' && str(input, 'directory')) {
    dir = resolve(cwd, str(input, 'directory')!);
    const rel = relative(cwd, dir);
    if (!post && (rel.startsWith('..') || isAbsolute(rel))) {
      // The command would run where its writes are not compared with the session's worktree.
      throw new IntentError('SCOPE_VIOLATION', `the command would run in ${dir}, outside this session's worktree ${cwd}: run it inside the worktree (leave directory out, or name a folder in it).`, { workdir: dir });
    }
  }
  const selects = post && !failed
    ? (/^mcp__.+__select_active_intent$/.test(tool) ? str(input, 'intent_id')
      : kind === 'shell' && command && responseText(obj(p.tool_response)).includes('<intent_context') ? contextCommand(command) : undefined)
    : undefined;
  const needsModel = post && (kind === 'write' || kind === 'shell');
  const path = str(input, 'file_path') ?? str(input, 'notebook_path') ?? str(input, 'path');
  const agentId = str(p, 'agent_id');
  return {
    agent: 'Qwen Code',
    phase: post ? 'post' : 'pre',
    cwd: dir,
    tool,
    kind,
    path: path && !isAbsolute(path) ? resolve(cwd, path) : path,
    command,
    // The transcript's model is the turn's; Qwen sets QWEN_CODE_MODEL in the hook's environment to the session's current model.
    modelId: needsModel ? qualify(modelFromQwenTranscript(str(p, 'transcript_path')) ?? hostEnv().QWEN_CODE_MODEL, 'qwen') : undefined,
    sessionUrl: `qwen-code://session/${encodeURIComponent(session)}${agentId ? `/agent/${encodeURIComponent(agentId)}` : ''}`,
    failed,
    session: { agent: 'qwen', sessionId: session },
    toolUseId: str(p, 'tool_call_id') ?? str(p, 'tool_use_id'),
    selects,
  };
}

/** A verdict in Qwen Code's shape (Claude Code's): "ask" asks the user in an interactive session; headless (no one to ask) Qwen refuses the call with the reason. */
export function answerQwen(event: string, v: Verdict): Answer {
  return claudeShapedAnswer(event, v, { ask: true });
}

/** A hook that could not decide: refused before the tool (exit 2, the reason on stderr), reported to the model after it. */
export function qwenFailure(event: string, message: string): Answer {
  if (event === 'pre-tool-use') return { stdout: '', stderr: `intent: ${message}\n`, code: 2 };
  return answerQwen(event, { decision: 'deny', reason: message });
}
