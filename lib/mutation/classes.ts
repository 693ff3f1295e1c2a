import type { FileChange } from '../git/hunks.js';

/** AST_REFACTOR: structure-preserving. INTENT_EVOLUTION: new or changed behaviour. */
export type MutationClass = 'AST_REFACTOR' | 'INTENT_EVOLUTION';

/**
 * Classifies one file change from its bytes: a pure move (rename at 100% similarity, mode
 * unchanged) or a change that only re-flows whitespace (indentation, line breaks) is a refactor; anything
 * else, and any addition, deletion or binary change, is an evolution.
 */
export function classifyFile(change: FileChange, oldContent?: Buffer, newContent?: Buffer, binary = false): MutationClass {
  if (change.status === 'R' && change.similarity === 100 && change.oldMode === change.newMode) return 'AST_REFACTOR';
  if (binary || change.status === 'A' || change.status === 'D' || change.status === 'T') return 'INTENT_EVOLUTION';
  if (change.oldMode !== change.newMode) return 'INTENT_EVOLUTION';
  if (!oldContent || !newContent) return 'INTENT_EVOLUTION';
  return sameWords(oldContent.toString('utf8'), newContent.toString('utf8')) ? 'AST_REFACTOR' : 'INTENT_EVOLUTION';
}

/**
 * Whether two texts are the same but for layout: the same runs of non-layout characters (`\s`)
 * in the same order, what `t.replace(/\s+/g, ' ').trim()` of each compares, found by one scan of
 * both without building either.
 */
export function sameWords(x: string, y: string): boolean {
  let i = skipLayout(x, 0);
  let j = skipLayout(y, 0);
  for (;;) {
    // One word of each, character by character; a word ends at layout or at the end of its text.
    for (; i < x.length && j < y.length; i++, j++) {
      const c = x.charCodeAt(i);
      const d = y.charCodeAt(j);
      if (c === d) {
        if (isLayout(c)) break;
      } else if (isLayout(c) || isLayout(d)) {
        if (!(isLayout(c) && isLayout(d))) return false;
        break;
      } else return false;
    }
    i = skipLayout(x, i);
    j = skipLayout(y, j);
    if (i >= x.length || j >= y.length) return i >= x.length && j >= y.length;
  }
}

const LAYOUT = /\s/;
/** `\s`: a table for ASCII, the regular expression beyond (rare). */
function isLayout(c: number): boolean {
  return c < 128 ? c === 32 || (c >= 9 && c <= 13) : LAYOUT.test(String.fromCharCode(c));
}

function skipLayout(t: string, i: number): number {
  while (i < t.length && isLayout(t.charCodeAt(i))) i++;
  return i;
}

/** A commit is an evolution when any of its files is. */
export function classifyCommit(classes: MutationClass[]): MutationClass {
  return classes.length && classes.every((c) => c === 'AST_REFACTOR') ? 'AST_REFACTOR' : 'INTENT_EVOLUTION';
}
