/**
 * Gemini CLI's hook protocol (0.61; lib/agents/protocols.ts dispatches here). Hooks are registered
 * in `.gemini/settings.json` under `hooks.BeforeTool` / `hooks.AfterTool` and run only in a trusted
 * folder. The payload: `session_id`, `transcript_path`, `cwd`, `hook_event_name`, `timestamp`,
 * `tool_name`, `tool_input`, and after the tool `tool_response {llmContent, returnDisplay,
 * error}`; no model and no tool-call id. The model is read from the transcript (JSONL: the newest
 * `"type":"gemini"` entry's `model`, written before the tool runs); a shell command's before/after
 * snapshot is keyed by the session and the command's input instead of a call id. Tools:
 * `write_file {file_path, content}`, `replace {file_path, old_string, new_string, …}`,
 * `run_shell_command {command, description, dir_path, is_background}`, `read_file
 * {file_path}`, MCP tools as `mcp_<server>_<tool>`. Answers: a refusal before the tool is
 * `{"decision":"deny","reason"}` (the model reads `Tool execution blocked: <reason>`); after it,
 * `hookSpecificOutput.additionalContext` is appended to the tool's output. Gemini's shell runs git
 * with the hooks off, so its calls carry `gitHooksOff` (lib/agents/hookless-git.ts).
 */
import { createHash } from 'node:crypto';
import { isAbsolute, resolve } from 'node:path';
import { IntentError } from '../core/errors.js';
import { contextCommand, type ToolCall, type Verdict } from './hook-adapters.js';
import { modelOfNewest } from './transcript-tail.js';
import { type HookAnswer as Answer, type Json, needIn, obj, str } from './payload.js';

/** Gemini CLI's file-writing, shell and file-reading tools (Qwen Code, a fork, shares them: lib/agents/qwen.ts). */
export const GEMINI_WRITE_TOOLS: ReadonlySet<string> = new Set(['write_file', 'replace', 'edit']);
export const GEMINI_SHELL_TOOLS: ReadonlySet<string> = new Set(['run_shell_command']);
export const GEMINI_READ_TOOLS: ReadonlySet<string> = new Set(['read_file', 'read_many_files']);
const WRITE = GEMINI_WRITE_TOOLS;
const SHELL = GEMINI_SHELL_TOOLS;
const READ = GEMINI_READ_TOOLS;

const need = needIn('Gemini CLI');

/** The model of the newest Gemini turn in a Gemini CLI transcript (JSONL), read from its last megabyte. */
export function modelFromGeminiTranscript(path: string | undefined): string | undefined {
  return modelOfNewest(path, 'gemini');
}

/** The text the model got from a tool (llmContent: a string, or parts with text). */
export function responseText(response: Json | undefined): string {
  const c = response?.llmContent;
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map((p) => (typeof (p as Json)?.text === 'string' ? (p as Json).text : '')).join('\n');
  return '';
}

/** Parses one Gemini CLI hook payload (`before-tool` or `after-tool`). */
export function parseGemini(event: string, p: Json, qualify: (model: string | undefined) => string | undefined): ToolCall {
  const tool = need(p, 'tool_name');
  const input = obj(p.tool_input);
  if (!input) throw new IntentError('INVALID_INPUT', 'Gemini CLI payload has no "tool_input" object; refusing it.', { field: 'tool_input' });
  const session = need(p, 'session_id');
  const cwd = need(p, 'cwd');
  const post = event === 'after-tool';
  const response = obj(p.tool_response);
  const kind: ToolCall['kind'] = WRITE.has(tool) ? 'write' : SHELL.has(tool) ? 'shell' : READ.has(tool) ? 'read'
    : tool.startsWith('mcp_') || !(str(input, 'file_path') ?? str(input, 'path')) ? 'other' : 'write';
  const command = str(input, 'command');
  // The shell runs in dir_path (relative to the workspace) when the model names one.
  const dir = kind === 'shell' && str(input, 'dir_path') ? resolve(cwd, str(input, 'dir_path')!) : cwd;
  const failed = post && (response?.error !== undefined && response?.error !== null);
  const selected = post && !failed
    ? (/^mcp_.+_select_active_intent$/.test(tool) ? str(input, 'intent_id')
      : kind === 'shell' && command && responseText(response).includes('<intent_context') ? contextCommand(command) : undefined)
    : undefined;
  const needsModel = post && (kind === 'write' || kind === 'shell');
  const path = str(input, 'file_path') ?? str(input, 'path');
  return {
    agent: 'Gemini CLI',
    phase: post ? 'post' : 'pre',
    cwd: dir,
    tool,
    kind,
    path: path && !isAbsolute(path) ? resolve(cwd, path) : path,
    command,
    modelId: needsModel ? qualify(modelFromGeminiTranscript(str(p, 'transcript_path'))) : undefined,
    sessionUrl: `gemini-cli://session/${encodeURIComponent(session)}`,
    failed,
    session: { agent: 'gemini', sessionId: session },
    // No call id in the payload: the same input before and after the call keys its shell snapshot.
    toolUseId: kind === 'shell' ? 'gemini-' + createHash('sha256').update(JSON.stringify([tool, input])).digest('hex').slice(0, 32) : undefined,
    selects: selected,
    gitHooksOff: true,
  };
}

/** A verdict in Gemini CLI's shape. */
export function answerGemini(event: string, v: Verdict): Answer {
  const json = (o: unknown): Answer => ({ stdout: JSON.stringify(o) + '\n', stderr: '', code: 0 });
  const reason = v.reason ? `intent: ${v.reason}` : '';
  if (event === 'before-tool') {
    // No "ask": in a headless run (`gemini -p --yolo`, 0.61.0) it waits for ever for an answer, and
    // the payload does not say whether a human is there. What needs a human is refused, with the reason.
    if (v.decision === 'deny' || v.decision === 'ask') return json({ decision: 'deny', reason: v.decision === 'ask' ? `${reason} (refused: a human must run it)` : reason });
    return { stdout: '', stderr: '', code: 0 };
  }
  const context = [reason, v.note].filter(Boolean).join('\n');
  return context ? json({ hookSpecificOutput: { hookEventName: 'AfterTool', additionalContext: context } }) : { stdout: '', stderr: '', code: 0 };
}

/** A hook that could not decide: refused before the tool, reported to the model after it. */
export function geminiFailure(event: string, message: string): Answer {
  return answerGemini(event, { decision: 'deny', reason: message });
}
