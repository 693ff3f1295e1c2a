/**
 * Codex CLI's hook protocol (0.171; lib/agents/protocols.ts dispatches here). Codex's hooks are
 * Claude Code's shape (`.codex/hooks.json`, PreToolUse/PostToolUse, answered like Claude Code's),
 * with these differences: the payload has the `model`; the shell tool arrives as `Bash {command}`
 * with the model's `workdir` dropped (it is read back from the session's rollout, which holds the
 * call before the hook runs: the command is judged where it runs); file edits are
 * `apply_patch {command: <the patch>}` (one call per file it adds, updates, deletes or moves,
 * paths relative to the cwd); `tool_response` is a plain string; MCP tools are
 * `mcp__<server>__<tool>`.
 */
import { isAbsolute, relative, resolve } from 'node:path';
import { IntentError } from '../core/errors.js';
import { contextCommand, type ToolCall } from './hook-adapters.js';
import { patchFiles, type PatchFile } from './patch-paths.js';
import { tailLines } from './transcript-tail.js';
import { type Json, needIn, str } from './payload.js';

const need = needIn('Codex');

/** The `workdir` the model gave the shell call `callId`, from the session's rollout (JSONL; its last 4 MB), or undefined. */
export function codexWorkdir(rollout: string | undefined, callId: string | undefined): string | undefined {
  if (!callId) return undefined;
  const needle = JSON.stringify(callId);
  for (const line of tailLines(rollout, 4 << 20)) {
    if (!line.includes(needle) || !line.includes('"function_call"')) continue;
    try {
      const item = (JSON.parse(line) as { payload?: { type?: string; call_id?: string; arguments?: string } }).payload;
      if (item?.type !== 'function_call' || item.call_id !== callId || typeof item.arguments !== 'string') continue;
      const wd = (JSON.parse(item.arguments) as { workdir?: unknown }).workdir;
      return typeof wd === 'string' && wd ? wd : undefined;
    } catch { /* a partial first line, or arguments that are no JSON */ }
  }
  return undefined;
}

/** Parses one Codex hook payload into the tool calls it stands for (an apply_patch may be several). */
export function parseCodex(event: string, p: Json, qualify: (model: string | undefined) => string | undefined): ToolCall[] {
  const tool = need(p, 'tool_name');
  const raw = p.tool_input;
  const input = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Json) : undefined;
  if (!input) throw new IntentError('INVALID_INPUT', 'Codex payload has no "tool_input" object; refusing it.', { field: 'tool_input' });
  const session = need(p, 'session_id');
  const cwd = need(p, 'cwd');
  const post = event === 'post-tool-use';
  const response = typeof p.tool_response === 'string' ? p.tool_response : '';
  const agentId = str(p, 'agent_id');
  const base: ToolCall = {
    agent: 'Codex',
    phase: post ? 'post' : 'pre',
    cwd,
    tool,
    kind: 'other',
    modelId: qualify(str(p, 'model')),
    sessionUrl: `codex://session/${encodeURIComponent(session)}${agentId ? `/agent/${encodeURIComponent(agentId)}` : ''}`,
    session: { agent: 'codex', sessionId: session },
    toolUseId: str(p, 'tool_use_id'),
  };
  if (/^mcp__.+__select_active_intent$/.test(tool)) return [{ ...base, selects: post ? str(input, 'intent_id') : undefined }];
  if (tool === 'Bash') {
    const command = str(input, 'command');
    const wd = codexWorkdir(str(p, 'transcript_path'), base.toolUseId);
    const at = wd ? resolve(cwd, wd) : cwd;
    const rel = relative(cwd, at);
    if (!post && (rel.startsWith('..') || isAbsolute(rel))) {
      // The command runs outside the session's folder, where its writes would not be seen.
      throw new IntentError('SCOPE_VIOLATION', `the command would run in ${at}, outside this session's worktree ${cwd}: run it inside the worktree (leave workdir out, or name a folder in it).`, { workdir: at });
    }
    base.cwd = at;
    const selects = post && command && response.includes('<intent_context') ? contextCommand(command) : undefined;
    return [{ ...base, kind: 'shell', command, selects }];
  }
  if (tool === 'apply_patch') {
    let files: PatchFile[];
    try {
      files = patchFiles(str(input, 'command') ?? str(input, 'patch') ?? str(input, 'input') ?? '');
    } catch {
      return [{ ...base, kind: 'write', path: undefined }]; // a patch that names no file: a write to no file, refused
    }
    // A failed patch changes nothing: after it, the calls are marked failed (nothing to stage).
    const failed = post && !/^Exit code: 0\b/m.test(response) && !/Success\. Updated the following files/.test(response);
    return files.flatMap((f): ToolCall[] => {
      const one = { ...base, failed };
      if (f.op === 'delete') return [{ ...one, kind: 'delete', path: f.path }];
      if (!f.moveTo) return [{ ...one, kind: 'write', path: f.path }];
      return [{ ...one, kind: 'delete', path: f.path }, { ...one, kind: 'write', path: f.moveTo }];
    });
  }
  return [base];
}
