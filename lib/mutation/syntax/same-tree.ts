/*
 * The comparison's shortcut for changes that leave every file's syntax tree as it was (comments,
 * blank lines, indentation, optional semicolons, quote style): each side parsed alone, the two trees
 * walked together. Equal trees are what the full comparison (match.ts: a program and a checker per
 * side, units, renames, moves) finds equal first of all, at a fraction of its cost; anything else,
 * or any doubt (a parse error, a renamed file, an added or deleted one), goes to it. A change of
 * comments and whitespace alone is proven so without parsing the new side (trivia.ts: the old
 * side's tokens, and the changed part of the new text read against them).
 */
import type * as TS from 'typescript';
import { syntaxOf } from '../languages.js';
import { pragmasOf } from './ast.js';
import { toEntry, type Entry, type SourceChange } from './entries.js';
import { loadTypeScript, type Ts } from './sides.js';
import { sameTokens, tokensOf, type Tokens, type TriviaRules } from './trivia.js';

/**
 * Whether every file of a change (TS/JS, both sides present, no rename) parses to the same tree
 * as before: then `classifyChange` finds it AST_REFACTOR by parsing alone. False without the compiler.
 */
export function unchangedTrees(files: readonly SourceChange[]): boolean {
  const ts = files.length ? loadTypeScript() : null;
  return !!ts && files.every((f) => syntaxOf(f.path)) && sameTrees(ts, files.map(toEntry));
}

/**
 * Whether every entry in `entries` (changed TS/JS files) parses, old and new, to the same tree:
 * the same nodes in the same order, each with the same properties (sameProps). The files keep
 * their paths (no rename) and both sides exist. A change of trivia alone (comments, whitespace) is
 * proven so from the old side's tokens without parsing the new side (trivia.ts); anything else is
 * parsed and walked.
 */
export function sameTrees(ts: Ts, entries: readonly Entry[]): boolean {
  for (const e of entries) {
    if (e.old === null || e.new === null || e.oldPath !== e.path) return false;
    const kind = syntaxOf(e.path) ?? 'ts';
    const a = side(ts, kind, e.old);
    if (a.tree === null) return false;
    const b = recall(ts, kind, e.new);
    if (b?.tree === null) return false;
    if (onlyTrivia(ts, kind, a, e.old, b, e.new)) continue;
    const ta = treeOf(ts, kind, a, e.old);
    const tb = b ? treeOf(ts, kind, b, e.new) : side(ts, kind, e.new, false).tree;
    // Pragmas are comments the compiler reads (a JSX factory, a reference): the full comparison judges them.
    if (!ta || !tb || pragmasOf(ta) !== pragmasOf(tb) || !sameNode(ts, ta, tb, ta, tb, true)) return false;
  }
  return true;
}

/**
 * Whether `now` is `was` with only trivia changed, proven from `was`'s tokens (trivia.ts) without a
 * parse; then `now` is kept with the tokens found for it (not parsed: its tree, when a later change
 * needs it, is parsed then).
 */
function onlyTrivia(ts: Ts, kind: string, a: Kept, was: string, b: Kept | undefined, now: string): boolean {
  if (a.tokens === undefined) a.tokens = tokensOf(ts, treeOf(ts, kind, a, was)!);
  if (!a.tokens) return false;
  const tokens = sameTokens(a.tokens, was, now, triviaRules(ts, kind, () => pragmasOfKept(ts, kind, a, was)));
  if (!tokens) return false;
  if (!b) keep(now, { kind, tree: undefined, tokens, pragmas: pragmasOfKept(ts, kind, a, was) });
  else if (b.tokens === undefined) b.tokens = tokens;
  return true;
}

function triviaRules(ts: Ts, kind: string, pragmas: () => string): TriviaRules {
  return {
    jsDoc: ts.JSDocParsingMode?.ParseNone === undefined,
    // Pragmas are read from the leading comments only: their gap is compared by the pragmas it gives,
    // where either side could hold one.
    firstGap: (was, now) => (!mayHoldPragma(ts, was) && !mayHoldPragma(ts, now)) || pragmas() === pragmasOf(parseText(ts, kind, now)),
  };
}

let pragmaOf: { ts: Ts; re: RegExp | null } | null = null;

/**
 * Whether a comment could be a pragma: `///` and `<`, or `@` and the name of one of the compiler's
 * own (its commentPragmas, matched as it does, in any case); any comment when that list is not there.
 */
function mayHoldPragma(ts: Ts, text: string): boolean {
  if (pragmaOf?.ts !== ts) {
    const names = Object.keys((ts as unknown as { commentPragmas?: object }).commentPragmas ?? {});
    const re = names.length ? new RegExp(`@(?:${names.map((n) => n.replace(/[^\w]/g, '\\$&')).join('|')})|///\\s*<`, 'i') : null;
    pragmaOf = { ts, re };
  }
  return pragmaOf.re === null ? /\/\/|\/\*/.test(text) : pragmaOf.re.test(text);
}

/**
 * The two ways `sameTrees` decides one change, each alone and without the kept parses, for tests:
 * `walked`, both sides parsed and walked (what it did before the trivia proof); `proven`, the
 * trivia proof (null when it proves nothing), with the tokens it found for the new side.
 */
export function sameTreeParts(ts: Ts, path: string, was: string, now: string): { walked: boolean; proven: Tokens | null } {
  const kind = syntaxOf(path) ?? 'ts';
  const a = parsed(parseText(ts, kind, was));
  const b = a && parsed(parseText(ts, kind, now));
  const walked = !!a && !!b && pragmasOf(a) === pragmasOf(b) && sameNode(ts, a, b, a, b, true);
  const tokens = a && tokensOf(ts, a);
  return { walked, proven: tokens ? sameTokens(tokens, was, now, triviaRules(ts, kind, () => pragmasOf(a))) : null };
}

/** The tree of a kept text, parsed now if it was kept from its tokens alone. */
function treeOf(ts: Ts, kind: string, k: Kept, text: string): TS.SourceFile | null {
  if (k.tree === undefined) k.tree = parsed(parseText(ts, kind, text));
  return k.tree;
}

function pragmasOfKept(ts: Ts, kind: string, k: Kept, text: string): string {
  if (k.pragmas === undefined) k.pragmas = pragmasOf(treeOf(ts, kind, k, text)!);
  return k.pragmas;
}

/** A text's entry: kept, or parsed now and kept (`count`: a look-up the stats count). */
function side(ts: Ts, kind: string, text: string, count = true): Kept {
  const hit = count ? recall(ts, kind, text) : undefined;
  if (hit) return hit;
  const k: Kept = { kind, tree: parsed(parseText(ts, kind, text)) };
  keep(text, k);
  return k;
}

function parseText(ts: Ts, kind: string, text: string): TS.SourceFile {
  const scriptKind = { ts: ts.ScriptKind.TS, tsx: ts.ScriptKind.TSX, js: ts.ScriptKind.JS, jsx: ts.ScriptKind.JSX }[kind];
  return ts.createSourceFile(`/intent-same/${kind}.${kind}`, text, { languageVersion: ts.ScriptTarget.Latest, jsDocParsingMode: ts.JSDocParsingMode?.ParseNone }, false, scriptKind);
}

/** A file that does not parse is the full comparison's to judge (and to explain): null. */
function parsed(sf: TS.SourceFile): TS.SourceFile | null {
  const errors = (sf as unknown as { parseDiagnostics?: unknown[] }).parseDiagnostics;
  return Array.isArray(errors) && errors.length === 0 ? sf : null;
}

/*
 * The parses kept for the next commit. In the hook server (one long-lived process) the old side of
 * a file in this commit is, as a rule, the new side of the same file in the previous one (an agent
 * edits the same files again), so each side is parsed once, not twice across consecutive commits.
 * A new side proven by its tokens (trivia.ts) is kept with them and no tree: the next commit's
 * proof needs only those; a later change that needs its tree parses it then.
 *
 * Keyed by the exact text (compared in full, so there is no collision to fear; the key is the
 * string the tree's `text` already holds, so the text is not stored twice), the entry keeping the
 * syntax kind it was parsed as: a hit needs the same text and the same kind, exactly what a parse depends on
 * (the file name given to the parser is the kind's own, and options are fixed). A text that did
 * not parse is kept as null, the same answer. The compiler module is part of the key too: another
 * one (tests) starts an empty cache.
 *
 * Safe to share because nothing here changes a tree after its parse: sameNode reads kinds,
 * forEachChild (a table of property reads), own primitive properties (Object.keys) and, for a
 * directive, `getStart` (skipTrivia over the text: a StringLiteral is neither a SyntaxList nor a
 * JSDoc node, so no child list is built); pragmasOf reads the `pragmas` map the parser filled.
 * None of these calls sets a property (checked in TypeScript 5.9's getTokenPosOfNode and
 * forEachChild); what TypeScript computes lazily elsewhere (a line map, node ids, modifier-flag
 * caches) is on the file or in WHERE, never compared. tokensOf (trivia.ts) reads kinds, positions,
 * forEachChild and the text, and scans with a scanner of its own. The trees never leave this module.
 *
 * Bounded so the server's memory stays flat: at most KEEP.entries texts and KEEP.chars characters
 * in all, none over KEEP.textChars (a tree costs about 30 to 45 bytes of heap per character of
 * text, measured on the files of lib/: 512 Ki characters is some 23 MB at most). Least recently
 * used first out.
 */
const KEEP = { entries: 32, chars: 512 * 1024, textChars: 128 * 1024 } as const;

interface Kept {
  kind: string;
  /** Null: the text does not parse. Undefined: not parsed yet, kept from its tokens (it parses: its tokens are another text's that did). */
  tree: TS.SourceFile | null | undefined;
  /** Where its tokens are (trivia.ts), once needed; null when they could not be placed. */
  tokens?: Tokens | null;
  /** pragmasOf its tree, once needed. */
  pragmas?: string;
}

/** Least recently used first; at most KEEP.entries, so a look-up is a short scan. */
const kept: { text: string; k: Kept }[] = [];
let keptChars = 0;
let keptFor: Ts | null = null;
let hits = 0;
let misses = 0;

function recall(ts: Ts, kind: string, text: string): Kept | undefined {
  if (keptFor !== ts) {
    clearParseCache();
    keptFor = ts;
  }
  const i = find(text);
  const e = i < 0 ? undefined : kept[i]!;
  if (!e || e.k.kind !== kind) {
    misses++;
    return undefined;
  }
  hits++;
  kept.splice(i, 1);
  kept.push(e);
  return e.k;
}

/*
 * A scan comparing lengths, then texts (natively, stopping at the first difference): no string hash
 * to compute, which for a Map key read from a blob costs ~2 ns a character, every time (a new string).
 */
function find(text: string): number {
  for (let i = kept.length - 1; i >= 0; i--) if (kept[i]!.text.length === text.length && kept[i]!.text === text) return i;
  return -1;
}

function keep(text: string, k: Kept): void {
  if (text.length > KEEP.textChars) return;
  const i = find(text);
  if (i >= 0) {
    kept.splice(i, 1);
    keptChars -= text.length;
  }
  kept.push({ text, k });
  keptChars += text.length;
  while (kept.length > KEEP.entries || keptChars > KEEP.chars) keptChars -= kept.shift()!.text.length;
}

/** The parse cache's bounds (entries, characters in all, characters of one text) and what it holds now, with its hits and misses since it was last cleared. For tests and benches. */
export function parseCacheStats(): { entries: number; chars: number; hits: number; misses: number; texts: string[]; limits: typeof KEEP } {
  return { entries: kept.length, chars: keptChars, hits, misses, texts: kept.map((e) => e.text), limits: KEEP };
}

/** Empties the parse cache (and its counts): a cold start, for tests and benches. */
export function clearParseCache(): void {
  kept.length = 0;
  keptChars = 0;
  hits = 0;
  misses = 0;
}

/**
 * Properties of a node that are not what it says: where it is, and what a later pass caches on it
 * (none is set by a parse alone, but a node seen by a checker would carry them). A quote style
 * or a block, list or literal written on several lines (`multiLine`) is no difference either. Every other own property that is not an object (kind, flags, names,
 * texts, operators, `isTypeOnly`, `isExportEquals`, literal flags…) must be equal.
 */
const WHERE = new Set(['pos', 'end', 'id', 'parent', 'original', 'emitNode', 'symbol', 'localSymbol', 'locals', 'nextContainer', 'flowNode', 'endFlowNode', 'returnFlowNode', 'modifierFlagsCache', 'jsDoc', 'jsDocCache', 'singleQuote', 'multiLine']);

function sameNode(ts: Ts, a: TS.Node, b: TS.Node, ta: TS.SourceFile, tb: TS.SourceFile, root = false): boolean {
  if (a.kind !== b.kind) return false;
  // A source file's own properties are about the file (its text, line map, counts): its statements say the rest.
  if (!root && !sameProps(a, b)) return false;
  const ka: TS.Node[] = [];
  const kb: TS.Node[] = [];
  ts.forEachChild(a, (n) => void ka.push(n));
  ts.forEachChild(b, (n) => void kb.push(n));
  if (ka.length !== kb.length) return false;
  // A directive is its source text ("use\x20strict" is the string "use strict" and no directive).
  if (ts.isExpressionStatement(a) && ts.isStringLiteral(a.expression) && rawText(ta, a.expression) !== rawText(tb, (b as TS.ExpressionStatement).expression)) return false;
  for (let i = 0; i < ka.length; i++) if (!sameNode(ts, ka[i], kb[i], ta, tb)) return false;
  return true;
}

/** A string literal as written, without its quotes (so only the quote style may differ). */
function rawText(sf: TS.SourceFile, n: TS.Node): string {
  return sf.text.slice(n.getStart(sf) + 1, n.end - 1);
}

function sameProps(a: TS.Node, b: TS.Node): boolean {
  const ra = a as unknown as Record<string, unknown>;
  const rb = b as unknown as Record<string, unknown>;
  const ka = Object.keys(ra);
  const kb = Object.keys(rb);
  // Two nodes of one kind nearly always have the same keys in the same order: one pass then does
  // what the two below do (a key is skipped only where both values are objects; an object against
  // anything else is a difference, as either pass finds it).
  if (ka.length === kb.length && ka.every((k, i) => k === kb[i])) {
    for (const k of ka) {
      const v = ra[k];
      const w = rb[k];
      if (v === w || WHERE.has(k) || (isObject(v) && isObject(w))) continue;
      return false;
    }
    return true;
  }
  for (const [x, y, keys] of [[ra, rb, ka], [rb, ra, kb]] as const) {
    for (const k of keys) {
      const v = x[k];
      if (WHERE.has(k) || isObject(v)) continue;
      if (v !== y[k]) return false;
    }
  }
  return true;
}

function isObject(v: unknown): boolean {
  return v !== null && (typeof v === 'object' || typeof v === 'function');
}
