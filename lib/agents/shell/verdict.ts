/*
 * Verdicts: what the shell policy answers (allow, ask, deny), its public types, and how the
 * verdicts of a line's parts combine (the strictest wins, with its reason; writes add up).
 */
/** What the agent may do with a command: run it, ask a human first, or not run it at all. */
export type CommandVerdict = 'allow' | 'ask' | 'deny';

/** Where a command runs and what the active intent may change. */
export interface CommandContext {
  /** Absolute directory the command runs in. */
  cwd: string;
  /** Absolute root of the worktree. */
  root: string;
  /** True when a repository-relative POSIX path (e.g. "src/a.ts") is inside the intent's owned scope. */
  inScope(path: string): boolean;
}

/** The verdict on one command line. */
export interface CommandDecision {
  decision: CommandVerdict;
  /** One sentence an agent can act on, e.g. "rm deletes files: a human must approve it". Empty for allow. */
  reason: string;
  /** Repository-relative paths the command writes by redirection (>, >>, tee, etc.), for the caller. */
  writes: string[];
}

export interface Verdict {
  decision: CommandVerdict;
  reason: string;
  writes: string[];
}

const RANK: Record<CommandVerdict, number> = { allow: 0, ask: 1, deny: 2 };

export const ALLOW: Verdict = { decision: 'allow', reason: '', writes: [] };

export function allow(writes: string[] = []): Verdict {
  return { decision: 'allow', reason: '', writes };
}

export function ask(reason: string, writes: string[] = []): Verdict {
  return { decision: 'ask', reason, writes };
}

export function deny(reason: string, writes: string[] = []): Verdict {
  return { decision: 'deny', reason, writes };
}

/** A fresh verdict: the strictest of `parts` (the first reason at that level) and all their writes. */
export function worst(...parts: Verdict[]): Verdict {
  const out: Verdict = { decision: 'allow', reason: '', writes: [] };
  for (const p of parts) add(out, p);
  return out;
}

export function add(out: Verdict, v: Verdict): void {
  for (const w of v.writes) out.writes.push(w);
  if (RANK[v.decision] > RANK[out.decision]) {
    out.decision = v.decision;
    out.reason = v.reason;
  }
}

/** Short, single-line text for a reason. */
export function clip(text: string): string {
  const t = text.replace(/\s+/g, ' ');
  return t.length > 60 ? `${t.slice(0, 57)}...` : t;
}
