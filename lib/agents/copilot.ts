/**
 * GitHub Copilot CLI's hook protocol (1.0.102; lib/agents/protocols.ts dispatches here). Copilot
 * runs a repository's hooks from `.github/hooks/*.json` and from `.claude/settings.json` (once the
 * folder is trusted), and sends two payload families:
 * - camelCase events (`preToolUse`, `postToolUse`, `postToolUseFailure` in `.github/hooks/`):
 *   `{sessionId, timestamp (ms), cwd, toolName, toolArgs}`, after the tool `toolResult
 *   {resultType, textResultForLlm}`, after a failure `error`;
 * - PascalCase events (`PreToolUse`, … in `.claude/settings.json`, where our Claude Code runner
 *   gets them): `{hook_event_name, session_id, timestamp (ISO), cwd, tool_name, tool_input}`,
 *   `tool_result {result_type, text_result_for_llm}`, `error`, with Claude's tool names (`Bash`,
 *   `Write`, `Edit`, `Read`) but Copilot's arguments.
 * Tools: `bash {command, description, mode, …}`, `create {path, file_text}`, `edit {path,
 * old_str, new_str}`, `view {path}`; for the GPT-5 codex models a freeform `apply_patch` whose
 * arguments are the patch itself (a string; `Edit` in the PascalCase family). No model, no call
 * id, no transcript in any payload: both are read from `$COPILOT_HOME/session-state/<session>/
 * events.jsonl` (the `tool.execution_start` entry of the call, logged before its pre hook runs but
 * not always on disk by then: the model is read after the tool, the call id only names the call for
 * the double-hook check).
 * Answers: a refusal before the tool is `{"permissionDecision":"deny","permissionDecisionReason"}`
 * (the model reads `Denied by preToolUse hook: <reason>`), a question to the user the same with
 * "ask"; after it, `{"additionalContext"}` (read in both families; Claude's
 * `hookSpecificOutput.additionalContext` is not). When a repository
 * registers both files, Copilot runs both hooks for each call (the camelCase one first, the other
 * only when the first did not refuse): the second to see a call leaves it alone.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { IntentError } from '../core/errors.js';
import { writeFileAtomic } from '../core/files.js';
import { withLock } from '../core/lock.js';
import { hostEnv } from '../core/settings.js';
import { openRepo } from '../git/repo.js';
import { contextCommand, type ToolCall, type Verdict } from './hook-adapters.js';
import { patchFiles, type PatchFile } from './patch-paths.js';
import { tailLines } from './transcript-tail.js';
import { type HookAnswer as Answer, type Json, needIn, obj, str } from './payload.js';

/** The events this agent's hook program answers (as typed on the command line). */
export const COPILOT_EVENTS: readonly string[] = ['pre-tool-use', 'post-tool-use', 'post-tool-use-failure'];

/** Claude's tool names in the PascalCase family, as Copilot's own (`Edit` with a string is apply_patch). */
const CLAUDE_NAMES: Record<string, string> = { Bash: 'bash', Write: 'create', Edit: 'edit', Read: 'view' };
const WRITE = new Set(['create', 'edit']);
const READ = new Set(['view']);
/** Tools that write nothing in the worktree (Copilot's own session database, agents, searches). */
const OTHER = new Set(['read_bash', 'stop_bash', 'list_bash', 'write_bash', 'grep', 'rg', 'glob', 'task', 'read_agent', 'list_agents', 'write_agent',
  'skill', 'sql', 'session_store_sql', 'fetch_copilot_cli_documentation', 'web_fetch', 'report_intent', 'think', 'update_todo']);

const need = needIn('GitHub Copilot CLI');

/**
 * Whether a payload the Claude Code runner got is Copilot's (Copilot runs `.claude/settings.json`
 * hooks too): Claude Code's always carry `transcript_path` and `tool_use_id`; Copilot's carry
 * neither, and an ISO `timestamp` Claude Code never sends.
 */
export function isCopilotPayload(p: Json): boolean {
  return p.transcript_path === undefined && p.tool_use_id === undefined && typeof p.timestamp === 'string' && typeof p.tool_name === 'string';
}

/** JSON with sorted keys: the same arguments compare equal whatever their key order. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Json)[k])}`).join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

/** `$COPILOT_HOME/session-state/<session>/events.jsonl` (COPILOT_HOME defaults to ~/.copilot), or undefined for an id that is no plain name. */
export function copilotEventsFile(sessionId: string, env: NodeJS.ProcessEnv = hostEnv()): string | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(sessionId)) return undefined;
  const home = env.COPILOT_HOME || join(env.HOME || homedir(), '.copilot');
  return join(home, 'session-state', sessionId, 'events.jsonl');
}

/**
 * The call's `tool.execution_start` entry in Copilot's session log (its last 4 MB, newest first):
 * the entry whose arguments are the payload's. Its `toolCallId` and `model`; the model of the
 * newest call (or the session's selected model) when none matches.
 */
export function copilotToolStart(events: string | undefined, args: unknown): { toolCallId?: string; model?: string } {
  const want = canonical(args);
  let fallback: string | undefined;
  for (const line of tailLines(events, 4 << 20)) {
    if (!line.includes('"tool.execution_start"') && !line.includes('"session.start"')) continue;
    try {
      const e = JSON.parse(line) as { type?: string; data?: { toolCallId?: unknown; arguments?: unknown; model?: unknown; selectedModel?: unknown } };
      const model = typeof e.data?.model === 'string' && e.data.model ? e.data.model : undefined;
      if (e.type === 'session.start') {
        fallback ??= typeof e.data?.selectedModel === 'string' && e.data.selectedModel ? e.data.selectedModel : undefined;
        continue;
      }
      if (e.type !== 'tool.execution_start') continue;
      fallback ??= model;
      if (canonical(e.data?.arguments) === want && typeof e.data?.toolCallId === 'string') return { toolCallId: e.data.toolCallId, model: model ?? fallback };
    } catch { /* a partial first line */ }
  }
  return { model: fallback };
}

/**
 * True for the first hook to see (call, phase): when both `.github/hooks/intent.json` and
 * `.claude/settings.json` are registered, Copilot runs both for each call, and the second leaves
 * it alone (it was decided, staged and credited once). The last 200 calls per session are kept
 * under the worktree's git dir.
 */
function firstToSee(cwd: string, sessionId: string, callId: string, phase: string): boolean {
  let gitDir: string;
  try {
    gitDir = openRepo(cwd).gitDir;
  } catch {
    return true;
  }
  const dir = join(gitDir, 'intent-agent', 'copilot-calls');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, createHash('sha256').update(sessionId).digest('hex').slice(0, 24) + '.json');
  const key = `${callId}\0${phase}`;
  return withLock(file + '.lock', () => {
    let seen: string[] = [];
    try {
      const v = JSON.parse(readFileSync(file, 'utf8')) as unknown;
      if (Array.isArray(v)) seen = v.filter((x): x is string => typeof x === 'string');
    } catch { /* none yet */ }
    if (seen.includes(key)) return false;
    writeFileAtomic(file, JSON.stringify([...seen.slice(-199), key]));
    return true;
  });
}

function jsonObject(text: string): Json | undefined {
  try {
    return obj(JSON.parse(text));
  } catch {
    return undefined;
  }
}

/** The fields of either payload family, named one way. */
interface Fields {
  session: string;
  cwd: string;
  tool: string;
  args: unknown;
  resultType?: string;
  text: string;
}

function fields(p: Json): Fields {
  if (typeof p.toolName === 'string' || p.sessionId !== undefined) {
    const result = obj(p.toolResult);
    return { session: need(p, 'sessionId'), cwd: need(p, 'cwd'), tool: need(p, 'toolName'), args: p.toolArgs, resultType: str(result, 'resultType'), text: str(result, 'textResultForLlm') ?? '' };
  }
  const result = obj(p.tool_result);
  const named = need(p, 'tool_name');
  const tool = named === 'Edit' && typeof p.tool_input === 'string' ? 'apply_patch' : CLAUDE_NAMES[named] ?? named;
  return { session: need(p, 'session_id'), cwd: need(p, 'cwd'), tool, args: p.tool_input, resultType: str(result, 'result_type'), text: str(result, 'text_result_for_llm') ?? '' };
}

/** Parses one payload (either family) into the tool calls it stands for (an apply_patch may be several). */
export function parseCopilot(event: string, p: Json, qualify: (model: string | undefined, fallbackProvider: string) => string | undefined): ToolCall[] {
  const f = fields(p);
  // toolArgs is an object, or the patch itself for the freeform apply_patch (an object's arguments
  // sent as a JSON string are read as the object).
  const input = obj(f.args) ?? (typeof f.args === 'string' && f.tool !== 'apply_patch' ? jsonObject(f.args) : undefined);
  const patch = typeof f.args === 'string' && !input ? f.args : undefined;
  if (!input && patch === undefined) throw new IntentError('INVALID_INPUT', 'GitHub Copilot CLI payload has no tool arguments (toolArgs / tool_input); refusing it.', { field: 'toolArgs' });
  const post = event !== 'pre-tool-use';
  const start = copilotToolStart(copilotEventsFile(f.session), f.args);
  if (start.toolCallId && !firstToSee(f.cwd, f.session, start.toolCallId, post ? 'post' : 'pre')) return [];
  const failed = post && (event === 'post-tool-use-failure' || (f.resultType !== undefined && f.resultType !== 'success'));
  const base: ToolCall = {
    agent: 'GitHub Copilot CLI',
    phase: post ? 'post' : 'pre',
    cwd: f.cwd,
    tool: f.tool,
    kind: 'other',
    modelId: post ? qualify(start.model, 'github') : undefined,
    sessionUrl: `copilot-cli://session/${encodeURIComponent(f.session)}`,
    failed,
    session: { agent: 'copilot', sessionId: f.session },
    // No call id in the payload, and the log's entry may not be on disk yet when the pre hook
    // runs: the call's tool and arguments (the same in both families) key a shell snapshot from pre to post.
    toolUseId: 'copilot-' + createHash('sha256').update(canonical([f.tool, f.args])).digest('hex').slice(0, 32),
  };
  const at = (path: string | undefined) => (path && !isAbsolute(path) ? resolve(f.cwd, path) : path);
  if (f.tool === 'bash' && input) {
    const command = str(input, 'command');
    const selects = post && !failed && command && f.text.includes('<intent_context') ? contextCommand(command) : undefined;
    return [{ ...base, kind: 'shell', command, selects }];
  }
  if (/(^|[-_])select_active_intent$/.test(f.tool) && input) return [{ ...base, selects: post && !failed ? str(input, 'intent_id') : undefined }];
  if (f.tool === 'apply_patch' || patch !== undefined) {
    let files: PatchFile[];
    try {
      files = patchFiles(patch ?? str(input, 'patch') ?? str(input, 'input') ?? '');
    } catch {
      return [{ ...base, kind: 'write', path: undefined }]; // a patch that names no file: a write to no file, refused
    }
    // A patch that fails half way keeps what it applied ("Patch partially applied before failure"):
    // what is on disk afterwards is staged either way.
    return files.flatMap((file): ToolCall[] => {
      const one = { ...base, failed: false };
      if (file.op === 'delete') return [{ ...one, kind: 'delete', path: at(file.path) }];
      if (!file.moveTo) return [{ ...one, kind: 'write', path: at(file.path) }];
      return [{ ...one, kind: 'delete', path: at(file.path) }, { ...one, kind: 'write', path: at(file.moveTo) }];
    });
  }
  const path = at(str(input, 'path') ?? str(input, 'file_path'));
  if (WRITE.has(f.tool)) return [{ ...base, kind: 'write', path }];
  if (READ.has(f.tool)) {
    // A view of a folder lists it: nothing read to compare later.
    const isFile = (() => { try { return !!path && statSync(path).isFile(); } catch { return false; } })();
    return [{ ...base, kind: isFile || !post ? 'read' : 'other', path }];
  }
  // An unknown tool that names a file may write it: checked like a write (fail closed).
  if (!OTHER.has(f.tool) && !f.tool.includes('-') && path) return [{ ...base, kind: 'write', path }];
  return [base];
}

/** A verdict in Copilot's shape (both families read the same answer). */
export function answerCopilot(event: string, v: Verdict, calls: ToolCall[]): Answer {
  void calls;
  const json = (o: unknown): Answer => ({ stdout: JSON.stringify(o) + '\n', stderr: '', code: 0 });
  const reason = v.reason ? `intent: ${v.reason}` : '';
  if (event === 'pre-tool-use') {
    // "ask" goes to the user; a headless run (`copilot -p`, even with --allow-all) refuses it:
    // "Denied by preToolUse hook (unable to ask user for confirmation): <reason>" (1.0.102).
    if (v.decision === 'deny' || v.decision === 'ask') return json({ permissionDecision: v.decision, permissionDecisionReason: reason });
    return { stdout: '', stderr: '', code: 0 };
  }
  const context = [reason, v.note].filter(Boolean).join('\n');
  return context ? json({ additionalContext: context }) : { stdout: '', stderr: '', code: 0 };
}

/** A hook that could not decide: refused before the tool, reported to the model after it. */
export function copilotFailure(event: string, message: string): Answer {
  return answerCopilot(event, { decision: 'deny', reason: message }, []);
}
