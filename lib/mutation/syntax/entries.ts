/*
 * The files of a change as the comparison sees them (entries: path, old and new text, the
 * problems found, each with its line) and the public result types.
 */
import { posix } from 'node:path';
import type { MutationClass } from '../classes.js';

/** The class of one file (or commit); `reason` names the first differing construct of an evolution. */
export interface AstVerdict {
  class: MutationClass;
  /** When evolution: the first differing construct, e.g. "function login: literal 3600 became 7200 (src/auth/jwt.ts:12)". */
  reason?: string;
}

/** One file of a change; null text = absent on that side. `oldPath` names the file before a rename. */
export interface SourceChange {
  path: string;
  oldText: string | null;
  newText: string | null;
  oldPath?: string;
}

export interface ChangeVerdict {
  class: MutationClass;
  files: Record<string, AstVerdict>;
  reason?: string;
}

const MAX_SYNTAX_BYTES = 2 * 1024 * 1024;

export interface Problem {
  line: number;
  reason: string;
}

export interface Entry {
  index: number;
  /** The path as given (the key of the result). */
  key: string;
  path: string;
  oldPath: string;
  old: string | null;
  new: string | null;
  problems: Problem[];
}

export function toEntry(f: SourceChange | null | undefined, index: number): Entry {
  const text = (x: unknown): string | null => (typeof x === 'string' ? x : x == null ? null : String(x));
  const key = String(f?.path ?? '');
  const path = normPath(key);
  return {
    index,
    key,
    path,
    oldPath: f?.oldPath != null ? normPath(String(f.oldPath)) : path,
    old: text(f?.oldText),
    new: text(f?.newText),
    problems: [],
  };
}

function normPath(p: string): string {
  let s = posix.normalize(p.replace(/\\/g, '/'));
  while (s.startsWith('./')) s = s.slice(2);
  return s;
}

export function firstProblem(e: Entry): string | undefined {
  let best: Problem | undefined;
  for (const p of e.problems) if (!best || p.line < best.line) best = p;
  return best?.reason;
}

export function hasNul(s: string | null): boolean {
  return s !== null && s.includes('\0');
}

export function tooBig(s: string | null): boolean {
  return s !== null && s.length > MAX_SYNTAX_BYTES / 4 && Buffer.byteLength(s, 'utf8') > MAX_SYNTAX_BYTES;
}

export function short(text: string, max = 40): string {
  const s = text.replace(/\s+/g, ' ').trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}
