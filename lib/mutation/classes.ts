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
  return squash(oldContent) === squash(newContent) ? 'AST_REFACTOR' : 'INTENT_EVOLUTION';
}

function squash(b: Buffer): string {
  return b.toString('utf8').replace(/\s+/g, ' ').trim();
}

/** A commit is an evolution when any of its files is. */
export function classifyCommit(classes: MutationClass[]): MutationClass {
  return classes.length && classes.every((c) => c === 'AST_REFACTOR') ? 'AST_REFACTOR' : 'INTENT_EVOLUTION';
}
