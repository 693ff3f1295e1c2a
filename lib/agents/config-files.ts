/**
 * `intent init --agent <name>`: registers the agent hook adapters in the agent's own config
 * files of the main worktree, merging with what is there (other hooks and settings are kept;
 * re-running replaces only our entries).
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { IntentError } from '../core/errors.js';
import { writeFileAtomic } from '../core/files.js';
import type { Repo } from '../git/repo.js';
import { OPENCODE_PLUGIN } from './opencode-plugin.js';

/** The agents whose hook programs intent answers. */
export const AGENTS = ['claude-code', 'cursor', 'cline', 'gemini', 'codex', 'copilot', 'opencode', 'qwen', 'droid'] as const;
export type AgentName = (typeof AGENTS)[number];

/** A config file `init --agent` wrote or found up to date. */
export interface AgentConfigResult {
  agent: AgentName;
  file: string;
  changed: boolean;
  /** What the agent needs before it runs these hooks in a new worktree (trust), when it needs anything. */
  trust?: string;
}

/** What Gemini CLI, Codex and GitHub Copilot CLI need before they run a project's hooks (all skip untrusted ones silently; `intent doctor` checks). */
export const TRUST_NOTES: Partial<Record<AgentName, string>> = {
  gemini: 'Gemini CLI runs project hooks only in trusted folders, and each intent worktree is a new folder: trust the folder that holds them ' +
    '(<repo>.worktrees) once in ~/.gemini/trustedFolders.json ("<folder>": "TRUST_FOLDER"). `gemini --skip-trust` runs none. `intent doctor` checks it.',
  codex: 'Codex runs project hooks only in a trusted project whose hooks were reviewed: trust the main checkout (its worktrees follow) and review ' +
    "intent's hooks with /hooks in codex; `codex exec` in automation needs --dangerously-bypass-hook-trust. `intent doctor` checks it.",
  copilot: 'GitHub Copilot CLI runs repository hooks only in a trusted folder: trust the main checkout once (its intent worktrees follow), ' +
    'by answering its trust prompt there or adding it to "trustedFolders" in ~/.copilot/config.json; automation can pass --trust-folder or set ' +
    'COPILOT_ALLOW_ALL=true. `intent doctor` checks it.',
};

const MARK = 'intent/bin/agent';

/**
 * The shell command an agent runs: finds the runner `intent init` installed in this clone's
 * common git dir (so it works in every worktree, with no machine path in the committed config)
 * and blocks when it is missing, since a hook that cannot run must not let writes through. For
 * Claude Code and Cursor, which let a tool run when its hook exits with anything but 0 or 2, any
 * other exit of the runner (node missing: 127, a crash: 1) becomes a block (exit 2) too.
 */
function hookCommand(agent: AgentName, event: string): string {
  const find = `a="$(git rev-parse --path-format=absolute --git-common-dir 2>/dev/null)/${MARK}"`;
  if (agent === 'cline') {
    const missing = `echo '{"cancel":true,"errorMessage":"intent: this clone has no intent hooks; run intent init"}'; exit 0`;
    return `${find}; [ -x "$a" ] || { ${missing}; }; exec "$a" ${agent} ${event}`;
  }
  if (agent === 'copilot') {
    // Copilot refuses the call when a hook exits non-zero (a crash too), but shows the model no reason: say it in JSON.
    const why = 'intent: this clone has no intent hooks; run intent init. The tool call is refused.';
    const missing = `echo '${JSON.stringify({ permissionDecision: 'deny', permissionDecisionReason: why, additionalContext: why })}'; exit 0`;
    return `${find}; [ -x "$a" ] || { ${missing}; }; exec "$a" ${agent} ${event}`;
  }
  const missing = `echo "intent: this clone has no intent hooks (no runner at $a); run intent init. The tool call is refused." >&2; exit 2`;
  const failed = `echo "intent: the hook runner failed (exit $c); the tool call is refused. Run intent init to repair it." >&2; exit 2`;
  return `${find}; [ -x "$a" ] || { ${missing}; }; "$a" ${agent} ${event}; c=$?; [ "$c" -eq 0 ] || [ "$c" -eq 2 ] || { ${failed}; }; exit "$c"`;
}

/** Writes the hook registration of `agent`; throws USAGE for an unknown agent. */
export function installAgentConfig(repo: Repo, agent: string): AgentConfigResult {
  if (!(AGENTS as readonly string[]).includes(agent)) {
    throw new IntentError('USAGE', `unknown agent "${agent}"; pick one of: ${AGENTS.join(', ')}.`, { agent });
  }
  const a = agent as AgentName;
  if (a === 'claude-code') return claude(repo);
  if (a === 'cursor') return cursor(repo);
  if (a === 'gemini') return { ...gemini(repo), trust: TRUST_NOTES.gemini };
  if (a === 'codex') return { ...codex(repo), trust: TRUST_NOTES.codex };
  if (a === 'copilot') return { ...copilot(repo), trust: TRUST_NOTES.copilot };
  if (a === 'opencode') return opencode(repo);
  if (a === 'qwen') return qwen(repo);
  if (a === 'droid') return droid(repo);
  return cline(repo);
}

function readJson(file: string): Record<string, unknown> {
  if (!existsSync(file)) return {};
  try {
    const v = JSON.parse(readFileSync(file, 'utf8'));
    if (v && typeof v === 'object' && !Array.isArray(v)) return v;
  } catch { /* fall through */ }
  throw new IntentError('CONFIG_INVALID', `${file} is not a JSON object; fix or remove it, then re-run intent init --agent.`, { file });
}

function save(agent: AgentName, file: string, text: string, mode?: number): AgentConfigResult {
  if (existsSync(file) && readFileSync(file, 'utf8') === text) return { agent, file, changed: false };
  mkdirSync(dirname(file), { recursive: true });
  writeFileAtomic(file, text);
  if (mode) chmodSync(file, mode);
  return { agent, file, changed: true };
}

function ours(entry: unknown): boolean {
  return JSON.stringify(entry).includes(MARK);
}

function claude(repo: Repo): AgentConfigResult {
  const file = join(repo.mainRoot, '.claude', 'settings.json');
  const settings = readJson(file);
  const hooks = (settings.hooks && typeof settings.hooks === 'object' ? settings.hooks : {}) as Record<string, unknown[]>;
  const add = (event: string, matcher: string, arg: string) => {
    const kept = Array.isArray(hooks[event]) ? hooks[event].filter((e) => !ours(e)) : [];
    hooks[event] = [...kept, { matcher, hooks: [{ type: 'command', command: hookCommand('claude-code', arg), timeout: 30 }] }];
  };
  // Tool names as Claude Code 2.1 has them (no MultiEdit); the MCP select_active_intent is the handshake.
  add('PreToolUse', 'Write|Edit|NotebookEdit|Bash', 'pre-tool-use');
  add('PostToolUse', 'Write|Edit|NotebookEdit|Read|Bash|mcp__.*__select_active_intent', 'post-tool-use');
  add('PostToolUseFailure', 'Write|Edit|NotebookEdit|Bash', 'post-tool-use-failure');
  settings.hooks = hooks;
  return save('claude-code', file, JSON.stringify(settings, null, 2) + '\n');
}

/** Replaces our entries of `event` in a `hooks` map of Claude Code's shape (also Gemini CLI's and Codex's). */
function addMatcherHook(hooks: Record<string, unknown[]>, event: string, matcher: string, hook: Record<string, unknown>): void {
  const kept = Array.isArray(hooks[event]) ? hooks[event].filter((e) => !ours(e)) : [];
  hooks[event] = [...kept, { matcher, hooks: [{ type: 'command', ...hook }] }];
}

/**
 * Gemini CLI 0.61: `.gemini/settings.json` `hooks.BeforeTool` / `hooks.AfterTool` (matchers are
 * regular expressions on the tool name; the timeout is in milliseconds). Project hooks run only in
 * a trusted folder (`intent doctor` checks it).
 */
function gemini(repo: Repo): AgentConfigResult {
  const file = join(repo.mainRoot, '.gemini', 'settings.json');
  const settings = readJson(file);
  const hooks = (settings.hooks && typeof settings.hooks === 'object' ? settings.hooks : {}) as Record<string, unknown[]>;
  const tools = 'write_file|replace|run_shell_command';
  addMatcherHook(hooks, 'BeforeTool', `^(${tools})$`, { name: 'intent', command: hookCommand('gemini', 'before-tool'), timeout: 30_000 });
  addMatcherHook(hooks, 'AfterTool', `^(${tools}|read_file|read_many_files|mcp_intent_select_active_intent)$`, { name: 'intent', command: hookCommand('gemini', 'after-tool'), timeout: 30_000 });
  settings.hooks = hooks;
  return save('gemini', file, JSON.stringify(settings, null, 2) + '\n');
}

/**
 * Codex CLI 0.171: `.codex/hooks.json` in Claude Code's shape. Codex reads a linked worktree's
 * project hooks from the main checkout's file, and runs them only once the project is trusted and
 * the hooks reviewed (`intent doctor` checks both).
 */
function codex(repo: Repo): AgentConfigResult {
  const file = join(repo.mainRoot, '.codex', 'hooks.json');
  const config = readJson(file);
  const hooks = (config.hooks && typeof config.hooks === 'object' ? config.hooks : {}) as Record<string, unknown[]>;
  addMatcherHook(hooks, 'PreToolUse', '^(Bash|apply_patch)$', { command: hookCommand('codex', 'pre-tool-use'), timeout: 30 });
  addMatcherHook(hooks, 'PostToolUse', '^(Bash|apply_patch|mcp__intent__select_active_intent)$', { command: hookCommand('codex', 'post-tool-use'), timeout: 30 });
  config.hooks = hooks;
  return save('codex', file, JSON.stringify(config, null, 2) + '\n');
}

function cursor(repo: Repo): AgentConfigResult {
  const file = join(repo.mainRoot, '.cursor', 'hooks.json');
  const config = readJson(file);
  config.version ??= 1;
  const hooks = (config.hooks && typeof config.hooks === 'object' ? config.hooks : {}) as Record<string, unknown[]>;
  const add = (event: string, arg: string, failClosed: boolean) => {
    const kept = Array.isArray(hooks[event]) ? hooks[event].filter((e) => !ours(e)) : [];
    hooks[event] = [...kept, { command: hookCommand('cursor', arg), ...(failClosed ? { failClosed: true } : {}) }];
  };
  add('preToolUse', 'pre-tool-use', true);
  add('beforeShellExecution', 'before-shell-execution', true);
  add('beforeMCPExecution', 'before-mcp-execution', true);
  // A read we fail to record only weakens the stale check: never block reading on it.
  add('beforeReadFile', 'before-read-file', false);
  add('afterFileEdit', 'after-file-edit', false);
  config.hooks = hooks;
  return save('cursor', file, JSON.stringify(config, null, 2) + '\n');
}

/**
 * Cline's hook files: `.cline/hooks/PreToolUse` and `PostToolUse`. Cline still reads the deprecated
 * `.clinerules/hooks/` too, so our own older copies there are removed (both would run); files of
 * others there are left alone.
 */
function cline(repo: Repo): AgentConfigResult {
  const dir = join(repo.mainRoot, '.cline', 'hooks');
  const old = join(repo.mainRoot, '.clinerules', 'hooks');
  let changed = false;
  for (const [name, arg] of [['PreToolUse', 'pre-tool-use'], ['PostToolUse', 'post-tool-use']] as const) {
    const file = join(dir, name);
    if (existsSync(file) && !readFileSync(file, 'utf8').includes(MARK)) {
      throw new IntentError('CONFIG_INVALID', `${file} exists and is not intent's: merge it by hand (call ${hookCommand('cline', arg)} from it).`, { file });
    }
    changed = save('cline', file, `#!/bin/sh\n# Written by \`intent init --agent cline\`: intent governs this agent's tool calls.\n${hookCommand('cline', arg)}\n`, 0o755).changed || changed;
    const legacy = join(old, name);
    if (existsSync(legacy) && readFileSync(legacy, 'utf8').includes(MARK)) {
      rmSync(legacy);
      changed = true;
    }
  }
  return { agent: 'cline', file: dir, changed };
}

// --- GitHub Copilot CLI ------------------------------------------------------------------------

/**
 * GitHub Copilot CLI 1.0.102: `.github/hooks/intent.json` (`{"version":1,"hooks":{"preToolUse":
 * [{"type":"command","bash":…,"timeoutSec":30}]}}`; no matchers: every tool call comes, the
 * adapter picks). Other entries of the file are kept. Copilot runs repository hooks only in a
 * trusted folder (`intent doctor` checks), and lets a tool run when its hook times out.
 */
function copilot(repo: Repo): AgentConfigResult {
  const file = join(repo.mainRoot, '.github', 'hooks', 'intent.json');
  const config = readJson(file);
  config.version ??= 1;
  const hooks = (config.hooks && typeof config.hooks === 'object' ? config.hooks : {}) as Record<string, unknown[]>;
  for (const [event, arg] of [['preToolUse', 'pre-tool-use'], ['postToolUse', 'post-tool-use'], ['postToolUseFailure', 'post-tool-use-failure']] as const) {
    const kept = Array.isArray(hooks[event]) ? hooks[event].filter((e) => !ours(e)) : [];
    hooks[event] = [...kept, { type: 'command', bash: hookCommand('copilot', arg), timeoutSec: 30 }];
  }
  config.hooks = hooks;
  return save('copilot', file, JSON.stringify(config, null, 2) + '\n');
}

// --- OpenCode ----------------------------------------------------------------------------------

/**
 * OpenCode 1.18: an in-process plugin, `.opencode/plugin/intent.js` (OpenCode loads
 * `.opencode/{plugin,plugins}/*.{js,ts}` with no trust step), that asks the runner around each
 * tool call (lib/agents/opencode-plugin.ts). A file of that name that is not ours is left alone.
 */
function opencode(repo: Repo): AgentConfigResult {
  const file = join(repo.mainRoot, '.opencode', 'plugin', 'intent.js');
  if (existsSync(file) && !readFileSync(file, 'utf8').includes(MARK)) {
    throw new IntentError('CONFIG_INVALID', `${file} exists and is not intent's: move it away (or rename it), then re-run intent init --agent opencode.`, { file });
  }
  return save('opencode', file, OPENCODE_PLUGIN);
}

// --- Qwen Code ---------------------------------------------------------------------------------

/**
 * Qwen Code 0.24: `.qwen/settings.json` in Claude Code's shape with Gemini CLI's tool names
 * (matchers are regular expressions; the timeout is in seconds). No trust step by default (folder
 * trust is off unless `security.folderTrust.enabled`). Qwen stamps a settings file that has no
 * `"$version"` with the current one (4) on its first run, rewriting the committed file in every
 * worktree: a file we create, or one that holds only hooks, gets the stamp now. (A file with other
 * settings and no stamp may need Qwen's own migration, which the stamp would skip: it is left to Qwen.)
 */
function qwen(repo: Repo): AgentConfigResult {
  const file = join(repo.mainRoot, '.qwen', 'settings.json');
  const settings = readJson(file);
  const hooks = (settings.hooks && typeof settings.hooks === 'object' ? settings.hooks : {}) as Record<string, unknown[]>;
  const writes = 'write_file|edit|replace|notebook_edit';
  const hook = (event: string) => ({ command: hookCommand('qwen', event), timeout: 30 });
  addMatcherHook(hooks, 'PreToolUse', `^(${writes}|run_shell_command|exec)$`, hook('pre-tool-use'));
  addMatcherHook(hooks, 'PostToolUse', `^(${writes}|run_shell_command|read_file|mcp__intent__select_active_intent)$`, hook('post-tool-use'));
  addMatcherHook(hooks, 'PostToolUseFailure', `^(${writes}|run_shell_command)$`, hook('post-tool-use-failure'));
  settings.hooks = hooks;
  if (!('$version' in settings) && Object.keys(settings).every((k) => k === 'hooks')) settings.$version = QWEN_SETTINGS_VERSION;
  return save('qwen', file, JSON.stringify(settings, null, 2) + '\n');
}

/** The `"$version"` Qwen Code 0.24 writes into a settings file that lacks one (its SETTINGS_VERSION). */
const QWEN_SETTINGS_VERSION = 4;

// --- Factory droid -----------------------------------------------------------------------------

/**
 * Factory droid 0.225: `.factory/settings.json` `hooks` in Claude Code's shape (matchers are
 * regular expressions; `.factory/hooks.json` is not read). Droid has no after-hook for a failed
 * tool. MCP tools are `<server>___<tool>`.
 */
function droid(repo: Repo): AgentConfigResult {
  const file = join(repo.mainRoot, '.factory', 'settings.json');
  const settings = readJson(file);
  const hooks = (settings.hooks && typeof settings.hooks === 'object' ? settings.hooks : {}) as Record<string, unknown[]>;
  const tools = 'Create|Edit|MultiEdit|ApplyPatch|Execute';
  addMatcherHook(hooks, 'PreToolUse', `^(${tools}|Script)$`, { command: hookCommand('droid', 'pre-tool-use'), timeout: 30 });
  addMatcherHook(hooks, 'PostToolUse', `^(${tools}|Read|intent___select_active_intent)$`, { command: hookCommand('droid', 'post-tool-use'), timeout: 30 });
  settings.hooks = hooks;
  return save('droid', file, JSON.stringify(settings, null, 2) + '\n');
}
