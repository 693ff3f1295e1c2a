/*
 * The same-tree shortcut without a second parse: a change that touches only the trivia between a
 * file's tokens (comments, whitespace, line breaks) gives the parser the same tokens, and so the same
 * tree. A parse tree gives each token's place in its text (`tokensOf`); the other side is then
 * checked against them in one pass over the changed part of its text (`sameTokens`), with the rules
 * that make the parser's input the same: every changed gap is whole trivia as the scanner reads it
 * (a comment closed inside it, a line comment ended by a line break), has a line break where the
 * old gap had one and only there (ASI, `return`, arrow functions), does not run into the token
 * before it (`/` and a new comment, `<` and `//`), is not emptied, and leaves JSX text alone (no
 * trivia inside JSX children). Whatever it cannot prove is left to the parse (same-tree.ts): false
 * here means "not proven", never "different".
 */
import type * as TS from 'typescript';
import type { Ts } from './sides.js';

/**
 * Where a parse tree's tokens are in its text: token i is [start[i], end[i]), the gap before it
 * (trivia) is [end[i-1], start[i]). The last token is an empty one at the end of the text. `frozen`
 * marks the gaps the parser scans as JSX text: they are empty and must stay so. Each is one token
 * as the parser read it (after its rescans: `>>=`, a regular expression, a template part whole).
 */
export interface Tokens {
  start: Int32Array;
  end: Int32Array;
  frozen: Uint8Array;
}

class Doubt extends Error {}

/**
 * The tokens of a parse tree: each leaf token from its node (a literal, a name, a template part,
 * a regular expression, JSX text) and the punctuation and keywords between a node's children from
 * the scanner, which needs no context there. Null when anything is not as expected (children out
 * of order, something that is not punctuation or a keyword between children, a character the
 * scanner may read as trivia that this module does not): the parse then decides.
 */
export function tokensOf(ts: Ts, sf: TS.SourceFile): Tokens | null {
  const text = sf.text;
  const K = ts.SyntaxKind;
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, sf.languageVariant, text);
  if (typeof scanner.getTokenFullStart !== 'function') return null;
  const start: number[] = [];
  const end: number[] = [];
  const frozen: number[] = [];
  let freeze = false;
  const push = (s: number, e: number) => {
    if (s >= e || (end.length && s < end[end.length - 1]!)) throw new Doubt();
    // A JSX child is scanned from where the last token ended: nothing in between.
    if (freeze && s !== (end.length ? end[end.length - 1] : 0)) throw new Doubt();
    start.push(s);
    end.push(e);
    frozen.push(freeze ? 1 : 0);
    freeze = false;
  };
  const own = (from: number, to: number) => {
    if (from > to) throw new Doubt();
    if (from === to) return;
    scanner.setText(text, from, to - from);
    for (;;) {
      const k = scanner.scan();
      if (k === K.EndOfFileToken) {
        if (scanner.getTokenFullStart() !== to) throw new Doubt();
        return;
      }
      if (!((k >= K.FirstPunctuation && k <= K.LastPunctuation) || (k >= K.FirstKeyword && k <= K.LastKeyword))) throw new Doubt();
      push(scanner.getTokenStart(), scanner.getTokenEnd());
    }
  };
  const visit = (node: TS.Node): void => {
    if (node.kind === K.EndOfFileToken) return;
    const jsx = node.kind === K.JsxElement || node.kind === K.JsxFragment;
    let cursor = node.pos;
    let kids = 0;
    ts.forEachChild(node, (k) => {
      // A JSX child (and the closing tag) comes right after what precedes it (push resets this).
      if (jsx && kids > 0) freeze = true;
      kids++;
      own(cursor, k.pos);
      visit(k);
      cursor = k.end;
    });
    if (kids) return own(cursor, node.end);
    if (node.end === node.pos) return;
    if (node.kind >= K.FirstNode) return own(node.pos, node.end);
    // JSX text starts where it is scanned from; every other token after its leading trivia.
    const s = node.kind === K.JsxText ? node.pos : triviaEnd(text, node.pos === 0 ? shebangEnd(text) : node.pos);
    if (s < 0 || triviaToo(text, s)) throw new Doubt();
    push(s, node.end);
  };
  try {
    visit(sf);
  } catch (e) {
    if (e instanceof Doubt) return null;
    throw e;
  }
  start.push(text.length);
  end.push(text.length);
  frozen.push(0);
  if (start.length > 1 && end[end.length - 2]! > text.length) return null;
  return { start: Int32Array.from(start), end: Int32Array.from(end), frozen: Uint8Array.from(frozen) };
}

/** What `sameTokens` needs besides the texts. */
export interface TriviaRules {
  /** JSDoc comments are parsed (a compiler without JSDocParsingMode.ParseNone): a changed gap may hold none. */
  jsDoc: boolean;
  /** Whether the first gap (the file's leading comments, where pragmas are) may change from `was` to `now`. */
  firstGap(was: string, now: string): boolean;
}

/**
 * The tokens of `now` when it is `was` (whose tokens are `t`) with only trivia changed, so that the
 * parser reads the same tokens, each with the same line break before it or not; null when that is
 * not proven. Only the part between the common prefix and the common suffix is read token by token.
 */
export function sameTokens(t: Tokens, was: string, now: string, rules: TriviaRules): Tokens | null {
  if (was === now) return t;
  const n = t.start.length;
  const prefix = commonPrefix(was, now);
  const suffix = commonSuffix(was, now, Math.min(was.length, now.length) - prefix);
  const delta = now.length - was.length;
  const tail = was.length - suffix;
  // The first token that ends at or after the first difference: all before it are unchanged.
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (t.end[mid]! >= prefix) hi = mid;
    else lo = mid + 1;
  }
  const start = new Int32Array(n);
  start.set(t.start.subarray(0, lo));
  let p = lo ? t.end[lo - 1]! : 0;
  for (let i = lo; i < n; i++) {
    const gs = i ? t.end[i - 1]! : 0;
    // In the common suffix again, at the same place: the rest is the same text.
    if (gs >= tail && p === gs + delta) {
      for (let j = i; j < n; j++) start[j] = t.start[j]! + delta;
      return { start, end: shifted(start, t), frozen: t.frozen };
    }
    const ge = t.start[i]!;
    const len = t.end[i]! - ge;
    let q: number;
    // (The last token is an empty one at the end of the text: there the same gap must also end the
    // new text, or a comment appended after it would be passed over unread.)
    if (t.frozen[i] || (same(was, gs, now, p, ge - gs) && same(was, ge, now, p + ge - gs, len) && (i < n - 1 || p + ge - gs === now.length))) {
      q = p + ge - gs;
    } else {
      q = triviaEnd(now, p);
      if (q < 0 || !gapKept(t, i, was, now, p, q, rules)) return null;
    }
    if (!same(was, ge, now, q, len)) return null;
    start[i] = q;
    p = q + len;
  }
  return p === now.length ? { start, end: shifted(start, t), frozen: t.frozen } : null;
}

/*
 * The common prefix and suffix by binary search, each step comparing only the new part, as two
 * slices (V8 compares flat strings natively): some 20 times faster than a loop over characters in
 * JavaScript (or than startsWith), which was the bulk of the cost of a one-line change.
 */
function commonPrefix(a: string, b: string): number {
  let lo = 0;
  let hi = Math.min(a.length, b.length);
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (a.slice(lo, mid) === b.slice(lo, mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function commonSuffix(a: string, b: string, max: number): number {
  let lo = 0;
  let hi = max;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (a.slice(a.length - mid, a.length - lo) === b.slice(b.length - mid, b.length - lo)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function shifted(start: Int32Array, t: Tokens): Int32Array {
  const end = new Int32Array(start.length);
  for (let i = 0; i < start.length; i++) end[i] = start[i]! + (t.end[i]! - t.start[i]!);
  return end;
}

/** Whether the gap before token i, [p, q) in `now` instead of its old text in `was`, keeps what the parser reads. */
function gapKept(t: Tokens, i: number, was: string, now: string, p: number, q: number, rules: TriviaRules): boolean {
  const gs = i ? t.end[i - 1]! : 0;
  const ge = t.start[i]!;
  // An emptied gap can join two tokens (`a b`, `+ +`); the parser may read what follows a token too.
  if (q === p) return false;
  // A new comment right after `/` or `<` is read with it (`//`, `</` in JSX).
  if (i && now.charCodeAt(p) === 47) {
    const c = was.charCodeAt(gs - 1);
    if (c === 47 || c === 60) return false;
  }
  if (hasBreak(was, gs, ge) !== hasBreak(now, p, q)) return false;
  if (rules.jsDoc && (was.slice(gs, ge).includes('/**') || now.slice(p, q).includes('/**'))) return false;
  if (q < now.length && triviaToo(now, q)) return false;
  return i > 0 || rules.firstGap(was.slice(gs, ge), now.slice(p, q));
}

function same(a: string, i: number, b: string, j: number, len: number): boolean {
  return j + len <= b.length && a.slice(i, i + len) === b.slice(j, j + len);
}

function isBreak(c: number): boolean {
  return c === 10 || c === 13 || c === 0x2028 || c === 0x2029;
}

function hasBreak(s: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (isBreak(s.charCodeAt(i))) return true;
  return false;
}

/**
 * The end of the trivia that starts at `i`, as the scanner skips it: ASCII whitespace, line breaks,
 * line comments (to the next line break) and block comments (to the first `*\/` after `/*`); -1 for
 * a block comment not closed. Other whitespace stops it (see triviaToo).
 */
function triviaEnd(s: string, i: number): number {
  for (;;) {
    const c = s.charCodeAt(i);
    if (c === 32 || c === 9 || c === 11 || c === 12 || isBreak(c)) {
      i++;
    } else if (c === 47 && s.charCodeAt(i + 1) === 47) {
      i += 2;
      while (i < s.length && !isBreak(s.charCodeAt(i))) i++;
    } else if (c === 47 && s.charCodeAt(i + 1) === 42) {
      const e = s.indexOf('*/', i + 2);
      if (e < 0) return -1;
      i = e + 2;
    } else {
      return i;
    }
  }
}

/** Where a shebang line at the start of the text ends (the scanner skips it there only), or 0. */
function shebangEnd(s: string): number {
  if (!s.startsWith('#!')) return 0;
  let i = 2;
  while (i < s.length && !isBreak(s.charCodeAt(i))) i++;
  return i;
}

/**
 * Whether the scanner may read what is at `i` as trivia although triviaEnd stopped there: other
 * Unicode whitespace, a shebang, a merge conflict marker at the start of a line.
 */
function triviaToo(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c > 127) return c === 0xa0 || c === 0x85 || c === 0x1680 || (c >= 0x2000 && c <= 0x200b) || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
  if (i === 0 && c === 35 && s.charCodeAt(1) === 33) return true;
  if ((c === 60 || c === 61 || c === 62 || c === 124) && (i === 0 || isBreak(s.charCodeAt(i - 1)))) {
    for (let k = 1; k < 7; k++) if (s.charCodeAt(i + k) !== c) return false;
    return true;
  }
  return false;
}
