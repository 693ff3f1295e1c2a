/**
 * OpenCode's hook protocol (1.18.33; lib/agents/protocols.ts dispatches here). OpenCode has no hook
 * programs: `intent init --agent opencode` writes an in-process plugin, `.opencode/plugin/intent.js`
 * (lib/agents/opencode-plugin.ts), which runs `<git common dir>/intent/bin/agent opencode <event>`
 * around each tool call with a payload it composes from the hook inputs OpenCode gives it. Both
 * sides are ours:
 *
 * Payload (stdin, one JSON object):
 *   `event`      "tool.execute.before" (CLI event `tool-execute-before`) or "tool.execute.after"
 *   `tool`       OpenCode's tool id: `write`, `edit`, `bash`, `apply_patch`, `read`, MCP tools as
 *                `<server>_<tool>`, …
 *   `sessionID`, `callID`   OpenCode's ids (the call id is the model's tool call id)
 *   `args`       the tool's arguments: `write {filePath, content}`, `edit {filePath, oldString,
 *                newString, replaceAll}`, `bash {command, timeout, workdir, description}`,
 *                `apply_patch {patchText}`, `read {filePath, offset, limit}`
 *   `directory`, `worktree`  what OpenCode gave the plugin (the session's directory, its git root)
 *   `model`      `providerID/modelID` of the session's last `chat.params` (not the title agent's),
 *                absent when the plugin has seen none
 *   after only: `title`, `output` (the text the model gets, at most 1 MB of it), `metadata`
 *                (bash: `{output, exit, truncated}`)
 *
 * Answer (stdout, one JSON object, exit 0): before the tool `{"decision":"deny","reason":"…"}`
 * (the plugin throws an Error with the reason: OpenCode hands the model the message and the tool
 * does not run) or `{"decision":"allow"}`; after it `{"note":"…"}` (appended to the tool's output,
 * which is what the model reads) or `{}`. Any other exit, or no JSON, is a refusal in the plugin.
 * OpenCode calls `tool.execute.after` only for a tool that returned (a tool that threw has none),
 * so there is no failed call to forget.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { IntentError } from '../core/errors.js';
import { hostEnv } from '../core/settings.js';
import { contextCommand, type ToolCall, type Verdict } from './hook-adapters.js';
import { patchFiles, type PatchFile } from './patch-paths.js';
import { type HookAnswer as Answer, type Json, needIn, str } from './payload.js';

/** The events this agent's hook program answers (as typed on the command line). */
export const OPENCODE_EVENTS: readonly string[] = ['tool-execute-before', 'tool-execute-after'];

const EVENT: Record<string, string> = { 'tool-execute-before': 'tool.execute.before', 'tool-execute-after': 'tool.execute.after' };
const WRITE = new Set(['write', 'edit']);
/** Tools that neither write nor run anything: no opinion. */
const QUIET = new Set(['glob', 'grep', 'list', 'webfetch', 'websearch', 'codesearch', 'todowrite', 'todoread', 'question', 'skill', 'lsp', 'invalid', 'task']);

const need = needIn('OpenCode');

/** Parses one payload of intent's OpenCode plugin into the tool calls it stands for (an apply_patch may be several). */
export function parseOpenCode(event: string, p: Json, qualify: (model: string | undefined, fallbackProvider: string) => string | undefined): ToolCall[] {
  if (p.event !== EVENT[event]) {
    throw new IntentError('INVALID_INPUT', `OpenCode payload's "event" is ${JSON.stringify(p.event ?? null)}, not "${EVENT[event]}": not a payload of intent's OpenCode plugin; refusing it.`, { field: 'event' });
  }
  const tool = need(p, 'tool');
  const session = need(p, 'sessionID');
  const cwd = need(p, 'directory');
  if (!isAbsolute(cwd)) throw new IntentError('INVALID_INPUT', `OpenCode payload's "directory" is not an absolute path (${cwd}); refusing it.`, { field: 'directory' });
  const raw = p.args;
  const args = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Json) : undefined;
  if (!args) throw new IntentError('INVALID_INPUT', 'OpenCode payload has no "args" object; refusing it.', { field: 'args' });
  const post = event === 'tool-execute-after';
  const output = str(p, 'output') ?? '';
  const base: ToolCall = {
    agent: 'OpenCode',
    phase: post ? 'post' : 'pre',
    cwd,
    tool,
    kind: 'other',
    modelId: qualify(str(p, 'model'), 'opencode'),
    sessionUrl: `opencode://session/${encodeURIComponent(session)}`,
    session: { agent: 'opencode', sessionId: session },
    toolUseId: str(p, 'callID'),
  };
  const file = (key: string): string | undefined => {
    const f = str(args, key);
    return f && !isAbsolute(f) ? resolve(cwd, f) : f;
  };
  if (/_select_active_intent$/.test(tool)) return [{ ...base, selects: post ? str(args, 'intent_id') : undefined }];
  if (WRITE.has(tool)) return [{ ...base, kind: 'write', path: file('filePath') }];
  if (tool === 'read') return [{ ...base, kind: 'read', path: file('filePath') }];
  if (tool === 'bash') {
    const command = str(args, 'command');
    const wd = str(args, 'workdir');
    const at = wd ? resolve(cwd, wd) : cwd;
    const rel = relative(cwd, at);
    if (!post && (rel.startsWith('..') || isAbsolute(rel))) {
      // The command runs outside the session's folder, where its writes would not be seen.
      throw new IntentError('SCOPE_VIOLATION', `the command would run in ${at}, outside this session's worktree ${cwd}: run it inside the worktree (leave workdir out, or name a folder in it).`, { workdir: at });
    }
    const selects = post && command && output.includes('<intent_context') ? contextCommand(command) : undefined;
    return [{ ...base, cwd: at, kind: 'shell', command, selects }];
  }
  if (tool === 'apply_patch') {
    let files: PatchFile[];
    try {
      files = patchFiles(str(args, 'patchText') ?? '');
    } catch {
      return [{ ...base, kind: 'write', path: undefined }]; // a patch that names no file: a write to no file, refused
    }
    const at = (f: string) => (isAbsolute(f) ? f : resolve(cwd, f));
    return files.flatMap((f): ToolCall[] => {
      if (f.op === 'delete') return [{ ...base, kind: 'delete', path: at(f.path) }];
      if (!f.moveTo) return [{ ...base, kind: 'write', path: at(f.path) }];
      return [{ ...base, kind: 'delete', path: at(f.path) }, { ...base, kind: 'write', path: at(f.moveTo) }];
    });
  }
  if (QUIET.has(tool)) return [base];
  // Another tool (an MCP server's, a plugin's) that names a file may write it: checked as a write (fail closed).
  const named = file('filePath') ?? file('file_path') ?? file('path');
  return [named ? { ...base, kind: 'write', path: named } : base];
}

/** A verdict in the shape intent's OpenCode plugin reads (see the file header). */
export function answerOpenCode(event: string, v: Verdict, calls: ToolCall[]): Answer {
  void calls;
  const json = (o: unknown): Answer => ({ stdout: JSON.stringify(o) + '\n', stderr: '', code: 0 });
  const reason = v.reason ? `intent: ${v.reason}` : '';
  if (event === 'tool-execute-before') {
    // No "ask": a plugin cannot ask the human from here, and `opencode run` has nobody to ask.
    if (v.decision === 'deny') return json({ decision: 'deny', reason });
    if (v.decision === 'ask') return json({ decision: 'deny', reason: `${reason} (refused: a human must run it)` });
    return json({ decision: 'allow' });
  }
  const note = [reason, v.note].filter(Boolean).join('\n');
  return json(note ? { note } : {});
}

/** A hook that could not decide: refused before the tool, reported to the model after it. */
export function openCodeFailure(event: string, message: string): Answer {
  return answerOpenCode(event, { decision: 'deny', reason: message }, []);
}

/** Where `intent init --agent opencode` writes the plugin, relative to a checkout. */
export const OPENCODE_PLUGIN_FILE = join('.opencode', 'plugin', 'intent.js');

/**
 * `intent doctor`: OpenCode has no trust step, so what can leave a session ungoverned is a plugin
 * file that is not ours, or OpenCode told to load no project plugin: `OPENCODE_PURE` (`opencode
 * --pure`) or `OPENCODE_DISABLE_PROJECT_CONFIG` (seen with 1.18.33: the plugin is not loaded, and
 * the session runs without a word). A `plugin` list in opencode.json adds plugins, it does not
 * replace the folder's. That the file is committed and the same in every intent worktree is the
 * agent-config check's (it carries the marker).
 */
export function openCodeChecks(mainRoot: string, env: NodeJS.ProcessEnv = hostEnv()): { subject: string; ok: boolean; message: string }[] {
  const file = join(mainRoot, OPENCODE_PLUGIN_FILE);
  if (!existsSync(file)) return [];
  if (!readFileSync(file, 'utf8').includes('intent/bin/agent')) {
    return [{ subject: 'opencode plugin', ok: false, message: `${OPENCODE_PLUGIN_FILE} is not intent's plugin: OpenCode sessions here are not governed by intent. Move it away, then run \`intent init --agent opencode\`.` }];
  }
  const off = ['OPENCODE_PURE', 'OPENCODE_DISABLE_PROJECT_CONFIG'].filter((k) => env[k] && env[k] !== '0' && env[k] !== 'false');
  if (off.length) {
    return [{ subject: 'opencode plugin', ok: false, message: `${off.join(' and ')} ${off.length === 1 ? 'is' : 'are'} set: OpenCode started from this environment loads no project plugin, so its sessions write and commit ungoverned. Unset ${off.length === 1 ? 'it' : 'them'}.` }];
  }
  return [{ subject: 'opencode plugin', ok: true, message: `OpenCode loads ${OPENCODE_PLUGIN_FILE} with no trust step (not with \`opencode --pure\`, OPENCODE_PURE or OPENCODE_DISABLE_PROJECT_CONFIG, which run a session ungoverned)` }];
}
