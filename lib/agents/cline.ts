/**
 * Cline's hook protocol (lib/agents/protocols.ts dispatches here). Three payload shapes, all
 * answered by the same hook files (`.cline/hooks/PreToolUse`, `.../PostToolUse`; Cline still reads
 * the deprecated `.clinerules/hooks/`):
 * - the SDK-based CLI (cline/cline at 21cb8d2525bc, sdk/packages/core/src/hooks/hook-file-hooks.ts):
 *   `hookName: "tool_call" | "tool_result"`, the raw input in `tool_call.input` /
 *   `tool_result.input`, no model; tools `run_commands {commands[]}`, `editor {path, old_text,
 *   new_text, insert_line}`, `read_files {files[]}`, `apply_patch {input}`, MCP tools as
 *   `<server>__<tool>`. Its answer may carry `overrideInput` (the tool runs with it) and
 *   `context` (handed to the model after the tool result); `cancel` stops the whole run and
 *   `review` is parsed but dropped (beforeToolResultFromControl). So a refusal there replaces the
 *   input with one that does nothing and tells the model why: the model can correct itself.
 * - the VS Code extension on the SDK (apps/vscode/src/sdk/hooks-adapter.ts): `hookName:
 *   "PreToolUse"`, the same tool names, `parameters` only (non-strings JSON-encoded), `model`
 *   `{provider: "unknown", slug: "unknown"}`. Only `cancel` blocks there.
 * - the older extension (864419d8b0c2, core/task/ToolExecutor.ts): `write_to_file {path,
 *   content}`, `replace_in_file {path, diff}`, `execute_command {command}`, `read_file {path}`,
 *   `use_mcp_tool {server_name, tool_name, arguments}`, a real `model`.
 * The repository is the hook's working directory (Cline runs hooks in the workspace root,
 * `determineHookCwd`), or the directory of an absolute path when that is no repository; never
 * `workspaceRoots[0]`, which another window can repoint. After a tool ran we never cancel: a
 * problem recording it is reported to the model instead.
 */
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { clineModelOf } from './cline-model.js';
import { PKG_ROOT } from '../core/version.js';
import { IntentError, NO_ACTIVE_INTENT_MESSAGE } from '../core/errors.js';
import { gitRaw } from '../git/process.js';
import { contextCommand, type ToolCall, type Verdict } from './hook-adapters.js';
import { patchFiles, type PatchFile } from './patch-paths.js';

type Json = Record<string, unknown>;

/** The model credited when Cline sends none (its SDK CLI never does; its VS Code adapter sends "unknown"). */
export const CLINE_UNKNOWN_MODEL = 'cline/unknown';

const WRITE = new Set(['editor', 'write_to_file', 'replace_in_file', 'new_rule', 'apply_diff', 'edit_file', 'search_replace', 'new_file']);
const DELETE = new Set(['delete_file']);
const SHELL = new Set(['run_commands', 'execute_command']);
const READ = new Set(['read_files', 'read_file']);
const OTHER = new Set([
  'search_codebase', 'fetch_web_content', 'skills', 'ask_question', 'submit_and_exit', 'list_files', 'search_files',
  'list_code_definition_names', 'ask_followup_question', 'attempt_completion', 'browser_action', 'access_mcp_resource',
  'load_mcp_documentation', 'plan_mode_respond', 'act_mode_respond', 'focus_chain', 'web_fetch', 'web_search', 'use_skill',
  'use_subagents', 'new_task', 'condense', 'summarize_task', 'report_bug', 'switch_to_act_mode',
]);

function str(o: Json | undefined, key: string): string | undefined {
  const v = o?.[key];
  return typeof v === 'string' ? v : undefined;
}

function obj(v: unknown): Json | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
}

/** A `parameters` value: Cline JSON-encodes everything that is not a string. */
function decoded(v: unknown): unknown {
  if (typeof v !== 'string' || !/^\s*[[{]/.test(v)) return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

/** The tool's input: the raw object of the SDK payload, else the decoded `parameters`. */
function toolInput(p: Json, body: Json, pre: boolean): Json {
  const raw = obj(p[pre ? 'tool_call' : 'tool_result'])?.input;
  if (obj(raw)) return raw as Json;
  if (typeof raw === 'string' || Array.isArray(raw)) return { input: raw };
  const params = obj(body.parameters) ?? {};
  return Object.fromEntries(Object.entries(params).map(([k, v]) => [k, decoded(v)]));
}

function inGit(dir: string): boolean {
  return existsSync(dir) && gitRaw(['rev-parse', '--git-dir'], { cwd: dir }).status === 0;
}

/** The hook's working directory, or the nearest existing directory of an absolute path when that is no repository. */
function workDir(paths: string[]): string {
  const cwd = process.cwd();
  if (inGit(cwd)) return cwd;
  for (const p of paths) {
    if (!isAbsolute(p)) continue;
    let d = dirname(p);
    while (d !== dirname(d) && !existsSync(d)) d = dirname(d);
    if (inGit(d)) return d;
  }
  return cwd;
}

/** A shell word quoted for `sh`. */
function quote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** `run_commands` accepts strings, `{command, args}` and a few looser shapes: each as one command line. */
function commandLines(input: Json): string[] {
  const one = (c: unknown): string | null => {
    if (typeof c === 'string') return c;
    const o = obj(c);
    if (o && typeof o.command === 'string') {
      const args = Array.isArray(o.args) ? o.args.filter((a): a is string => typeof a === 'string') : [];
      return [o.command, ...args].map(quote).join(' ');
    }
    return null;
  };
  const raw = input.commands ?? input.command ?? input.cmd ?? input.input;
  const list = Array.isArray(raw) ? raw : [raw];
  const lines = list.map(one);
  if (!lines.length || lines.some((l) => l === null)) {
    throw new IntentError('INVALID_INPUT', 'Cline: the shell tool call has no command strings; refusing it.', {});
  }
  return lines as string[];
}

/** `read_files` takes `files: [{path}]`, plain strings, `file_paths` or `paths`. */
function readPaths(input: Json): string[] {
  const raw = input.files ?? input.file_paths ?? input.paths ?? input.path ?? input.input;
  const list = Array.isArray(raw) ? raw : [raw];
  return list
    .map((f) => (typeof f === 'string' ? f : str(obj(f), 'path') ?? str(obj(f), 'file_path') ?? str(obj(f), 'filePath')))
    .filter((f): f is string => typeof f === 'string' && f !== '');
}

/** The intent an MCP `select_active_intent` call names: `intent__select_active_intent`, or the older `use_mcp_tool`. */
function selectionOf(tool: string, input: Json): string | null | undefined {
  if (tool === 'use_mcp_tool') {
    if (str(input, 'tool_name') !== 'select_active_intent') return undefined;
    const args = obj(decoded(input.arguments));
    return str(args, 'intent_id') ?? null;
  }
  if (tool !== 'select_active_intent' && !/(__|[:/.])select_active_intent$/.test(tool)) return undefined;
  return str(input, 'intent_id') ?? null;
}

/** `intent context <ID>` in a command line. */
const CONTEXT_RUN = /(?:^|[\s;&|(])(?:npx\s+(?:--no-install\s+)?)?['"]?(?:[^\s'";&|()]*\/)?intent(?:\.js)?['"]?\s+context\s+(?:--\S+\s+)*['"]?([A-Za-z0-9][A-Za-z0-9_-]*)/;

/**
 * The input the SDK runs instead of a refused call: one that passes the tool's own schema (else
 * the model first reads a zod error), changes nothing and fails, so the model reads why in the
 * hook's context. The editor replaces text in /dev/null, which is always there and always empty
 * ("No replacement performed: text not found in /dev/null."); an apply_patch input that is no patch
 * fails to parse.
 */
function neutralInput(tool: string, reason: string): Json | null {
  if (tool === 'run_commands') return { commands: [`printf '%s\\n' ${quote(reason)} >&2; exit 1`] };
  if (tool === 'editor') return { path: '/dev/null', old_text: 'intent refused this edit', new_text: '' };
  if (tool === 'apply_patch') return { input: 'intent refused this patch' };
  return null;
}

/** `tool_result.output` of the SDK: a list (run_commands, one entry per command) or one object. */
function sdkOutput(p: Json): unknown {
  return obj(p.tool_result)?.output;
}

/** Whether an SDK output entry reports a failure (`success: false`, or only an `error`). */
function outputFailed(out: unknown): boolean {
  const o = obj(out);
  if (!o) return false;
  return o.success === false || (o.success === undefined && o.error !== undefined);
}

/** Parses one Cline hook payload into the tool calls it stands for (an apply_patch or run_commands may be several). */
export function parseCline(event: string, p: Json): ToolCall[] {
  const pre = event === 'pre-tool-use';
  const key = pre ? 'preToolUse' : 'postToolUse';
  const body = obj(p[key]);
  if (!body) throw new IntentError('INVALID_INPUT', `Cline payload has no "${key}" object; refusing it.`, {});
  const tool = str(body, 'toolName');
  if (!tool) throw new IntentError('INVALID_INPUT', 'Cline payload has no "toolName" string; refusing it.', { field: 'toolName' });
  const sdk = p.hookName === 'tool_call' || p.hookName === 'tool_result';
  const input = toolInput(p, body, pre);
  const taskId = str(p, 'taskId') ?? 'unknown';
  const sessionId = str(obj(p.sessionContext), 'rootSessionId') ?? taskId;
  // Only a recorded write needs the model; looking it up reads Cline's session files.
  const modelId = pre ? CLINE_UNKNOWN_MODEL : clineModelOf(p) ?? CLINE_UNKNOWN_MODEL;
  const base = {
    agent: 'Cline',
    phase: pre ? ('pre' as const) : ('post' as const),
    tool,
    modelId,
    sessionUrl: `cline://task/${encodeURIComponent(taskId)}`,
    // The SDK says success: true for a run_commands whose commands failed: each has its own.
    failed: body.success === false || (!Array.isArray(sdkOutput(p)) && outputFailed(sdkOutput(p))),
    session: { agent: 'cline', sessionId },
    softRefusal: sdk && pre ? (reason: string) => neutralInput(tool, reason) : undefined,
  };

  // A selection counts once the tool ran: after select_active_intent, or `intent context <ID>` that printed the context.
  const selecting = selectionOf(tool, input);
  if (selecting !== undefined) {
    return !pre && !base.failed && selecting ? [{ ...base, cwd: workDir([]), kind: 'other', selects: selecting }] : [];
  }
  if (SHELL.has(tool)) return shellCalls(p, body, base, commandLines(input), pre);
  if (READ.has(tool)) {
    const paths = readPaths(input);
    const cwd = workDir(paths);
    return paths.map((path) => ({ ...base, cwd, kind: 'read' as const, path }));
  }
  if (tool === 'apply_patch') {
    const patch = str(input, 'input') ?? str(input, 'patch') ?? '';
    let files: PatchFile[];
    try {
      files = patchFiles(patch);
    } catch {
      // No file named: checked as a write to no file, which is refused (softly where Cline allows it).
      return [{ ...base, cwd: workDir([]), kind: 'write', path: undefined }];
    }
    const paths = files.flatMap((f) => (f.moveTo ? [f.path, f.moveTo] : [f.path]));
    const cwd = workDir(paths);
    return files.flatMap((f): ToolCall[] => {
      if (f.op === 'delete') return [{ ...base, cwd, kind: 'delete', path: f.path }];
      if (!f.moveTo) return [{ ...base, cwd, kind: 'write', path: f.path }];
      return [{ ...base, cwd, kind: 'delete', path: f.path }, { ...base, cwd, kind: 'write', path: f.moveTo }];
    });
  }
  const path = str(input, 'path') ?? str(input, 'file_path') ?? str(input, 'absolutePath');
  const cwd = workDir(path ? [path] : []);
  if (WRITE.has(tool)) return [{ ...base, cwd, kind: 'write', path }];
  if (DELETE.has(tool)) return [{ ...base, cwd, kind: 'delete', path }];
  if (OTHER.has(tool) || tool.includes('__')) return [];
  // An unknown tool that names a file may write it: check it like a write (fail closed).
  return path ? [{ ...base, cwd, kind: 'write', path }] : [];
}

/**
 * The calls of one `run_commands` (or `execute_command`). The SDK's tool call id keys one worktree
 * snapshot for the whole call, taken before its first command; afterwards the files the commands
 * changed are compared with it, staged and credited. A command that runs `intent context <ID>`
 * selects the intent for the commands after it in the same call: before the call they are not
 * refused for want of the handshake (`pendingSelection`), and after it the selection is recorded
 * before what they wrote is staged. Each command's own `success` decides whether its context
 * printed (the SDK's overall `success` is true even when a command failed).
 */
function shellCalls(p: Json, body: Json, base: Omit<ToolCall, 'cwd' | 'kind'>, commands: string[], pre: boolean): ToolCall[] {
  const cwd = workDir([]);
  const callId = str(obj(p[pre ? 'tool_call' : 'tool_result']), 'id');
  const toolUseId = callId ? `cline:${callId}` : undefined;
  if (pre) {
    let pending: string | undefined;
    return commands.map((command, i) => {
      pending ??= CONTEXT_RUN.exec(command)?.[1];
      return {
        ...base, cwd, kind: 'shell' as const, command: asIntentCommand(command), handshakeBeforeShell: true,
        ...(i === 0 && toolUseId ? { toolUseId } : {}),
        ...(pending ? { pendingSelection: pending } : {}),
      };
    });
  }
  const outputs = sdkOutput(p);
  const perCommand = Array.isArray(outputs) && outputs.length === commands.length ? outputs : null;
  const selections: ToolCall[] = [];
  const shells: ToolCall[] = commands.map((command, i) => {
    const out = perCommand ? obj(perCommand[i]) : undefined;
    const failed = perCommand ? outputFailed(out) : base.failed;
    const text = perCommand ? (typeof out?.result === 'string' ? out.result : '') : (str(body, 'result') ?? '');
    const id = !failed && /<intent_context/.test(text) ? CONTEXT_RUN.exec(command)?.[1] : undefined;
    if (id) selections.push({ ...base, cwd, kind: 'other', command, failed: false, selects: id });
    return { ...base, cwd, kind: 'shell' as const, command, failed };
  });
  // Selections first; the snapshot is compared once, with the last command's call.
  if (toolUseId && shells.length) shells[shells.length - 1] = { ...shells[shells.length - 1], toolUseId };
  return [...selections, ...shells];
}

/**
 * What a refusal for want of the handshake adds for Cline: its commands run in its background hub,
 * which keeps the environment (PATH) it started with, so `intent` may not be found there even
 * when the user's shell has it. This program's own node and CLI work whatever the PATH.
 */
function handshakeHint(): string {
  return `If \`intent\` is not found in your shell (Cline's hub keeps the PATH it started with), run ${ownCli()} context <ID> instead.`;
}

/** This installation's CLI as a command line: its node and its entry point, quoted for `sh`. */
function ownCli(): string {
  return `${quote(process.execPath)} ${quote(join(PKG_ROOT, 'dist', 'bin', 'intent.js'))}`;
}

/**
 * The hint's own command (`<this node> <this CLI> context <ID>`, exactly) as `intent context <ID>`,
 * so the shell policy judges the subcommand and not "node runs a script"; any other command as it is.
 */
function asIntentCommand(command: string): string {
  const own = ownCli() + ' ';
  if (!command.trimStart().startsWith(own)) return command;
  const line = `intent ${command.trimStart().slice(own.length)}`;
  return contextCommand(line) ? line : command;
}

/** Cline's answer: JSON on stdout, exit 0 (a non-zero exit without JSON lets the tool run). */
export function answerCline(event: string, v: Verdict, calls: ToolCall[]): { stdout: string; stderr: string; code: number } {
  const json = (o: unknown) => ({ stdout: JSON.stringify(o) + '\n', stderr: '', code: 0 });
  const reason = v.reason ? `intent: ${v.reason}` : '';
  if (event !== 'pre-tool-use') {
    // The tool already ran: cancelling now would stop the whole run and undo nothing. Tell the model.
    const told = [v.decision === 'deny' || v.decision === 'ask' ? reason : '', v.note ?? ''].filter(Boolean).join('\n');
    return json({ cancel: false, ...(told ? { contextModification: told } : {}) });
  }
  if (v.decision === 'deny' || v.decision === 'ask') {
    const base = v.decision === 'ask' ? `${reason} (a human must run or approve this)` : reason;
    const message = base.includes(NO_ACTIVE_INTENT_MESSAGE) ? `${base}\n${handshakeHint()}` : base;
    const neutral = calls[0]?.softRefusal?.(message);
    if (neutral) return json({ cancel: false, overrideInput: neutral, contextModification: `${message}\nThe call was not run. Correct it, or ask a human.` });
    return json({ cancel: true, errorMessage: message });
  }
  return json({ cancel: false, ...(v.note ? { contextModification: v.note } : {}) });
}

/** A payload we could not read: before the tool, refuse (cancel); after it, report. */
export function clineFailure(event: string, message: string): { stdout: string; stderr: string; code: number } {
  const body = event === 'pre-tool-use' ? { cancel: true, errorMessage: `intent: ${message}` } : { cancel: false, contextModification: `intent: ${message}` };
  return { stdout: JSON.stringify(body) + '\n', stderr: '', code: 0 };
}
