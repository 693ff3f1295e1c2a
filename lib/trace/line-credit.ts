import { diffArrays } from 'diff';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../core/files.js';
import { withLock } from '../core/lock.js';
import type { Repo } from '../git/repo.js';

/** A model that produced lines through the adapter. */
export interface AiAuthor {
  model_id: string;
  /** The conversation or session the lines came from. */
  url?: string;
  /** The agent's tool that wrote them (write_to_file, Edit, …). */
  tool?: string;
}

/** Per line of a file (index = line - 1): index into `authors`, or -1 for lines nobody's adapter produced. */
export type LineAuthors = Int32Array;

/** What the adapter knows about one path: the bytes it staged and which of their lines models produced. */
export interface PathAttribution {
  /** SHA-256 (hex) of the content as the adapter left it, and that content's git blob id. */
  sha256: string;
  blob: string;
  authors: AiAuthor[];
  /** 1-based inclusive line runs `[start, end, author]` credited to `authors[author]`. */
  runs: [number, number, number][];
}

interface Store {
  version: 1;
  paths: Record<string, PathAttribution>;
}

const MAX_DIFF_EDITS = 50_000;

/** Where a worktree keeps its pending attribution (its own git dir: per worktree, like its index). */
export function attributionFile(repo: Repo): string {
  return join(repo.gitDir, 'intent-attribution.json');
}

/** The lock every reader-modifier of the attribution file (adapter, post-commit) holds. */
export function attributionLock(repo: Repo): string {
  return join(repo.gitDir, 'intent-attribution.lock');
}

/** Runs `fn` on the worktree's attribution store under its lock and saves what `fn` changed. */
export function updateAttribution<T>(repo: Repo, fn: (paths: Record<string, PathAttribution>) => T): T {
  return withLock(attributionLock(repo), () => {
    const file = attributionFile(repo);
    const store = loadStore(file);
    const before = JSON.stringify(store);
    const result = fn(store.paths);
    const after = JSON.stringify(store);
    if (after !== before) writeFileAtomic(file, after + '\n');
    return result;
  });
}

/** Reads the store without the lock (a consistent snapshot: it is only ever replaced by rename). */
export function readAttribution(repo: Repo): Record<string, PathAttribution> {
  return loadStore(attributionFile(repo)).paths;
}

function loadStore(file: string): Store {
  if (!existsSync(file)) return { version: 1, paths: {} };
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Store;
    if (parsed?.version === 1 && parsed.paths && typeof parsed.paths === 'object') return parsed;
  } catch { /* unreadable: start over, attributing nothing rather than guessing */ }
  return { version: 1, paths: {} };
}

/** Splits content into lines, each with its trailing `\n` where it has one (the hashing rule's lines). */
export function splitLines(content: Buffer): string[] {
  const text = content.toString('latin1');
  if (text === '') return [];
  const lines = text.split('\n').map((l) => l + '\n');
  if (text.endsWith('\n')) lines.pop();
  else lines[lines.length - 1] = lines[lines.length - 1].slice(0, -1);
  return lines;
}

/** Expands stored runs into one author index per line. */
export function expandRuns(runs: [number, number, number][], lineCount: number): LineAuthors {
  const out = new Int32Array(lineCount).fill(-1);
  for (const [start, end, author] of runs) {
    for (let l = Math.max(1, start); l <= Math.min(end, lineCount); l++) out[l - 1] = author;
  }
  return out;
}

/** Compresses per-line authors into runs of equal, credited lines. */
export function compressRuns(lines: LineAuthors): [number, number, number][] {
  const runs: [number, number, number][] = [];
  for (let i = 0; i < lines.length; i++) {
    const a = lines[i];
    if (a < 0) continue;
    const last = runs[runs.length - 1];
    if (last && last[1] === i && last[2] === a) last[1] = i + 1;
    else runs.push([i + 1, i + 1, a]);
  }
  return runs;
}

/**
 * Carries per-line authors from `oldLines` to `newLines`: lines that survive unchanged keep their
 * author; every other line of `newLines` gets `added` (the author of this change, or -1 for a
 * change nobody's adapter made). Diffs too large to compute credit nobody.
 */
export function carryAuthors(oldLines: string[], oldAuthors: LineAuthors, newLines: string[], added: number): LineAuthors {
  const out = new Int32Array(newLines.length).fill(added);
  if (oldLines.length === 0 || newLines.length === 0) return out;
  const changes = diffArrays(oldLines, newLines, { maxEditLength: MAX_DIFF_EDITS });
  if (!changes) return out.fill(-1);
  let o = 0;
  let n = 0;
  for (const c of changes) {
    const count = c.value.length;
    if (c.added) n += count;
    else if (c.removed) o += count;
    else {
      for (let k = 0; k < count; k++) out[n + k] = oldAuthors[o + k] ?? -1;
      o += count;
      n += count;
    }
  }
  return out;
}

/** The index of `author` in `authors`, appending it when new. */
export function authorIndex(authors: AiAuthor[], author: AiAuthor): number {
  const i = authors.findIndex((a) => a.model_id === author.model_id && a.url === author.url);
  if (i >= 0) return i;
  authors.push(author);
  return authors.length - 1;
}

/**
 * Per-line authors of `committed` given what the adapter last staged for the path: lines the
 * adapter's content still has in the same form keep their author; lines changed since (a human
 * edit after the agent's write) are credited to nobody.
 */
export function authorsOfCommitted(entry: PathAttribution, staged: Buffer | undefined, committed: Buffer): LineAuthors {
  const newLines = splitLines(committed);
  if (!staged) return new Int32Array(newLines.length).fill(-1);
  const oldLines = splitLines(staged);
  const oldAuthors = expandRuns(entry.runs, oldLines.length);
  if (staged.equals(committed)) return oldAuthors;
  return carryAuthors(oldLines, oldAuthors, newLines, -1);
}
