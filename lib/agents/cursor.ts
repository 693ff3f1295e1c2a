/**
 * Cursor's hook protocol (lib/agents/protocols.ts dispatches here). `.cursor/hooks.json` registers
 * `preToolUse` (writes and deletes), `beforeShellExecution` (shell commands: the only place we
 * classify them, once), `beforeReadFile` (the read is recorded for the stale-write check),
 * `beforeMCPExecution` (select_active_intent selects the intent for the handshake) and
 * `afterFileEdit` (credit; it cannot block). An answer with `permission: "allow"` would run the
 * call without Cursor's own approval, so when we have no objection we print nothing.
 */
import { dirname, isAbsolute } from 'node:path';
import { IntentError } from '../core/errors.js';
import { contextCommand, type ToolCall, type Verdict } from './hook-adapters.js';

type Json = Record<string, unknown>;

const WRITE = new Set(['Write', 'Edit', 'StrReplace', 'MultiEdit', 'TabWrite', 'edit_file', 'write', 'search_replace', 'apply_patch', 'ApplyPatch']);
const DELETE = new Set(['Delete', 'delete_file']);
const SHELL = new Set(['Shell', 'run_terminal_cmd', 'Bash', 'Terminal']);
const OTHER = new Set([
  'Read', 'ReadFile', 'read_file', 'Grep', 'Glob', 'Search', 'ListDir', 'list_dir', 'codebase_search', 'grep_search', 'file_search',
  'web_search', 'WebSearch', 'WebFetch', 'fetch_rules', 'Task', 'TodoWrite', 'todo_write', 'ReadLints', 'read_lints',
]);

function str(o: Json | undefined, key: string): string | undefined {
  const v = o?.[key];
  return typeof v === 'string' ? v : undefined;
}

function need(o: Json | undefined, key: string): string {
  const v = str(o, key);
  if (v === undefined || v === '') throw new IntentError('INVALID_INPUT', `Cursor payload has no "${key}" string; refusing it.`, { field: key });
  return v;
}

function object(v: unknown): Json | undefined {
  if (typeof v === 'string') {
    try {
      return object(JSON.parse(v));
    } catch {
      return undefined;
    }
  }
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
}

function qualify(model: string | undefined): string | undefined {
  if (!model) return undefined;
  const m = model.trim();
  if (/^[^\s/]+\/\S+$/.test(m)) return m;
  if (!/^\S+$/.test(m)) return undefined;
  const provider = /^claude/i.test(m) ? 'anthropic' : /^(gpt|o\d|chatgpt|codex)/i.test(m) ? 'openai' : /^gemini/i.test(m) ? 'google'
    : /^grok/i.test(m) ? 'xai' : /^deepseek/i.test(m) ? 'deepseek' : 'cursor';
  return `${provider}/${m}`;
}

/** Parses one Cursor hook payload; null when the event carries nothing for us to decide. */
export function parseCursor(event: string, p: Json): ToolCall | null {
  const roots = Array.isArray(p.workspace_roots) ? p.workspace_roots.filter((r): r is string => typeof r === 'string') : [];
  const file = str(p, 'file_path');
  const cwd = str(p, 'cwd') || (file && isAbsolute(file) ? dirname(file) : undefined) || roots[0];
  if (!cwd) throw new IntentError('INVALID_INPUT', 'Cursor payload has neither "cwd" nor "workspace_roots"; refusing it.', { field: 'cwd' });
  const conversation = str(p, 'conversation_id') ?? str(p, 'session_id') ?? 'unknown';
  const base = {
    agent: 'Cursor',
    cwd,
    sessionUrl: `cursor://conversation/${encodeURIComponent(conversation)}`,
    modelId: qualify(str(p, 'model')),
    session: { agent: 'cursor', sessionId: conversation },
  };
  if (event === 'before-shell-execution') {
    // No hook follows the command here: `intent context <ID>` selects as it is about to run.
    const command = need(p, 'command');
    return { ...base, phase: 'pre', tool: 'Shell', kind: 'shell', command, selects: contextCommand(command) };
  }
  if (event === 'after-file-edit') return { ...base, phase: 'post', tool: 'Edit', kind: 'write', path: need(p, 'file_path') };
  // The read is about to happen with the bytes on disk now: that is what the model will have seen.
  if (event === 'before-read-file') return { ...base, phase: 'post', tool: 'Read', kind: 'read', path: need(p, 'file_path') };
  const tool = need(p, 'tool_name');
  const input = object(p.tool_input) ?? {};
  if (/(^|[:_/.])select_active_intent$/.test(tool)) {
    const id = str(input, 'intent_id');
    return id ? { ...base, phase: 'pre', tool, kind: 'other', selects: id } : null;
  }
  if (event === 'before-mcp-execution' || SHELL.has(tool) || OTHER.has(tool) || tool.startsWith('MCP:') || tool.startsWith('mcp_')) {
    // Shell commands are classified once, in beforeShellExecution; MCP and read-only tools have nothing to check.
    return null;
  }
  const path = str(input, 'file_path') ?? str(input, 'path') ?? str(input, 'target_file');
  if (DELETE.has(tool)) return { ...base, phase: 'pre', tool, kind: 'delete', path };
  if (WRITE.has(tool) || path) return { ...base, phase: 'pre', tool, kind: 'write', path };
  return null;
}

/** Cursor's answer. Never `allow`: no objection is no output, so Cursor's own approval still applies. */
export function answerCursor(event: string, v: Verdict): { stdout: string; stderr: string; code: number } {
  const reason = v.reason ? `intent: ${v.reason}` : '';
  if (event === 'after-file-edit') {
    if (v.decision !== 'deny') return { stdout: '', stderr: '', code: 0 };
    // afterFileEdit cannot block: the edit is on disk. Say so as loudly as Cursor lets us.
    return {
      stdout: '',
      stderr: `intent: OUT OF SCOPE, NOT UNDONE: ${v.reason}\nintent: the edit stays on disk and will not be committed (pre-commit refuses it): restore the file, or ask a human to widen the scope (intent expand).\n`,
      code: 2,
    };
  }
  if (v.decision === 'deny' || v.decision === 'ask') {
    const body = { permission: v.decision, user_message: reason, agent_message: reason };
    return { stdout: JSON.stringify(body) + '\n', stderr: '', code: 0 };
  }
  return { stdout: '', stderr: '', code: 0 };
}

/** A payload we could not read blocks (exit 2; hooks.json marks our hooks failClosed). */
export function cursorFailure(event: string, message: string): { stdout: string; stderr: string; code: number } {
  return { stdout: '', stderr: `intent: ${message}\n`, code: event === 'after-file-edit' ? 1 : 2 };
}
