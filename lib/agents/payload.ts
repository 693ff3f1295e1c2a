/**
 * What every agent's hook protocol shares: reading the payload's JSON field by field (a missing
 * field refuses the call, naming the agent and the field), the answer a hook program gives, and
 * the answer in Claude Code's shape, which Codex, Qwen Code and Factory droid read too.
 */
import { IntentError } from '../core/errors.js';
import type { Verdict } from './hook-adapters.js';

/** A hook payload, or an object inside one. */
export type Json = Record<string, unknown>;

/** What the hook program prints and its exit code. */
export interface HookAnswer {
  stdout: string;
  stderr: string;
  code: number;
}

/** `o[key]` when it is a string. */
export function str(o: Json | undefined, key: string): string | undefined {
  const v = o?.[key];
  return typeof v === 'string' ? v : undefined;
}

/** `v` when it is a JSON object (not an array). */
export function obj(v: unknown): Json | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
}

/** A reader of required string fields of `agent`'s payloads: a missing or empty one is refused (INVALID_INPUT). */
export function needIn(agent: string): (o: Json, key: string) => string {
  return (o, key) => {
    const v = str(o, key);
    if (!v) throw new IntentError('INVALID_INPUT', `${agent} payload has no "${key}" string; refusing it.`, { field: key });
    return v;
  };
}

/** Nothing to say: the tool runs (before it), nothing to add (after it). */
export const NO_ANSWER: HookAnswer = { stdout: '', stderr: '', code: 0 };

/** `o` printed as one line of JSON, exit 0. */
export function jsonAnswer(o: unknown): HookAnswer {
  return { stdout: JSON.stringify(o) + '\n', stderr: '', code: 0 };
}

/**
 * A verdict in Claude Code's shape: before the tool, `hookSpecificOutput.permissionDecision` deny
 * (or ask, where the agent asks its user: `ask: true`; otherwise what needs a human is refused,
 * saying so); after it, what the model must know (a refusal to stage, what was staged) as
 * `additionalContext`. (`decision: "block"` would show it too, but behind the whole hook command line.)
 */
export function claudeShapedAnswer(event: string, v: Verdict, opts: { ask: boolean }): HookAnswer {
  const reason = v.reason ? `intent: ${v.reason}` : '';
  if (event === 'pre-tool-use') {
    if (v.decision !== 'deny' && v.decision !== 'ask') return NO_ANSWER;
    const decision = opts.ask ? v.decision : 'deny';
    const why = v.decision === 'ask' && !opts.ask ? `${reason} (refused: a human must run it)` : reason;
    return jsonAnswer({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: decision, permissionDecisionReason: why } });
  }
  const context = [reason, v.note].filter(Boolean).join('\n');
  if (!context) return NO_ANSWER;
  const hookEventName = event === 'post-tool-use-failure' ? 'PostToolUseFailure' : 'PostToolUse';
  return jsonAnswer({ hookSpecificOutput: { hookEventName, additionalContext: context } });
}
