import { tmpdir } from 'node:os';
import { isAbsolute, relative, resolve, sep } from 'node:path';

/*
 * Classifies a shell command an agent wants to run (Claude Code `Bash`, Cursor
 * `beforeShellExecution`, Cline `execute_command`). Pure: it reads no files and runs nothing.
 * A small tokenizer splits the line into simple commands; each is looked up in the tables below
 * and the strictest verdict wins. This is a security boundary: when unsure, answer 'ask'.
 */

/** What the agent may do with a command: run it, ask a human first, or not run it at all. */
export type CommandVerdict = 'allow' | 'ask' | 'deny';

/** Where a command runs and what the active intent may change. */
export interface CommandContext {
  /** Absolute directory the command runs in. */
  cwd: string;
  /** Absolute root of the worktree. */
  root: string;
  /** True when a repository-relative POSIX path (e.g. "src/a.ts") is inside the intent's owned scope. */
  inScope(path: string): boolean;
}

/** The verdict on one command line. */
export interface CommandDecision {
  decision: CommandVerdict;
  /** One sentence an agent can act on, e.g. "rm deletes files: a human must approve it". Empty for allow. */
  reason: string;
  /** Repository-relative paths the command writes by redirection (>, >>, tee, etc.), for the caller. */
  writes: string[];
}

const MAX_LENGTH = 200_000;
const MAX_DEPTH = 12;
const MAX_SCRIPT = 10_000;

/**
 * Classifies one command line: allow (read-only, or writes only inside the scope), ask (a human
 * must approve it) or deny (dangerous, or tampers with the governance). Never throws.
 */
export function classifyCommand(command: string, ctx: CommandContext): CommandDecision {
  if (typeof command !== 'string' || command.trim() === '') {
    return { decision: 'ask', reason: 'could not parse an empty command: send the command to run', writes: [] };
  }
  if (command.length > MAX_LENGTH) {
    const reason = `could not parse a command of ${command.length} characters: it is too long to review, so a human must approve it`;
    return { decision: 'ask', reason, writes: [] };
  }
  try {
    const v = classifyLine(command, { ctx, cwd: ctx.cwd, depth: 0, stdin: NO_STDIN });
    return { decision: v.decision, reason: v.decision === 'allow' ? '' : v.reason, writes: [...new Set(v.writes)] };
  } catch (err) {
    const why = err instanceof ParseError ? err.message : 'it nests too deeply or could not be read';
    return { decision: 'ask', reason: `could not parse the command (${why}): a human must approve it`, writes: [] };
  }
}

// ---------------------------------------------------------------------------------------------
// Verdicts

interface Verdict {
  decision: CommandVerdict;
  reason: string;
  writes: string[];
}

const RANK: Record<CommandVerdict, number> = { allow: 0, ask: 1, deny: 2 };
const ALLOW: Verdict = { decision: 'allow', reason: '', writes: [] };

function allow(writes: string[] = []): Verdict {
  return { decision: 'allow', reason: '', writes };
}

function ask(reason: string, writes: string[] = []): Verdict {
  return { decision: 'ask', reason, writes };
}

function deny(reason: string, writes: string[] = []): Verdict {
  return { decision: 'deny', reason, writes };
}

/** A fresh verdict: the strictest of `parts` (the first reason at that level) and all their writes. */
function worst(...parts: Verdict[]): Verdict {
  const out: Verdict = { decision: 'allow', reason: '', writes: [] };
  for (const p of parts) add(out, p);
  return out;
}

function add(out: Verdict, v: Verdict): void {
  for (const w of v.writes) out.writes.push(w);
  if (RANK[v.decision] > RANK[out.decision]) {
    out.decision = v.decision;
    out.reason = v.reason;
  }
}

/** Short, single-line text for a reason. */
function clip(text: string): string {
  const t = text.replace(/\s+/g, ' ');
  return t.length > 60 ? `${t.slice(0, 57)}...` : t;
}

// ---------------------------------------------------------------------------------------------
// Tokenizer

class ParseError extends Error {}

/** One shell word after quote removal; expansions are kept as written. */
interface Word {
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

interface Redir {
  op: string;
  target: Word;
  /** A here-document's text. */
  body?: Word;
}

type Token = { kind: 'word'; word: Word } | { kind: 'redir'; redir: Redir } | { kind: 'op'; op: string };

interface Scan {
  end: number;
  text: string;
  expands: boolean;
  subs: string[];
  opaque: boolean;
}

function newWord(text = ''): Word {
  return { text, expands: false, glob: false, quoted: false, tilde: false, subs: [], opaque: false };
}

function isLiteral(w: Word): boolean {
  return !w.expands && !w.glob && !w.opaque;
}

/** The part of `w` from character `from` on, e.g. the value of `--output=x`. */
function slice(w: Word, from: number): Word {
  return { ...w, text: w.text.slice(from), tilde: false };
}

const REDIR_OPS = ['<<<', '<<-', '<<', '<>', '<&', '>>', '>&', '>|', '<', '>'];

/** Splits a command line into words, redirections and operators (; && || | |& & newline ( )). */
class Lexer {
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

// ---------------------------------------------------------------------------------------------
// Parser: tokens to simple commands

interface Simple {
  kind: 'cmd';
  words: Word[];
  redirs: Redir[];
  /** The operator before and after it: ; && || | |& & \n ( ) or '' at the ends. */
  prevOp: string;
  nextOp: string;
}

type Entry = Simple | { kind: 'open' } | { kind: 'close' } | { kind: 'func'; name: string };

function parse(tokens: Token[]): Entry[] {
  const out: Entry[] = [];
  let words: Word[] = [];
  let redirs: Redir[] = [];
  let prevOp = '';
  let depth = 0;
  const flush = (nextOp: string): void => {
    if (words.length || redirs.length) out.push({ kind: 'cmd', words, redirs, prevOp, nextOp });
    words = [];
    redirs = [];
    prevOp = nextOp;
  };
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.kind === 'word') words.push(t.word);
    else if (t.kind === 'redir') redirs.push(t.redir);
    else if (t.op === '(') {
      const next = tokens[i + 1];
      const name = functionName(words, redirs);
      if (name !== null && next?.kind === 'op' && next.op === ')') {
        out.push({ kind: 'func', name });
        words = [];
        redirs = [];
        prevOp = ';';
        i++;
        continue;
      }
      if (words.length || redirs.length) throw new ParseError('a "(" appears in the middle of a command');
      out.push({ kind: 'open' });
      depth++;
      prevOp = '(';
    } else if (t.op === ')') {
      flush(')');
      if (--depth < 0) throw new ParseError('a ")" has no matching "("');
      out.push({ kind: 'close' });
    } else flush(t.op);
  }
  flush('');
  if (depth !== 0) throw new ParseError('a "(" is not closed');
  return out;
}

function functionName(words: Word[], redirs: Redir[]): string | null {
  if (redirs.length) return null;
  if (words.length === 1) return words[0].text;
  if (words.length === 2 && words[0].text === 'function') return words[1].text;
  return null;
}

// ---------------------------------------------------------------------------------------------
// Paths

type Place =
  | 'sink' | 'device' | 'governance' | 'root' | 'ancestor' | 'scope' | 'repo' | 'temp' | 'outside' | 'home' | 'unknown' | 'dynamic';

interface Location {
  place: Place;
  shown: string;
  /** Repository-relative POSIX path, or '' outside the worktree. */
  rel: string;
  /** For a path only known at run time: where its literal directory part points. */
  base?: Place;
}

const SINKS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty']);
const GOVERNED = new Set(['.git', '.orchestration']);
const TEMP_DIRS = ['/tmp', '/var/tmp', '/private/tmp', '/private/var/tmp', ...systemTemp()];
const DANGEROUS_BASE = new Set<Place | undefined>(['governance', 'device', 'ancestor', 'outside', 'home']);

function systemTemp(): string[] {
  const t = resolve(tmpdir());
  return /te?mp/i.test(t) || t.startsWith('/var/folders/') ? [t] : [];
}

function locate(word: Word, st: State): Location {
  const text = word.text;
  if (word.tilde || /^\$(HOME\b|\{HOME\})/.test(text)) return { place: 'home', shown: text, rel: '' };
  if (!isLiteral(word)) {
    const cut = text.search(/[$`*?[{]/);
    const prefix = cut < 0 ? text : text.slice(0, cut);
    const dir = prefix.slice(0, prefix.lastIndexOf('/') + 1);
    const unknownStart = cut === 0 && (text[0] === '$' || text[0] === '`');
    const base = dir ? placeOf(dir, st).place : unknownStart ? undefined : placeOf('.', st).place;
    return { place: 'dynamic', shown: text, rel: '', base };
  }
  return placeOf(text, st);
}

function placeOf(text: string, st: State): Location {
  if (SINKS.has(text) || /^\/dev\/fd\/\d+$/.test(text)) return { place: 'sink', shown: text, rel: '' };
  if (!isAbsolute(text) && st.cwd === null) return { place: 'unknown', shown: text, rel: '' };
  const abs = resolve(st.cwd ?? '/', text);
  const root = resolve(st.ctx.root);
  const rel = relative(root, abs);
  if (rel === '') return { place: 'root', shown: text, rel: '' };
  if (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel)) {
    const posix = rel.split(sep).join('/');
    if (posix.split('/').some((s) => GOVERNED.has(s))) return { place: 'governance', shown: posix, rel: posix };
    return { place: st.ctx.inScope(posix) ? 'scope' : 'repo', shown: posix, rel: posix };
  }
  if (SINKS.has(abs)) return { place: 'sink', shown: abs, rel: '' };
  if (abs === '/dev' || abs.startsWith('/dev/')) return { place: 'device', shown: abs, rel: '' };
  if (abs.split(sep).some((s) => GOVERNED.has(s))) return { place: 'governance', shown: abs, rel: '' };
  if (root.startsWith(abs.endsWith(sep) ? abs : abs + sep)) return { place: 'ancestor', shown: abs, rel: '' };
  if (TEMP_DIRS.some((d) => abs.startsWith(d + sep))) return { place: 'temp', shown: abs, rel: '' };
  return { place: 'outside', shown: abs, rel: '' };
}

function relWrites(loc: Location): string[] {
  return loc.rel ? [loc.rel] : [];
}

/** A command writes (or, with verb 'moves', moves away) the file named by `word`. */
function writeCheck(word: Word, label: string, st: State, verb = 'writes'): Verdict {
  const loc = locate(word, st);
  const what = `${label} ${verb} ${clip(loc.shown)}`;
  switch (loc.place) {
    case 'sink':
    case 'temp':
      return ALLOW;
    case 'scope':
      return allow(relWrites(loc));
    case 'repo':
      return deny(`${what}, which is outside the intent's scope: change only files in the scope, or ask to widen it`, relWrites(loc));
    case 'governance':
      return deny(`${what}, the governance state (.git/, .orchestration/): use git and the intent commands instead`, relWrites(loc));
    case 'device':
      return deny(`${what}, a device: write to a file in the scope instead`);
    case 'root':
    case 'ancestor':
      return deny(`${what}, which holds the whole worktree: name a file in the scope instead`);
    case 'outside':
    case 'home':
      return deny(`${what}, outside the worktree: write in the scope or under /tmp instead`);
    case 'unknown':
      return ask(`${what} after a cd we cannot follow: use a path from the worktree root`);
    case 'dynamic':
      if (DANGEROUS_BASE.has(loc.base)) return deny(`${what}, which points outside the scope: use a literal path in the scope`);
      return ask(`${what}, a path only known at run time: use a literal path`);
  }
}

/** A command deletes the file or directory named by `word`. */
function deleteCheck(word: Word, label: string, recursive: boolean, st: State): Verdict {
  const loc = locate(word, st);
  const what = `${label} deletes ${clip(loc.shown)}`;
  switch (loc.place) {
    case 'sink':
    case 'device':
      return deny(`${what}, a device: delete only files in the worktree`);
    case 'governance':
      return deny(`${what}, which holds the governance state (.git/, .orchestration/): leave it to git and the intent commands`);
    case 'root':
    case 'ancestor':
      return deny(`${what}, which holds the whole worktree: delete named files instead`);
    case 'outside':
    case 'home':
      return deny(`${what}, outside the worktree: delete only files in the worktree`);
    case 'temp':
    case 'scope':
    case 'repo':
      return ask(`${what}: a human must approve it`, relWrites(loc));
    case 'unknown':
      return ask(`${what} after a cd we cannot follow: use a path from the worktree root`);
    case 'dynamic':
      if (DANGEROUS_BASE.has(loc.base)) return deny(`${what}, which points outside the worktree: delete named files instead`);
      if (recursive && loc.base === 'root') return deny(`${what}, everything at the top of the worktree: delete named files instead`);
      return ask(`${what}, a path only known at run time: a human must approve it`);
  }
}

/** `dir/basename(src)`: where cp or mv puts `src` when `dir` is a directory. */
function childOf(dir: Word, src: Word): Word {
  const name = src.text.replace(/\/+$/, '');
  return {
    ...dir,
    text: `${dir.text.replace(/\/+$/, '')}/${name.slice(name.lastIndexOf('/') + 1)}`,
    expands: dir.expands || src.expands,
    glob: dir.glob || src.glob,
    opaque: dir.opaque || src.opaque,
  };
}

function dirAfter(cwd: string | null, dir: Word): string | null {
  if (!isLiteral(dir)) return null;
  if (isAbsolute(dir.text)) return resolve(dir.text);
  return cwd === null ? null : resolve(cwd, dir.text);
}

// ---------------------------------------------------------------------------------------------
// Lines and simple commands

type Stdin = { kind: 'none' } | { kind: 'pipe'; download: boolean } | { kind: 'text'; word: Word | null };

interface State {
  ctx: CommandContext;
  /** Where the command runs; null after a cd we cannot follow. */
  cwd: string | null;
  depth: number;
  stdin: Stdin;
}

const NO_STDIN: Stdin = { kind: 'none' };
const DOWNLOADERS = new Set(['curl', 'wget', 'fetch', 'aria2c', 'http', 'xh']);
const DOWNLOAD_RE = /\b(curl|wget)\b/;
const KEYWORDS = new Set(['!', '{', '}', 'if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until', 'esac']);

function classifyLine(text: string, st: State): Verdict {
  if (st.depth > MAX_DEPTH) return ask('the command nests shells or substitutions too deeply to review: a human must approve it');
  const entries = parse(new Lexer(text).run());
  const out = worst();
  const functions = new Set<string>();
  const saved: (string | null)[] = [];
  let cwd = st.cwd;
  let prevName = '';
  let download = false;
  let echoed: Word | null = null;
  for (const e of entries) {
    if (e.kind === 'open') saved.push(cwd);
    else if (e.kind === 'close') cwd = saved.length ? (saved.pop() as string | null) : cwd;
    else if (e.kind === 'func') {
      functions.add(e.name);
      add(out, ask(`defining the shell function ${clip(e.name)} hides what will run: run the commands directly`));
    } else {
      const piped = e.prevOp === '|' || e.prevOp === '|&';
      if (!piped) download = false;
      const name = commandName(e.words);
      if (piped && name !== '' && name === prevName && functions.has(name)) {
        add(out, deny(`the function ${clip(name)} pipes into itself (${clip(name)}|${clip(name)}), a fork bomb: do not run it`));
      }
      const stdin = piped && echoed ? { kind: 'text' as const, word: echoed } : stdinOf(e, piped, download);
      add(out, classifySimple(e, { ...st, cwd, stdin }));
      if (e.words.some((w) => DOWNLOADERS.has(baseName(w.text)))) download = true;
      echoed = echoText(e);
      prevName = name;
      const moved = cdEffect(e, cwd, piped);
      if (moved !== undefined) cwd = moved;
    }
  }
  return out;
}

/** The literal text `echo a b` prints (what a shell after `|` would run), or null. */
function echoText(e: Simple): Word | null {
  const start = programStart(e.words);
  if (e.words[start]?.text !== 'echo' || e.redirs.length || !['|', '|&'].includes(e.nextOp)) return null;
  const args = e.words.slice(start + 1).filter((w, k) => !(k === 0 && w.text === '-n'));
  if (args.some((w) => w.expands || w.opaque || w.glob || /^-[eE]+$/.test(w.text))) return null;
  return newWord(args.map((w) => w.text).join(' '));
}

function programStart(words: Word[]): number {
  let i = 0;
  while (i < words.length && isAssignment(words[i])) i++;
  while (i < words.length && KEYWORDS.has(words[i].text) && !words[i].quoted) i++;
  return i;
}

function commandName(words: Word[]): string {
  const w = words[programStart(words)];
  return w ? baseName(w.text) : '';
}

function baseName(text: string): string {
  return text.slice(text.lastIndexOf('/') + 1);
}

function stdinOf(e: Simple, piped: boolean, download: boolean): Stdin {
  for (const r of e.redirs) {
    if (r.op === '<<' || r.op === '<<-') return { kind: 'text', word: r.body ?? null };
    if (r.op === '<<<') return { kind: 'text', word: r.target };
    if (r.op === '<' || r.op === '<>') return { kind: 'text', word: null };
  }
  return piped ? { kind: 'pipe', download } : NO_STDIN;
}

/** The directory after a `cd`: undefined when `e` is no cd, null when we cannot tell. */
function cdEffect(e: Simple, cwd: string | null, piped: boolean): string | null | undefined {
  const start = programStart(e.words);
  const name = e.words[start]?.text;
  if (name === 'popd') return null;
  if (name !== 'cd' && name !== 'pushd') return undefined;
  if (piped || ['|', '|&', '&', '||'].includes(e.nextOp)) return null;
  const target = e.words.slice(start + 1).find((w) => !/^-[LPe@]+$/.test(w.text));
  if (!target || target.text === '-' || target.text === '--') return null;
  return dirAfter(cwd, target);
}

function classifySimple(e: Simple, st: State): Verdict {
  const out = worst();
  const name = commandName(e.words);
  for (const w of e.words) add(out, classifySubs(w, st));
  for (const r of e.redirs) add(out, classifyRedir(r, name, st));
  add(out, classifyWords(e.words, st));
  return out;
}

/** Classifies the commands inside $(...), backticks and <(...) of a word. */
function classifySubs(w: Word, st: State): Verdict {
  const out = worst();
  if (w.opaque) add(out, ask(`${clip(w.text)} hides a command inside an expansion: write the command out directly`));
  for (const sub of w.subs) add(out, classifyLine(sub, { ...st, depth: st.depth + 1, stdin: NO_STDIN }));
  return out;
}

const WRITE_REDIRS = new Set(['>', '>>', '>|', '&>', '&>>', '<>']);

function classifyRedir(r: Redir, name: string, st: State): Verdict {
  const label = name ? `${name} ${r.op}` : r.op;
  const out = classifySubs(r.target, st);
  if (r.body) add(out, classifySubs(r.body, st));
  const dup = (r.op === '>&' || r.op === '<&') && /^(\d+|-)$/.test(r.target.text);
  if (WRITE_REDIRS.has(r.op) || (r.op === '>&' && !dup)) add(out, writeCheck(r.target, label, st));
  return out;
}

/** Classifies one simple command given as words: assignments first, then the program. */
function classifyWords(words: Word[], st: State): Verdict {
  if (st.depth > MAX_DEPTH) return ask('the command nests wrappers too deeply to review: a human must approve it');
  const out = worst();
  let i = 0;
  for (; i < words.length && isAssignment(words[i]); i++) add(out, checkAssignment(words[i]));
  while (i < words.length && KEYWORDS.has(words[i].text) && !words[i].quoted) i++;
  if (i < words.length) add(out, runProgram(words[i], words.slice(i + 1), st));
  return out;
}

function runProgram(first: Word, args: Word[], st: State): Verdict {
  if (!isLiteral(first)) return ask(`the program ${clip(first.text)} is only known at run time: name the program directly`);
  const name = programName(first.text);
  if (name === null) return ask(`${clip(first.text)} runs a program by its path, which we cannot review: a human must approve it`);
  const handler = HANDLERS.get(name);
  if (handler) return handler(name, args, st);
  if (READ_ONLY.has(name)) return readOnly(name, args, st);
  const denied = DENY_COMMANDS.get(name.startsWith('mkfs.') ? 'mkfs' : name);
  if (denied) return deny(`${name} ${denied}: agents may not run it`);
  const why = ASK_COMMANDS.get(name);
  if (why) return ask(`${name} ${why}: a human must approve it`);
  return ask(`${clip(name)} is not a command we know to be safe: a human must approve it`);
}

const SYSTEM_BIN_DIRS = new Set(['/bin', '/usr/bin', '/usr/local/bin', '/sbin', '/usr/sbin', '/usr/local/sbin', '/opt/homebrew/bin']);

/** `ls` or `/usr/bin/ls` → `ls`; a program elsewhere (./x, src/ls) → null. */
function programName(text: string): string | null {
  const slash = text.lastIndexOf('/');
  if (slash < 0) return text;
  return SYSTEM_BIN_DIRS.has(text.slice(0, slash)) ? text.slice(slash + 1) : null;
}

// ---------------------------------------------------------------------------------------------
// Environment variables

/** Variables that switch off, redirect or impersonate the governance. */
const DENY_ENV = new Set([
  'GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_COMMON_DIR', 'GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_NAMESPACE', 'GIT_EXEC_PATH', 'GIT_TEMPLATE_DIR', 'HUSKY', 'SKIP', 'SKIP_HOOKS', 'NO_VERIFY', 'PRE_COMMIT',
  'PRE_COMMIT_ALLOW_NO_CONFIG', 'LEFTHOOK', 'LEFTHOOK_EXCLUDE', 'OVERCOMMIT_DISABLE',
]);
const DENY_ENV_PREFIXES = ['INTENT_', 'GIT_CONFIG', 'GIT_NOTES_', 'HUSKY_'];
/** Variables that change which programs or code run. */
const ASK_ENV = new Set([
  'PATH', 'HOME', 'BASH_ENV', 'ENV', 'IFS', 'SHELLOPTS', 'BASHOPTS', 'PROMPT_COMMAND', 'NODE_OPTIONS', 'NODE_PATH', 'PYTHONPATH',
  'PYTHONSTARTUP', 'PYTHONHOME', 'RUBYOPT', 'RUBYLIB', 'PERL5OPT', 'PERL5LIB', 'GIT_SSH', 'GIT_SSH_COMMAND', 'GIT_EXTERNAL_DIFF',
  'GIT_ASKPASS', 'SSH_ASKPASS', 'GIT_EDITOR', 'GIT_SEQUENCE_EDITOR', 'EDITOR', 'VISUAL', 'GIT_PAGER', 'PAGER', 'MANPAGER',
  'LESSOPEN', 'LESSCLOSE', 'GIT_PROXY_COMMAND',
]);
const ASK_ENV_PREFIXES = ['LD_', 'DYLD_', 'npm_config_', 'NPM_CONFIG_'];
const PAGER_ENV = new Set(['GIT_PAGER', 'PAGER', 'MANPAGER']);
const SAFE_PAGERS = new Set(['', 'cat', 'less', 'more', 'less -R', 'less -FRX']);

function isAssignment(w: Word): boolean {
  return /^[A-Za-z_]\w*\+?=/.test(w.text);
}

function checkAssignment(w: Word): Verdict {
  const eq = w.text.indexOf('=');
  const name = w.text.slice(0, eq).replace(/\+$/, '');
  return checkEnv(name, w.text.slice(eq + 1), clip(w.text));
}

function checkEnv(name: string, value: string, label: string): Verdict {
  if (name === 'INTENT_ID') {
    return deny(`${label} picks the active intent, which an agent may not do: run the command without INTENT_ID, in the intent's worktree`);
  }
  if (DENY_ENV.has(name) || DENY_ENV_PREFIXES.some((p) => name.startsWith(p))) {
    return deny(`${label} would switch off or redirect the governance hooks: run the command without setting ${name}`);
  }
  if (PAGER_ENV.has(name) && SAFE_PAGERS.has(value)) return ALLOW;
  if (ASK_ENV.has(name) || ASK_ENV_PREFIXES.some((p) => name.startsWith(p))) {
    return ask(`${label} changes which programs or code run: a human must approve it`);
  }
  return ALLOW;
}

// ---------------------------------------------------------------------------------------------
// Arguments

interface Parsed {
  opts: { name: string; value?: Word }[];
  pos: Word[];
}

/** Splits options from operands; `withValue` lists the options that take the next word. */
function parseArgs(args: Word[], withValue: readonly string[] = []): Parsed {
  const opts: Parsed['opts'] = [];
  const pos: Word[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const t = a.text;
    if (t === '--') {
      pos.push(...args.slice(i + 1));
      break;
    }
    if (t.startsWith('--')) {
      const eq = t.indexOf('=');
      if (eq > 0) opts.push({ name: t.slice(0, eq), value: slice(a, eq + 1) });
      else if (withValue.includes(t) && i + 1 < args.length) opts.push({ name: t, value: args[++i] });
      else opts.push({ name: t });
    } else if (t.startsWith('-') && t.length > 1) {
      for (let j = 1; j < t.length; j++) {
        const name = `-${t[j]}`;
        if (!withValue.includes(name)) {
          opts.push({ name });
          continue;
        }
        if (j + 1 < t.length) opts.push({ name, value: slice(a, j + 1) });
        else if (i + 1 < args.length) opts.push({ name, value: args[++i] });
        else opts.push({ name });
        break;
      }
    } else pos.push(a);
  }
  return { opts, pos };
}

function has(p: Parsed, ...names: string[]): boolean {
  return p.opts.some((o) => names.includes(o.name));
}

function values(p: Parsed, ...names: string[]): Word[] {
  return p.opts.filter((o) => names.includes(o.name) && o.value).map((o) => o.value as Word);
}

function firstOperand(args: Word[], withValue: readonly string[] = []): string | undefined {
  return parseArgs(args, withValue).pos[0]?.text;
}

function fetches(w: Word): boolean {
  return w.subs.some((s) => DOWNLOAD_RE.test(s));
}

function downloadDenied(name: string): Verdict {
  return deny(`${name} would run a downloaded script unreviewed (curl | sh): download it, read it, and ask a human to run it`);
}

// ---------------------------------------------------------------------------------------------
// Read-only programs

/** Programs that only read and print, unless one of the options in the tables below is used. */
const READ_ONLY = new Set([
  'ls', 'cat', 'head', 'tail', 'less', 'more', 'wc', 'grep', 'egrep', 'fgrep', 'rg', 'ag', 'ack', 'pwd', 'echo', 'printf', 'which',
  'whereis', 'type', 'file', 'stat', 'du', 'df', 'tree', 'diff', 'cmp', 'comm', 'sort', 'uniq', 'cut', 'tr', 'jq', 'basename',
  'dirname', 'realpath', 'readlink', 'nl', 'od', 'xxd', 'hexdump', 'strings', 'md5sum', 'sha1sum', 'sha256sum', 'sha512sum',
  'shasum', 'cksum', 'base64', 'column', 'fold', 'fmt', 'paste', 'join', 'expand', 'unexpand', 'rev', 'tac', 'seq', 'date',
  'whoami', 'id', 'uname', 'printenv', 'locale', 'nproc', 'uptime', 'ps', 'true', 'false', ':', 'test', '[', '[[', 'sleep',
  'wait', 'read', 'cd', 'pushd', 'popd', 'dirs', 'for', 'select', 'set', 'shopt', 'exit', 'return', 'man', 'help',
]);
/** Options that take a value, where a misread value would shift the operands we look at. */
const VALUE_OPTIONS: Record<string, string[]> = {
  sort: ['-k', '-t', '-S', '-T', '--key', '--field-separator', '--buffer-size', '--temporary-directory'],
  uniq: ['-f', '-s', '-w', '--skip-fields', '--skip-chars', '--check-chars'],
  xxd: ['-c', '-g', '-l', '-s', '-o', '-n'],
  tree: ['-L', '-P', '-I', '-H', '-T', '--filelimit'],
  base64: ['-w', '--wrap'],
};
/** Options whose value is a file the program writes. */
const OUTPUT_OPTIONS: Record<string, string[]> = {
  sort: ['-o', '--output'],
  tree: ['-o'],
  less: ['-o', '-O', '--log-file', '--LOG-FILE'],
  base64: ['-o', '--output'],
};
/** The operand (0-based) that is a file the program writes. */
const OUTPUT_OPERAND: Record<string, number> = { uniq: 1, xxd: 1 };
/** Options that run another program or change the system. */
const RISKY_OPTIONS: Record<string, string[]> = {
  rg: ['--pre'],
  ag: ['--pager'],
  ack: ['--pager'],
  file: ['-C', '--compile'],
  date: ['-s', '--set'],
  sort: ['--compress-program'],
  man: ['-P', '--pager', '-H', '--html'],
};

function sensitive(name: string): boolean {
  return name in OUTPUT_OPTIONS || name in OUTPUT_OPERAND || name in RISKY_OPTIONS;
}

function readOnly(name: string, args: Word[], st: State): Verdict {
  if (!sensitive(name)) return ALLOW;
  if (args.some((a) => a.expands || a.opaque)) {
    return ask(`${name} gets an argument only known at run time, which could be an option that writes or runs code: use literal arguments`);
  }
  const outputs = OUTPUT_OPTIONS[name] ?? [];
  const p = parseArgs(args, [...(VALUE_OPTIONS[name] ?? []), ...outputs, ...(RISKY_OPTIONS[name] ?? [])]);
  const risky = p.opts.find((o) => RISKY_OPTIONS[name]?.includes(o.name));
  if (risky) return ask(`${name} ${risky.name} runs another program or changes the system: a human must approve it`);
  const out = worst();
  for (const o of p.opts) if (o.value && outputs.includes(o.name)) add(out, writeCheck(o.value, `${name} ${o.name}`, st));
  const k = OUTPUT_OPERAND[name];
  if (k !== undefined && p.pos[k]) add(out, writeCheck(p.pos[k], name, st));
  return out;
}

const SED_SUBST = /s([^\\\n\w\s])((?:\\.|(?!\1)[^\\\n])*)\1((?:\\.|(?!\1)[^\\\n])*)\1([a-zA-Z0-9]*)/g;

/** True when a sed script may write files (w, W, s///w) or run commands (e, s///e). */
function sedScriptIsRisky(script: string): boolean {
  if (script.length > MAX_SCRIPT) return true;
  let risky = false;
  const rest = script.replace(SED_SUBST, (_m, _d, _a, _b, flags: string) => {
    if (/[we]/.test(flags)) risky = true;
    return ';';
  });
  return risky || /(^|[;{}\n!\s\d$/])[wWe](\s|$|;|})/.test(rest);
}

function sed(_name: string, args: Word[], st: State): Verdict {
  if (args.some((a) => a.expands || a.opaque)) return ask('sed gets a script or file only known at run time: use literal arguments');
  // BSD sed: `-i ''` or `-i .bak` gives the backup suffix as its own word.
  const cleaned = args.filter((a, k) => !(args[k - 1]?.text === '-i' && /^(\.[\w.-]*)?$/.test(a.text)));
  const p = parseArgs(cleaned, ['-e', '--expression', '-f', '--file', '-l', '--line-length']);
  if (has(p, '-f', '--file')) return ask('sed -f runs a script file we cannot review: put the script on the command line');
  const scripts = values(p, '-e', '--expression');
  const files = [...p.pos];
  if (!scripts.length) {
    const script = files.shift();
    if (script) scripts.push(script);
  }
  if (scripts.some((s) => sedScriptIsRisky(s.text))) {
    return ask('the sed script uses w or e, which write files or run commands: a human must approve it');
  }
  if (!has(p, '-i', '--in-place')) return ALLOW;
  if (!files.length) return ask('sed -i has no file to edit: name the file');
  return worst(...files.map((f) => writeCheck(f, 'sed -i', st)));
}

const AWK_RISKY = /\bsystem\s*\(|\bprintf?\b[^;{}]*[>|]|\|\s*&?\s*getline|@(load|include)/;

function awk(name: string, args: Word[]): Verdict {
  const programFiles = ['-f', '--file', '-i', '--include', '-l', '--load', '-E', '--exec'];
  const p = parseArgs(args, ['-F', '-v', '--field-separator', '--assign', ...programFiles]);
  if (has(p, ...programFiles)) {
    return ask(`${name} -f runs a program file we cannot review: put the program on the command line`);
  }
  if (args.some((a) => a.expands || a.opaque)) return ask(`${name} gets a program or file only known at run time: use literal arguments`);
  const program = p.pos[0]?.text ?? '';
  if (program.length > MAX_SCRIPT || AWK_RISKY.test(program)) {
    return ask(`the ${name} program uses system(), pipes or redirection, which run commands or write files: a human must approve it`);
  }
  return ALLOW;
}

const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);
const FIND_OUTPUT = new Set(['-fprint', '-fprint0', '-fprintf', '-fls']);

function find(_name: string, args: Word[], st: State): Verdict {
  if (args.some((a) => a.expands || a.opaque)) {
    return ask('find gets an argument only known at run time, which could add -delete or -exec: use literal arguments');
  }
  const out = worst();
  let i = 0;
  while (i < args.length && /^-([HLP]|O\d*|D)$/.test(args[i].text)) i += args[i].text === '-D' ? 2 : 1;
  const starts: Word[] = [];
  while (i < args.length && !/^[-(!),]/.test(args[i].text)) starts.push(args[i++]);
  let deletes = false;
  for (; i < args.length; i++) {
    const t = args[i].text;
    if (t === '-delete') deletes = true;
    else if (FIND_EXEC.has(t)) {
      let j = i + 1;
      while (j < args.length && args[j].text !== ';' && args[j].text !== '+') j++;
      const inner = args.slice(i + 1, j).map((w) => (w.text.includes('{}') ? { ...w, glob: true } : w));
      const cwd = t === '-execdir' || t === '-okdir' ? null : st.cwd;
      add(out, classifyWords(inner, { ...st, cwd, depth: st.depth + 1, stdin: NO_STDIN }));
      i = j;
    } else if (FIND_OUTPUT.has(t) && args[i + 1]) {
      add(out, writeCheck(args[i + 1], `find ${t}`, st));
      i++;
    }
  }
  if (deletes) {
    for (const start of starts.length ? starts : [newWord('.')]) {
      const loc = locate(start, st);
      if (['governance', 'device', 'ancestor', 'outside', 'home'].includes(loc.place)) {
        const why = 'deletes files outside the worktree or in the governance state: delete named files instead';
        add(out, deny(`find ${clip(start.text)} -delete ${why}`));
      }
    }
    add(out, ask('find -delete deletes files: a human must approve it'));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Programs that write, move or delete files

function tee(name: string, args: Word[], st: State): Verdict {
  return worst(...parseArgs(args).pos.map((f) => writeCheck(f, name, st)));
}

const CREATE_VALUES: Record<string, string[]> = {
  touch: ['-d', '-r', '-t', '--date', '--reference'],
  mkdir: ['-m', '--mode'],
  truncate: ['-s', '--size', '-r', '--reference'],
};

/** touch, mkdir, truncate: every operand is written. */
function create(name: string, args: Word[], st: State): Verdict {
  return worst(...parseArgs(args, CREATE_VALUES[name]).pos.map((f) => {
    const v = writeCheck(f, name, st);
    if (name !== 'mkdir' || v.decision !== 'deny') return v;
    // A directory the scope lies in (mkdir -p src/auth for src/auth/**) is the scope's own.
    const loc = locate(f, st);
    return loc.place === 'repo' && st.ctx.inScope(`${loc.rel}/_`) ? allow([]) : v;
  }));
}

function remove(name: string, args: Word[], st: State): Verdict {
  const p = parseArgs(args, ['-n', '--iterations', '-s', '--size']);
  if (has(p, '--no-preserve-root')) return deny(`${name} --no-preserve-root can delete the whole system: delete named files instead`);
  const recursive = has(p, '-r', '-R', '--recursive');
  const out = worst(...p.pos.map((f) => deleteCheck(f, name, recursive, st)));
  add(out, ask(`${name} deletes files: a human must approve it`));
  return out;
}

/** cp and mv (also git mv): the destination is written; mv also moves its sources away. */
function copyOrMove(name: string, args: Word[], st: State): Verdict {
  const p = parseArgs(args, ['-t', '--target-directory', '-S', '--suffix']);
  const dir = values(p, '-t', '--target-directory')[0];
  const moves = name.endsWith('mv');
  const out = worst();
  if (moves) for (const s of dir ? p.pos : p.pos.slice(0, -1)) add(out, writeCheck(s, name, st, 'moves'));
  add(out, destinationCheck(name, p.pos, dir, has(p, '-T', '--no-target-directory'), st));
  if (moves) add(out, ask(`${name} moves files: a human must approve it`));
  return out;
}

function destinationCheck(name: string, files: Word[], dir: Word | undefined, noTargetDir: boolean, st: State): Verdict {
  if (dir) return worst(...files.map((f) => writeCheck(childOf(dir, f), name, st)));
  if (files.length < 2) return ask(`${name} needs a source and a destination: name both`);
  const dest = files[files.length - 1];
  const sources = files.slice(0, -1);
  if (noTargetDir) return writeCheck(dest, name, st);
  if (sources.length > 1 || dest.text.endsWith('/')) return worst(...sources.map((s) => writeCheck(childOf(dest, s), name, st)));
  const asFile = writeCheck(dest, name, st);
  const asDir = writeCheck(childOf(dest, sources[0]), name, st);
  if (asFile.decision === asDir.decision) return asFile;
  if (asFile.decision !== 'allow' && asDir.decision !== 'allow') return worst(asFile, asDir);
  const either = `${clip(dest.text)} or ${clip(childOf(dest, sources[0]).text)}`;
  return ask(`${name} writes ${either}, and only one is in the scope: end a directory with /, or use -T for a file`);
}

function link(name: string, args: Word[], st: State): Verdict {
  const p = parseArgs(args, ['-t', '--target-directory', '-S', '--suffix']);
  const dir = values(p, '-t', '--target-directory')[0];
  const out = worst();
  if (!dir && p.pos.length === 1) add(out, writeCheck(childOf(newWord('.'), p.pos[0]), name, st));
  else add(out, destinationCheck(name, p.pos, dir, has(p, '-T', '--no-target-directory'), st));
  add(out, ask(`${name} creates links, which can send later writes outside the scope: a human must approve it`));
  return out;
}

/** A chmod mode that lets anyone write: 777, o+w, a+rwx, ... */
function worldWritable(mode: string): boolean {
  if (/^[0-7]{3,4}$/.test(mode)) return (Number(mode[mode.length - 1]) & 2) !== 0;
  return mode.split(',').some((c) => /^[ugoa]*[+=][rwxXst]*w/.test(c) && !/^[ug]+[+=]/.test(c));
}

function permissions(name: string, args: Word[], st: State): Verdict {
  const modes = name === 'chmod' ? args.filter((a) => /^-[rwxXst]+$/.test(a.text)) : [];
  const p = parseArgs(args.filter((a) => !modes.includes(a)), ['--reference']);
  const recursive = has(p, '-R', '--recursive');
  const operands = [...p.pos];
  const mode = modes.length || has(p, '--reference') ? '' : (operands.shift()?.text ?? '');
  const out = worst();
  if (name === 'chmod' && recursive && worldWritable(mode)) {
    add(out, deny(`chmod -R ${mode} makes every file writable by anyone: set narrower permissions on named files`));
  }
  for (const f of operands) {
    const loc = locate(f, st);
    if (loc.place === 'governance') {
      add(out, deny(`${name} ${clip(loc.shown)} changes the governance state: leave .git/ and .orchestration/ alone`));
    } else if (['root', 'ancestor', 'outside', 'home', 'repo', 'device'].includes(loc.place)) {
      add(out, deny(`${name} ${clip(loc.shown)} changes files outside the intent's scope: name files in the scope instead`));
    } else if (loc.place !== 'scope' && loc.place !== 'temp') {
      add(out, ask(`${name} ${clip(loc.shown)} changes a path only known at run time: use a literal path in the scope`));
    }
  }
  if (name !== 'chmod' || !operands.length || !mode || has(p, '--reference')) {
    add(out, ask(`${name} changes file permissions or owners: a human must approve it`));
  } else if (worldWritable(mode)) add(out, ask(`chmod ${clip(mode)} lets anyone write the file: a human must approve it`));
  return out;
}

function dd(name: string, args: Word[], st: State): Verdict {
  const out = worst();
  for (const a of args) if (a.text.startsWith('of=')) add(out, writeCheck(slice(a, 3), `${name} of=`, st));
  add(out, ask(`${name} copies raw data: a human must approve it`));
  return out;
}

/** Writes files we cannot name into `dir` (an archive's contents, downloads): `dir/*` must be in the scope. */
function intoDir(dir: Word, label: string, st: State): Verdict {
  return { ...writeCheck(childOf(dir, newWord('*')), label, st), writes: [] };
}

/** install: copies like cp (-d creates directories). */
function install(name: string, args: Word[], st: State): Verdict {
  const p = parseArgs(args, ['-m', '--mode', '-o', '--owner', '-g', '--group', '-t', '--target-directory', '-S', '--suffix']);
  if (has(p, '-d', '--directory')) return worst(...p.pos.map((f) => writeCheck(f, `${name} -d`, st)));
  return destinationCheck(name, p.pos, values(p, '-t', '--target-directory')[0], has(p, '-T', '--no-target-directory'), st);
}

/** An rsync or scp operand on another machine: host:path, user@host:path, rsync://. */
function remote(w: Word): boolean {
  return /^[^/]*:/.test(w.text) || w.text.startsWith('rsync://');
}

const RSYNC_VALUES = [
  '-e', '--rsh', '--rsync-path', '-f', '--filter', '--exclude', '--include', '--exclude-from', '--include-from', '--files-from',
  '--log-file', '--partial-dir', '-T', '--temp-dir', '--backup-dir', '--chmod', '--chown', '-M', '--remote-option', '--suffix',
  '--compare-dest', '--copy-dest', '--link-dest', '-B', '--block-size', '--timeout', '--bwlimit', '--port', '--password-file',
];

function rsync(name: string, args: Word[], st: State): Verdict {
  const p = parseArgs(args, RSYNC_VALUES);
  const out = worst(...values(p, '--log-file').map((w) => writeCheck(w, `${name} --log-file`, st)));
  if (has(p, '-e', '--rsh', '--rsync-path', '-M', '--remote-option')) add(out, ask(`${name} -e runs another program: a human must approve it`));
  if (p.pos.some(remote)) return worst(out, ask(`${name} copies files over the network: a human must approve it`));
  add(out, destinationCheck(name, p.pos, undefined, false, st));
  if (p.opts.some((o) => o.name.startsWith('--delete') || o.name === '--remove-source-files')) {
    add(out, ask(`${name} --delete deletes files: a human must approve it`));
  }
  return out;
}

/** Options of downloaders whose value is a file they write. */
const DOWNLOAD_OUTPUTS: Record<string, string[]> = {
  curl: ['-o', '--output', '-D', '--dump-header', '-c', '--cookie-jar', '--trace', '--trace-ascii', '--stderr', '--libcurl', '--etag-save', '--hsts', '--alt-svc'],
  wget: ['-O', '--output-document', '-o', '--output-file', '-a', '--append-output', '--save-cookies', '--warc-file'],
};
const DOWNLOAD_DIRS: Record<string, string[]> = { curl: ['--output-dir'], wget: ['-P', '--directory-prefix'] };
const DOWNLOAD_VALUES: Record<string, string[]> = {
  curl: ['-H', '--header', '-d', '--data', '--data-raw', '--data-binary', '-X', '--request', '-u', '--user', '-A', '--user-agent', '-e', '--referer', '-F', '--form', '-m', '--max-time', '-b', '--cookie', '-w', '--write-out', '-x', '--proxy', '-K', '--config', '-r', '--range', '-T', '--upload-file', '--retry', '--connect-timeout'],
  wget: ['-t', '--tries', '-T', '--timeout', '-U', '--user-agent', '--header', '-e', '--execute', '-i', '--input-file', '-w', '--wait', '-Q', '--quota', '-l', '--level'],
};

/** curl, wget: a download a human approves, refused when it writes outside the scope. */
function download(name: string, args: Word[], st: State): Verdict {
  const outputs = DOWNLOAD_OUTPUTS[name];
  const dirs = DOWNLOAD_DIRS[name];
  const p = parseArgs(args, [...outputs, ...dirs, ...DOWNLOAD_VALUES[name]]);
  const out = worst();
  for (const o of p.opts) {
    if (!o.value || o.value.text === '-') continue;
    if (outputs.includes(o.name)) add(out, writeCheck(o.value, `${name} ${o.name}`, st));
    else if (dirs.includes(o.name)) add(out, intoDir(o.value, `${name} ${o.name}`, st));
  }
  add(out, ask(`${name} downloads from the network: a human must approve it`));
  return out;
}

const TAR_VALUES = ['-f', '--file', '-C', '--directory', '-T', '--files-from', '-X', '--exclude-from', '--exclude', '-b', '--blocking-factor', '-H', '--format', '-V', '--label', '-N', '--newer', '--owner', '--group', '--mode', '--strip-components', '--transform', '--xform'];
const TAR_RUNS = ['--to-command', '-I', '--use-compress-program', '--checkpoint-action', '-F', '--info-script', '--new-volume-script', '--rsh-command', '--rmt-command'];

/** tar: creating writes the archive; extracting writes into -C (or here), files we cannot see. */
function tar(name: string, args: Word[], st: State): Verdict {
  // `tar xzf a.tgz`: the first word may be bundled letters without a dash.
  const first = args[0];
  const norm = first && /^[A-Za-z]+$/.test(first.text) ? [{ ...first, text: `-${first.text}` }, ...args.slice(1)] : args;
  const p = parseArgs(norm, [...TAR_VALUES, ...TAR_RUNS]);
  const run = p.opts.find((o) => TAR_RUNS.includes(o.name) || o.name.startsWith('--to-command') || o.name.startsWith('--checkpoint-action'));
  if (run) return ask(`${name} ${run.name} runs another program: a human must approve it`);
  const archive = values(p, '-f', '--file')[0];
  if (has(p, '-t', '--list', '-d', '--diff', '--compare')) return ALLOW;
  if (has(p, '-x', '--extract', '--get')) {
    if (has(p, '-O', '--to-stdout')) return ALLOW;
    const dir = values(p, '-C', '--directory')[0] ?? newWord('.');
    return worst(intoDir(dir, `${name} -x`, st),
      ask(`${name} -x writes the files the archive holds, which we cannot see: a human must approve it`));
  }
  if (has(p, '-c', '--create', '-r', '--append', '-u', '--update', '-A', '--catenate', '--concatenate', '--delete')) {
    return !archive || archive.text === '-' ? ALLOW : writeCheck(archive, `${name} -f`, st);
  }
  return ask(`${name} without -c, -x or -t does something we cannot tell: a human must approve it`);
}

function unzip(name: string, args: Word[], st: State): Verdict {
  const p = parseArgs(args, ['-d', '-x', '-P']);
  if (has(p, '-l', '-v', '-t', '-p', '-Z', '-z')) return ALLOW;
  const dir = values(p, '-d')[0] ?? newWord('.');
  return worst(intoDir(dir, `${name} -d`, st),
    ask(`${name} writes the files the archive holds, which we cannot see: a human must approve it`));
}

function zip(name: string, args: Word[], st: State): Verdict {
  const p = parseArgs(args, ['-b', '-n', '-t', '-tt', '-x', '-i', '-P', '-Z', '-O', '--out']);
  const target = values(p, '-O', '--out')[0] ?? p.pos[0];
  if (!target) return ask(`${name} names no archive: name it`);
  const out = writeCheck(target, name, st);
  if (has(p, '-m', '--move', '-d', '--delete')) add(out, ask(`${name} -m deletes the files it archives: a human must approve it`));
  return out;
}

/** patch: with a named file or -o, that file is written; otherwise the files its diff names. */
function patch(name: string, args: Word[], st: State): Verdict {
  const p = parseArgs(args, ['-p', '--strip', '-i', '--input', '-o', '--output', '-d', '--directory', '-r', '--reject-file', '-B', '--prefix', '-D', '--ifdef', '-F', '--fuzz', '-z', '--suffix', '-V', '--version-control']);
  if (has(p, '--dry-run', '-C', '--check')) return ALLOW;
  const out = worst(...values(p, '-o', '--output', '-r', '--reject-file').filter((w) => w.text !== '-').map((w) => writeCheck(w, `${name} -o`, st)));
  const dir = values(p, '-d', '--directory')[0];
  if (dir) add(out, intoDir(dir, `${name} -d`, st));
  if (p.pos[0] && !has(p, '-o', '--output')) add(out, writeCheck(p.pos[0], name, st));
  else if (!p.pos[0]) add(out, ask(`${name} edits the files its diff names, which we cannot see: name the file to patch, or ask a human`));
  return out;
}

/** perl -i / ruby -i edit files in place: those files must be in the scope; the code is a human's call. */
function inPlace(name: string, args: Word[], st: State): Verdict | null {
  let script = false;
  let inplace = false;
  let i = 0;
  for (; i < args.length; i++) {
    const t = args[i].text;
    if (t === '--') {
      i++;
      break;
    }
    if (!t.startsWith('-') || t === '-') break;
    for (let k = 1; k < t.length; k++) {
      if (t[k] === 'i') {
        inplace = true; // the rest of the word is the backup suffix
        break;
      }
      if (t[k] === 'e' || t[k] === 'E') {
        script = true;
        if (k === t.length - 1) i++; // the code is the next word
        break;
      }
    }
  }
  if (!inplace) return null;
  const files = args.slice(script ? i : i + 1);
  return worst(...files.map((f) => writeCheck(f, `${name} -i`, st)), ask(`${name} runs code we cannot review: a human must approve it`));
}

// ---------------------------------------------------------------------------------------------
// Wrappers, shells and builtins

const WRAPPERS: Record<string, { values: string[]; skip?: number; outputs?: string[] }> = {
  nice: { values: ['-n', '--adjustment'] },
  nohup: { values: [] },
  time: { values: ['-o', '--output', '-f', '--format'], outputs: ['-o', '--output'] },
  timeout: { values: ['-s', '--signal', '-k', '--kill-after'], skip: 1 },
  stdbuf: { values: ['-i', '-o', '-e', '--input', '--output', '--error'] },
  ionice: { values: ['-c', '-n', '-p', '-P', '-u', '--class', '--classdata'] },
  command: { values: [] },
  builtin: { values: [] },
  exec: { values: ['-a'] },
};

/** nice, nohup, time, timeout, ...: classify the command they run. */
function wrapper(name: string, args: Word[], st: State): Verdict {
  if (name === 'command' && args.some((a) => a.text === '-v' || a.text === '-V')) return ALLOW;
  const spec = WRAPPERS[name];
  const out = worst();
  let i = 0;
  while (i < args.length) {
    const t = args[i].text;
    if (t === '--') {
      i++;
      break;
    }
    if (!t.startsWith('-') || t === '-') break;
    if (!spec.values.includes(t)) {
      i++;
      continue;
    }
    if (spec.outputs?.includes(t) && args[i + 1]) add(out, writeCheck(args[i + 1], `${name} ${t}`, st));
    i += 2;
  }
  i += spec.skip ?? 0;
  if (i < args.length) add(out, classifyWords(args.slice(i), { ...st, depth: st.depth + 1 }));
  return out;
}

const SUDO_VALUES = ['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-U', '-T', '--user', '--group', '--chdir', '--host', '--prompt'];

/**
 * Where a wrapper's (sudo, xargs) own options end and the command it runs begins: after `--` or at
 * the first word that is not an option. Options in `valued` take the next word; `special` may claim
 * an option itself and say how many words it used.
 */
function commandStart(args: Word[], valued: readonly string[], special?: (t: string, i: number) => number | null): number {
  let i = 0;
  while (i < args.length) {
    const t = args[i].text;
    if (t === '--') return i + 1;
    if (!t.startsWith('-')) break;
    i += special?.(t, i) ?? (valued.includes(t) ? 2 : 1);
  }
  return i;
}

function sudo(name: string, args: Word[], st: State): Verdict {
  const i = commandStart(args, SUDO_VALUES);
  const rest = args.slice(i);
  const out = worst();
  if (rest.length) add(out, classifyWords(rest, { ...st, depth: st.depth + 1 }));
  add(out, ask(`${name} runs ${rest.length ? clip(commandName(rest)) : 'a shell'} as another user: a human must approve it`));
  return out;
}

const ENV_FLAGS = new Set(['-', '-i', '--ignore-environment', '-0', '--null', '-v', '--debug']);

function env(_name: string, args: Word[], st: State): Verdict {
  const out = worst();
  let cwd = st.cwd;
  let i = 0;
  for (; i < args.length; i++) {
    const t = args[i].text;
    if (t === '--') {
      i++;
      break;
    }
    if (t === '-u' || t === '--unset' || t.startsWith('--unset=')) {
      const v = t.startsWith('--unset=') ? t.slice(8) : (args[++i]?.text ?? '');
      add(out, checkEnv(v, '', `env -u ${v}`));
    } else if (t === '-C' || t === '--chdir') {
      const dir = args[++i];
      cwd = dir ? dirAfter(cwd, dir) : cwd;
    } else if (t.startsWith('-S') || t.startsWith('--split-string')) {
      return worst(out, ask('env -S splits a string into a command we cannot review: run the command directly'));
    } else if (t.startsWith('-') && !ENV_FLAGS.has(t)) {
      return worst(out, ask(`env ${clip(t)} is an option we do not know: a human must approve it`));
    } else if (!ENV_FLAGS.has(t)) break;
  }
  add(out, classifyWords(args.slice(i), { ...st, cwd, depth: st.depth + 1 }));
  return out;
}

const XARGS_VALUES = [
  '-L', '-n', '-P', '-s', '-d', '-E', '-a', '--arg-file', '--delimiter', '--max-args', '--max-procs', '--max-chars', '--eof',
];

function xargs(_name: string, args: Word[], st: State): Verdict {
  let replace: string | null = null;
  const i = commandStart(args, XARGS_VALUES, (t, at) => {
    if (t === '-I') {
      replace = args[at + 1]?.text ?? '{}';
      return 2;
    }
    if (t.startsWith('-I') || t.startsWith('-i') || t.startsWith('--replace')) {
      const eq = t.indexOf('=');
      replace = t.startsWith('--') ? (eq > 0 ? t.slice(eq + 1) : '{}') : t.slice(2) || '{}';
      return 1;
    }
    return null;
  });
  const marker = replace;
  const inner = args.slice(i).map((w) => (marker && w.text.includes(marker) ? { ...w, glob: true } : w));
  if (!inner.length) return ALLOW;
  const v = classifyWords(inner, { ...st, depth: st.depth + 1, stdin: NO_STDIN });
  const name = commandName(inner);
  if (v.decision === 'allow' && READ_ONLY.has(name) && !sensitive(name)) return v;
  return worst(v, ask(`xargs ${clip(name)} runs with arguments read from its input, which we cannot review: a human must approve it`));
}

/** export, unset, declare, ...: check each variable they set or clear. */
function variables(name: string, args: Word[]): Verdict {
  const out = worst();
  for (const a of args) {
    if (a.text.startsWith('-')) continue;
    const eq = a.text.indexOf('=');
    const v = eq < 0 ? a.text : a.text.slice(0, eq).replace(/\+$/, '');
    add(out, checkEnv(v, eq < 0 ? '' : a.text.slice(eq + 1), `${name} ${v}`));
  }
  return out;
}

function evalCommand(name: string, args: Word[], st: State): Verdict {
  if (!args.length) return ALLOW;
  if (args.every((a) => !a.expands && !a.opaque)) {
    return classifyLine(args.map((a) => a.text).join(' '), { ...st, depth: st.depth + 1, stdin: NO_STDIN });
  }
  if (args.some(fetches)) return downloadDenied(name);
  return ask(`${name} runs a command built at run time: run the command directly`);
}

function source(name: string, args: Word[]): Verdict {
  if (args.some(fetches)) return downloadDenied(name);
  return ask(`${name} runs the script ${clip(args[0]?.text ?? '')} in this shell, which we cannot review: a human must approve it`);
}

const SHELLS = ['sh', 'bash', 'zsh', 'dash', 'ksh', 'ash', 'mksh', 'fish', 'csh', 'tcsh'];
const INTERPRETERS = [
  'python', 'python2', 'python3', 'node', 'nodejs', 'deno', 'perl', 'ruby', 'php', 'lua', 'tsx', 'ts-node', 'osascript', 'pwsh',
];
const VERSION_FLAGS = new Set(['--version', '-v', '-V', '--help', '-h']);

/** sh -c 'literal' is classified as that line; a script file or unknown input is asked about. */
function shell(name: string, args: Word[], st: State): Verdict {
  let i = 0;
  let command = false;
  for (; i < args.length; i++) {
    const t = args[i].text;
    if (t === '--version' || t === '--help') return ALLOW;
    if (t === '--') {
      i++;
      break;
    }
    if (!/^[-+]/.test(t)) break;
    if (['-o', '+o', '-O', '+O'].includes(t)) i++;
    else if (t === '--rcfile' || t === '--init-file') return ask(`${name} ${t} runs a start-up file we cannot review: ask a human`);
    else if (/^-[a-zA-Z]*c/.test(t)) {
      command = true;
      i++;
      break;
    }
  }
  const next = args[i];
  const sub = { ...st, depth: st.depth + 1, stdin: NO_STDIN };
  if (command) {
    if (!next) return ask(`${name} -c has no command: pass the command to run`);
    if (isLiteral(next) || (!next.expands && !next.opaque)) return classifyLine(next.text, sub);
    if (fetches(next)) return downloadDenied(`${name} -c`);
    return ask(`${name} -c runs a command built at run time: run the command directly`);
  }
  if (next) {
    if (fetches(next)) return downloadDenied(name);
    return ask(`${name} ${clip(next.text)} runs a script we cannot review: a human must approve it`);
  }
  if (st.stdin.kind === 'pipe' && st.stdin.download) return downloadDenied(name);
  if (st.stdin.kind === 'text' && st.stdin.word && !st.stdin.word.expands && !st.stdin.word.opaque) {
    return classifyLine(st.stdin.word.text, sub);
  }
  return ask(`${name} reads commands from its input, which we cannot review: a human must approve it`);
}

function interpreter(name: string, args: Word[], st: State): Verdict {
  if (args.length && args.every((a) => VERSION_FLAGS.has(a.text))) return ALLOW;
  if ((st.stdin.kind === 'pipe' && st.stdin.download) || args.some(fetches)) return downloadDenied(name);
  const edits = name === 'perl' || name === 'ruby' ? inPlace(name, args, st) : null;
  if (edits) return edits;
  return ask(`${name} runs code we cannot review: a human must approve it`);
}

// ---------------------------------------------------------------------------------------------
// Package managers and JavaScript tools

const TEST_SCRIPTS = new Set(['test', 't', 'tst']);
const SAFE_SCRIPT = /^(test|tests|lint|typecheck|type-check|check|types)(:[\w:.-]+)?$/;
const NPM_READ = new Set([
  'ls', 'list', 'll', 'la', 'view', 'v', 'info', 'show', 'outdated', 'explain', 'why', 'search', 'help', 'root', 'prefix', 'bin',
  'whoami', 'fund', 'query', 'doctor', 'ping',
]);
const INSTALLS = new Set([
  'install', 'i', 'in', 'ins', 'isntall', 'add', 'ci', 'clean-install', 'install-test', 'it', 'uninstall', 'remove', 'rm', 'un',
  'update', 'up', 'upgrade', 'publish', 'link', 'ln', 'unlink', 'prune', 'dedupe', 'rebuild', 'init', 'create',
]);
const NPM_VALUES = ['-C', '--dir', '--prefix', '--filter', '-F', '-w', '--workspace', '--cwd'];

function packageManager(name: string, args: Word[], st: State): Verdict {
  let i = 0;
  while (i < args.length && args[i].text.startsWith('-')) i += NPM_VALUES.includes(args[i].text) ? 2 : 1;
  if (i >= args.length) {
    return name === 'yarn' ? ask('yarn with no command installs the dependencies: a human must approve it') : ALLOW;
  }
  const sub = args[i].text;
  const rest = args.slice(i + 1);
  if (!isLiteral(args[i])) return ask(`${name} ${clip(sub)} is only known at run time: name the command directly`);
  if (TEST_SCRIPTS.has(sub)) return ALLOW;
  if (sub === 'run' || sub === 'run-script') {
    const script = rest.find((a) => !a.text.startsWith('-'));
    if (!script || SAFE_SCRIPT.test(script.text)) return ALLOW;
    return ask(`${name} run ${clip(script.text)} runs a project script we cannot review: a human must approve it`);
  }
  if (sub === 'exec' || sub === 'x' || sub === 'dlx') return packageRunner(`${name} ${sub}`, rest, st);
  const verb = firstOperand(rest);
  if (sub === 'pkg') {
    if (verb === 'get' || verb === undefined) return ALLOW;
    if (i > 0) return ask(`${name} pkg ${clip(verb)} with a directory option changes a package.json we cannot locate: a human must approve it`);
    return writeCheck(newWord('package.json'), `${name} pkg ${clip(verb)}`, st);
  }
  if (sub === 'audit' && verb === 'fix') return ask(`${name} audit fix changes the installed packages: a human must approve it`);
  if ((sub === 'config' || sub === 'c') && !['get', 'list', 'ls', undefined].includes(verb)) {
    return ask(`${name} config ${clip(verb ?? '')} changes the configuration: a human must approve it`);
  }
  if (sub === 'version' && verb !== undefined) return ask(`${name} version bumps the version and tags a commit: a human must approve it`);
  if (['audit', 'config', 'c', 'version'].includes(sub)) return ALLOW;
  if (NPM_READ.has(sub)) return ALLOW;
  if (name !== 'npm' && SAFE_SCRIPT.test(sub)) return ALLOW;
  const tool = JS_TOOLS.get(sub);
  if (name !== 'npm' && tool) return tool(sub, rest);
  if (INSTALLS.has(sub)) return ask(`${name} ${sub} changes the installed packages: a human must approve it`);
  return ask(`${name} ${clip(sub)} may run project scripts or change packages: a human must approve it`);
}

/** npx, pnpm exec, ...: only the known tools below, and never a download (-y, -p). */
function packageRunner(label: string, args: Word[], _st?: State): Verdict {
  let i = 0;
  for (; i < args.length && args[i].text.startsWith('-'); i++) {
    const t = args[i].text;
    if (['-y', '--yes', '-p', '--package', '-c', '--call'].includes(t) || /^--(package|call)=/.test(t)) {
      return ask(`${label} ${t} may download or run code we cannot review: add the tool as a dependency, or ask a human`);
    }
  }
  const tool = args[i];
  if (!tool) return ask(`${label} has no command: name the tool to run`);
  const handler = isLiteral(tool) ? JS_TOOLS.get(tool.text) : undefined;
  if (handler) return handler(tool.text, args.slice(i + 1));
  return ask(`${label} ${clip(tool.text)} runs a package we do not know to be safe: a human must approve it`);
}

function flagged(options: string[], why: string): (name: string, args: Word[]) => Verdict {
  return (name, args) => {
    const hit = parseArgs(args).opts.find((o) => options.some((x) => o.name === x || o.name.startsWith(`${x}.`)));
    return hit ? ask(`${name} ${hit.name} ${why}: run it without ${hit.name}, or ask a human`) : ALLOW;
  };
}

function tsc(name: string, args: Word[]): Verdict {
  const p = parseArgs(args, ['-p', '--project']);
  const noEmit = args.some((a, k) => a.text === '--noEmit' && args[k + 1]?.text !== 'false');
  const info = has(p, '-v', '--version', '-h', '--help', '--showConfig', '--listFilesOnly', '--all');
  if ((noEmit || info) && !has(p, '-b', '--build')) return ALLOW;
  return ask(`${name} without --noEmit writes compiled files: add --noEmit, or ask a human`);
}

const JS_TOOLS = new Map<string, (name: string, args: Word[]) => Verdict>([
  ['vitest', flagged(['-u', '--update', '--outputFile'], 'rewrites snapshots or writes files')],
  ['jest', flagged(['-u', '--updateSnapshot', '--outputFile'], 'rewrites snapshots or writes files')],
  ['mocha', () => ALLOW],
  ['tsc', tsc],
  ['eslint', flagged(['--fix', '--fix-type', '-o', '--output-file'], 'rewrites or writes files')],
  ['prettier', flagged(['-w', '--write'], 'rewrites files')],
  ['biome', flagged(['--write', '--apply', '--apply-unsafe', '--fix', '--unsafe'], 'rewrites files')],
]);

// ---------------------------------------------------------------------------------------------
// git

const NOTES_REF_RE = /refs\/(notes|intents)/;
const GOVERNED_CONFIG = /hook|^notes(\.|$)|^include|^core\.(worktree|bare)$/i;
const SAFE_GIT_OVERRIDES = /^(color\.|advice\.|user\.(name|email)$|core\.quotepath$|init\.defaultbranch$|log\.|column\.)/i;
const GIT_GLOBAL_FLAGS = new Set([
  '--no-pager', '-p', '--paginate', '-P', '--no-replace-objects', '--literal-pathspecs', '--glob-pathspecs', '--noglob-pathspecs',
  '--icase-pathspecs', '--no-optional-locks', '--no-advice',
]);
const GIT_INFO_FLAGS = new Set(['--version', '--help', '-h', '--exec-path', '--html-path', '--man-path', '--info-path']);
const GIT_READ = new Set([
  'status', 'log', 'diff', 'show', 'blame', 'annotate', 'rev-parse', 'rev-list', 'ls-files', 'ls-tree', 'ls-remote', 'grep',
  'describe', 'shortlog', 'cat-file', 'show-ref', 'for-each-ref', 'name-rev', 'merge-base', 'whatchanged', 'count-objects',
  'check-ignore', 'check-attr', 'check-ref-format', 'cherry', 'range-diff', 'var', 'help', 'version', 'verify-commit',
  'verify-tag', 'show-branch', 'diff-tree', 'diff-files', 'diff-index',
]);
const GIT_DENY = new Map([
  ['filter-branch', 'rewrites every commit and strands the Agent Trace notes'],
  ['filter-repo', 'rewrites every commit and strands the Agent Trace notes'],
  ['replace', 'makes git show other commits than the ones the audit trail records'],
  ['update-ref', 'writes refs directly, around the governance hooks'],
]);
const GIT_ASK = new Map([
  ['merge', 'brings other work into this branch'],
  ['pull', 'brings remote work into this branch'],
  ['cherry-pick', 'copies commits without the pre-commit hook'],
  ['revert', 'makes commits without the pre-commit hook'],
  ['am', 'applies patches as commits'],
  ['apply', 'patches files we cannot see'],
  ['clone', 'downloads a repository'],
  ['init', 'creates a repository'],
  ['submodule', 'changes submodules'],
  ['gc', 'prunes objects'],
  ['prune', 'deletes unreachable objects'],
  ['bisect', 'checks out other commits'],
  ['format-patch', 'writes patch files'],
  ['archive', 'writes an archive'],
  ['sparse-checkout', 'changes which files are checked out'],
  ['hook', 'runs hooks by hand'],
  ['commit-tree', 'makes commits without the hooks'],
  ['update-index', 'edits the index directly'],
  ['read-tree', 'replaces the index'],
]);
const ABORTABLE = new Set(['merge', 'rebase', 'cherry-pick', 'revert', 'am']);
/** Options whose value may be built at run time, e.g. -m "$(cat <<'EOF' ... EOF)". */
const GIT_VALUE_OPTIONS = new Set([
  '-m', '--message', '-F', '--file', '--author', '--date', '--format', '--pretty', '--grep', '-S', '-G', '-t', '--template',
  '--trailer', '-b', '-B', '--orphan', '-s', '--source', '--onto', '--since', '--until', '--after', '--before', '-L', '-n',
  '--max-count', '--skip', '-C', '-c',
]);

function git(_name: string, args: Word[], st: State): Verdict {
  const out = worst();
  let cwd = st.cwd;
  let cDir: Word | undefined;
  let i = 0;
  for (; i < args.length && args[i].text.startsWith('-'); i++) {
    const t = args[i].text;
    if (!isLiteral(args[i])) return worst(out, ask('git gets an option only known at run time: use literal options'));
    if (t === '-C') {
      const dir = args[++i];
      cDir = dir;
      cwd = dir ? dirAfter(cwd, dir) : cwd;
    } else if (t === '-c') add(out, gitConfigOverride(args[++i]?.text ?? ''));
    else if (t.startsWith('-c') && !t.startsWith('--')) add(out, gitConfigOverride(t.slice(2)));
    else if (t.startsWith('--config-env')) add(out, gitConfigOverride(t.slice(t.indexOf('=') + 1)));
    else if (/^--(git-dir|work-tree|namespace|super-prefix)\b|^--exec-path=/.test(t)) {
      return deny(`git ${clip(t)} points git at another repository or work tree, around the governance hooks: run git in the worktree`);
    } else if (GIT_INFO_FLAGS.has(t)) return out;
    else if (!GIT_GLOBAL_FLAGS.has(t)) return worst(out, ask(`git ${clip(t)} is a git option we do not know: a human must approve it`));
  }
  if (i === args.length) return out;
  const sub = args[i];
  if (!isLiteral(sub)) return worst(out, ask('the git subcommand is only known at run time: name it directly'));
  if (cwd !== st.cwd && !GIT_READ.has(sub.text)) {
    const loc = cwd === null && cDir ? locate(cDir, st) : null;
    const place = loc ? (DANGEROUS_BASE.has(loc.place) || DANGEROUS_BASE.has(loc.base) ? 'outside' : 'unknown') : cwd === null ? 'unknown' : placeOf(cwd, st).place;
    if (place === 'unknown') add(out, ask(`git -C ${clip(cwd ?? '?')} ${sub.text} works in a directory we cannot tell: a human must approve it`));
    else if (!['root', 'scope', 'repo'].includes(place)) {
      add(out, deny(`git -C ${clip(cwd ?? cDir?.text ?? '?')} ${sub.text} works on another repository, outside this worktree's governance: run git in the worktree`));
    }
  }
  add(out, gitSubcommand(sub.text, args.slice(i + 1), { ...st, cwd }));
  return out;
}

function gitConfigOverride(setting: string): Verdict {
  const key = setting.split('=')[0];
  if (/^alias\./i.test(key)) return deny(`git -c ${clip(key)} defines a git alias for this run, which hides what runs: run the git command directly`);
  if (GOVERNED_CONFIG.test(key)) return deny(`git -c ${clip(key)} changes the governance hooks or notes for this run: run git without -c`);
  if (SAFE_GIT_OVERRIDES.test(key)) return ALLOW;
  return ask(`git -c ${clip(key)} changes git's configuration for this run: a human must approve it`);
}

function isNoVerify(t: string): boolean {
  return t.startsWith('--no-v') && '--no-verify'.startsWith(t);
}

/** The first argument built at run time that is not the value of an option like -m. */
function dynamicArgument(args: Word[]): Word | null {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (!a.expands && !a.opaque) continue;
    if (GIT_VALUE_OPTIONS.has(args[i - 1]?.text ?? '')) continue;
    const eq = a.text.indexOf('=');
    if (a.text.startsWith('--') && eq > 0 && GIT_VALUE_OPTIONS.has(a.text.slice(0, eq))) continue;
    if (/^-[A-Za-z]./.test(a.text) && GIT_VALUE_OPTIONS.has(a.text.slice(0, 2))) continue;
    return a;
  }
  return null;
}

function gitSubcommand(sub: string, args: Word[], st: State): Verdict {
  const label = `git ${sub}`;
  const noVerify = args.find((a) => isNoVerify(a.text));
  if (noVerify) {
    return deny(`${label} ${noVerify.text} skips the governance hooks: ${sub === 'commit' ? 'commit' : 'run it'} without --no-verify`);
  }
  const denied = GIT_DENY.get(sub);
  if (denied) return deny(`${label} ${denied}: leave it to a human`);
  const dynamic = dynamicArgument(args);
  if (dynamic) return ask(`${label} gets the argument ${clip(dynamic.text)}, only known at run time: use literal arguments`);
  if (!GIT_READ.has(sub) && !['push', 'fetch', 'notes'].includes(sub) && args.some((a) => NOTES_REF_RE.test(a.text))) {
    return deny(`${label} touches refs/notes/intents, the Agent Trace audit trail: leave the notes to the intent tools`);
  }
  if (ABORTABLE.has(sub) && args.some((a) => a.text === '--abort' || a.text === '--quit')) return ALLOW;
  if (GIT_READ.has(sub)) return gitRead(sub, args, st);
  const rule = GIT_RULES.get(sub);
  if (rule) return rule(args, st);
  const why = GIT_ASK.get(sub);
  if (why) return ask(`${label} ${why}: a human must approve it`);
  return ask(`${label} is not a git command we know to be safe (it may be an alias): a human must approve it`);
}

function gitRead(sub: string, args: Word[], st: State): Verdict {
  const out = worst();
  for (let i = 0; i < args.length; i++) {
    const t = args[i].text;
    if (t === '--output' && args[i + 1]) add(out, writeCheck(args[i + 1], `git ${sub} --output`, st));
    else if (t.startsWith('--output=')) add(out, writeCheck(slice(args[i], 9), `git ${sub} --output`, st));
    else if (sub === 'grep' && (t.startsWith('-O') || t.startsWith('--open-files-in-pager'))) {
      add(out, ask(`git grep ${t} runs another program: a human must approve it`));
    }
  }
  return out;
}

function splitAtDashDash(args: Word[]): { before: Word[]; after: Word[] } {
  const k = args.findIndex((a) => a.text === '--');
  return k < 0 ? { before: args, after: [] } : { before: args.slice(0, k), after: args.slice(k + 1) };
}

/** A pathspec that covers every file: ., :/, *, or the worktree root itself. */
function everything(w: Word, st: State): boolean {
  if (/^(\.\/?|\*|:\/?\*?|:\(top\)\.?\/?\*?)$/.test(w.text)) return true;
  const place = locate(w, st).place;
  return place === 'root' || place === 'ancestor';
}

function gitCommit(args: Word[]): Verdict {
  const p = parseArgs(args, [
    '-m', '--message', '-F', '--file', '-C', '--reuse-message', '-c', '--reedit-message', '-t', '--template', '--author', '--date',
    '--cleanup', '--fixup', '--squash', '--trailer', '--pathspec-from-file',
  ]);
  if (has(p, '-n')) return deny('git commit -n skips the governance hooks (it means --no-verify): commit without -n');
  if (has(p, '--amend')) return ask('git commit --amend rewrites the last commit: make a new commit instead, or ask a human');
  return ALLOW;
}

function gitPush(args: Word[]): Verdict {
  const p = parseArgs(args, ['--repo', '-o', '--push-option', '--receive-pack', '--exec']);
  const force = p.opts.find((o) => ['-f', '--force', '--force-with-lease', '--force-if-includes', '--mirror'].includes(o.name));
  if (force) return deny(`git push ${force.name} can overwrite commits on the remote: push without it, or ask a human`);
  const plus = p.pos.find((w) => w.text.startsWith('+'));
  if (plus) return deny(`git push ${clip(plus.text)} force-pushes: drop the +, or ask a human`);
  const deletes = has(p, '-d', '--delete', '--prune') || p.pos.some((w) => w.text.startsWith(':'));
  if (deletes && p.pos.some((w) => NOTES_REF_RE.test(w.text))) {
    return deny('git push deleting refs/notes/intents destroys the shared audit trail: leave the notes alone');
  }
  if (deletes) return ask('git push --delete deletes branches on the remote: a human must approve it');
  return ask('git push publishes commits to the remote: a human must approve it');
}

function gitFetch(args: Word[]): Verdict {
  const p = parseArgs(args, ['--depth', '--deepen', '--shallow-since', '--shallow-exclude', '-j', '--jobs', '--upload-pack', '-o']);
  if (has(p, '--upload-pack')) return ask('git fetch --upload-pack runs another program: a human must approve it');
  if (!p.pos.some((w) => NOTES_REF_RE.test(w.text))) return ALLOW;
  if (has(p, '-f', '--force') || p.pos.some((w) => w.text.startsWith('+'))) {
    return deny('git fetch forcing refs/notes/intents overwrites the local audit trail: fetch without + or --force');
  }
  return ask('git fetch into refs/notes/intents changes the audit trail: a human must approve it');
}

function gitReset(args: Word[]): Verdict {
  const p = parseArgs(splitAtDashDash(args).before, ['--pathspec-from-file']);
  if (has(p, '--hard')) return deny('git reset --hard discards uncommitted work: commit or stash it first, or ask a human');
  const risky = p.opts.find((o) => ['--soft', '--merge', '--keep', '-p', '--patch', '--pathspec-from-file'].includes(o.name));
  if (risky) return ask(`git reset ${risky.name} moves the branch or edits the index by hand: a human must approve it`);
  if (p.pos.length === 0 || (p.pos.length === 1 && p.pos[0].text === 'HEAD')) return ALLOW;
  return ask(`git reset ${clip(p.pos[0].text)} can move the branch: unstage with git restore --staged <file>, or ask a human`);
}

function gitClean(args: Word[]): Verdict {
  const p = parseArgs(args, ['-e', '--exclude']);
  if (has(p, '-n', '--dry-run')) return ALLOW;
  if (has(p, '-f', '--force')) return deny('git clean -f deletes untracked files for good: list them with git clean -n and ask a human');
  return ask('git clean deletes untracked files: list them with git clean -n and ask a human');
}

/** A ref under refs/heads/intent/: the branches `intent checkout` and `intent done` own. */
function intentBranch(w: Word | undefined): boolean {
  return !!w && /^(refs\/heads\/)?intent\//.test(w.text);
}

/** Files a git command rewrites in the worktree: each must be in the scope. */
function pathspecWrites(label: string, paths: Word[], st: State): Verdict {
  return worst(...paths.map((w) => (/^:/.test(w.text) ? ask(`${label} ${clip(w.text)} uses pathspec magic we cannot follow: name the files`) : writeCheck(w, label, st))));
}

function gitCheckout(args: Word[], st: State): Verdict {
  const { before, after } = splitAtDashDash(args);
  const p = parseArgs(before, ['-b', '-B', '--orphan', '--conflict', '--pathspec-from-file']);
  if (has(p, '-f', '--force')) return deny('git checkout -f discards uncommitted work: commit or stash it first');
  const all = [...p.pos, ...after].find((w) => everything(w, st));
  if (all) return deny(`git checkout ${clip(all.text)} discards uncommitted changes in every file: restore the files you mean by name`);
  const created = values(p, '-b', '-B', '--orphan')[0];
  if (intentBranch(created)) return deny(`git checkout -b ${clip(created.text)} makes an intent branch by hand: intent checkout makes them`);
  const risky = p.opts.find((o) => ['-B', '--orphan', '-p', '--patch', '--pathspec-from-file'].includes(o.name));
  if (risky) return ask(`git checkout ${risky.name} resets a branch or edits files by hand: a human must approve it`);
  // `git checkout [<rev>] -- <paths>` and `git checkout <rev> <paths>` rewrite those files.
  const hasDashDash = before.length !== args.length;
  const paths = hasDashDash ? after : p.pos.length >= 2 ? p.pos.slice(1) : [];
  if (paths.length) return pathspecWrites('git checkout', paths, st);
  if (created || p.pos.length === 1) {
    const what = created ? `-b ${clip(created.text)}` : clip(p.pos[0].text);
    return ask(`git checkout ${what} switches this worktree to another branch (or restores a file): switching belongs to intent checkout, so a human must approve it; restore a file with git restore -- <file>`);
  }
  return ALLOW;
}

function gitRestore(args: Word[], st: State): Verdict {
  const p = parseArgs(args, ['-s', '--source', '--pathspec-from-file', '--conflict']);
  const worktree = has(p, '-W', '--worktree') || !has(p, '-S', '--staged');
  const all = p.pos.find((w) => everything(w, st));
  if (worktree && all) {
    return deny(`git restore ${clip(all.text)} discards uncommitted changes in every file: restore the files you mean by name`);
  }
  if (has(p, '--pathspec-from-file', '-p', '--patch')) return ask('git restore --patch edits files by hand: a human must approve it');
  return worktree ? pathspecWrites(has(p, '-s', '--source') ? 'git restore --source' : 'git restore', p.pos, st) : ALLOW;
}

function gitSwitch(args: Word[]): Verdict {
  const p = parseArgs(args, ['-c', '-C', '--create', '--force-create', '--orphan', '--conflict']);
  if (has(p, '-f', '--force', '--discard-changes')) {
    return deny('git switch --discard-changes throws away uncommitted work: commit or stash first');
  }
  const created = values(p, '-c', '-C', '--create', '--force-create', '--orphan')[0];
  if (intentBranch(created) || (!created && intentBranch(p.pos[0]))) {
    return deny(`git switch ${clip((created ?? p.pos[0]).text)} moves this worktree onto an intent branch by hand: use intent checkout`);
  }
  if (has(p, '-C', '--force-create', '--orphan')) return ask('git switch -C resets an existing branch: use -c, or ask a human');
  if (!created && !p.pos.length) return ALLOW;
  return ask('git switch moves this worktree to another branch, which changes the intent it works on: a human must approve it');
}

function gitStash(args: Word[]): Verdict {
  const verb = firstOperand(args, ['-m', '--message']) ?? 'push';
  if (verb === 'clear') return deny('git stash clear deletes every stash for good: drop stashes one by one, or ask a human');
  if (verb === 'drop') return ask('git stash drop deletes a stash: a human must approve it');
  if (['pop', 'apply', 'branch'].includes(verb)) {
    return ask(`git stash ${verb} brings back stashed changes, which may touch files outside the scope: a human must approve it`);
  }
  return ALLOW;
}

const LIST_VALUES = ['--contains', '--no-contains', '--points-at', '--sort', '--format'];

function gitBranch(args: Word[]): Verdict {
  const p = parseArgs(args, ['-u', '--set-upstream-to', '--merged', '--no-merged', ...LIST_VALUES]);
  const listing = has(p, '-l', '--list', '-a', '--all', '-r', '--remotes', '--show-current', '-v', '-vv', '--merged', '--no-merged', ...LIST_VALUES);
  const intentRef = listing ? undefined : p.pos.find((w) => intentBranch(w));
  if (intentRef) {
    return deny(`git branch ${clip(intentRef.text)} creates, moves or deletes an intent branch by hand: intent checkout and intent done own them`);
  }
  const del = has(p, '-d', '--delete');
  if (has(p, '-D') || (del && has(p, '-f', '--force'))) {
    return deny('git branch -D deletes a branch even with unmerged commits: merge it first, or ask a human');
  }
  if (del) return ask('git branch -d deletes a branch: a human must approve it');
  const risky = p.opts.find((o) => ['-m', '-M', '--move', '-c', '-C', '--copy', '-f', '--force', '--edit-description'].includes(o.name));
  if (risky) return ask(`git branch ${risky.name} renames, copies or resets a branch: a human must approve it`);
  return ALLOW;
}

function gitTag(args: Word[]): Verdict {
  const p = parseArgs(args, ['-m', '--message', '-F', '--file', '-u', '--local-user', ...LIST_VALUES]);
  if (has(p, '-d', '--delete')) return ask('git tag -d deletes a tag: a human must approve it');
  const creates = has(p, '-a', '-s', '-f', '-m', '-F', '--annotate', '--sign', '--force', '--message', '--file');
  if (has(p, '-l', '--list') || (!p.pos.length && !creates)) return ALLOW;
  return ask('git tag creates or moves a tag: a human must approve it');
}

function gitConfig(args: Word[]): Verdict {
  const p = parseArgs(args, ['-f', '--file', '--blob', '--type', '--default', '--comment']);
  let pos = p.pos;
  let verb = '';
  if (pos[0] && ['get', 'list', 'set', 'unset', 'rename-section', 'remove-section', 'edit'].includes(pos[0].text)) {
    verb = pos[0].text;
    pos = pos.slice(1);
  }
  const writes = has(p, '--add', '--unset', '--unset-all', '--replace-all', '--rename-section', '--remove-section', '-e', '--edit');
  const reads = has(p, '--get', '--get-all', '--get-regexp', '--get-urlmatch', '--get-color', '--get-colorbool', '-l', '--list');
  if (verb === 'get' || verb === 'list' || reads || (!verb && !writes && pos.length <= 1)) return ALLOW;
  const key = pos[0]?.text ?? '';
  if (GOVERNED_CONFIG.test(key)) {
    return deny(`git config ${clip(key)} changes how the governance hooks or notes work: leave it as intent init set it`);
  }
  return ask(`git config ${clip(key || verb)} changes the repository configuration: a human must approve it`);
}

function gitNotes(args: Word[]): Verdict {
  const verb = firstOperand(args, ['--ref']) ?? 'list';
  if (verb === 'list' || verb === 'show' || verb === 'get-ref') return ALLOW;
  return deny(`git notes ${clip(verb)} changes the Agent Trace notes, the audit trail: leave the notes to the intent tools`);
}

function gitWorktree(args: Word[]): Verdict {
  const verb = firstOperand(args) ?? '';
  if (verb === 'list') return ALLOW;
  if (verb === 'remove' || verb === 'prune') {
    return deny(`git worktree ${verb} deletes a worktree and the uncommitted work in it: ask a human`);
  }
  if (verb === 'add') return ask('git worktree add creates a worktree outside the intent tools: use intent checkout, or ask a human');
  return ask(`git worktree ${clip(verb)} changes the worktrees: a human must approve it`);
}

function gitReflog(args: Word[]): Verdict {
  const verb = firstOperand(args, ['-n']) ?? 'show';
  if (verb === 'expire' || verb === 'delete') return deny(`git reflog ${verb} destroys the record of lost work: leave the reflog alone`);
  return ALLOW;
}

function gitRemote(args: Word[]): Verdict {
  const verb = firstOperand(args);
  if (verb === undefined || verb === 'show' || verb === 'get-url') return ALLOW;
  return ask(`git remote ${clip(verb)} changes the remotes: a human must approve it`);
}

function gitRm(args: Word[], st: State): Verdict {
  const p = parseArgs(args, ['--pathspec-from-file']);
  if (has(p, '--cached')) return ALLOW;
  const recursive = has(p, '-r');
  const out = worst(...p.pos.map((f) => deleteCheck(f, 'git rm', recursive, st)));
  for (const f of p.pos) {
    const loc = locate(f, st);
    if (loc.place === 'repo') add(out, deny(`git rm deletes ${clip(loc.shown)}, which is outside the intent's scope: delete only files in the scope, or ask to widen it`));
  }
  add(out, ask('git rm deletes files: a human must approve it'));
  return out;
}

const HIDDEN_INDEX = ['--cacheinfo', '--index-info', '--assume-unchanged', '--skip-worktree', '--no-skip-worktree', '--no-assume-unchanged'];

function gitUpdateIndex(args: Word[]): Verdict {
  const hit = args.find((a) => HIDDEN_INDEX.includes(a.text));
  if (hit) return deny(`git update-index ${hit.text} writes or hides index entries around the scope check: stage files with git add`);
  return ask('git update-index edits the index directly: stage files with git add, or ask a human');
}

function gitArchive(args: Word[], st: State): Verdict {
  const p = parseArgs(args, ['-o', '--output', '--format', '--prefix', '--remote', '--exec', '--add-file', '--add-virtual-file']);
  if (has(p, '--remote', '--exec')) return ask('git archive --remote runs on another repository: a human must approve it');
  return worst(...values(p, '-o', '--output').map((w) => writeCheck(w, 'git archive -o', st)));
}

function gitBundle(args: Word[], st: State): Verdict {
  const p = parseArgs(args, ['--version']);
  const verb = p.pos[0]?.text;
  if (verb === 'verify' || verb === 'list-heads') return ALLOW;
  if (verb === 'create' && p.pos[1]) return p.pos[1].text === '-' ? ALLOW : writeCheck(p.pos[1], 'git bundle create', st);
  return ask(`git bundle ${clip(verb ?? '')} changes the repository: a human must approve it`);
}

function gitFormatPatch(args: Word[], st: State): Verdict {
  const p = parseArgs(args, ['-o', '--output-directory', '--output', '-v', '--reroll-count', '--subject-prefix', '--in-reply-to', '--to', '--cc', '--from', '--base', '--start-number', '--suffix']);
  if (has(p, '--stdout')) return ALLOW;
  const dirs = values(p, '-o', '--output-directory');
  const files = values(p, '--output');
  if (!dirs.length && !files.length) dirs.push(newWord('.'));
  return worst(...dirs.map((d) => intoDir(d, 'git format-patch', st)), ...files.map((f) => writeCheck(f, 'git format-patch --output', st)));
}

function gitRebase(args: Word[]): Verdict {
  if (args.some((a) => a.text === '-x' || a.text.startsWith('--exec'))) {
    return ask('git rebase --exec runs commands on every commit: ask a human');
  }
  return ask('git rebase rewrites history: a human must approve it');
}

function gitSymbolicRef(args: Word[]): Verdict {
  const p = parseArgs(args, ['-m']);
  if (p.pos.length >= 2 || has(p, '-d', '--delete')) return ask('git symbolic-ref changes where a ref points: a human must approve it');
  return ALLOW;
}

const GIT_RULES = new Map<string, (args: Word[], st: State) => Verdict>([
  ['add', () => ALLOW],
  ['commit', gitCommit],
  ['push', gitPush],
  ['fetch', gitFetch],
  ['reset', gitReset],
  ['clean', gitClean],
  ['checkout', gitCheckout],
  ['restore', gitRestore],
  ['switch', gitSwitch],
  ['stash', gitStash],
  ['branch', gitBranch],
  ['tag', gitTag],
  ['config', gitConfig],
  ['notes', gitNotes],
  ['worktree', gitWorktree],
  ['reflog', gitReflog],
  ['remote', gitRemote],
  ['rm', gitRm],
  ['mv', (args, st) => copyOrMove('git mv', args, st)],
  ['rebase', gitRebase],
  ['update-index', gitUpdateIndex],
  ['archive', gitArchive],
  ['bundle', gitBundle],
  ['format-patch', gitFormatPatch],
  ['symbolic-ref', gitSymbolicRef],
]);

// ---------------------------------------------------------------------------------------------
// Command tables

type Handler = (name: string, args: Word[], st: State) => Verdict;

/** The `intent` CLI itself: decisions that belong to a human are refused, reads pass. */
function intentCli(_name: string, args: Word[]): Verdict {
  const sub = args.find((a) => !a.text.startsWith('-'))?.text ?? '';
  if (['approve', 'reject', 'reset', 'done', 'abandon', 'init'].includes(sub)) {
    return deny(`intent ${sub} is a human's decision: ask a human to run it`);
  }
  if (['sync', 'repair', 'checkout', 'map'].includes(sub)) return ask(`intent ${sub} changes shared state: a human must approve it`);
  if (['context', 'verify', 'blame', 'status', 'requests', 'lesson', 'expand', '--help', 'help', '--version', ''].includes(sub)) return ALLOW;
  return ask(`intent ${clip(sub)} is not an intent command we know to be safe: a human must approve it`);
}

const HANDLERS = new Map<string, Handler>([
  ['git', git],
  ['intent', intentCli],
  ['rm', remove], ['rmdir', remove], ['unlink', remove], ['shred', remove],
  ['cp', copyOrMove], ['mv', copyOrMove], ['ln', link],
  ['tee', tee], ['touch', create], ['mkdir', create], ['truncate', create],
  ['sed', sed], ['awk', awk], ['gawk', awk], ['mawk', awk], ['nawk', awk],
  ['find', find], ['xargs', xargs], ['dd', dd],
  ['install', install], ['rsync', rsync], ['curl', download], ['wget', download],
  ['tar', tar], ['bsdtar', tar], ['gtar', tar], ['unzip', unzip], ['zip', zip], ['patch', patch],
  ['chmod', permissions], ['chown', permissions], ['chgrp', permissions],
  ['sudo', sudo], ['doas', sudo], ['env', env],
  ...['export', 'unset', 'declare', 'typeset', 'local', 'readonly'].map((n): [string, Handler] => [n, variables]),
  ['eval', evalCommand], ['source', source], ['.', source],
  ['npm', packageManager], ['pnpm', packageManager], ['yarn', packageManager], ['bun', packageManager],
  ['npx', packageRunner], ['pnpx', packageRunner], ['bunx', packageRunner],
  ...Object.keys(WRAPPERS).map((n): [string, Handler] => [n, wrapper]),
  ...SHELLS.map((n): [string, Handler] => [n, shell]),
  ...INTERPRETERS.map((n): [string, Handler] => [n, interpreter]),
  ...[...JS_TOOLS].map(([n, tool]): [string, Handler] => [n, (name, args) => tool(name, args)]),
]);

/** Programs that are never acceptable from an agent. */
const DENY_COMMANDS = new Map([
  ['mkfs', 'formats a disk'],
  ['mkswap', 'formats a disk as swap'],
  ['fdisk', 'edits disk partitions'],
  ['sfdisk', 'edits disk partitions'],
  ['parted', 'edits disk partitions'],
  ['wipefs', 'wipes disk signatures'],
  ['shutdown', 'stops the machine'],
  ['reboot', 'restarts the machine'],
  ['halt', 'stops the machine'],
  ['poweroff', 'stops the machine'],
]);

/** Programs a human must approve, with what they do. */
const ASK_COMMANDS = new Map([
  ['docker', 'controls containers'],
  ['podman', 'controls containers'],
  ['kubectl', 'controls a cluster'],
  ['ssh', 'opens a remote shell'],
  ['scp', 'copies files over the network'],
  ['sftp', 'copies files over the network'],
  ['kill', 'stops processes'],
  ['pkill', 'stops processes'],
  ['killall', 'stops processes'],
  ['apt', 'installs system packages'],
  ['apt-get', 'installs system packages'],
  ['brew', 'installs system packages'],
  ['yum', 'installs system packages'],
  ['dnf', 'installs system packages'],
  ['apk', 'installs system packages'],
  ['pip', 'installs Python packages'],
  ['pip3', 'installs Python packages'],
  ['gem', 'installs Ruby packages'],
  ['gh', 'acts on GitHub'],
  ['su', 'switches to another user'],
  ['systemctl', 'controls system services'],
  ['crontab', 'schedules commands'],
  ['case', 'statements are not reviewed'],
  ['function', 'defines a shell function that hides what will run'],
  ['coproc', 'starts a background process'],
  ['trap', 'registers commands to run later'],
  ['alias', 'defines an alias that hides what will run'],
]);
