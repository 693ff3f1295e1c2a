// The agent markers (lib/core/agent-env.ts): the variables each agent CLI sets in its own shell
// mark its processes; the variables a user exports to configure a CLI do not.
import { describe, expect, it } from 'vitest';
import { agentMarker, assertNotAgent } from '../../lib/core/agent-env.js';

describe('agentMarker', () => {
  it.each([
    [{ CLAUDECODE: '1' }, 'Claude Code'],
    [{ CLAUDE_PROJECT_DIR: '/w/repo' }, 'Claude Code'],
    [{ CURSOR_TRACE_ID: 'x' }, 'Cursor'],
    [{ GEMINI_CLI: '1' }, 'Gemini CLI'],
    [{ CODEX_THREAD_ID: '019a' }, 'Codex'],
    // What the real Cline CLI 3.0.65 puts in its shell (seen in test/e2e/cline.test.ts's run).
    [{ CLINE_CONNECTOR_CLI_LAUNCH: '{"launcher":"cline","connectArgsPrefix":["connect"]}' }, 'Cline'],
    [{ COPILOT_CLI: '1' }, 'GitHub Copilot CLI'],
    [{ COPILOT_AGENT_SESSION_ID: 'b3c1' }, 'GitHub Copilot CLI'],
    [{ OPENCODE: '1' }, 'OpenCode'],
    [{ OPENCODE_PID: '4242' }, 'OpenCode'],
    [{ KILO: '1' }, 'Kilo CLI'],
    [{ QWEN_CODE: '1' }, 'Qwen Code'],
    [{ CRUSH: '1' }, 'crush'],
    [{ INTENT_AGENT: 'aider' }, 'INTENT_AGENT=aider'],
  ])('%j marks an agent (%s)', (env, says) => {
    const m = agentMarker(env);
    expect(m).toContain(Object.keys(env)[0]);
    expect(m).toContain(says);
    expect(() => assertNotAgent('approve REQ-1', env)).toThrow(/NOT_A_HUMAN|looks like an agent's/);
  });

  it('a human with the CLIs\' configuration variables exported is still a human', () => {
    const env = {
      CLINE_DIR: '/home/me/.cline-work', CLINE_HUB_PORT: '25463', CLINE_API_KEY: 'k', CLINE_MODEL: 'm',
      CODEX_HOME: '/home/me/.codex', COPILOT_HOME: '/home/me/.copilot', COPILOT_MODEL: 'gpt-4.1', COPILOT_ALLOW_ALL: 'true',
      OPENCODE_CONFIG: '/home/me/oc.json', OPENCODE_DISABLE_AUTOUPDATE: '1', QWEN_HOME: '/q', GEMINI_API_KEY: 'g', ANTHROPIC_API_KEY: 'a',
      // Flags that say "no".
      INTENT_AGENT: '0', COPILOT_CLI: '0', OPENCODE: '', GEMINI_CLI: '0',
    };
    expect(agentMarker(env)).toBeNull();
    expect(() => assertNotAgent('checkout INT-001', env)).not.toThrow();
  });
});
