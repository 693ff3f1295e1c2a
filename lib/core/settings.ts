/**
 * The environment settings intent reads, parsed in one place: `readSettings(env)` for the
 * environment a hook, a request or a command was given, and `hostEnv()`, the process's own
 * environment (or the hook being run's, core/hook-context.ts), for callers given none (read at each
 * call: the hook server runs each request with the requester's environment). The variables that
 * name the agent a process runs for are core/agent-env.ts's.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { activeHookContext } from './hook-context.js';

/** The settings intent reads from an environment. */
export interface Settings {
  /** INTENT_ID: the intent a commit in the main worktree names (in an intent worktree it may only repeat the worktree's). */
  intentId: string | undefined;
  /** INTENT_CLASSIFY_TRACE: a file post-commit appends one JSON line per classification to. */
  classifyTrace: string | undefined;
  /** CLAUDE_CONFIG_DIR: Claude Code's config directory (its transcripts), else ~/.claude. */
  claudeConfigDir: string;
  /** GIT_QUARANTINE_PATH set: a server's pre-receive hook, where the pushed objects sit in quarantine. */
  gitQuarantine: boolean;
  /** INTENT_NOTES_IN_PROCESS (`0`: off): post-commit writes its note in-process (lib/git/notes-write.ts) where it can, else with `git notes add`. */
  notesInProcess: boolean;
  /**
   * INTENT_READ_AHEAD (`0`: off): in the hook server, post-commit's git work is done ahead after
   * pre-commit's answer and pre-commit reads the staged paths in-process (lib/hooks/prefetch.ts).
   */
  readAhead: boolean;
}

/** The settings of `env`. */
export function readSettings(env: NodeJS.ProcessEnv): Settings {
  return {
    intentId: env.INTENT_ID,
    classifyTrace: env.INTENT_CLASSIFY_TRACE || undefined,
    claudeConfigDir: env.CLAUDE_CONFIG_DIR || join(homedir(), '.claude'),
    gitQuarantine: !!env.GIT_QUARANTINE_PATH,
    notesInProcess: env.INTENT_NOTES_IN_PROCESS !== '0',
    readAhead: env.INTENT_READ_AHEAD !== '0',
  };
}

/**
 * The environment of the hook being run (core/hook-context.ts: the hook server's request), else the
 * process's own: the default of every function that takes one.
 */
export function hostEnv(): NodeJS.ProcessEnv {
  return activeHookContext()?.env ?? process.env;
}
