/**
 * One governance core for the agents that run hook programs (Claude Code, Cursor, Cline): their
 * JSON is normalised to a `ToolCall`, decided here, and answered in each agent's own shape by
 * `lib/agents/protocols.ts`. Writes are checked before they happen (scope, worktree, stale reads)
 * and staged with the model's credit after; shell commands go through `classifyCommand`, and what
 * a command wrote is found by comparing the worktree with a snapshot taken before it (staged and
 * credited inside the scope, reported to the model outside it). For the agents whose sessions can
 * be told apart, writes wait for the session's handshake (`intent context <ID>`).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { requireActive, resolveIntentId } from '../intents/active.js';
import { checkWrite, contentHash, recordWrite } from './adapter.js';
import { requireHandshake, recordHandshake, type AgentSession } from './handshake.js';
import { blobBytes, changesSince, snapshotWorktree, type WorktreeSnapshot } from '../git/snapshot.js';
import { classifyCommand, type CommandVerdict } from './shell/index.js';
import { committingGitCommand, hooklessCommitReason, isIntentCommit, undoCommits, unnotedCommitsSince } from './hookless-git.js';
import { IntentError } from '../core/errors.js';
import { writeFileAtomic } from '../core/files.js';
import { gitRaw } from '../git/process.js';
import { withLock } from '../core/lock.js';
import { findIntent, loadRegistry } from '../intents/registry.js';
import { openRepo, orchestrationPath, type Repo } from '../git/repo.js';
import { compileScope, outOfScope } from '../intents/scope.js';
import { loadIgnore } from '../intents/ignore.js';
import { hostEnv } from '../core/settings.js';

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
  /** The agent's session: writes need its handshake first (set for the agents that send one). */
  session?: AgentSession;
  /** The tool call's id: a shell command's snapshot is kept under it from pre to post. */
  toolUseId?: string;
  /** What the model proposed, when a human changed it before it was saved (credit only those lines). */
  proposal?: { content: string } | { oldString: string; newString: string; replaceAll: boolean };
  /** The intent this call selected for its session (`intent context <ID>` ran, select_active_intent). */
  selects?: string;
  /** Check the handshake before a shell command that writes in the scope, even when its writes are checked after it too. */
  handshakeBeforeShell?: boolean;
  /** The agent's shell runs git with its hooks turned off (Gemini CLI): commits there are guarded (hookless-git). */
  gitHooksOff?: boolean;
  /**
   * The intent an earlier command of the same tool call selects (`intent context <ID>` first, then
   * a write: Cline's run_commands): the handshake is checked after the call, once it ran, not before.
   */
  pendingSelection?: string;
  /** For agents that can run a harmless input instead of a refused call (Cline's SDK): that input. */
  softRefusal?: (reason: string) => Record<string, unknown> | null;
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
    if (call.session?.agent === 'claude-code') markSeen(call.cwd, call.session.sessionId);
    if (call.phase === 'pre') return decidePre(call);
    return afterTool(call);
  } catch (e) {
    if (e instanceof IntentError) return { decision: 'deny', reason: e.message };
    throw e;
  }
}

function decidePre(call: ToolCall): Verdict {
  // Agents with no hook after the call (Cursor's beforeMCPExecution, beforeShellExecution) select before it.
  if (call.selects) selectBefore(call);
  if (call.kind === 'shell') {
    const v = decideCommand(call);
    if (v.decision !== 'deny' && call.toolUseId) snapshotBeforeShell(call);
    return v;
  }
  if (call.kind !== 'write' && call.kind !== 'delete') return NONE;
  const path = requirePath(call);
  if (call.session) handshakeFor(call);
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
  if (call.selects && !call.failed) return selected(call);
  if (call.kind === 'shell') return shellWrites(call);
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
  if (call.failed) {
    // The tool did not run to the end: forget the bytes kept for it; nothing to stage or credit.
    const repo = tryRepo(call.cwd);
    if (repo && call.path) {
      const rel = relativeTo(repo, isAbsolute(call.path) ? call.path : resolve(call.cwd, call.path));
      if (rel !== null) rmSync(snapshotFile(sessionDir(repo, call.sessionUrl), rel), { force: true });
    }
    return NONE;
  }
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
  const proposed = proposedContent(call, before);
  const res = recordWrite({ worktree: call.cwd, path, before, tool: call.tool, modelId: call.modelId, conversationUrl: call.sessionUrl, ...(proposed !== undefined ? { proposed } : {}) });
  rmSync(snap, { force: true });
  updateState(session, (s) => { s.reads[t.rel] = res.sha256; });
  return {
    decision: 'allow',
    reason: '',
    note: `intent: staged ${res.path} under ${res.intent}${res.aiLines ? ` (${res.aiLines} line${res.aiLines === 1 ? '' : 's'} credited to ${call.modelId})` : ''}.`,
  };
}

/** The whole file the model proposed (a Write's content, an Edit applied to the bytes before). */
function proposedContent(call: ToolCall, before: Buffer | null): string | undefined {
  const p = call.proposal;
  if (!p) return undefined;
  if ('content' in p) return p.content;
  const text = before ? before.toString('utf8') : '';
  if (p.replaceAll) return text.split(p.oldString).join(p.newString);
  const at = text.indexOf(p.oldString);
  return at < 0 ? p.newString : text.slice(0, at) + p.newString + text.slice(at + p.oldString.length);
}

/** Throws NO_ACTIVE_INTENT unless the call's session selected the worktree's intent. */
function handshakeFor(call: ToolCall): void {
  const repo = openRepo(call.cwd);
  const named = resolveIntentId(repo, hostEnv().INTENT_ID);
  if (!named || !call.session) return; // checkWrite refuses a worktree without an intent
  requireHandshake(repo, call.session, named.id);
}

/** The session ran `intent context <ID>` (or select_active_intent): record it when ID is the worktree's. */
function selected(call: ToolCall): Verdict {
  const repo = openRepo(call.cwd);
  const named = resolveIntentId(repo, hostEnv().INTENT_ID);
  if (!call.session || !call.selects) return NONE;
  if (!named || named.id !== call.selects) {
    return {
      decision: 'deny',
      reason: `${call.selects} is not this worktree's intent${named ? ` (it works on ${named.id}: run \`intent context ${named.id}\`)` : ''}; writes here stay refused.`,
    };
  }
  requireActive(loadRegistry(orchestrationPath(repo, 'active_intents.yaml')), named.id);
  recordHandshake(repo, call.session, named.id);
  return { decision: 'allow', reason: '', note: `intent: this session works on ${named.id} now; writes inside its scope are allowed and credited to the model.` };
}

// --- shell commands: what they wrote ---------------------------------------------------------------

function shellSnapshotFile(session: string, toolUseId: string): string {
  return join(session, 'shell-' + createHash('sha256').update(toolUseId).digest('hex').slice(0, 24) + '.json');
}

/** Before a shell command runs: the worktree's dirty files and HEAD, to compare with afterwards. */
function snapshotBeforeShell(call: ToolCall): void {
  const repo = tryRepo(call.cwd);
  if (!repo || !call.toolUseId) return;
  const session = sessionDir(repo, call.sessionUrl);
  mkdirSync(session, { recursive: true });
  writeFileAtomic(shellSnapshotFile(session, call.toolUseId), JSON.stringify(snapshotWorktree(repo.root)));
}

/**
 * After a shell command (succeeded or failed): every file it changed is staged and its new lines
 * credited to the model when the session may write there; the others are reported to the model.
 */
function shellWrites(call: ToolCall): Verdict {
  const repo = tryRepo(call.cwd);
  if (!repo || !call.toolUseId) return NONE;
  const file = shellSnapshotFile(sessionDir(repo, call.sessionUrl), call.toolUseId);
  let snap: WorktreeSnapshot;
  try {
    snap = JSON.parse(readFileSync(file, 'utf8')) as WorktreeSnapshot;
  } catch {
    return NONE; // no snapshot: the command was refused before it ran, or ran without our pre hook
  }
  rmSync(file, { force: true });
  const undone = call.gitHooksOff ? undoHooklessCommits(call, repo, snap.head) : null;
  if (undone?.failed) return { decision: 'deny', reason: undone.failed };
  const v = shellChanges(call, repo, snap);
  if (!undone) return v;
  return { decision: 'deny', reason: [undone.reason, v.decision === 'deny' ? v.reason : ''].filter(Boolean).join(' '), note: v.note };
}

/**
 * Commits a command made where git's hooks are off that have no note: the branch goes back to
 * before the first of them (`git reset --soft`: their changes stay, staged), and the model is told
 * to commit with `intent commit`. Null when there are none.
 */
function undoHooklessCommits(call: ToolCall, repo: Repo, before: string | null): { reason: string; failed?: string } | null {
  const unnoted = unnotedCommitsSince(repo.root, before);
  if (!unnoted.length) return null;
  const list = unnoted.map((c) => c.slice(0, 12)).join(', ');
  const err = undoCommits(repo.root, `${unnoted[0]}^`);
  const why = `the command made ${unnoted.length === 1 ? 'a commit' : 'commits'} (${list}) with git's hooks off (${call.agent} blanks core.hooksPath), so intent could not check ${unnoted.length === 1 ? 'it' : 'them'} or record the Agent Trace note.`;
  if (err) return { reason: '', failed: `${why} Undoing ${unnoted.length === 1 ? 'it' : 'them'} failed (${err}): ask a human to reset the branch to ${unnoted[0].slice(0, 12)}^ and commit with \`intent commit\`.` };
  return { reason: `${why} ${unnoted.length === 1 ? 'It was' : 'They were'} undone (git reset --soft: the changes are staged again). Commit with \`intent commit -m "…"\`, which runs git commit with the hooks on.` };
}

/** What a shell command changed in the worktree since its snapshot: staged and credited, or reported. */
function shellChanges(call: ToolCall, repo: Repo, snap: WorktreeSnapshot): Verdict {
  if (snap.tooMany) {
    return { decision: 'allow', reason: '', note: `intent: the worktree has ${snap.tooMany} changed or untracked files, too many to compare: what this command wrote was not staged or credited. Commit or git-ignore them.` };
  }
  const changes = changesSince(repo.root, snap);
  if (!changes.length) return NONE;
  const staged: string[] = [];
  const refused: string[] = [];
  let handshake: string | null = null;
  if (call.session) {
    try {
      handshakeFor(call);
    } catch (e) {
      if (!(e instanceof IntentError)) throw e;
      handshake = e.message.replace(/ Nothing was written\.$/, '');
    }
  }
  for (const c of changes) {
    if (handshake) {
      refused.push(c.path);
      continue;
    }
    try {
      checkWrite({ worktree: repo.root, path: c.path });
    } catch (e) {
      if (!(e instanceof IntentError)) throw e;
      refused.push(c.path);
      continue;
    }
    if (!call.modelId) {
      refused.push(c.path);
      continue;
    }
    const res = recordWrite({ worktree: repo.root, path: c.path, before: blobBytes(repo.root, c.before), tool: call.tool, modelId: call.modelId, conversationUrl: call.sessionUrl });
    staged.push(res.aiLines ? `${res.path} (${res.aiLines} line${res.aiLines === 1 ? '' : 's'} credited to ${call.modelId})` : res.path);
  }
  const note = staged.length ? `intent: the command changed ${staged.join(', ')}: staged.` : undefined;
  if (!refused.length) return { decision: 'allow', reason: '', note };
  const named = resolveIntentId(repo, hostEnv().INTENT_ID);
  const why = handshake ?? (!call.modelId ? `${call.agent} sent no model, so the lines cannot be credited.`
    : `${named ? `outside ${named.id}'s scope` : 'outside any intent'}; the commit will be refused while they are staged.`);
  return {
    decision: 'deny',
    reason: `the command changed ${refused.join(', ')}, which this session may not write: ${why} They are not staged. ` +
      `Undo these changes (git checkout -- <path> for a tracked file, rm for a new one)${named ? `, or ask for more scope: intent expand ${named.id} <glob> --reason "…"` : ''}.`,
    note,
  };
}

function decideCommand(call: ToolCall): Verdict {
  if (typeof call.command !== 'string') throw new IntentError('INVALID_INPUT', `${call.agent}: the shell tool call has no command string.`, {});
  // `intent commit …` is git commit with the hooks on: the way to commit for every agent.
  if (isIntentCommit(call.command)) return NONE;
  if (call.gitHooksOff) {
    const sub = committingGitCommand(call.command);
    if (sub) return { decision: 'deny', reason: hooklessCommitReason(call.agent, sub) };
  }
  const repo = openRepo(call.cwd);
  const named = resolveIntentId(repo, hostEnv().INTENT_ID);
  let inScope: (p: string) => boolean = () => false;
  if (named) {
    const intent = requireActive(loadRegistry(orchestrationPath(repo, 'active_intents.yaml')), named.id);
    const scope = compileScope(intent.owned_scope);
    const ignore = loadIgnore(repo);
    inScope = (p) => outOfScope([p], scope, ignore, !repo.isMainWorktree).length === 0;
  }
  const d = classifyCommand(call.command, { cwd: call.cwd, root: repo.root, inScope });
  // Where no snapshot follows the command (no tool call id: Cursor, Cline's VS Code), or the agent
  // can be told before it runs (Cline), its writes wait for the handshake now.
  if (d.decision === 'allow' && d.writes.length && named && call.session && (!call.toolUseId || call.handshakeBeforeShell) && call.pendingSelection !== named.id) {
    requireHandshake(repo, call.session, named.id);
  }
  return d.decision === 'allow' ? NONE : { decision: d.decision, reason: d.reason };
}

/** `intent context <ID>` as a whole command line (the CLI form of select_active_intent): the id, or undefined. */
export function contextCommand(command: string): string | undefined {
  const m = /^\s*(?:npx\s+(?:--no-install\s+)?)?intent\s+context\s+([A-Za-z0-9][A-Za-z0-9_-]{0,63})(?:\s+--(?:json|max-bytes(?:=|\s+)\d+))*\s*$/.exec(command);
  return m ? m[1] : undefined;
}

/**
 * A selection seen before the call runs: recorded when it names the worktree's own intent (in
 * the main worktree, any registered intent); never refuses, since reading another intent's context
 * is harmless and the session's writes stay refused until it selects its worktree's intent.
 */
function selectBefore(call: ToolCall): void {
  const repo = tryRepo(call.cwd);
  if (!repo || !call.session || !call.selects) return;
  try {
    const own = resolveIntentId(repo, hostEnv().INTENT_ID);
    if (own && own.id !== call.selects) return;
    if (!findIntent(loadRegistry(orchestrationPath(repo, 'active_intents.yaml')), call.selects)) return;
    recordHandshake(repo, call.session, call.selects);
  } catch {
    /* no registry or a broken one: nothing selected, the writes stay refused */
  }
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

/** Marks the Claude Code session as seen by the hooks in this worktree (see claude-sessions). */
function markSeen(cwd: string, sessionId: string): void {
  const repo = tryRepo(cwd);
  if (repo) mkdirSync(sessionDir(repo, `claude-code://session/${encodeURIComponent(sessionId)}`), { recursive: true });
}

/** Whether intent's hooks saw the Claude Code session `sessionId` in this worktree. */
export function sessionSeen(repo: Repo, sessionId: string): boolean {
  return existsSync(sessionDir(repo, `claude-code://session/${encodeURIComponent(sessionId)}`));
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
