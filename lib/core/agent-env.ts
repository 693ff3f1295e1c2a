import { IntentError } from './errors.js';
import { hostEnv } from './settings.js';

/**
 * Why this process looks like an agent's rather than a human's, or null. Agent hook processes and
 * agent shells carry these variables: Claude Code (`CLAUDE_PROJECT_DIR`, `CLAUDECODE=1`), Cursor
 * (`CURSOR_TRACE_ID`), Cline (`CLINE_*`), Gemini CLI's shell (`GEMINI_CLI=1`), Codex's shell
 * (`CODEX_THREAD_ID`); anything else can say so with `INTENT_AGENT` set to
 * anything but "" or "0". Decisions a human must take (approve, reject, reset) refuse then.
 */
export function agentMarker(env: NodeJS.ProcessEnv = hostEnv()): string | null {
  if (env.CLAUDE_PROJECT_DIR !== undefined) return 'CLAUDE_PROJECT_DIR is set (a Claude Code hook or session)';
  if (env.CLAUDECODE === '1') return 'CLAUDECODE=1 is set (a Claude Code session)';
  if (env.CURSOR_TRACE_ID !== undefined) return 'CURSOR_TRACE_ID is set (a Cursor session)';
  if (env.GEMINI_CLI === '1') return 'GEMINI_CLI=1 is set (a Gemini CLI shell)';
  if (env.CODEX_THREAD_ID !== undefined) return 'CODEX_THREAD_ID is set (a Codex shell)';
  const cline = Object.keys(env).find((k) => k.startsWith('CLINE_'));
  if (cline) return `${cline} is set (a Cline session)`;
  const flag = env.INTENT_AGENT?.trim();
  if (flag && flag !== '0') return `INTENT_AGENT=${flag} is set`;
  return null;
}

/**
 * Refuses (NOT_A_HUMAN) a human's decision (checkout, done, abandon, …) when the process looks
 * like an agent's. A guardrail for honest agents, not a boundary: a process of the same user can
 * unset these variables. What lands is decided by the server's authority check (`intent gate`).
 */
export function assertNotAgent(action: string, env: NodeJS.ProcessEnv = hostEnv()): void {
  const marker = agentMarker(env);
  if (!marker) return;
  throw new IntentError(
    'NOT_A_HUMAN',
    `Refused: intent ${action} is a human's decision, and this process looks like an agent's: ${marker}. A human runs it in a terminal; nothing was changed.`,
    { reason: 'agent-env', marker },
  );
}
