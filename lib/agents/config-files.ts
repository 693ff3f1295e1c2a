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

/** The agents whose hook programs intent answers. */
export const AGENTS = ['claude-code', 'cursor', 'cline', 'gemini', 'codex', 'copilot', 'opencode', 'qwen'] as const;
export type AgentName = (typeof AGENTS)[number];

/** A config file `init --agent` wrote or found up to date. */
export interface AgentConfigResult {
  agent: AgentName;
  file: string;
  changed: boolean;
  /** What the agent needs before it runs these hooks in a new worktree (trust), when it needs anything. */
  trust?: string;
}

/** What Gemini CLI and Codex need before they run a project's hooks (both skip untrusted ones silently; `intent doctor` checks). */
export const TRUST_NOTES: Partial<Record<AgentName, string>> = {
  gemini: 'Gemini CLI runs project hooks only in trusted folders, and each intent worktree is a new folder: trust the folder that holds them ' +
    '(<repo>.worktrees) once in ~/.gemini/trustedFolders.json ("<folder>": "TRUST_FOLDER"). `gemini --skip-trust` runs none. `intent doctor` checks it.',
  codex: 'Codex runs project hooks only in a trusted project whose hooks were reviewed: trust the main checkout (its worktrees follow) and review ' +
    "intent's hooks with /hooks in codex; `codex exec` in automation needs --dangerously-bypass-hook-trust. `intent doctor` checks it.",
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
  if (a === 'copilot') return copilot(repo);
  if (a === 'opencode') return opencode(repo);
  if (a === 'qwen') return qwen(repo);
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

// --- GitHub Copilot CLI (owned by the copilot work) ----------------------------------------------

function copilot(repo: Repo): AgentConfigResult {
  throw new IntentError('USAGE', `intent init --agent copilot is not built yet (${repo.mainRoot}).`, {});
}

// --- OpenCode (owned by the opencode work) -------------------------------------------------------

function opencode(repo: Repo): AgentConfigResult {
  throw new IntentError('USAGE', `intent init --agent opencode is not built yet (${repo.mainRoot}).`, {});
}

// --- Qwen Code (owned by the qwen work) ----------------------------------------------------------

function qwen(repo: Repo): AgentConfigResult {
  throw new IntentError('USAGE', `intent init --agent qwen is not built yet (${repo.mainRoot}).`, {});
}
