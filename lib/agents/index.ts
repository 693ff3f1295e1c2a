/**
 * agents: how agents' tools are governed. The adapter their write tools call (adapter: scope,
 * stale check, stage, line credit), Roo Code's glue (roo-code), the hook programs of Claude Code,
 * Cursor, Cline, Gemini CLI, Codex, GitHub Copilot CLI, OpenCode (a plugin: opencode-plugin),
 * Qwen Code and Factory droid (protocols: their wire formats, with cline, cursor, gemini, codex,
 * copilot, opencode, qwen and droid; payload: reading payloads and Claude Code's answer shape;
 * hook-adapters: one decision core; hookless-git: commits where the agent's shell turns git's
 * hooks off; transcript-tail: reading their transcripts; config-files: registering them;
 * agent-trust: the trust Gemini, Codex, Copilot and Qwen need), the handshake every agent session
 * makes before it may write (handshake: select_active_intent, intent context), Claude Code
 * sessions that ran without the hooks (claude-sessions), the MCP server (mcp-server), and the
 * shell-command policy (shell/, entered through shell/index.ts).
 * Imports: core, git, intents, mutation, trace, guardrails.
 */
export { readPayload, runAgentHook } from './protocols.js';
export { serveStdio } from './mcp-server.js';
export { handshakeFile, recordHandshake, requireHandshake, selectedIntent, type AgentSession } from './handshake.js';
