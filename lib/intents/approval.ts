import { existsSync } from 'node:fs';
import { agentMarker } from '../core/agent-env.js';
import { userInfo } from 'node:os';
import { activeIntentFile, BRANCH_PREFIX } from './active.js';
import { takenBack } from './scope.js';
import { IntentError } from '../core/errors.js';
import {
  checkRequestGlobs, listExpansionRequests, MAX_REASON_CHARS, readExpansionRequest, writeExpansionRequest, type ExpansionRequest,
} from './expansion.js';
import { gitRaw } from '../git/process.js';
import { appendLesson } from './lessons.js';
import { withLock } from '../core/lock.js';
import { addScopeGlobs, registryLockPath } from './registry-edit.js';
import { findIntent, loadRegistry } from './registry.js';
import { openRepo, orchestrationPath, type Repo } from '../git/repo.js';
import { hostEnv } from '../core/settings.js';

/** What `intent approve` did. */
export interface ApproveResult {
  request: ExpansionRequest;
  intent: string;
  /** Globs appended to `owned_scope`. */
  added: string[];
  /** Requested globs the scope already had. */
  already: string[];
  /** The intent's scope now. */
  scope: string[];
  /** Requested globs a `!` glob of the scope still takes back (the intent still may not edit them), with those negations. */
  taken_back: { glob: string; by: string[] }[];
  /** The main worktree's registry file that was edited (left uncommitted). */
  registry: string;
}

/** What `intent reject` did. */
export interface RejectResult {
  request: ExpansionRequest;
  intent: string;
  /** Whether a lesson was appended to AGENT.md (false: the same lesson was already there). */
  lesson: { appended: boolean; path: string; text: string };
}

const INTENT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/**
 * Refuses (NOT_A_HUMAN) unless a human runs `action` from outside any intent worktree: decisions
 * about scope must not come from the agent whose scope they widen.
 */
export function assertHuman(repo: Repo, action: string, env: NodeJS.ProcessEnv = hostEnv()): void {
  const how = `A human must run \`intent ${action}\` in a terminal in the main worktree (cd ${repo.mainRoot}).`;
  const marker = agentMarker(env);
  if (marker) {
    throw new IntentError('NOT_A_HUMAN', `Refused: intent ${action.split(' ')[0]} looks like it comes from an agent process: ${marker}. ${how}`, { reason: 'agent-env', marker });
  }
  if (!repo.isMainWorktree) {
    const own = existsSync(activeIntentFile(repo.gitDir)) || !!repo.branch?.startsWith(BRANCH_PREFIX);
    if (own) {
      throw new IntentError(
        'NOT_A_HUMAN',
        `Refused: ${repo.root} is an intent worktree; scope decisions are not taken where an agent works. ${how}`,
        { reason: 'intent-worktree', worktree: repo.root, main: repo.mainRoot },
      );
    }
  }
}

/**
 * Approves a PENDING scope-expansion request: appends its globs to the intent's `owned_scope` in
 * the main worktree's registry (byte-surgically, see addScopeGlobs) and marks the request
 * APPROVED with who and when, both under the registry lock. The next commit in the intent's
 * worktree is checked against the widened scope (hooks read the registry fresh).
 */
export function approveRequest(cwd: string, requestId: string, opts: { env?: NodeJS.ProcessEnv; now?: Date } = {}): ApproveResult {
  const repo = openRepo(cwd);
  assertHuman(repo, `approve ${requestId}`, opts.env);
  const now = opts.now ?? new Date();
  const registryPath = orchestrationPath(repo, 'active_intents.yaml');
  return withLock(registryLockPath(repo), () => {
    const req = readExpansionRequest(repo, requestId);
    assertPending(req);
    const globs = checkRequestGlobs(req.globs);
    const intent = findIntent(loadRegistry(registryPath), req.intent);
    if (!intent) {
      throw new IntentError(
        'UNKNOWN_INTENT',
        `Cannot approve ${req.id}: its intent ${req.intent} is no longer in ${registryPath}. Reject it instead: intent reject ${req.id} --reason "intent removed".`,
        { request: req.id, intent: req.intent, path: registryPath },
      );
    }
    if (intent.status === 'COMPLETED' || intent.status === 'ABANDONED') {
      throw new IntentError(
        'INTENT_WRONG_STATUS',
        `Cannot approve ${req.id}: ${intent.id} is ${intent.status}, so widening its scope has no effect. Reject it instead: intent reject ${req.id} --reason "intent closed".`,
        { request: req.id, intent: intent.id, status: intent.status },
      );
    }
    const added = addScopeGlobs(registryPath, intent.id, globs, now);
    const decided: ExpansionRequest = { ...req, status: 'APPROVED', decided_at: now.toISOString(), decided_by: whoDecides(repo), added_globs: added };
    writeExpansionRequest(repo, decided);
    return {
      request: decided,
      intent: intent.id,
      added,
      already: globs.filter((g) => !added.includes(g)),
      scope: [...intent.owned_scope, ...added],
      registry: registryPath,
      taken_back: globs.flatMap((g) => {
        const by = takenBack(intent.owned_scope, g);
        return by.length ? [{ glob: g, by }] : [];
      }),
    };
  });
}

/**
 * Rejects a PENDING scope-expansion request: marks it REJECTED with the reason (under the
 * registry lock, so it cannot race an approval), then appends a lesson tagged with the intent to
 * the shared brain so the agent learns why.
 */
export function rejectRequest(cwd: string, requestId: string, opts: { reason?: string; env?: NodeJS.ProcessEnv; now?: Date } = {}): RejectResult {
  const repo = openRepo(cwd);
  assertHuman(repo, `reject ${requestId}`, opts.env);
  const reason = opts.reason?.trim() || undefined;
  if (reason && reason.length > MAX_REASON_CHARS) {
    throw new IntentError('INVALID_INPUT', `The reason is ${reason.length} characters long; at most ${MAX_REASON_CHARS} are allowed. Shorten it.`, { field: 'reason', length: reason.length });
  }
  const now = opts.now ?? new Date();
  const decided = withLock(registryLockPath(repo), () => {
    const req = readExpansionRequest(repo, requestId);
    assertPending(req);
    const out: ExpansionRequest = {
      ...req, status: 'REJECTED', decided_at: now.toISOString(), decided_by: whoDecides(repo), ...(reason ? { decision_reason: reason } : {}),
    };
    writeExpansionRequest(repo, out);
    return out;
  });
  const text = `Scope expansion to ${decided.globs.join(', ')} was rejected${reason ? `: ${reason}` : ' (no reason given).'}`;
  const l = appendLesson(repo.root, { text, intentId: INTENT_ID.test(decided.intent) ? decided.intent : null, now });
  return { request: decided, intent: decided.intent, lesson: { appended: l.appended, path: l.path, text } };
}

/** Every request of the repository: PENDING ones first (oldest first), then decided ones (newest decision first). */
export function listRequests(cwd: string): ExpansionRequest[] {
  const all = listExpansionRequests(cwd);
  const pending = all.filter((r) => r.status === 'PENDING');
  const decided = all
    .filter((r) => r.status !== 'PENDING')
    .sort((a, b) => (b.decided_at ?? '').localeCompare(a.decided_at ?? '') || b.id.localeCompare(a.id));
  return [...pending, ...decided];
}

function assertPending(req: ExpansionRequest): void {
  if (req.status === 'PENDING') return;
  const by = req.decided_by ? ` by ${req.decided_by}` : '';
  const at = req.decided_at ? ` at ${req.decided_at}` : '';
  const next = req.status === 'APPROVED'
    ? `${req.intent} already owns ${req.globs.join(', ')}.`
    : `If ${req.intent} still needs these paths, file a new request: intent expand ${req.intent} ${req.globs.join(' ')} --reason "…".`;
  throw new IntentError(
    'REQUEST_DECIDED',
    `Request ${req.id} was already ${req.status}${by}${at}; nothing changed. ${next}`,
    { request: req.id, status: req.status, decided_by: req.decided_by, decided_at: req.decided_at },
  );
}

/** The deciding human: the main worktree's git identity (`Name <email>`), else the OS user name. */
function whoDecides(repo: Repo): string {
  const res = gitRaw(['var', 'GIT_COMMITTER_IDENT'], { cwd: repo.mainRoot });
  const ident = res.status === 0 ? /^(.*>)\s+\d+\s+[+-]\d{4}\s*$/.exec(res.stdout.trim())?.[1] : undefined;
  if (ident) return ident;
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}
