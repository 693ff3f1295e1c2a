/**
 * The adapter an agent's write tools call: every write is checked against the worktree's active
 * intent and its scope before anything touches the disk, refused when the file changed since the
 * agent read it, written atomically, staged, and its lines credited to the model that produced
 * them so the post-commit note can say which lines are the model's and which a human's.
 *
 * Import it as `intent-governance/adapter`. Every refusal is an `IntentError` with a stable `code`
 * (NO_ACTIVE_INTENT, SCOPE_VIOLATION, PATH_OUTSIDE_WORKTREE, STALE_FILE, INVALID_INPUT,
 * WRITE_FAILED) and `toJSON()` an agent can act on.
 */
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, realpathSync, statSync, chmodSync, unlinkSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { requireActive, resolveIntentId } from '../intents/active.js';
import { authorIndex, carryAuthors, compressRuns, expandRuns, readAttribution, splitLines, updateAttribution, type AiAuthor, type LineAuthors } from '../trace/line-credit.js';
import { IntentError, NO_ACTIVE_INTENT_MESSAGE, scopeViolationMessage } from '../core/errors.js';
import { writeFileAtomic } from '../core/files.js';
import { gitStep, gitStepOk, runGitSteps, runGitStepsAsync, type GitSteps } from '../git/process.js';
import { sha256Hex } from '../trace/hashing.js';
import { takeLock } from '../core/lock.js';
import { loadIgnore } from '../intents/ignore.js';
import { loadRegistry, type Intent } from '../intents/registry.js';
import { openRepoSteps, orchestrationPath, type Repo } from '../git/repo.js';
import { compileScope, outOfScope } from '../intents/scope.js';
import { hostEnv } from '../core/settings.js';

export { IntentError } from '../core/errors.js';

/** Who is writing: the agent's tool, the model (`provider/model`) and its conversation. */
export interface WriteOrigin {
  /** The agent's tool name, e.g. `write_to_file`, `apply_diff`, `Edit`. */
  tool: string;
  /** The model as `provider/model`, e.g. `anthropic/claude-sonnet-4-5`. */
  modelId: string;
  /** Conversation, task or session URL (any URI: `https://…`, `roo-code://task/<id>`). */
  conversationUrl?: string;
}

/** A file the agent wants to change. */
export interface WriteTarget {
  /** The worktree (or any directory inside it) the agent works in. */
  worktree: string;
  /** The file, relative to `worktree` or absolute inside it. */
  path: string;
  /**
   * The content hash the agent last read (`sha256:<hex>` or bare hex), or `null` when it expects the
   * file not to exist. Omitted: no stale-write check.
   */
  expectedSha256?: string | null;
  /** Names the intent explicitly; it must be the worktree's own (defaults to the worktree's). */
  intentId?: string;
}

export interface WriteRequest extends WriteTarget, WriteOrigin {
  /** The complete new content of the file. */
  content: string | Uint8Array;
}

export interface DeleteRequest extends WriteTarget, WriteOrigin {}

export interface MoveRequest extends WriteTarget, WriteOrigin {
  /** Where the file goes (relative to `worktree` or absolute inside it). */
  newPath: string;
  /** New content for the moved file; omitted keeps the bytes. */
  content?: string | Uint8Array;
}

/** A write already done by the agent's own tool, to be staged and credited (post-tool hooks). */
export interface RecordRequest extends WriteOrigin {
  worktree: string;
  path: string;
  /** The file's bytes before the tool ran (`null`: it did not exist), e.g. saved by a pre-tool hook. */
  before: Buffer | null;
  /**
   * What the model proposed, when a human could change it before it was saved (an editor's diff
   * view): lines of the saved file that are not in `proposed` are the human's, not the model's.
   */
  proposed?: string | Uint8Array;
  intentId?: string;
}

/** What a successful call did. */
export interface WriteResult {
  intent: string;
  operation: 'write' | 'delete' | 'move' | 'record';
  /** Repository-relative POSIX path (the new path for a move). */
  path: string;
  oldPath?: string;
  /** `sha256:<hex>` of the file now on disk, or null when it is gone. */
  sha256: string | null;
  /** Lines credited to this model in the file as staged. */
  aiLines: number;
  /** False when git refused to stage the path (it is git-ignored); the file is still written. */
  staged: boolean;
}

/** A checked target: the repository, the intent, the absolute and repository-relative paths. */
export interface CheckedTarget {
  repo: Repo;
  intent: Intent;
  abs: string;
  rel: string;
}

/** `sha256:<hex>` of some bytes: the form `expectedSha256` and `WriteResult.sha256` use. */
export function contentHash(data: string | Uint8Array): string {
  return 'sha256:' + sha256Hex(toBuffer(data));
}

/** Reads a file for editing: its content and the hash to hand back as `expectedSha256`. */
export function readForEdit(target: Omit<WriteTarget, 'expectedSha256'>): { path: string; content: Buffer | null; sha256: string | null } {
  const checked = runGitSteps(checkTarget(target, false));
  const content = readIfFile(checked.abs);
  return { path: checked.rel, content, sha256: content ? contentHash(content) : null };
}

/**
 * Everything a write would check, without writing: the active intent, the path inside the
 * worktree and the scope, and the stale-write lock. Throws the refusal; returns the target.
 */
export function checkWrite(target: WriteTarget & { newPath?: string }): CheckedTarget {
  return runGitSteps(checkWriteSteps(target));
}

/** `checkWrite` without blocking on git (an editor's extension host); rejects with the refusal. */
export function checkWriteAsync(target: WriteTarget & { newPath?: string }): Promise<CheckedTarget> {
  return runGitStepsAsync(checkWriteSteps(target));
}

function* checkWriteSteps(target: WriteTarget & { newPath?: string }): GitSteps<CheckedTarget> {
  const checked = yield* checkTarget(target, true);
  if (target.newPath !== undefined) yield* checkTarget({ ...target, path: target.newPath }, true);
  checkFresh(checked, target.expectedSha256);
  return checked;
}

/** Writes the whole file atomically, stages it and credits the lines the model produced. */
export function writeFile(req: WriteRequest): WriteResult {
  return runGitSteps(writeFileSteps(req));
}

function* writeFileSteps(req: WriteRequest): GitSteps<WriteResult> {
  const origin = checkOrigin(req);
  const content = requireContent(req.content);
  const t = yield* checkTarget(req, true);
  const release = lockWorktree(t.repo);
  try {
    checkFresh(t, req.expectedSha256);
    const before = readIfFile(t.abs);
    writeAtomic(t.abs, content);
    const staged = yield* stage(t.repo, [t.rel]);
    const aiLines = yield* credit(t.repo, t.rel, before, content, origin, staged);
    return { intent: t.intent.id, operation: 'write', path: t.rel, sha256: contentHash(content), aiLines, staged };
  } finally {
    release();
  }
}

/** Deletes the file and stages the deletion. */
export function deleteFile(req: DeleteRequest): WriteResult {
  return runGitSteps(deleteFileSteps(req));
}

/** `deleteFile` without blocking on git (an editor's extension host). */
export function deleteFileAsync(req: DeleteRequest): Promise<WriteResult> {
  return runGitStepsAsync(deleteFileSteps(req));
}

function* deleteFileSteps(req: DeleteRequest): GitSteps<WriteResult> {
  checkOrigin(req);
  const t = yield* checkTarget(req, true);
  const release = lockWorktree(t.repo);
  try {
    checkFresh(t, req.expectedSha256);
    if (!existsSync(t.abs) && !isSymlink(t.abs)) {
      throw new IntentError('INVALID_INPUT', `${t.rel} does not exist: there is nothing to delete.`, { path: t.rel });
    }
    try {
      unlinkSync(t.abs);
    } catch (e) {
      throw writeFailed(t.rel, e);
    }
    yield* unstage(t.repo, t.rel);
    updateAttribution(t.repo, (paths) => { delete paths[t.rel]; });
    return { intent: t.intent.id, operation: 'delete', path: t.rel, sha256: null, aiLines: 0, staged: true };
  } finally {
    release();
  }
}

/** Moves (renames) the file, optionally with new content, and stages both sides. */
export function moveFile(req: MoveRequest): WriteResult {
  return runGitSteps(moveFileSteps(req));
}

/** `moveFile` without blocking on git (an editor's extension host). */
export function moveFileAsync(req: MoveRequest): Promise<WriteResult> {
  return runGitStepsAsync(moveFileSteps(req));
}

function* moveFileSteps(req: MoveRequest): GitSteps<WriteResult> {
  const origin = checkOrigin(req);
  const from = yield* checkTarget(req, true);
  const to = yield* checkTarget({ ...req, path: req.newPath }, true);
  if (from.rel === to.rel) throw new IntentError('INVALID_INPUT', `moving ${from.rel} onto itself: give a different newPath.`, { path: from.rel });
  const release = lockWorktree(from.repo);
  try {
    checkFresh(from, req.expectedSha256);
    const old = readIfFile(from.abs);
    if (!old) throw new IntentError('INVALID_INPUT', `${from.rel} does not exist or is not a file: there is nothing to move.`, { path: from.rel });
    if (existsSync(to.abs)) {
      throw new IntentError('INVALID_INPUT', `${to.rel} already exists: moving ${from.rel} there would overwrite it. Delete it first or pick another path.`, { path: to.rel });
    }
    const content = req.content === undefined ? old : requireContent(req.content);
    writeAtomic(to.abs, content, modeOf(from.abs));
    try {
      unlinkSync(from.abs);
    } catch (e) {
      throw writeFailed(from.rel, e);
    }
    yield* unstage(from.repo, from.rel);
    const staged = yield* stage(from.repo, [to.rel]);
    const prior = updateAttribution(from.repo, (paths) => {
      const entry = paths[from.rel];
      delete paths[from.rel];
      if (entry) paths[to.rel] = entry;
      return entry;
    });
    // The moved bytes keep whatever credit they had; only new content is this model's.
    const aiLines = prior || req.content !== undefined ? yield* credit(from.repo, to.rel, old, content, origin, staged) : 0;
    return { intent: from.intent.id, operation: 'move', path: to.rel, oldPath: from.rel, sha256: contentHash(content), aiLines, staged };
  } finally {
    release();
  }
}

/**
 * Stages a write the agent's own tool already made and credits the lines that differ from
 * `before` to the model. Scope is checked as for a write (a post-tool hook should have denied
 * the write before; this refuses to stage it if it did not).
 */
export function recordWrite(req: RecordRequest): WriteResult {
  return runGitSteps(recordWriteSteps(req));
}

/** `recordWrite` without blocking on git (an editor's extension host). */
export function recordWriteAsync(req: RecordRequest): Promise<WriteResult> {
  return runGitStepsAsync(recordWriteSteps(req));
}

function* recordWriteSteps(req: RecordRequest): GitSteps<WriteResult> {
  const origin = checkOrigin(req);
  const t = yield* checkTarget(req, true);
  const release = lockWorktree(t.repo);
  try {
    const after = readIfFile(t.abs);
    if (!after) {
      yield* unstage(t.repo, t.rel);
      updateAttribution(t.repo, (paths) => { delete paths[t.rel]; });
      return { intent: t.intent.id, operation: 'record', path: t.rel, sha256: null, aiLines: 0, staged: true };
    }
    const staged = yield* stage(t.repo, [t.rel]);
    const proposed = req.proposed === undefined ? undefined : requireContent(req.proposed);
    const aiLines = yield* credit(t.repo, t.rel, req.before, after, origin, staged, proposed);
    return { intent: t.intent.id, operation: 'record', path: t.rel, sha256: contentHash(after), aiLines, staged };
  } finally {
    release();
  }
}

// ---------------------------------------------------------------------------------------------

function checkOrigin(o: WriteOrigin): AiAuthor {
  if (typeof o.tool !== 'string' || !o.tool.trim()) throw invalid('tool', 'the agent tool name (e.g. write_to_file)');
  if (typeof o.modelId !== 'string' || o.modelId.length > 250 || !/^[^\s/]+\/\S+$/.test(o.modelId)) {
    throw invalid('modelId', 'the model as provider/model (e.g. anthropic/claude-sonnet-4-5)');
  }
  if (o.conversationUrl !== undefined && (typeof o.conversationUrl !== 'string' || !/^[a-z][a-z0-9+.-]*:\S+$/i.test(o.conversationUrl))) {
    throw invalid('conversationUrl', 'a URI such as https://… or roo-code://task/<id>');
  }
  return { model_id: o.modelId, tool: o.tool, ...(o.conversationUrl ? { url: o.conversationUrl } : {}) };
}

function invalid(field: string, want: string): IntentError {
  return new IntentError('INVALID_INPUT', `${field} is missing or malformed: pass ${want}.`, { field });
}

function requireContent(content: unknown): Buffer {
  if (typeof content === 'string' || content instanceof Uint8Array) return toBuffer(content);
  throw invalid('content', 'the complete new file content as a string or bytes');
}

function toBuffer(data: string | Uint8Array): Buffer {
  return typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/** Resolves the active intent and the path, refusing paths outside the worktree or the scope. */
function* checkTarget(target: Omit<WriteTarget, 'expectedSha256'>, enforceScope: boolean): GitSteps<CheckedTarget> {
  if (typeof target.worktree !== 'string' || !target.worktree) throw invalid('worktree', 'the directory the agent works in');
  if (typeof target.path !== 'string' || !target.path) throw invalid('path', 'the file path, relative to the worktree');
  if (target.path.includes('\0')) throw new IntentError('INVALID_INPUT', 'path contains a NUL byte.', { field: 'path' });
  const repo = yield* openRepoSteps(target.worktree);
  const named = resolveIntentId(repo, target.intentId ?? hostEnv().INTENT_ID);
  if (!named) {
    throw new IntentError('NO_ACTIVE_INTENT', `${NO_ACTIVE_INTENT_MESSAGE}\nThis worktree has no intent. Work in an intent worktree (intent checkout <ID>).`, {});
  }
  const intent = requireActive(loadRegistry(orchestrationPath(repo, 'active_intents.yaml')), named.id);
  const abs = resolve(isAbsolute(target.path) ? target.path : resolve(target.worktree, target.path));
  const rel = insideRoot(repo.root, abs, target.path);
  const real = realTarget(repo.root, abs, rel);
  if (enforceScope) {
    const scope = compileScope(intent.owned_scope);
    const ignore = loadIgnore(repo);
    const bad = outOfScope(real === rel ? [rel] : [rel, real], scope, ignore, !repo.isMainWorktree);
    if (bad.length) {
      throw new IntentError(
        'SCOPE_VIOLATION',
        `${bad.map((p) => scopeViolationMessage(intent.id, p)).join('\n')}\n${intent.id} owns: ${intent.owned_scope.join(', ')}\n` +
          `Nothing was written. Edit only paths inside the scope, or ask for more: intent expand ${intent.id} <glob> --reason "…".`,
        { intent: intent.id, paths: bad, scope: intent.owned_scope },
      );
    }
  }
  return { repo, intent, abs, rel };
}

function outside(abs: string, shown: string, why: string): IntentError {
  return new IntentError('PATH_OUTSIDE_WORKTREE', `${shown} ${why}: the agent may only write inside its worktree. Nothing was written.`, { path: shown, resolved: abs });
}

/** The repository-relative POSIX path of `abs`, or a PATH_OUTSIDE_WORKTREE refusal. */
function insideRoot(root: string, abs: string, shown: string): string {
  const rel = relative(root, abs);
  if (rel === '' || rel === '..' || rel.startsWith('..' + sep) || isAbsolute(rel)) throw outside(abs, shown, `is outside the worktree ${root}`);
  const posix = rel.split(sep).join('/');
  if (posix.split('/').some((s) => s.toLowerCase() === '.git')) throw outside(abs, shown, 'is inside git\'s own directory');
  return posix;
}

/**
 * The repository-relative path the write really lands on, following symlinks in the parent
 * folders and the file itself: it must stay inside the worktree (its scope is checked too).
 */
function realTarget(root: string, abs: string, rel: string): string {
  const realRoot = realpathSync(root);
  let dir = dirname(abs);
  const rest: string[] = [abs.slice(dir.length + 1)];
  while (!existsSync(dir)) {
    rest.unshift(dir.slice(dirname(dir).length + 1));
    dir = dirname(dir);
  }
  let real = join(realpathSync(dir), ...rest);
  for (let hops = 0; isSymlink(real); hops++) {
    if (hops > 20) throw outside(abs, rel, 'is a symlink loop');
    real = resolve(dirname(real), readlinkSync(real));
    if (existsSync(real)) real = realpathSync(real);
  }
  const realRel = relative(realRoot, real);
  if (realRel === '' || realRel === '..' || realRel.startsWith('..' + sep) || isAbsolute(realRel)) {
    throw outside(abs, rel, `resolves (through a symlink) to ${real}, outside the worktree`);
  }
  const posix = realRel.split(sep).join('/');
  if (posix.split('/').some((s) => s.toLowerCase() === '.git')) throw outside(abs, rel, 'resolves into git\'s own directory');
  return posix;
}

function isSymlink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

function readIfFile(abs: string): Buffer | null {
  try {
    return statSync(abs).isFile() ? readFileSync(abs) : null;
  } catch {
    return null;
  }
}

function modeOf(abs: string): number | undefined {
  try {
    return statSync(abs).mode & 0o7777;
  } catch {
    return undefined;
  }
}

/** The optimistic lock: the file must still have the bytes the agent read. */
function checkFresh(t: CheckedTarget, expected: string | null | undefined): void {
  if (expected === undefined) return;
  if (expected !== null && (typeof expected !== 'string' || !/^(sha256:)?[0-9a-f]{64}$/i.test(expected))) {
    throw invalid('expectedSha256', 'sha256:<64 hex digits> of the content last read, or null when the file should not exist');
  }
  const want = expected === null ? null : 'sha256:' + expected.replace(/^sha256:/i, '').toLowerCase();
  const content = readIfFile(t.abs);
  const found = content ? contentHash(content) : null;
  if (found !== want) {
    throw new IntentError(
      'STALE_FILE',
      `Stale File: ${t.rel} changed since it was read (expected ${want ?? 'no file'}, found ${found ?? 'no file'}). Nothing was written: read it again and redo the edit.`,
      { path: t.rel, expected: want, found },
    );
  }
}

function writeAtomic(abs: string, content: Buffer, mode = modeOf(abs)): void {
  try {
    mkdirSync(dirname(abs), { recursive: true });
    writeFileAtomic(abs, content);
    if (mode !== undefined) chmodSync(abs, mode);
  } catch (e) {
    throw writeFailed(abs, e);
  }
}

function writeFailed(path: string, e: unknown): IntentError {
  return new IntentError('WRITE_FAILED', `could not write ${path}: ${(e as Error).message}`, { path });
}

function lockWorktree(repo: Repo): () => void {
  // One adapter call at a time per worktree: the stale check, the write, the staging and the
  // credit must not interleave with another agent's call on the same worktree.
  return takeLock(join(repo.gitDir, 'intent-adapter.lock'));
}

function literal(rel: string): string {
  return `:(literal)${rel}`;
}

/** `git add` the paths; false when git refuses because they are ignored. */
function* stage(repo: Repo, rels: string[]): GitSteps<boolean> {
  const res = yield* gitStep(['add', '--', ...rels.map(literal)], { cwd: repo.root });
  if (res.status === 0) return true;
  if (/ignored by one of your \.gitignore files/.test(res.stderr)) return false;
  throw new IntentError('GIT_FAILED', `git add ${rels.join(' ')} failed: ${res.stderr.trim()}`, { paths: rels });
}

function* unstage(repo: Repo, rel: string): GitSteps<void> {
  yield* gitStepOk(['rm', '--cached', '--ignore-unmatch', '-q', '--', literal(rel)], { cwd: repo.root });
}

/**
 * Credits the lines of `after` that are not in `before` to the model, carrying earlier credit
 * (from previous adapter writes) through whatever happened to the file in between.
 */
function* credit(repo: Repo, rel: string, before: Buffer | null, after: Buffer, author: AiAuthor, staged: boolean, proposed?: Buffer): GitSteps<number> {
  const blob = staged ? yield* stagedBlob(repo, rel) : '';
  // The earlier credit's blob is read before the store's lock (a callback cannot wait for git).
  // Only a commit's post-commit hook changes the entry in between; then it is read in-line.
  const known = before ? readAttribution(repo)[rel]?.blob : undefined;
  const knownContent = known ? yield* readBlob(repo, known) : null;
  return updateAttribution(repo, (paths) => {
    const prev = paths[rel];
    const beforeLines = before ? splitLines(before) : [];
    let beforeAuthors: LineAuthors = new Int32Array(beforeLines.length).fill(-1);
    const authors = prev ? prev.authors : [];
    if (prev && before) {
      const prevContent = prev.blob === known ? knownContent : runGitSteps(readBlob(repo, prev.blob));
      if (prevContent) {
        const prevLines = splitLines(prevContent);
        beforeAuthors = carryAuthors(prevLines, expandRuns(prev.runs, prevLines.length), beforeLines, -1);
      }
    }
    const me = authorIndex(authors, author);
    let lines = carryAuthors(beforeLines, beforeAuthors, splitLines(proposed ?? after), me);
    if (proposed && !proposed.equals(after)) lines = carryAuthors(splitLines(proposed), lines, splitLines(after), -1);
    const runs = compressRuns(lines);
    if (!staged || runs.length === 0) delete paths[rel];
    else paths[rel] = { sha256: sha256Hex(after), blob, authors, runs };
    let mine = 0;
    for (const a of lines) if (a === me) mine++;
    return mine;
  });
}

function* stagedBlob(repo: Repo, rel: string): GitSteps<string> {
  const out = yield* gitStepOk(['ls-files', '-s', '-z', '--', literal(rel)], { cwd: repo.root });
  const m = /^\d+ ([0-9a-f]+) 0\t/.exec(out);
  if (!m) throw new IntentError('GIT_FAILED', `${rel} was added but is not in the index`, { path: rel });
  return m[1];
}

function* readBlob(repo: Repo, oid: string): GitSteps<Buffer | null> {
  if (!oid) return null;
  const res = yield* gitStep(['cat-file', 'blob', oid], { cwd: repo.root, binary: true });
  return res.status === 0 && res.stdoutBuf ? res.stdoutBuf : null;
}
