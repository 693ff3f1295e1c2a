/**
 * The handshake: an agent session may write only after it has selected the worktree's intent
 * (run `intent context <ID>` or called the MCP tool `select_active_intent`) and so received the
 * intent's context. Which intent each session selected is kept under the worktree's git dir
 * (never committed), one small file per session, written atomically.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IntentError, NO_ACTIVE_INTENT_MESSAGE } from '../core/errors.js';
import { writeFileAtomic } from '../core/files.js';
import type { Repo } from '../git/repo.js';

/** An agent session: the agent's name and its own session (conversation, task) id. */
export interface AgentSession {
  agent: string;
  sessionId: string;
}

interface HandshakeFile {
  agent: string;
  sessionId: string;
  intent: string;
  at: string;
}

/** The file that holds `session`'s selection in the worktree of `repo`. */
export function handshakeFile(repo: Repo, session: AgentSession): string {
  checkSession(session);
  const key = createHash('sha256').update(`${session.agent}\0${session.sessionId}`).digest('hex').slice(0, 32);
  return join(repo.gitDir, 'intent-handshake', `${key}.json`);
}

function checkSession(session: AgentSession): void {
  if (!session || typeof session.agent !== 'string' || !session.agent.trim() || typeof session.sessionId !== 'string' || !session.sessionId.trim()) {
    throw new IntentError('INVALID_INPUT', 'An agent session needs a non-empty agent name and session id.', {});
  }
}

/** Records that `session` selected `intentId` in this worktree (replacing an earlier selection). */
export function recordHandshake(repo: Repo, session: AgentSession, intentId: string): void {
  if (typeof intentId !== 'string' || !intentId.trim()) {
    throw new IntentError('INVALID_INPUT', 'Select an intent by its id, e.g. "INT-001".', {});
  }
  const file = handshakeFile(repo, session);
  mkdirSync(join(repo.gitDir, 'intent-handshake'), { recursive: true });
  const body: HandshakeFile = { agent: session.agent, sessionId: session.sessionId, intent: intentId, at: new Date().toISOString() };
  writeFileAtomic(file, JSON.stringify(body) + '\n');
}

/** The intent `session` selected in this worktree, or null. */
export function selectedIntent(repo: Repo, session: AgentSession): string | null {
  try {
    const s = JSON.parse(readFileSync(handshakeFile(repo, session), 'utf8')) as Partial<HandshakeFile>;
    return typeof s.intent === 'string' ? s.intent : null;
  } catch {
    return null;
  }
}

/** Throws NO_ACTIVE_INTENT unless `session` selected `intentId` (the worktree's intent). */
export function requireHandshake(repo: Repo, session: AgentSession, intentId: string): void {
  const selected = selectedIntent(repo, session);
  if (selected === intentId) return;
  const how = `Run \`intent context ${intentId}\` in this worktree (or call the MCP tool select_active_intent with intent_id "${intentId}"), ` +
    'read the context it returns, then retry. Nothing was written.';
  const why = selected
    ? `This session selected ${selected}, but this worktree works on ${intentId}.`
    : `This session has not selected an intent yet; this worktree works on ${intentId}.`;
  throw new IntentError('NO_ACTIVE_INTENT', `${NO_ACTIVE_INTENT_MESSAGE} ${why} ${how}`, {
    intent: intentId, selected, agent: session.agent, session: session.sessionId, worktree: repo.root,
  });
}
