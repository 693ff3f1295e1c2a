/**
 * Classifying ahead: the syntax comparison of a refactor-like commit (it loads the TypeScript
 * compiler) runs in a background process that pre-commit starts, while git goes on with the
 * commit; post-commit takes the result from a cache instead of loading the compiler itself.
 *
 * pre-commit predicts from the staged patch (`predictsSyntax`) and starts the worker with the
 * parent commit and the staged tree; the worker diffs those two trees exactly as post-commit
 * diffs the commit (same flags, renames, blobs), runs `classifyChanges` and writes the result to
 * `<git-common-dir>/intent/classify-ahead/<key>.json` (temp file + rename), where the key hashes
 * the complete input: every change's status, similarity, paths, modes and blob ids, the claim
 * flag and the classifier's version. While it works, a `<name>.pending` file names its pid and the
 * parent. post-commit (`classifyCommitChanges`) computes the key from its own change list: an
 * entry there is used, a live worker for the same parent is waited for (bounded), anything else
 * is computed as before. Correctness never depends on the worker: an entry whose key, shape or
 * classes do not fit (garbled, planted, stale) is ignored with a warning, and the classes the
 * cheap rules settle must agree with it. What a planted entry with the right key can still change
 * is the class of files that survive the token filter (docs/threat-model.md).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, unlinkSync, appendFileSync } from 'node:fs';
import { replaceFile } from '../core/files.js';
import { join } from 'node:path';
import { TOOL_VERSION } from '../core/version.js';
import type { FileChange } from '../git/hunks.js';
import type { FileClasses } from './classify.js';
import { syntaxOf } from './languages.js';
import { tokenSignature } from './tokens.js';
import { readSettings } from '../core/settings.js';
import { procStat } from '../core/proc.js';

/** Bumped whenever the classifier may decide differently for the same input. */
export const FORMAT = 1;
const CLASSES = new Set(['AST_REFACTOR', 'INTENT_EVOLUTION']);
/** Entries nobody used (a refused or amended commit) are removed after this long. */
const MAX_AGE_MS = 10 * 60_000;
/** Patches larger than this are not predicted (the worker would not pay off). */
const MAX_PATCH_CHARS = 1_000_000;
/** Nor are changes to more TS/JS files than this (the classifier's own limit is 500). */
const MAX_FILES = 500;

/** The folder of the cache, in the repository's state folder. */
export function aheadDir(stateDir: string): string {
  return join(stateDir, 'classify-ahead');
}

/** The cache key of a classification: a hash of everything `classifyChanges` reads. */
export function aheadKey(changes: readonly FileChange[], claimedRefactor = false): string {
  const input = changes.map((c) => [c.status, c.similarity, c.path, c.oldPath, c.oldMode, c.newMode, c.oldOid, c.newOid]);
  return createHash('sha256').update(JSON.stringify(['intent-classify-ahead', FORMAT, TOOL_VERSION, claimedRefactor, input])).digest('hex');
}

/**
 * Whether a staged `-U0` patch (`git diff --cached -U0 --no-renames`) looks like a change the
 * syntax comparison will see: the removed and added lines of its TS/JS files have the same token
 * signature, in one file or over all of them together (a move). Other files' parts are skipped.
 * Only a guess, to spare ordinary commits a worker.
 */
export function predictsSyntax(patch: string): boolean {
  if (!patch || patch.length > MAX_PATCH_CHARS) return false;
  const files: { removed: string[]; added: string[] }[] = [];
  let cur: { removed: string[]; added: string[] } | null = null;
  let body = false;
  for (const line of patch.split('\n')) {
    if (line.startsWith('diff --git ')) {
      // Without renames both names are the same: the extension is the line's (quotes aside).
      cur = syntaxOf(line.endsWith('"') ? line.slice(0, -1) : line) ? { removed: [], added: [] } : null;
      if (cur) files.push(cur);
      body = false;
    } else if (!cur) continue;
    else if (line.startsWith('@@')) body = true;
    else if (body && line.startsWith('-')) cur.removed.push(line.slice(1));
    else if (body && line.startsWith('+')) cur.added.push(line.slice(1));
  }
  return looksSyntactic(files);
}

/**
 * `predictsSyntax` from a change list and its blobs (both sides): the removed and added lines of
 * each TS/JS file's hunks, the same guess. False when a side's bytes are missing.
 */
export function predictsSyntaxOf(changes: readonly FileChange[], blobs: ReadonlyMap<string, Buffer>): boolean {
  const files: { removed: string[]; added: string[] }[] = [];
  let chars = 0;
  for (const c of changes) {
    if (!syntaxOf(c.path)) continue;
    const lines = (oid: string) => (/^0+$/.test(oid) ? [] : blobs.get(oid)?.toString('utf8').split('\n') ?? null);
    const before = lines(c.oldOid);
    const after = lines(c.newOid);
    if (!before || !after) return false;
    const f = { removed: [] as string[], added: [] as string[] };
    for (const h of c.hunks) {
      f.removed.push(...before.slice(h.oldStart - 1, h.oldStart - 1 + h.oldCount));
      f.added.push(...after.slice(h.newStart - 1, h.newStart - 1 + h.newCount));
    }
    for (const l of [...f.removed, ...f.added]) chars += l.length + 1;
    if (chars > MAX_PATCH_CHARS) return false;
    files.push(f);
  }
  return looksSyntactic(files);
}

/** The guess itself: the same token signature removed and added, in one file or over all (a move). */
function looksSyntactic(files: { removed: string[]; added: string[] }[]): boolean {
  const changed = files.filter((f) => f.removed.length || f.added.length);
  if (!changed.length || files.length > MAX_FILES) return false;
  const same = (r: string[], a: string[]) => tokenSignature(r.join('\n')) === tokenSignature(a.join('\n'));
  if (changed.some((f) => f.removed.length && f.added.length && same(f.removed, f.added))) return true;
  // Comments added or removed alone, and moves between files.
  return changed.some((f) => same(f.removed, f.added)) || same(changed.flatMap((f) => f.removed), changed.flatMap((f) => f.added));
}

/** What the worker stores under its key. */
export interface Entry {
  format: number;
  key: string;
  classes: Record<string, { cls: string; reason?: string }>;
  worker: { pid: number; wall_ms: number; cpu_ms: number };
}

/** The worker's side: stores `classes` under `key` (temp file + rename: readers never see half). */
export function writeAheadEntry(dir: string, key: string, classes: FileClasses, worker: Entry['worker']): void {
  // No mkdir: pre-commit made the folder; a repository removed meanwhile stays removed.
  const entry: Entry = { format: FORMAT, key, classes: Object.fromEntries([...classes].map(([p, v]) => [p, v.reason ? { cls: v.cls, reason: v.reason } : { cls: v.cls }])), worker };
  replaceFile(join(dir, `${key}.json`), JSON.stringify(entry));
}

/** The name of the pending marker of a worker for `parent` → `tree`. */
export function pendingName(parent: string, tree: string): string {
  return `${createHash('sha256').update(`${parent} ${tree}`).digest('hex').slice(0, 40)}.pending`;
}

/** pre-commit's side: names the worker that is classifying `parent` → `tree` (temp file + rename). */
export function writePending(dir: string, parent: string, tree: string, pid: number): void {
  mkdirSync(dir, { recursive: true });
  replaceFile(join(dir, pendingName(parent, tree)), JSON.stringify({ parent, tree, pid }));
}

/** Whether a live worker already classifies `parent` → `tree` (then pre-commit starts none). */
export function pendingAlive(dir: string, parent: string, tree: string): boolean {
  const p = readPending(join(dir, pendingName(parent, tree)));
  return !!p && alive(p.pid);
}

/** Removes a pending marker (the worker, when done, whether it succeeded or not). */
export function clearPending(dir: string, parent: string, tree: string): void {
  remove(join(dir, pendingName(parent, tree)));
}

/** Removes entries nobody used and markers of workers that are gone (the worker, when done). */
export function sweepAhead(dir: string, now = Date.now()): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const n of names) {
    const file = join(dir, n);
    try {
      const age = now - statSync(file).mtimeMs;
      if (n.endsWith('.pending')) {
        const p = readPending(file);
        if (!p || (!alive(p.pid) && age > 5000) || age > MAX_AGE_MS) remove(file);
      } else if (n !== 'worker.sock' && age > MAX_AGE_MS) remove(file);
    } catch { /* gone meanwhile */ }
  }
}

/** The entry at `file`: undefined when there is none, null when it is not JSON. */
export function readEntry(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/**
 * The classes of a cache entry when it fits: format and key as computed here, exactly the
 * commit's paths, known classes, and the same class (and reason) for every path the cheap rules
 * settled here. Else null.
 */
export function validEntry(raw: unknown, key: string, changes: FileChange[], settled: FileClasses): FileClasses | null {
  if (!raw || typeof raw !== 'object') return null;
  const e = raw as Partial<Entry>;
  if (e.format !== FORMAT || e.key !== key || !e.classes || typeof e.classes !== 'object') return null;
  const w = e.worker;
  if (!w || typeof w !== 'object' || typeof w.wall_ms !== 'number' || typeof w.cpu_ms !== 'number') return null;
  const paths = Object.keys(e.classes);
  if (paths.length !== new Set(changes.map((c) => c.path)).size) return null;
  const out: FileClasses = new Map();
  for (const c of changes) {
    const v = Object.prototype.hasOwnProperty.call(e.classes, c.path) ? e.classes[c.path] : undefined;
    if (!v || typeof v !== 'object' || !CLASSES.has(v.cls) || (v.reason !== undefined && (typeof v.reason !== 'string' || v.reason.length > 2000))) return null;
    const here = settled.get(c.path);
    if (here && (here.cls !== v.cls || here.reason !== v.reason)) return null;
    out.set(c.path, { cls: v.cls as 'AST_REFACTOR' | 'INTENT_EVOLUTION', ...(v.reason !== undefined ? { reason: v.reason } : {}) });
  }
  return out;
}

/** The pids of live workers started for commits on `parent`. */
export function workersFor(dir: string, parent: string): number[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((n) => {
    if (!n.endsWith('.pending')) return [];
    const p = readPending(join(dir, n));
    return p && p.parent === parent && alive(p.pid) ? [p.pid] : [];
  });
}

function readPending(file: string): { parent: string; tree: string; pid: number } | null {
  try {
    const p = JSON.parse(readFileSync(file, 'utf8')) as { parent?: unknown; tree?: unknown; pid?: unknown };
    return typeof p.parent === 'string' && typeof p.tree === 'string' && Number.isInteger(p.pid) && (p.pid as number) > 0
      ? { parent: p.parent, tree: p.tree, pid: p.pid as number } : null;
  } catch {
    return null;
  }
}

/** Whether `pid` runs (a zombie does not: a killed worker nobody has reaped yet). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // No /proc: kill(0) said it exists.
  const state = procStat(pid)?.[0];
  return state === undefined || state !== 'Z';
}

/**
 * How long a worker stays resident after its last job (INTENT_CLASSIFY_RESIDENT_MS, at most an
 * hour; 0: it leaves after its job).
 */
export function residentIdleMs(env: NodeJS.ProcessEnv): number {
  return readSettings(env).classifyResidentMs;
}

/** The resident worker's socket, or null where its path is too long for a socket (~104 bytes). */
export function residentSocket(dir: string): string | null {
  if (process.platform === 'win32') return null;
  const sock = join(dir, 'worker.sock');
  return Buffer.byteLength(sock) <= 100 ? sock : null;
}

/** How long post-commit waits at most for a live worker before classifying itself (INTENT_CLASSIFY_WAIT_MS). */
export function waitBound(env: NodeJS.ProcessEnv): number {
  return readSettings(env).classifyWaitMs;
}

export function remove(file: string): void {
  try {
    unlinkSync(file);
  } catch { /* gone */ }
}

/** One JSON line per post-commit classification to the file INTENT_CLASSIFY_TRACE names. */
export function trace(env: NodeJS.ProcessEnv, data: Record<string, unknown>): void {
  const to = readSettings(env).classifyTrace;
  if (!to) return;
  try {
    appendFileSync(to, JSON.stringify(data) + '\n');
  } catch { /* a trace is best effort */ }
}
