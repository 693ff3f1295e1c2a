/**
 * The wire formats of the agents' hook programs: parse their stdin JSON into a `ToolCall` and
 * answer a `Verdict` the way each agent understands. Broken input always blocks (fail closed).
 */
import { readSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AGENTS, type AgentName } from './config-files.js';
import { answerCline, clineFailure, parseCline } from './cline.js';
import { parseCodex } from './codex.js';
import { answerCursor, cursorFailure, parseCursor } from './cursor.js';
import { answerGemini, geminiFailure, parseGemini } from './gemini.js';
import { answerCopilot, copilotFailure, COPILOT_EVENTS, isCopilotPayload, parseCopilot } from './copilot.js';
import { answerOpenCode, openCodeFailure, OPENCODE_EVENTS, parseOpenCode } from './opencode.js';
import { answerQwen, qwenFailure, QWEN_EVENTS, parseQwen } from './qwen.js';
import { answerDroid, droidFailure, DROID_EVENTS, parseDroid } from './droid.js';
import { decide, type ToolCall, type Verdict } from './hook-adapters.js';
import { claudeShapedAnswer, type HookAnswer } from './payload.js';
import { IntentError } from '../core/errors.js';
import { tailLines } from './transcript-tail.js';


/** Hook payloads larger than this are refused. */
export const MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;

export type { HookAnswer } from './payload.js';

type Json = Record<string, unknown>;

const CLAUDE_WRITE = new Set(['Write', 'Edit', 'NotebookEdit']);
const CLAUDE_READ = new Set(['Read', 'NotebookRead']);
/** Tools that neither write nor run anything: no opinion. */
const READ_ONLY = new Set(['Read', 'Glob', 'Grep', 'LS', 'WebFetch', 'WebSearch', 'TodoWrite', 'Task', 'NotebookRead', 'BashOutput',
  'read_file', 'list_files', 'search_files', 'list_code_definition_names', 'ask_followup_question', 'attempt_completion', 'browser_action',
  'use_mcp_tool', 'access_mcp_resource', 'plan_mode_respond', 'Search', 'ReadFile', 'Grep', 'Glob', 'ListDir', 'codebase_search', 'grep_search',
  'file_search', 'list_dir', 'web_search', 'fetch_rules']);

/** Reads a hook payload from a file descriptor: at most 10 MB, valid UTF-8, a JSON object. */
export function readPayload(fd = 0): Json {
  const chunks: Buffer[] = [];
  let total = 0;
  const buf = Buffer.alloc(1 << 16);
  for (;;) {
    let n: number;
    try {
      n = readSync(fd, buf, 0, buf.length, null);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EAGAIN') continue;
      if ((e as NodeJS.ErrnoException).code === 'EOF') break;
      throw e;
    }
    if (n === 0) break;
    total += n;
    if (total > MAX_PAYLOAD_BYTES) {
      throw new IntentError('INVALID_INPUT', `the hook payload is larger than ${MAX_PAYLOAD_BYTES / 1024 / 1024} MB; refusing it.`, {});
    }
    chunks.push(Buffer.from(buf.subarray(0, n)));
  }
  return parsePayload(Buffer.concat(chunks));
}

/** Decodes and parses a payload (exported for tests). */
export function parsePayload(bytes: Buffer): Json {
  if (bytes.length > MAX_PAYLOAD_BYTES) {
    throw new IntentError('INVALID_INPUT', `the hook payload is larger than ${MAX_PAYLOAD_BYTES / 1024 / 1024} MB; refusing it.`, {});
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new IntentError('INVALID_INPUT', 'the hook payload is not valid UTF-8; refusing it.', {});
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new IntentError('INVALID_INPUT', `the hook payload is not JSON (${(e as Error).message}); refusing it.`, {});
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new IntentError('INVALID_INPUT', 'the hook payload must be a JSON object; refusing it.', {});
  }
  return value as Json;
}

/** Runs one hook: parse, decide, answer. Any failure blocks with a message, never a stack trace. */
export function runAgentHook(agent: string, event: string, read: () => Json): HookAnswer {
  if (!(AGENTS as readonly string[]).includes(agent)) {
    return { stdout: '', stderr: `intent: unknown agent "${agent}"; known: ${AGENTS.join(', ')}.\n`, code: 2 };
  }
  const name = agent as AgentName;
  if (!PROTOCOLS[name].events.includes(event)) {
    return { stdout: '', stderr: `intent: ${agent} has no hook event "${event}"; known: ${PROTOCOLS[name].events.join(', ')}.\n`, code: 2 };
  }
  let calls: ToolCall[];
  // GitHub Copilot CLI runs `.claude/settings.json` hooks too: its payloads there are read and answered as Copilot's.
  let as: AgentName = name;
  try {
    const payload = read();
    if (name === 'claude-code' && isCopilotPayload(payload)) as = 'copilot';
    const parsed = PROTOCOLS[as].parse(event, payload);
    calls = parsed === null ? [] : Array.isArray(parsed) ? parsed : [parsed];
  } catch (e) {
    return blocked(as, event, e);
  }
  try {
    return PROTOCOLS[as].answer(event, combine(calls.map(decide)), calls);
  } catch (e) {
    return blocked(as, event, e);
  }
}

const RANK: Record<Verdict['decision'], number> = { none: 0, allow: 1, ask: 2, deny: 3 };

/** One verdict for the calls of one payload (an apply_patch or run_commands may be several): the strictest wins. */
export function combine(verdicts: Verdict[]): Verdict {
  if (!verdicts.length) return { decision: 'none', reason: '' };
  const top = verdicts.reduce((a, b) => (RANK[b.decision] > RANK[a.decision] ? b : a));
  const reasons = [...new Set(verdicts.filter((v) => v.decision === top.decision && v.reason).map((v) => v.reason))];
  const notes = verdicts.map((v) => v.note).filter((n): n is string => !!n);
  return { decision: top.decision, reason: reasons.join(' '), ...(notes.length ? { note: notes.join('\n') } : {}) };
}

function blocked(agent: AgentName, event: string, e: unknown): HookAnswer {
  const msg = e instanceof IntentError ? e.message : `internal error: ${(e as Error)?.message ?? String(e)}`;
  return PROTOCOLS[agent].failure(event, msg);
}

/** Exit 2 with the reason on stderr: how Claude Code and Codex are refused when no decision could be made. */
function claudeShapedFailure(_event: string, msg: string): HookAnswer {
  return { stdout: '', stderr: `intent: ${msg}\n`, code: 2 };
}

// --- parsing ------------------------------------------------------------------------------------

function str(o: Json | undefined, key: string): string | undefined {
  const v = o?.[key];
  return typeof v === 'string' ? v : undefined;
}

function obj(o: Json | undefined, key: string): Json | undefined {
  const v = o?.[key];
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
}

function need(o: Json | undefined, key: string, agent: string): string {
  const v = str(o, key);
  if (v === undefined || v === '') throw new IntentError('INVALID_INPUT', `${agent} payload has no "${key}" string; refusing it.`, { field: key });
  return v;
}

/** `provider/model` from a bare model name, guessing the provider from well-known prefixes. */
export function qualifyModel(model: string | undefined, fallbackProvider: string): string | undefined {
  if (!model) return undefined;
  const m = model.trim();
  if (/^[^\s/]+\/\S+$/.test(m)) return m;
  if (!/^\S+$/.test(m)) return undefined;
  const provider = /^claude/i.test(m) ? 'anthropic' : /^(gpt|o\d|chatgpt|codex)/i.test(m) ? 'openai' : /^gemini/i.test(m) ? 'google'
    : /^grok/i.test(m) ? 'xai' : /^(deepseek)/i.test(m) ? 'deepseek' : fallbackProvider;
  return `${provider}/${m}`;
}

/** The model of the newest assistant entry in a Claude Code transcript (JSONL), read from its tail. */
export function modelFromTranscript(path: string | undefined): string | undefined {
  for (const line of tailLines(path, 1 << 20)) {
    if (!line.includes('"model"')) continue;
    try {
      const e = JSON.parse(line) as { type?: string; message?: { role?: string; model?: string } };
      if ((e.type === 'assistant' || e.message?.role === 'assistant') && typeof e.message?.model === 'string') return e.message.model;
    } catch { /* a partial first line */ }
  }
  return undefined;
}

/** `<dir of transcript_path>/<session_id>/subagents/agent-<agent_id>.jsonl`, where Claude Code keeps a subagent's transcript. */
export function subagentTranscript(transcriptPath: string | undefined, sessionId: string, agentId: string): string | undefined {
  if (!transcriptPath || /[/\\]|^\.\.?$/.test(sessionId) || !/^[A-Za-z0-9_-]+$/.test(agentId)) return undefined;
  return join(dirname(transcriptPath), sessionId, 'subagents', `agent-${agentId}.jsonl`);
}

/** What the model proposed in a Write or Edit the user changed before accepting it. */
function claudeProposal(tool: string, input: Json): ToolCall['proposal'] {
  if (tool === 'Write' && typeof input.content === 'string') return { content: input.content };
  if (tool === 'Edit' && typeof input.old_string === 'string' && typeof input.new_string === 'string') {
    return { oldString: input.old_string, newString: input.new_string, replaceAll: input.replace_all === true };
  }
  return undefined;
}

/** `intent context <ID>` run through Bash with its context printed, or the MCP tool select_active_intent. */
function claudeSelection(tool: string, input: Json, response: Json | undefined): string | undefined {
  if (/^mcp__.+__select_active_intent$/.test(tool)) return str(input, 'intent_id');
  if (tool !== 'Bash') return undefined;
  const m = /(?:^|[\s;&|(])(?:npx\s+(?:--no-install\s+)?)?intent\s+context\s+(?:--\S+\s+)*['"]?([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(str(input, 'command') ?? '');
  const stdout = str(response, 'stdout') ?? '';
  return m && stdout.includes('<intent_context') ? m[1] : undefined;
}

function kindOf(tool: string, write: Set<string>, shell: Set<string>, read: Set<string>, input: Json | undefined): ToolCall['kind'] {
  if (write.has(tool)) return 'write';
  if (shell.has(tool)) return 'shell';
  if (read.has(tool)) return 'read';
  if (READ_ONLY.has(tool) || tool.startsWith('mcp__')) return 'other';
  // An unknown tool that names a file may write it: check it like a write (fail closed).
  return str(input, 'file_path') ?? str(input, 'path') ?? str(input, 'target_file') ? 'write' : 'other';
}

function parseClaudeCode(event: string, p: Json): ToolCall {
  const tool = need(p, 'tool_name', 'Claude Code');
  const input = obj(p, 'tool_input');
  if (!input) throw new IntentError('INVALID_INPUT', 'Claude Code payload has no "tool_input" object; refusing it.', { field: 'tool_input' });
  const kind = kindOf(tool, CLAUDE_WRITE, new Set(['Bash']), CLAUDE_READ, input);
  const session = need(p, 'session_id', 'Claude Code');
  const post = event !== 'pre-tool-use';
  const failed = event === 'post-tool-use-failure';
  const response = obj(p, 'tool_response');
  // A subagent's calls carry its id; its model is in its own transcript beside the session's.
  const agentId = str(p, 'agent_id');
  const transcript = agentId ? subagentTranscript(str(p, 'transcript_path'), session, agentId) : str(p, 'transcript_path');
  const needsModel = post && (kind === 'write' || kind === 'delete' || kind === 'shell');
  return {
    agent: 'Claude Code',
    phase: post ? 'post' : 'pre',
    cwd: need(p, 'cwd', 'Claude Code'),
    tool,
    kind,
    path: str(input, 'file_path') ?? str(input, 'notebook_path') ?? str(input, 'path'),
    command: str(input, 'command'),
    modelId: needsModel ? qualifyModel(str(p, 'model') ?? modelFromTranscript(transcript), 'anthropic') : undefined,
    sessionUrl: `claude-code://session/${encodeURIComponent(session)}${agentId ? `/agent/${encodeURIComponent(agentId)}` : ''}`,
    failed,
    session: { agent: 'claude-code', sessionId: session },
    toolUseId: str(p, 'tool_use_id'),
    proposal: post && response?.userModified === true ? claudeProposal(tool, input) : undefined,
    selects: post && !failed ? claudeSelection(tool, input, response) : undefined,
  };
}

// --- the agents -------------------------------------------------------------------------------

/** One agent's hook protocol: the events its program answers (as typed on the command line), its payload's parser, its answers. */
interface Protocol {
  events: readonly string[];
  parse(event: string, p: Json): ToolCall | ToolCall[] | null;
  answer(event: string, v: Verdict, calls: ToolCall[]): HookAnswer;
  /** The answer when no decision could be made (broken input, an internal error): the call refused. */
  failure(event: string, message: string): HookAnswer;
}

const claudeShaped = (event: string, v: Verdict) => claudeShapedAnswer(event, v, { ask: true });

const PROTOCOLS: Record<AgentName, Protocol> = {
  'claude-code': { events: ['pre-tool-use', 'post-tool-use', 'post-tool-use-failure'], parse: parseClaudeCode, answer: claudeShaped, failure: claudeShapedFailure },
  cursor: {
    events: ['pre-tool-use', 'before-shell-execution', 'before-read-file', 'before-mcp-execution', 'after-file-edit'],
    parse: parseCursor, answer: answerCursor, failure: cursorFailure,
  },
  // Cline only listens to JSON.
  cline: { events: ['pre-tool-use', 'post-tool-use'], parse: parseCline, answer: answerCline, failure: clineFailure },
  gemini: { events: ['before-tool', 'after-tool'], parse: (event, p) => parseGemini(event, p, (m) => qualifyModel(m, 'google')), answer: answerGemini, failure: geminiFailure },
  // Codex's hooks are Claude Code's shape, and answered as Claude Code's.
  codex: { events: ['pre-tool-use', 'post-tool-use'], parse: (event, p) => parseCodex(event, p, (m) => qualifyModel(m, 'openai')), answer: claudeShaped, failure: claudeShapedFailure },
  copilot: { events: COPILOT_EVENTS, parse: (event, p) => parseCopilot(event, p, qualifyModel), answer: answerCopilot, failure: copilotFailure },
  opencode: { events: OPENCODE_EVENTS, parse: (event, p) => parseOpenCode(event, p, qualifyModel), answer: answerOpenCode, failure: openCodeFailure },
  qwen: { events: QWEN_EVENTS, parse: (event, p) => parseQwen(event, p, qualifyModel), answer: answerQwen, failure: qwenFailure },
  droid: { events: DROID_EVENTS, parse: (event, p) => parseDroid(event, p, qualifyModel), answer: answerDroid, failure: droidFailure },
};
