/**
 * GitHub Copilot CLI's hook protocol (lib/agents/protocols.ts dispatches here). Not built yet: every payload
 * is refused (fail closed).
 */
import { IntentError } from '../core/errors.js';
import type { ToolCall, Verdict } from './hook-adapters.js';

type Json = Record<string, unknown>;

/** What the hook program prints and its exit code (protocols.ts's HookAnswer). */
interface Answer {
  stdout: string;
  stderr: string;
  code: number;
}

/** The events this agent's hook program answers (as typed on the command line). */
export const COPILOT_EVENTS: readonly string[] = ['pre-tool-use', 'post-tool-use', 'post-tool-use-failure'];

/** Parses one payload into the tool calls it stands for. */
export function parseCopilot(event: string, p: Json, qualify: (model: string | undefined, fallbackProvider: string) => string | undefined): ToolCall[] {
  void p; void qualify;
  throw new IntentError('INVALID_INPUT', `GitHub Copilot CLI hooks are not built yet (event ${event}); refusing the call.`, {});
}

/** A verdict in GitHub Copilot CLI's shape. */
export function answerCopilot(event: string, v: Verdict, calls: ToolCall[]): Answer {
  void calls;
  return { stdout: '', stderr: v.reason ? `intent: ${v.reason}\n` : '', code: v.decision === 'deny' && event ? 2 : 0 };
}

/** A hook that could not decide: refused. */
export function copilotFailure(event: string, message: string): Answer {
  return answerCopilot(event, { decision: 'deny', reason: message }, []);
}
