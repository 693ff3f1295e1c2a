import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, existsSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { takenBack } from './scope.js';
import { IntentError } from '../core/errors.js';
import { stripInvisible } from '../core/invisible.js';
import { writeFileAtomic } from '../core/files.js';
import { findIntent, loadRegistry } from './registry.js';
import { openRepo, orchestrationPath, stateDir, type Repo } from '../git/repo.js';
import { globProblem } from './scope.js';

/**
 * A request to widen an intent's scope, filed by an agent (or a person) and decided by a human.
 * Requests live in the common git dir, so every worktree of the repository sees the same ones
 * and none of them is ever committed.
 */
export interface ExpansionRequest {
  /** `REQ-<yyyymmdd>-<hhmmss>-<4 hex>` (UTC): sorts by filing time, unique per repository. */
  id: string;
  intent: string;
  globs: string[];
  reason: string;
  /** ISO 8601 (UTC). */
  requested_at: string;
  /** Who filed it: "mcp", "cli", "claude-code", … */
  requested_by: string;
  status: RequestStatus;
  /** When a human decided it (ISO 8601, UTC); absent while PENDING. */
  decided_at?: string;
  /** Who decided it: the git identity (`Name <email>`) of the main worktree, else the OS user. */
  decided_by?: string;
  /** REJECTED: the reason the human gave, if any. */
  decision_reason?: string;
  /** APPROVED: the globs that were new to the scope (the others were already in it). */
  added_globs?: string[];
  /** Requested globs a `!` glob of the scope takes back (approving them alone does not let the intent edit them). */
  taken_back?: { glob: string; by: string[] }[];
}

/** Where a request stands: filed, or decided by a human. */
export type RequestStatus = 'PENDING' | 'APPROVED' | 'REJECTED';

/** The longest reason accepted, in characters. */
export const MAX_REASON_CHARS = 2000;
/** The most globs one request may ask for. */
export const MAX_REQUEST_GLOBS = 100;

const REQUEST_ID = /^REQ-\d{8}-\d{6}-[0-9a-f]{4}$/;

/** Where scope-expansion requests are filed (one JSON file per request). */
export function requestsDir(repo: Repo): string {
  return join(stateDir(repo), 'requests');
}

/**
 * Files a scope-expansion request under `<stateDir>/requests/<id>.json`. The intent must exist in
 * the main worktree's registry; every glob must be a valid scope glob that grants paths; the
 * reason must be non-empty. Throws UNKNOWN_INTENT or INVALID_INPUT (and whatever opening the
 * repository or reading the registry throws).
 */
export function requestExpansion(
  cwd: string,
  input: { intentId: string; globs: string[]; reason: string; requestedBy: string; now?: Date },
): ExpansionRequest {
  const repo = openRepo(cwd);
  const globs = checkGlobs(input.globs);
  const reason = checkReason(input.reason);
  const requestedBy = typeof input.requestedBy === 'string' ? input.requestedBy.trim() : '';
  if (!requestedBy) {
    throw new IntentError('INVALID_INPUT', 'A scope-expansion request must say who files it (requestedBy, e.g. "cli" or "mcp").', { field: 'requestedBy' });
  }
  const intentId = typeof input.intentId === 'string' ? input.intentId.trim() : '';
  const registryPath = orchestrationPath(repo, 'active_intents.yaml');
  const registry = loadRegistry(registryPath);
  const intent = intentId ? findIntent(registry, intentId) : undefined;
  if (!intent) {
    const known = registry.intents.map((i) => i.id).join(', ') || 'none';
    throw new IntentError(
      'UNKNOWN_INTENT',
      `${intentId ? `Unknown intent "${intentId}"` : 'No intent id given'}: a scope-expansion request must name an intent of ${registryPath}. Known intents: ${known}.`,
      { intent: intentId, path: registryPath, known: registry.intents.map((i) => i.id) },
    );
  }

  const now = input.now ?? new Date();
  const dir = requestsDir(repo);
  mkdirSync(dir, { recursive: true });
  for (let attempt = 0; ; attempt++) {
    const request: ExpansionRequest = {
      id: requestId(now),
      intent: intent.id,
      globs,
      reason,
      requested_at: now.toISOString(),
      requested_by: requestedBy,
      status: 'PENDING',
    };
    const back = globs.flatMap((g) => {
      const by = takenBack(intent.owned_scope, g);
      return by.length ? [{ glob: g, by }] : [];
    });
    if (back.length) request.taken_back = back;
    if (writeNew(join(dir, `${request.id}.json`), JSON.stringify(request, null, 2) + '\n')) return request;
    if (attempt >= 20) {
      throw new IntentError('WRITE_FAILED', `Could not find a free request id in ${dir} after ${attempt + 1} attempts. Retry in a second.`, { dir });
    }
  }
}

/** Every filed request of the repository around `cwd`, oldest first. Unreadable files are skipped. */
export function listExpansionRequests(cwd: string): ExpansionRequest[] {
  const dir = requestsDir(openRepo(cwd));
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const out: ExpansionRequest[] = [];
  for (const name of names.filter((n) => n.endsWith('.json') && REQUEST_ID.test(n.slice(0, -'.json'.length))).sort()) {
    try {
      const r = JSON.parse(readFileSync(join(dir, name), 'utf8')) as unknown;
      if (isRequest(r)) out.push(r);
    } catch { /* a torn or foreign file: not a request */ }
  }
  return out.sort((a, b) => a.requested_at.localeCompare(b.requested_at) || a.id.localeCompare(b.id));
}

/**
 * Reads one request by id from the repository's store. Throws UNKNOWN_REQUEST (naming the pending
 * requests) when there is no such request or its file is not a request.
 */
export function readExpansionRequest(repo: Repo, id: string): ExpansionRequest {
  const wanted = typeof id === 'string' ? id.trim() : '';
  const dir = requestsDir(repo);
  let request: ExpansionRequest | null = null;
  if (REQUEST_ID.test(wanted)) {
    try {
      const r = JSON.parse(readFileSync(join(dir, `${wanted}.json`), 'utf8')) as ExpansionRequest;
      if (isRequest(r) && r.id === wanted) request = r;
    } catch { /* missing or torn: unknown */ }
  }
  if (!request) {
    const pending = listExpansionRequests(repo.root).filter((r) => r.status === 'PENDING').map((r) => r.id);
    throw new IntentError(
      'UNKNOWN_REQUEST',
      `Unknown scope-expansion request "${wanted}": there is no such request in ${dir}. ` +
        `Pending requests: ${pending.join(', ') || 'none'}. List them all with \`intent requests\`.`,
      { request: wanted, dir, pending },
    );
  }
  return request;
}

/** Replaces a request's file with `request` (atomically: readers see the old or the new one). */
export function writeExpansionRequest(repo: Repo, request: ExpansionRequest): void {
  const path = join(requestsDir(repo), `${request.id}.json`);
  try {
    writeFileAtomic(path, JSON.stringify(request, null, 2) + '\n');
  } catch (e) {
    throw new IntentError('WRITE_FAILED', `Could not update the scope-expansion request ${path}: ${(e as Error).message}`, { path });
  }
}

/** Re-checks a stored request's globs (the file lives outside git and could have been edited). */
export function checkRequestGlobs(globs: unknown): string[] {
  return checkGlobs(globs);
}

function isRequest(r: unknown): r is ExpansionRequest {
  const x = r as ExpansionRequest;
  return !!x && typeof x === 'object' && typeof x.id === 'string' && typeof x.intent === 'string' && Array.isArray(x.globs) &&
    (x.status === 'PENDING' || x.status === 'APPROVED' || x.status === 'REJECTED');
}

function checkGlobs(raw: unknown): string[] {
  if (!Array.isArray(raw) || raw.length === 0) {
    throw new IntentError(
      'INVALID_INPUT',
      'A scope-expansion request needs at least one path glob (relative to the repository root, e.g. "src/billing/**").',
      { field: 'globs' },
    );
  }
  if (raw.length > MAX_REQUEST_GLOBS) {
    throw new IntentError('INVALID_INPUT', `A scope-expansion request may ask for at most ${MAX_REQUEST_GLOBS} globs, got ${raw.length}. Use broader globs.`, { field: 'globs', count: raw.length });
  }
  const problems: string[] = [];
  raw.forEach((g, i) => {
    const problem = globProblem(g);
    const shown = typeof g === 'string' ? `"${g.length > 80 ? `${g.slice(0, 77)}…` : g}" ` : '';
    if (problem) problems.push(`globs[${i}]: ${shown}${problem}`);
    else if (stripInvisible(g as string) !== g) problems.push(`globs[${i}]: ${shown}contains an invisible character (a control, format or bidirectional character); type the path plainly`);
    else if ((g as string).startsWith('!')) problems.push(`globs[${i}]: "${g}" is a negation, which narrows a scope; request only globs that grant paths`);
    else if (/^(\.\/)*\.(orchestration|git)(\/|$)/.test(g as string)) {
      problems.push(`globs[${i}]: "${g}" is governance state (.orchestration/, .git/), which no intent's scope may hold; only a human edits it`);
    }
  });
  if (problems.length) {
    throw new IntentError(
      'INVALID_INPUT',
      `Invalid glob${problems.length === 1 ? '' : 's'} in the scope-expansion request:\n  ${problems.join('\n  ')}\nUse repository-relative POSIX globs such as "src/billing/**".`,
      { field: 'globs', problems },
    );
  }
  return [...new Set(raw as string[])];
}

function checkReason(raw: unknown): string {
  // The reason is shown to the human who decides and may reach other agents: nothing hidden in it.
  const reason = typeof raw === 'string' ? stripInvisible(raw.replace(/\r\n?/g, '\n')).trim() : '';
  if (!reason) {
    throw new IntentError('INVALID_INPUT', 'A scope-expansion request needs a reason: say why the intent needs these paths, for the human who decides.', { field: 'reason' });
  }
  if (reason.length > MAX_REASON_CHARS) {
    throw new IntentError('INVALID_INPUT', `The reason is ${reason.length} characters long; at most ${MAX_REASON_CHARS} are allowed. Shorten it.`, { field: 'reason', length: reason.length });
  }
  return reason;
}

function requestId(now: Date): string {
  const iso = now.toISOString(); // 2026-11-23T09:15:00.000Z
  const stamp = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}-${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}`;
  return `REQ-${stamp}-${randomBytes(2).toString('hex')}`;
}

/**
 * Writes a complete file at `path` unless one exists there: the bytes go to a temp file first,
 * which is then linked (never overwriting) or, where hard links are unsupported, renamed into
 * place. Returns false when `path` is taken.
 */
function writeNew(path: string, text: string): boolean {
  if (existsSync(path)) return false;
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'wx', 0o644);
  try {
    writeSync(fd, Buffer.from(text, 'utf8'));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    try {
      linkSync(tmp, path);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return false;
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EXDEV') throw e;
      renameSync(tmp, path);
      return true;
    }
    return true;
  } catch (e) {
    throw new IntentError('WRITE_FAILED', `Could not write the scope-expansion request ${path}: ${(e as Error).message}`, { path });
  } finally {
    try { unlinkSync(tmp); } catch { /* renamed or already gone */ }
  }
}
