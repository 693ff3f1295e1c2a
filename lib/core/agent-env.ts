import { IntentError } from './errors.js';
import { hostEnv } from './settings.js';

/**
 * The variables agent CLIs set in their own shells and hook processes, each seen with the real
 * client (docs/agents.md lists the versions). Only variables the CLI sets itself count: the ones a
 * user exports to configure a CLI (CLINE_DIR, CODEX_HOME, COPILOT_HOME, COPILOT_MODEL,
 * OPENCODE_CONFIG, QWEN_HOME, GEMINI_API_KEY, …) leave a human's shell a human's.
 */
const MARKERS: readonly { name: string; value?: string; agent: string }[] = [
  { name: 'CLAUDECODE', value: '1', agent: 'a Claude Code session' },
  { name: 'CLAUDE_PROJECT_DIR', agent: 'a Claude Code hook or session' },
  { name: 'CURSOR_TRACE_ID', agent: 'a Cursor session' },
  { name: 'GEMINI_CLI', value: '1', agent: 'a Gemini CLI shell' },
  { name: 'CODEX_THREAD_ID', agent: 'a Codex shell' },
  // Cline CLI 3.0: its shell carries the CLI's launch descriptor (CLINE_DIR, CLINE_HUB_PORT are the user's settings).
  { name: 'CLINE_CONNECTOR_CLI_LAUNCH', agent: 'a Cline CLI shell' },
  { name: 'COPILOT_CLI', value: '1', agent: 'a GitHub Copilot CLI shell' },
  { name: 'COPILOT_AGENT_SESSION_ID', agent: 'a GitHub Copilot CLI session' },
  { name: 'OPENCODE', value: '1', agent: 'an OpenCode shell' },
  { name: 'OPENCODE_PID', agent: 'an OpenCode shell' },
  { name: 'KILO', value: '1', agent: 'a Kilo CLI shell' },
  { name: 'QWEN_CODE', value: '1', agent: 'a Qwen Code shell' },
  { name: 'CRUSH', value: '1', agent: 'a crush shell' },
];

/**
 * Why this process looks like an agent's rather than a human's, or null: one of the variables
 * above, or `INTENT_AGENT` set to anything but "" or "0" (the way for any other agent to say so:
 * put it in the agent's shell environment). Decisions a human must take (approve, reject, reset,
 * checkout, done, abandon) refuse then.
 */
export function agentMarker(env: NodeJS.ProcessEnv = hostEnv()): string | null {
  for (const m of MARKERS) {
    const v = env[m.name];
    if (v === undefined || (m.value !== undefined && v !== m.value)) continue;
    return `${m.name}${m.value !== undefined ? `=${m.value}` : ''} is set (${m.agent})`;
  }
  const flag = env.INTENT_AGENT?.trim();
  if (flag && flag !== '0') return `INTENT_AGENT=${flag} is set`;
  return null;
}

/** The names of the variables that mark an agent's process (for tests and `intent doctor`). */
export const AGENT_MARKER_NAMES: readonly string[] = [...MARKERS.map((m) => m.name), 'INTENT_AGENT'];

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
