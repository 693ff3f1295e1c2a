/**
 * The mutation class of each file of a commit, decided by syntax but paid for only when it can
 * matter: a cheap token comparison (identifiers, comments, quotes, escapes, numeric spelling,
 * parentheses and separators normalised, so it is never finer than the syntax comparison) settles
 * every change whose tokens differ as INTENT_EVOLUTION; only changes that survive it (formatting,
 * renames, reorderings, moves) go to the comparison in lib/mutation/syntax/, which loads the
 * TypeScript compiler only then. One decision: the post-commit record and the commit-msg check of
 * an `Intent-Mutation: AST_REFACTOR` claim both take it from `classifyChanges`, given the claim (a
 * claimed refactor is compared by syntax without the token filter, so an accepted claim is recorded
 * as AST_REFACTOR; a change over the size limits is an evolution, claimed or not).
 */
import { classifyChange as astClassify, unchangedTrees } from './syntax/index.js';
import { isBinary } from '../git/blobs.js';
import type { FileChange } from '../git/hunks.js';
import { classifyFile, type MutationClass } from './classes.js';
import { addDigests, EMPTY_DIGEST, sameDigest, type TokenDigest } from './tokens.js';
import { blobTokenDigest } from './token-cache.js';

export { tokenSignature } from './tokens.js';

export const MAX_SYNTAX_BYTES = 4 * 1024 * 1024;
export const MAX_SYNTAX_FILES = 500;

/**
 * Per path: the class and, for an evolution found by syntax, the first differing construct.
 * `overSize`: the change was settled without syntax because it is over the size limits (not
 * recorded; a refused claim explains it).
 */
export type FileClasses = Map<string, { cls: MutationClass; reason?: string; overSize?: true }>;

/**
 * Classifies a commit's changes from their bytes: the one decision the trace note records and a
 * claimed refactor is checked against. `claimedRefactor` (the commit's message says
 * `Intent-Mutation: AST_REFACTOR`) skips the token filter: the syntax comparison decides, and
 * names the first differing construct.
 */
export function classifyChanges(changes: FileChange[], blobs: Map<string, Buffer>, claimedRefactor = false): FileClasses {
  const { out, survivors } = cheapClasses(changes, blobs, claimedRefactor);
  return survivors.length ? syntaxClasses(out, survivors) : out;
}

/** The changes the cheap rules could not settle, with their texts: they need the syntax comparison. */
export type Survivor = { c: FileChange; oldText: string | null; newText: string | null };

/**
 * The cheap part of `classifyChanges`: the classes the byte and token rules settle, and the
 * changes left for the syntax comparison (`syntaxClasses`), which may load the TypeScript compiler.
 */
export function cheapClasses(changes: FileChange[], blobs: Map<string, Buffer>, claimedRefactor = false): { out: FileClasses; survivors: Survivor[] } {
  const out: FileClasses = new Map();
  const candidates: Survivor[] = [];
  for (const c of changes) {
    const oldB = c.oldMode === '000000' ? undefined : blobs.get(c.oldOid);
    const newB = c.newMode === '000000' ? undefined : blobs.get(c.newOid);
    const special = [c.oldMode, c.newMode].some((m) => m === '160000' || m === '120000');
    const binary = isBinary(oldB) || isBinary(newB);
    const cheap = classifyFile(c, oldB, newB, binary || special);
    if (cheap === 'AST_REFACTOR') out.set(c.path, { cls: cheap });
    else if (binary || special || (c.oldMode !== c.newMode && c.oldMode !== '000000' && c.newMode !== '000000')) out.set(c.path, { cls: 'INTENT_EVOLUTION' });
    else candidates.push({ c, oldText: oldB ? oldB.toString('utf8') : null, newText: newB ? newB.toString('utf8') : null });
  }
  if (!candidates.length) return { out, survivors: [] };
  // A very large change is settled by the byte-level rule: the syntax comparison would cost
  // seconds in the post-commit hook (and a claimed refactor of it is refused: lib/mutation/claim.ts).
  const size = changedTextBytes(candidates);
  if (size > MAX_SYNTAX_BYTES || candidates.length > MAX_SYNTAX_FILES) {
    for (const x of candidates) out.set(x.c.path, { cls: 'INTENT_EVOLUTION', overSize: true });
    return { out, survivors: [] };
  }
  let survivors = candidates;
  if (!claimedRefactor) {
    // Each blob's token digest once, by its id, across calls (lib/mutation/token-cache.ts).
    const digest = (oid: string, t: string | null): TokenDigest => (t === null ? EMPTY_DIGEST : blobTokenDigest(oid, t));
    const olds = candidates.map((x) => digest(x.c.oldOid, x.oldText));
    const news = candidates.map((x) => digest(x.c.newOid, x.newText));
    // The tokens of all old texts together against all new ones (declarations moved between files):
    // the sum of the per-file digests, the union of their multisets. Per-file equality, in order or
    // not, implies it. It differs from tokenising the texts joined by line breaks only where the
    // tokeniser's view of a construct (a string, template or block comment as its regex sees
    // them, which a quote in a regular expression or a comment opener in a string can open) is
    // still open at a file's end and would run on into the next file's text.
    const whole = sameDigest(olds.reduce(addDigests, EMPTY_DIGEST), news.reduce(addDigests, EMPTY_DIGEST));
    survivors = whole ? candidates : candidates.filter((x, i) => x.oldText !== null && x.newText !== null && sameDigest(olds[i]!, news[i]!));
    if (!whole) {
      const kept = new Set(survivors);
      for (const x of candidates) if (!kept.has(x)) out.set(x.c.path, { cls: 'INTENT_EVOLUTION' });
    }
  }
  return { out, survivors };
}

/** The syntax comparison of the survivors of `cheapClasses`, added to its classes `out` (returned). */
export function syntaxClasses(out: FileClasses, survivors: Survivor[]): FileClasses {
  if (!survivors.length) return out;
  const verdict = astClassify(survivors.map((x) => ({ path: x.c.path, oldText: x.oldText, newText: x.newText, ...(x.c.oldPath ? { oldPath: x.c.oldPath } : {}) })));
  for (const x of survivors) {
    const v = verdict.files[x.c.path] ?? { class: verdict.class, reason: verdict.reason };
    out.set(x.c.path, { cls: v.class, ...(v.reason ? { reason: v.reason } : {}) });
  }
  return out;
}

/**
 * `syntaxClasses` when the survivors are TS/JS files whose parse trees did not change
 * (syntax/same-tree.ts: comments, layout): each AST_REFACTOR, found by parsing alone, no
 * checker. Null otherwise: the full comparison is needed.
 */
export function unchangedTreeClasses(out: FileClasses, survivors: Survivor[]): FileClasses | null {
  if (!survivors.length || survivors.some((x) => x.c.oldPath)) return null;
  if (!unchangedTrees(survivors.map((x) => ({ path: x.c.path, oldText: x.oldText, newText: x.newText })))) return null;
  for (const x of survivors) out.set(x.c.path, { cls: 'AST_REFACTOR' });
  return out;
}

/** The bytes of changed text the syntax comparison would read (old and new sides). */
function changedTextBytes(candidates: { oldText: string | null; newText: string | null }[]): number {
  return candidates.reduce((n, x) => n + (x.oldText?.length ?? 0) + (x.newText?.length ?? 0), 0);
}

/**
 * Why `classifyChanges` settled `path` as an evolution, for a refused claim: the construct the
 * syntax comparison names, or that the change is over the size limits.
 */
export function explainEvolution(changes: FileChange[], blobs: Map<string, Buffer>, classes: FileClasses, path: string): string {
  const decided = classes.get(path);
  if (decided?.reason) return decided.reason;
  if (decided?.overSize) {
    const texts = changes.filter((c) => classes.get(c.path)?.overSize).map((c) => ({
      oldText: c.oldMode === '000000' ? null : blobs.get(c.oldOid)?.toString('utf8') ?? null,
      newText: c.newMode === '000000' ? null : blobs.get(c.newOid)?.toString('utf8') ?? null,
    }));
    const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
    return `the change is too large for the syntax comparison (${texts.length} files, ${mib(changedTextBytes(texts))} of changed text; ` +
      `the limits are ${MAX_SYNTAX_FILES} files and ${mib(MAX_SYNTAX_BYTES)}), so its trace note records INTENT_EVOLUTION`;
  }
  return `${path} changes more than layout, names or order`;
}
