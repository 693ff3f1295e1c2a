/**
 * What a hook runs with: the environment and working directory it was given and where its
 * warnings go. The hook's own node builds one from the process (lib/hooks/dispatch.ts); the hook
 * server (lib/hooks/server.ts) builds one per request from the runner's environment and directory,
 * with `warn` appending to the text it sends back, so it never touches the process's own.
 */
import type { KeptStore } from './kept.js';

export interface HookContext {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Writes a warning where the hook's stderr goes, as it happens (before the hook's outcome). */
  warn(text: string): void;
  /**
   * The hook server only: runs `job` once the hook's answer is written (work for a later hook of
   * the same commit, off the commit's path). Absent in a hook's own node, which exits instead.
   */
  defer?(job: () => void): void;
  /** The hook server only: what it keeps between hooks (core/kept.ts). Absent in a hook's own node. */
  kept?: KeptStore;
  /** The hook server, when it traces (INTENT_HOOK_SERVER_TRACE): told as each phase of the hook ends. */
  lap?(phase: string): void;
  /** The hook server, when it traces: writes a line of its own to the trace (work the hook left for later). */
  trace?(line: Record<string, unknown>): void;
}

/** The context of the hook being run, null outside one (a command, the server between requests). */
let active: HookContext | null = null;

/** The context of the hook being run, or null. */
export function activeHookContext(): HookContext | null {
  return active;
}

/**
 * Runs `fn` as the hook of `ctx`: code it reaches that was given no environment takes `ctx.env`
 * (core/settings.ts hostEnv), and `warn` writes to `ctx.warn`. The hook server runs one request at
 * a time, so one active context at a time is enough; the previous one is put back after.
 */
export async function withHookContext<T>(ctx: HookContext, fn: () => Promise<T>): Promise<T> {
  const previous = active;
  active = ctx;
  try {
    return await fn();
  } finally {
    active = previous;
  }
}

/**
 * `withHookContext` for synchronous code: what a deferred job (HookContext.defer) starts with the
 * hook's environment, e.g. a git process, while the server may be serving another hook.
 */
export function withHookContextSync<T>(ctx: HookContext, fn: () => T): T {
  const previous = active;
  active = ctx;
  try {
    return fn();
  } finally {
    active = previous;
  }
}

/** Writes a warning to the active hook's stderr, or to the process's outside a hook. */
export function warn(text: string): void {
  if (active) active.warn(text);
  else process.stderr.write(text);
}

/** Tells the active hook's trace that `phase` has ended (the hook server, when it traces; else nothing). */
export function lap(phase: string): void {
  active?.lap?.(phase);
}

/** The store of the hook being served, or null (a hook's own node, a command). */
export function keptStore(): KeptStore | null {
  return activeHookContext()?.kept ?? null;
}

/** The map named `name` of the hook server's store, or null outside a served hook. */
export function keptMap<K, V>(name: string): Map<K, V> | null {
  return keptStore()?.get(name, () => new Map<K, V>()) ?? null;
}
