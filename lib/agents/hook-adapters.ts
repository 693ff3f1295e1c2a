/**
 * One governance core for the agents that run hook programs (Claude Code, Cursor, Cline): their
 * JSON is normalised to a `ToolCall`, decided here, and answered in each agent's own shape by
 * `lib/agents/protocols.ts`. Writes are checked before they happen (scope, worktree, stale reads)
 * and staged with the model's credit after; shell commands go through `classifyCommand`.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { requireActive, resolveIntentId } from '../intents/active.js';
import { checkWrite, contentHash, recordWrite } from './adapter.js';
import { classifyCommand, type CommandVerdict } from './shell-policy.js';
import { IntentError } from '../core/errors.js';
import { writeFileAtomic } from '../core/files.js';
import { gitRaw } from '../git/process.js';
import { withLock } from '../core/lock.js';
import { loadRegistry } from '../intents/registry.js';
import { openRepo, orchestrationPath, type Repo } from '../git/repo.js';
import { compileScope, outOfScope } from '../intents/scope.js';
import { loadIgnore } from '../intents/ignore.js';

/** What an agent's tool is about to do or did, whatever the agent. */
export interface ToolCall {
  agent: string;
  phase: 'pre' | 'post';
  /** The directory the agent works in. */
  cwd: string;
  tool: string;
  kind: 'write' | 'delete' | 'shell' | 'read' | 'other';
  /** The file the tool reads or writes (absolute or relative to `cwd`). */
  path?: string;
  command?: string;
  /** `provider/model`, when known. */
  modelId?: string;
  /** Identifies the conversation: `<agent>://session/<id>`. */
  sessionUrl: string;
  /** Whether the agent reported the tool as failed (post phase). */
  failed?: boolean;
}

/** The decision, in the agent-neutral form each protocol translates. */
export interface Verdict {
  decision: CommandVerdict | 'none';
  reason: string;
  /** A short note to hand back to the model after a successful write. */
  note?: string;
}

const NONE: Verdict = { decision: 'none', reason: '' };

/** Decides a call; never throws for a refusal (it becomes a deny), only for broken input. */
export function decide(call: ToolCall): Verdict {
  try {
    if (call.phase === 'pre') return decidePre(call);
    return afterTool(call);
  } catch (e) {
    if (e instanceof IntentError) return { decision: 'deny', reason: e.message };
    throw e;
  }
}

function decidePre(call: ToolCall): Verdict {
  if (call.kind === 'shell') return decideCommand(call);
  if (call.kind !== 'write' && call.kind !== 'delete') return NONE;
  const path = requirePath(call);
  const t = checkWrite({ worktree: call.cwd, path });
  const session = sessionDir(t.repo, call.sessionUrl);
  const read = readState(session).reads[t.rel];
  const content = existsSync(t.abs) ? readFileSync(t.abs) : null;
  const found = content ? contentHash(content) : null;
  if (read !== undefined && read !== found) {
    return {
      decision: 'deny',
      reason: `Stale File: ${t.rel} changed since it was read (expected ${read ?? 'no file'}, found ${found ?? 'no file'}). Read it again, then redo the edit.`,
    };
  }
  // Keep the bytes as they are now: after the tool ran, the lines that differ are the model's.
  mkdirSync(session, { recursive: true });
  writeFileAtomic(snapshotFile(session, t.rel), content ? Buffer.concat([Buffer.from('1'), content]) : Buffer.from('0'));
  return { decision: 'allow', reason: '' };
}

function afterTool(call: ToolCall): Verdict {
  if (call.kind === 'read' && call.path) {
    const repo = tryRepo(call.cwd);
    if (!repo) return NONE;
    const abs = isAbsolute(call.path) ? call.path : resolve(call.cwd, call.path);
    const rel = relativeTo(repo, abs);
    if (rel === null) return NONE;
    const hash = existsSync(abs) ? contentHash(readFileSync(abs)) : null;
    updateState(sessionDir(repo, call.sessionUrl), (s) => { s.reads[rel] = hash; });
    return NONE;
  }
  if (call.kind !== 'write' && call.kind !== 'delete') return NONE;
  if (call.failed) return NONE;
  const path = requirePath(call);
  if (!call.modelId) {
    return { decision: 'deny', reason: `the model that wrote ${path} is unknown, so its lines cannot be credited: ${call.agent} sent no model.` };
  }
  const t = checkWrite({ worktree: call.cwd, path });
  const session = sessionDir(t.repo, call.sessionUrl);
  const snap = snapshotFile(session, t.rel);
  let before: Buffer | null;
  if (existsSync(snap)) {
    const raw = readFileSync(snap);
    before = raw[0] === 0x31 ? raw.subarray(1) : null;
  } else {
    before = indexContent(t.repo, t.rel);
  }
  const res = recordWrite({ worktree: call.cwd, path, before, tool: call.tool, modelId: call.modelId, conversationUrl: call.sessionUrl });
  rmSync(snap, { force: true });
  updateState(session, (s) => { s.reads[t.rel] = res.sha256; });
  return {
    decision: 'allow',
    reason: '',
    note: `intent: staged ${res.path} under ${res.intent}${res.aiLines ? ` (${res.aiLines} line${res.aiLines === 1 ? '' : 's'} credited to ${call.modelId})` : ''}.`,
  };
}

function decideCommand(call: ToolCall): Verdict {
  if (typeof call.command !== 'string') throw new IntentError('INVALID_INPUT', `${call.agent}: the shell tool call has no command string.`, {});
  const repo = openRepo(call.cwd);
  const named = resolveIntentId(repo, process.env.INTENT_ID);
  let inScope: (p: string) => boolean = () => false;
  if (named) {
    const intent = requireActive(loadRegistry(orchestrationPath(repo, 'active_intents.yaml')), named.id);
    const scope = compileScope(intent.owned_scope);
    const ignore = loadIgnore(repo);
    inScope = (p) => outOfScope([p], scope, ignore, !repo.isMainWorktree).length === 0;
  }
  const d = classifyCommand(call.command, { cwd: call.cwd, root: repo.root, inScope });
  return d.decision === 'allow' ? NONE : { decision: d.decision, reason: d.reason };
}

function requirePath(call: ToolCall): string {
  if (typeof call.path !== 'string' || call.path === '') {
    throw new IntentError('INVALID_INPUT', `${call.agent}: the ${call.tool} call names no file path; refusing a write to an unknown file.`, { tool: call.tool });
  }
  return call.path;
}

function tryRepo(cwd: string): Repo | null {
  try {
    return openRepo(cwd);
  } catch {
    return null;
  }
}

function relativeTo(repo: Repo, abs: string): string | null {
  const rel = abs.startsWith(repo.root + '/') ? abs.slice(repo.root.length + 1) : null;
  return rel && !rel.split('/').includes('..') ? rel : null;
}

/** The staged bytes of a path: the best "before" when no pre-tool snapshot exists. */
function indexContent(repo: Repo, rel: string): Buffer | null {
  const res = gitRaw(['cat-file', 'blob', `:${rel}`], { cwd: repo.root, binary: true });
  return res.status === 0 ? res.stdoutBuf! : null;
}

// --- per-session state: what the agent last read, and the bytes before each write -----------------

interface SessionState {
  reads: Record<string, string | null>;
}

function sessionDir(repo: Repo, sessionUrl: string): string {
  return join(repo.gitDir, 'intent-agent', createHash('sha256').update(sessionUrl).digest('hex').slice(0, 24));
}

function snapshotFile(session: string, rel: string): string {
  return join(session, createHash('sha256').update(rel).digest('hex').slice(0, 24) + '.before');
}

function readState(session: string): SessionState {
  try {
    const s = JSON.parse(readFileSync(join(session, 'state.json'), 'utf8')) as SessionState;
    if (s && typeof s.reads === 'object') return s;
  } catch { /* none yet */ }
  return { reads: {} };
}

function updateState(session: string, fn: (s: SessionState) => void): void {
  mkdirSync(session, { recursive: true });
  withLock(join(session, 'state.lock'), () => {
    const s = readState(session);
    fn(s);
    writeFileAtomic(join(session, 'state.json'), JSON.stringify(s));
  });
}
