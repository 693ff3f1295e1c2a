/**
 * Factory droid's hook protocol (0.225.2; lib/agents/protocols.ts dispatches here). Hooks are
 * Claude Code's shape in the project's `.factory/settings.json` (`hooks.PreToolUse` /
 * `PostToolUse`; `.factory/hooks.json` is not read), answered like Claude Code's
 * (`hookSpecificOutput.permissionDecision`; exit 2 + stderr blocks too; the model reads
 * `Error: <reason>`). The payload: `session_id`, `transcript_path`, `cwd`, `permission_mode`,
 * `hook_event_name`, `tool_name`, `tool_input`, and after the tool `tool_response` (a string) — no
 * model and no tool-call id. A tool that fails (a shell command's non-zero exit too) gets no after
 * hook at all: droid has no PostToolUseFailure. Tools: `Create {file_path, content}`, `Edit
 * {file_path, old_str, new_str, change_all}`, `ApplyPatch` (the models that edit by patch),
 * `Execute {command, summary, riskLevel, riskLevelReason, timeout}`, `Read {file_path}`, MCP tools
 * as `<server>___<tool>`. The model is read from the transcript (JSONL: the newest assistant
 * message's `modelId`, written before the tool runs); a custom model (`custom:<name>-<n>`) is the
 * `model` of that entry of `customModels` in ~/.factory/settings.json. Droid's shell keeps git's
 * hooks on.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { IntentError } from '../core/errors.js';
import { hostEnv } from '../core/settings.js';
import { contextCommand, type ToolCall, type Verdict } from './hook-adapters.js';
import { patchFiles, type PatchFile } from './patch-paths.js';
import { tailLines } from './transcript-tail.js';
import { claudeShapedAnswer, type HookAnswer as Answer, type Json, needIn, str } from './payload.js';

/** The events this agent's hook program answers (as typed on the command line). */
export const DROID_EVENTS: readonly string[] = ['pre-tool-use', 'post-tool-use'];

const WRITE = new Set(['Create', 'Edit', 'MultiEdit']);

const need = needIn('Factory droid');

/** The `modelId` of the newest assistant message in a droid transcript (JSONL), read from its last megabyte. */
export function modelFromDroidTranscript(path: string | undefined): string | undefined {
  for (const line of tailLines(path, 1 << 20)) {
    if (!line.includes('"modelId"')) continue;
    try {
      const m = (JSON.parse(line) as { message?: { role?: string; modelId?: unknown } }).message;
      if (m?.role === 'assistant' && typeof m.modelId === 'string' && m.modelId) return m.modelId;
    } catch { /* a partial first line */ }
  }
  return undefined;
}

const PROVIDERS: Record<string, string> = { anthropic: 'anthropic', openai: 'openai', google: 'google', xai: 'xai' };

/**
 * `provider/model` for a droid model id: a Factory model as it is named (provider guessed from
 * the name), a custom one (`custom:<display name, spaces as ->-<n>`, the n-th entry of that name)
 * as the `model` its `customModels` entry in ~/.factory/settings.json sends, under its provider.
 */
export function droidModel(id: string | undefined, qualify: (model: string | undefined, fallbackProvider: string) => string | undefined, home: string): string | undefined {
  if (!id) return undefined;
  if (!id.startsWith('custom:')) return qualify(id, 'factory');
  let models: unknown;
  try {
    models = (JSON.parse(readFileSync(join(home, '.factory', 'settings.json'), 'utf8')) as Json).customModels;
  } catch {
    return undefined;
  }
  if (!Array.isArray(models)) return undefined;
  const seen = new Map<string, number>();
  for (const [i, m] of models.entries()) {
    const e = m && typeof m === 'object' ? (m as Json) : {};
    const model = str(e, 'model');
    const name = (str(e, 'displayName') ?? model ?? '').trim().replace(/\s+/g, '-');
    const n = seen.get(name) ?? 0;
    seen.set(name, n + 1);
    if (model && (str(e, 'id') === id || id === `custom:${name}-${n}` || id === `custom:${name}-${i}`)) {
      return qualify(model, PROVIDERS[str(e, 'provider') ?? ''] ?? 'custom');
    }
  }
  return undefined;
}

/** Parses one droid hook payload into the tool calls it stands for (an ApplyPatch may be several). */
export function parseDroid(event: string, p: Json, qualify: (model: string | undefined, fallbackProvider: string) => string | undefined): ToolCall[] {
  const tool = need(p, 'tool_name');
  const raw = p.tool_input;
  const input = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Json) : undefined;
  if (!input) throw new IntentError('INVALID_INPUT', 'Factory droid payload has no "tool_input" object; refusing it.', { field: 'tool_input' });
  const session = need(p, 'session_id');
  const cwd = need(p, 'cwd');
  const post = event === 'post-tool-use';
  const response = typeof p.tool_response === 'string' ? p.tool_response : '';
  if (tool === 'Script' && !post) {
    // A script runs tools and commands of its own: what it writes is not seen here.
    throw new IntentError('INVALID_INPUT', 'Factory droid\'s Script tool is not governed by intent; use Create, Edit and Execute.', { tool });
  }
  const base: ToolCall = {
    agent: 'Factory droid',
    phase: post ? 'post' : 'pre',
    cwd,
    tool,
    kind: 'other',
    modelId: post ? droidModel(modelFromDroidTranscript(str(p, 'transcript_path')), qualify, hostEnv().HOME || homedir()) : undefined,
    sessionUrl: `droid://session/${encodeURIComponent(session)}`,
    session: { agent: 'droid', sessionId: session },
  };
  if (/___select_active_intent$/.test(tool)) return [{ ...base, selects: post ? str(input, 'intent_id') : undefined }];
  if (tool === 'Execute') {
    const command = str(input, 'command');
    const selects = post && command && response.includes('<intent_context') ? contextCommand(command) : undefined;
    // No call id in the payload: the session and the command's input key its shell snapshot from before to after.
    const toolUseId = 'droid-' + createHash('sha256').update(JSON.stringify([session, tool, input])).digest('hex').slice(0, 32);
    return [{ ...base, kind: 'shell', command, selects, toolUseId }];
  }
  if (tool === 'Read') return [{ ...base, kind: 'read', path: abs(cwd, str(input, 'file_path')) }];
  if (tool === 'ApplyPatch') {
    let files: PatchFile[];
    try {
      files = patchFiles(str(input, 'input') ?? str(input, 'patch') ?? str(input, 'command') ?? '');
    } catch {
      return [{ ...base, kind: 'write', path: undefined }]; // a patch that names no file: a write to no file, refused
    }
    return files.flatMap((f): ToolCall[] => {
      if (f.op === 'delete') return [{ ...base, kind: 'delete', path: abs(cwd, f.path) }];
      if (!f.moveTo) return [{ ...base, kind: 'write', path: abs(cwd, f.path) }];
      return [{ ...base, kind: 'delete', path: abs(cwd, f.path) }, { ...base, kind: 'write', path: abs(cwd, f.moveTo) }];
    });
  }
  const path = str(input, 'file_path') ?? str(input, 'path');
  // An unknown tool that names a file may write it: check it like a write (fail closed).
  if (WRITE.has(tool) || (path && !tool.includes('___'))) return [{ ...base, kind: 'write', path: abs(cwd, path) }];
  return [base];
}

function abs(cwd: string, path: string | undefined): string | undefined {
  return path && !isAbsolute(path) ? resolve(cwd, path) : path;
}

/** A verdict in droid's shape (Claude Code's). */
export function answerDroid(event: string, v: Verdict): Answer {
  // No "ask": the payload does not say whether a human is there (`droid exec` has none). What needs a human is refused, with the reason.
  return claudeShapedAnswer(event, v, { ask: false });
}

/** A hook that could not decide: refused before the tool (exit 2, the reason on stderr), reported to the model after it. */
export function droidFailure(event: string, message: string): Answer {
  if (event === 'pre-tool-use') return { stdout: '', stderr: `intent: ${message}\n`, code: 2 };
  return answerDroid(event, { decision: 'deny', reason: message });
}
