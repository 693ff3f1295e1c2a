/*
 * Tokenizer: splits a command line into words, redirections and operators the way a POSIX shell
 * reads it (quotes, escapes, $(...), backticks, here-documents), keeping expansions as written and
 * the command substitutions found inside each word. Throws ParseError on what it cannot read.
 */

export class ParseError extends Error {}

/** One shell word after quote removal; expansions are kept as written. */
export interface Word {
  text: string;
  /** Has $var, $(...), backticks or a leading ~: its value is only known at run time. */
  expands: boolean;
  /** Has an unquoted glob (*, ?, [..], {a,b}). */
  glob: boolean;
  /** Some part of it was quoted or escaped. */
  quoted: boolean;
  /** Starts with an unquoted ~ (the home directory). */
  tilde: boolean;
  /** The inside of each $(...), `...`, <(...) and >(...), to classify in turn. */
  subs: string[];
  /** Has an expansion whose inside we cannot review, e.g. ${x:-$(cmd)}. */
  opaque: boolean;
}

export interface Redir {
  op: string;
  target: Word;
  /** A here-document's text. */
  body?: Word;
}

export type Token = { kind: 'word'; word: Word } | { kind: 'redir'; redir: Redir } | { kind: 'op'; op: string };

interface Scan {
  end: number;
  text: string;
  expands: boolean;
  subs: string[];
  opaque: boolean;
}

export function newWord(text = ''): Word {
  return { text, expands: false, glob: false, quoted: false, tilde: false, subs: [], opaque: false };
}

export function isLiteral(w: Word): boolean {
  return !w.expands && !w.glob && !w.opaque;
}

/** The part of `w` from character `from` on, e.g. the value of `--output=x`. */
export function slice(w: Word, from: number): Word {
  return { ...w, text: w.text.slice(from), tilde: false };
}

const REDIR_OPS = ['<<<', '<<-', '<<', '<>', '<&', '>>', '>&', '>|', '<', '>'];

/** Splits a command line into words, redirections and operators (; && || | |& & newline ( )). */
export class Lexer {
  private i = 0;
  private readonly out: Token[] = [];
  private cur: Word | null = null;
  private braces = false;
  private pending: string | null = null;
  private heredocs: Redir[] = [];

  constructor(private readonly s: string) {}

  run(): Token[] {
    const s = this.s;
    while (this.i < s.length) {
      const c = s[this.i];
      const next = s[this.i + 1];
      if (c === ' ' || c === '\t' || c === '\r') {
        this.endWord();
        this.i++;
      } else if (c === '\n') {
        this.operator('\n', 1);
        this.readHeredocBodies();
      } else if (c === '#' && this.cur === null) this.skipComment();
      else if (c === '\\') this.escape();
      else if (c === "'") this.single();
      else if (c === '"') this.double();
      else if (c === '`') this.backtick();
      else if (c === '$') this.dollar();
      else if ((c === '<' || c === '>') && next === '(') this.processSubstitution();
      else if (c === '<' || c === '>') this.redirect();
      else if (c === '&') this.ampersand();
      else if (c === '|') this.operator(next === '|' ? '||' : next === '&' ? '|&' : '|', next === '|' || next === '&' ? 2 : 1);
      else if (c === ';') this.operator(';', s.startsWith(';;&', this.i) ? 3 : next === ';' || next === '&' ? 2 : 1);
      else if (c === '(') this.openParen();
      else if (c === ')') this.operator(')', 1);
      else this.plain(c);
    }
    this.endWord();
    if (this.pending) throw new ParseError(`"${this.pending}" has no file after it`);
    for (const r of this.heredocs) r.body = newWord();
    return this.out;
  }

  private word(): Word {
    if (!this.cur) {
      this.cur = newWord();
      this.braces = false;
    }
    return this.cur;
  }

  private endWord(): void {
    const w = this.cur;
    if (!w) return;
    this.cur = null;
    if (this.braces && /\{[^}]*(,|\.\.)[^}]*\}/.test(w.text)) w.glob = true;
    if (/\[.+\]/.test(w.text) && !w.quoted) w.glob = true;
    if (this.pending === null) {
      this.out.push({ kind: 'word', word: w });
      return;
    }
    const r: Redir = { op: this.pending, target: w };
    this.pending = null;
    if (r.op === '<<' || r.op === '<<-') this.heredocs.push(r);
    this.out.push({ kind: 'redir', redir: r });
  }

  private operator(op: string, length: number): void {
    this.endWord();
    if (this.pending) throw new ParseError(`"${this.pending}" has no file after it`);
    this.out.push({ kind: 'op', op });
    this.i += length;
  }

  private skipComment(): void {
    const nl = this.s.indexOf('\n', this.i);
    this.i = nl < 0 ? this.s.length : nl;
  }

  private escape(): void {
    const next = this.s[this.i + 1];
    this.i += 2;
    if (next === '\n') return;
    const w = this.word();
    w.quoted = true;
    w.text += next ?? '\\';
  }

  private single(): void {
    const end = closeSingle(this.s, this.i);
    const w = this.word();
    w.quoted = true;
    w.text += this.s.slice(this.i + 1, end - 1);
    this.i = end;
  }

  private double(): void {
    const scan = scanDouble(this.s, this.i + 1, true);
    const w = this.word();
    w.quoted = true;
    merge(w, scan);
    this.i = scan.end;
  }

  private backtick(): void {
    this.substitution(readBacktick(this.s, this.i));
  }

  /** A `…` , $(…) or <(…) read up to `end`: kept in the word, its body classified on its own. */
  private substitution(r: { end: number; inner: string }): void {
    const w = this.word();
    w.text += this.s.slice(this.i, r.end);
    w.expands = true;
    w.subs.push(r.inner);
    this.i = r.end;
  }

  private dollar(): void {
    const s = this.s;
    const w = this.word();
    if (s[this.i + 1] === "'") {
      const end = closeAnsi(s, this.i + 2);
      const inner = s.slice(this.i + 2, end - 1);
      w.quoted = true;
      w.text += inner;
      if (inner.includes('\\')) w.expands = true;
      this.i = end;
    } else if (s[this.i + 1] === '"') {
      const scan = scanDouble(s, this.i + 2, true);
      w.quoted = true;
      merge(w, scan);
      this.i = scan.end;
    } else {
      const d = readDollar(s, this.i);
      merge(w, d);
      this.i = d.end;
    }
  }

  private processSubstitution(): void {
    this.substitution(readParens(this.s, this.i + 1));
  }

  private redirect(): void {
    const cur = this.cur;
    if (cur && !cur.quoted && !cur.expands && /^\d+$/.test(cur.text)) this.cur = null;
    else this.endWord();
    if (this.pending) throw new ParseError(`"${this.pending}" has no file after it`);
    const op = REDIR_OPS.find((o) => this.s.startsWith(o, this.i)) ?? '>';
    this.pending = op;
    this.i += op.length;
  }

  private ampersand(): void {
    const next = this.s[this.i + 1];
    if (next === '&') return this.operator('&&', 2);
    if (next !== '>') return this.operator('&', 1);
    this.endWord();
    if (this.pending) throw new ParseError(`"${this.pending}" has no file after it`);
    this.pending = this.s[this.i + 2] === '>' ? '&>>' : '&>';
    this.i += this.pending.length;
  }

  private openParen(): void {
    const cur = this.cur;
    if (cur && /^[A-Za-z_]\w*\+?=$/.test(cur.text)) {
      // An array assignment: a=(x y z).
      const p = readParens(this.s, this.i);
      cur.text += this.s.slice(this.i, p.end);
      cur.expands = true;
      this.i = p.end;
      return;
    }
    this.operator('(', 1);
  }

  private plain(c: string): void {
    const w = this.word();
    if (c === '~' && w.text === '' && !w.quoted) w.tilde = w.expands = true;
    if (c === '*' || c === '?') w.glob = true;
    if (c === '{') this.braces = true;
    w.text += c;
    this.i++;
  }

  private readHeredocBodies(): void {
    for (const r of this.heredocs) {
      const h = readHeredocBody(this.s, this.i, r.target.text, r.op === '<<-');
      r.body = heredocWord(h.body, !r.target.quoted);
      this.i = h.end;
    }
    this.heredocs = [];
  }
}

function merge(w: Word, scan: Scan): void {
  w.text += scan.text;
  if (scan.expands) w.expands = true;
  if (scan.opaque) w.opaque = true;
  for (const sub of scan.subs) w.subs.push(sub);
}

function closeSingle(s: string, open: number): number {
  const end = s.indexOf("'", open + 1);
  if (end < 0) throw new ParseError('a single quote is not closed');
  return end + 1;
}

function closeAnsi(s: string, from: number): number {
  for (let i = from; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === "'") return i + 1;
  }
  throw new ParseError("a $'...' quote is not closed");
}

/** Reads double-quoted text from `start` (after the quote), or a whole here-document body. */
function scanDouble(s: string, start: number, untilQuote: boolean): Scan {
  const r: Scan = { end: s.length, text: '', expands: false, subs: [], opaque: false };
  let i = start;
  while (i < s.length) {
    const c = s[i];
    if (untilQuote && c === '"') {
      r.end = i + 1;
      return r;
    }
    if (c === '\\' && i + 1 < s.length && '$`"\\\n'.includes(s[i + 1])) {
      if (s[i + 1] !== '\n') r.text += s[i + 1];
      i += 2;
    } else if (c === '`') {
      const b = readBacktick(s, i);
      r.text += s.slice(i, b.end);
      r.expands = true;
      r.subs.push(b.inner);
      i = b.end;
    } else if (c === '$') {
      const d = readDollar(s, i);
      r.text += d.text;
      if (d.expands) r.expands = true;
      if (d.opaque) r.opaque = true;
      r.subs.push(...d.subs);
      i = d.end;
    } else {
      r.text += c;
      i++;
    }
  }
  if (untilQuote) throw new ParseError('a double quote is not closed');
  return r;
}

/** Reads `$name`, `${...}`, `$(...)` or `$((...))` at `i`. */
function readDollar(s: string, i: number): Scan {
  const next = s[i + 1];
  if (next === '(') {
    const p = readParens(s, i + 1);
    const text = s.slice(i, p.end);
    if (p.inner.startsWith('(') && p.inner.endsWith(')')) {
      return { end: p.end, text, expands: true, subs: [], opaque: !plainArithmetic(p.inner) };
    }
    return { end: p.end, text, expands: true, subs: [p.inner], opaque: false };
  }
  if (next === '{') {
    const end = readBraces(s, i + 1);
    const text = s.slice(i, end);
    return { end, text, expands: true, subs: [], opaque: /\$\(|`/.test(text) };
  }
  if (next !== undefined && /[\w?#@*!$-]/.test(next)) {
    let end = i + 2;
    if (/[A-Za-z_]/.test(next)) while (end < s.length && /\w/.test(s[end])) end++;
    return { end, text: s.slice(i, end), expands: true, subs: [], opaque: false };
  }
  return { end: i + 1, text: '$', expands: false, subs: [], opaque: false };
}

/** Arithmetic like $((a + 1)), with nothing that could be a command hiding in it. */
function plainArithmetic(inner: string): boolean {
  return /^[\s\w+\-*/%()<>=!&|^~?:,$#]*$/.test(inner) && !/\$\(|`/.test(inner) && !/[A-Za-z_]\w*\s+[A-Za-z_./-]/.test(inner);
}

/** Finds the `)` that closes the `(` at `open`, skipping quotes, comments and here-documents. */
function readParens(s: string, open: number): { end: number; inner: string } {
  let depth = 0;
  let docs: { delim: string; strip: boolean }[] = [];
  let i = open;
  while (i < s.length) {
    const c = s[i];
    if (c === '\\') i += 2;
    else if (c === "'") i = closeSingle(s, i);
    else if (c === '"') i = scanDouble(s, i + 1, true).end;
    else if (c === '`') i = readBacktick(s, i).end;
    else if (c === '#' && /[\s(;&|]/.test(s[i - 1] ?? ' ')) {
      const nl = s.indexOf('\n', i);
      i = nl < 0 ? s.length : nl;
    } else if (c === '<' && s[i + 1] === '<' && s[i + 2] !== '<') {
      const d = readDelimiter(s, i + 2);
      docs.push(d);
      i = d.end;
    } else if (c === '\n' && docs.length) {
      i += 1;
      for (const d of docs) i = readHeredocBody(s, i, d.delim, d.strip).end;
      docs = [];
    } else {
      if (c === '(') depth++;
      else if (c === ')' && --depth === 0) return { end: i + 1, inner: s.slice(open + 1, i) };
      i++;
    }
  }
  throw new ParseError('a "(" is not closed');
}

function readBacktick(s: string, open: number): { end: number; inner: string } {
  for (let i = open + 1; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === '`') return { end: i + 1, inner: s.slice(open + 1, i).replace(/\\([\\`$])/g, '$1') };
  }
  throw new ParseError('a backtick is not closed');
}

function readBraces(s: string, open: number): number {
  let depth = 0;
  let i = open;
  while (i < s.length) {
    const c = s[i];
    if (c === '\\') i += 2;
    else if (c === "'") i = closeSingle(s, i);
    else if (c === '"') i = scanDouble(s, i + 1, true).end;
    else {
      if (c === '{') depth++;
      else if (c === '}' && --depth === 0) return i + 1;
      i++;
    }
  }
  throw new ParseError('a "${" is not closed');
}

/** Reads a here-document delimiter after `<<` (used inside $(...), where we only skip the body). */
function readDelimiter(s: string, from: number): { delim: string; strip: boolean; end: number } {
  let i = from;
  const strip = s[i] === '-';
  if (strip) i++;
  while (s[i] === ' ' || s[i] === '\t') i++;
  let delim = '';
  while (i < s.length && !/[\s;&|<>()]/.test(s[i])) {
    if (s[i] === '\\') i++;
    else if (s[i] !== "'" && s[i] !== '"') delim += s[i];
    i++;
  }
  return { delim, strip, end: i };
}

function readHeredocBody(s: string, from: number, delim: string, strip: boolean): { body: string; end: number } {
  let body = '';
  let i = from;
  while (i < s.length) {
    let nl = s.indexOf('\n', i);
    if (nl < 0) nl = s.length;
    const line = strip ? s.slice(i, nl).replace(/^\t+/, '') : s.slice(i, nl);
    i = Math.min(nl + 1, s.length);
    if (line === delim) return { body, end: i };
    body += `${line}\n`;
  }
  return { body, end: s.length };
}

function heredocWord(body: string, expand: boolean): Word {
  const w = newWord(body);
  w.quoted = !expand;
  if (!expand) return w;
  const scan = scanDouble(body, 0, false);
  w.expands = scan.expands;
  w.subs = scan.subs;
  w.opaque = scan.opaque;
  return w;
}
