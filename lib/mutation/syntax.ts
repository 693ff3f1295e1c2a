/**
 * Syntax-aware mutation classification: is a change a behaviour-preserving refactor
 * (AST_REFACTOR) or does it change what the code does (INTENT_EVOLUTION)?
 *
 * TS/JS files are parsed with the TypeScript compiler API (loaded lazily, only when a TS/JS file
 * actually changed) and compared as canonical token streams, one per top-level declaration or
 * statement (and per member of a top-level class):
 * - trivia (whitespace, comments, semicolons, trailing commas, redundant parentheses), quote style
 *   and numeric spelling do not count;
 * - names declared in the file are compared by binding, not by spelling: locals and parameters
 *   get an index per unit, file-scope declarations and private class members take part in one
 *   bijection over the whole change, so a consistent rename (also across files, through the
 *   imports of files in the same change) is a refactor and an inconsistent one is not;
 * - hoisted declarations may be reordered and moved between files; statements that run code keep
 *   their order and their file.
 * Other languages get a whitespace-insensitive token comparison. Nothing here throws.
 */
import { posix } from 'node:path';
import type * as TS from 'typescript';
import type { MutationClass } from './classes.js';
import { requireTypeScript } from './ts-cache.js';
import { syntaxOf } from './languages.js';

export type { MutationClass };

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

/** Compares one file's old and new text (null = absent). `path` decides the language by extension. */
export function classifySource(path: string, oldText: string | null, newText: string | null): AstVerdict {
  const v = classifyChange([{ path, oldText, newText }]);
  return v.files[String(path)] ?? verdict(v.reason);
}

/**
 * Classifies a whole change: AST_REFACTOR only when every file is, where declarations may move
 * between files (a function removed from a.ts and added, equal up to formatting and consistent
 * renames, to b.ts is a move). Returns per-file verdicts and the change's class with the first reason.
 */
export function classifyChange(files: readonly SourceChange[]): ChangeVerdict {
  try {
    return assemble(analyse(Array.isArray(files) ? files : []));
  } catch {
    try {
      return assemble((Array.isArray(files) ? files : []).map((f, i) => safeFallback(toEntry(f, i))));
    } catch {
      return { class: 'INTENT_EVOLUTION', files: {}, reason: 'could not compare the change' };
    }
  }
}

function assemble(entries: Entry[]): ChangeVerdict {
  const out: Record<string, AstVerdict> = {};
  let reason: string | undefined;
  for (const e of entries) {
    const first = firstProblem(e);
    const v = verdict(first);
    if (!out[e.key] || out[e.key].class === 'AST_REFACTOR') out[e.key] = v;
    if (first !== undefined && reason === undefined) reason = first;
  }
  if (!entries.length) reason = 'no files changed';
  return { class: reason === undefined ? 'AST_REFACTOR' : 'INTENT_EVOLUTION', files: out, ...(reason !== undefined ? { reason } : {}) };
}

function verdict(reason: string | undefined): AstVerdict {
  return reason === undefined ? { class: 'AST_REFACTOR' } : { class: 'INTENT_EVOLUTION', reason };
}

// ---------------------------------------------------------------------------------------------
// Entries and the overall flow

const MAX_SYNTAX_BYTES = 2 * 1024 * 1024;

interface Problem {
  line: number;
  reason: string;
}

interface Entry {
  index: number;
  /** The path as given (the key of the result). */
  key: string;
  path: string;
  oldPath: string;
  old: string | null;
  new: string | null;
  problems: Problem[];
}

function toEntry(f: SourceChange | null | undefined, index: number): Entry {
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

function firstProblem(e: Entry): string | undefined {
  let best: Problem | undefined;
  for (const p of e.problems) if (!best || p.line < best.line) best = p;
  return best?.reason;
}

function hasNul(s: string | null): boolean {
  return s !== null && s.includes('\0');
}

function tooBig(s: string | null): boolean {
  return s !== null && s.length > MAX_SYNTAX_BYTES / 4 && Buffer.byteLength(s, 'utf8') > MAX_SYNTAX_BYTES;
}


function analyse(files: readonly SourceChange[]): Entry[] {
  const entries = files.map(toEntry);
  const syntax: Entry[] = [];
  const unchangedSyntax: Entry[] = [];
  const fallback: { e: Entry; note: string }[] = [];
  for (const e of entries) {
    const kind = syntaxOf(e.new !== null ? e.path : e.oldPath);
    if (e.old === e.new) {
      if (kind && e.old !== null && !hasNul(e.old) && !tooBig(e.old)) unchangedSyntax.push(e);
      continue;
    }
    if (hasNul(e.old) || hasNul(e.new)) {
      const what =
        e.old === null ? `new binary file ${e.path}` : e.new === null ? `binary file ${e.oldPath} deleted` : `binary file ${e.path} changed`;
      e.problems.push({ line: 0, reason: what });
    } else if (!kind) fallback.push({ e, note: '(no syntax comparison for this language)' });
    else if (tooBig(e.old) || tooBig(e.new)) fallback.push({ e, note: '(file over 2 MB: no syntax comparison)' });
    else syntax.push(e);
  }
  if (syntax.length) {
    const ts = loadTypeScript();
    if (ts) compareSyntax(ts, entries, syntax, unchangedSyntax);
    else for (const e of syntax) fallback.push({ e, note: '(TypeScript compiler not available: no syntax comparison)' });
  }
  compareFallback(fallback);
  return entries;
}

/** When anything unexpected happens: compare this file's tokens, never throw. */
function safeFallback(e: Entry): Entry {
  try {
    e.problems = [];
    if (e.old === e.new) return e;
    if (hasNul(e.old) || hasNul(e.new)) e.problems.push({ line: 0, reason: `binary file ${e.path} changed` });
    else compareFallback([{ e, note: '(no syntax comparison available)' }]);
  } catch {
    e.problems = [{ line: 0, reason: `could not compare ${e.path}` }];
  }
  return e;
}

// ---------------------------------------------------------------------------------------------
// Fallback: whitespace-insensitive token comparison for languages without a parser

const INDENT_LANGS = new Set([
  '.py', '.pyi', '.pyw', '.yaml', '.yml', '.coffee', '.pug', '.jade', '.sass', '.styl', '.haml', '.slim', '.nim', '.fs', '.fsx', '.mk',
]);
const FREE_FORM = new Set([
  '.json', '.jsonc', '.json5', '.css', '.scss', '.less', '.c', '.h', '.cc', '.cpp', '.cxx', '.hpp', '.hh', '.hxx',
  '.java', '.cs', '.rs', '.proto', '.graphql', '.gql', '.sql',
]);
const BRACKETS = '()[]{},;';

function isWordChar(c: string): boolean {
  const k = c.charCodeAt(0);
  if (k < 128) return (k >= 48 && k <= 57) || (k >= 65 && k <= 90) || (k >= 97 && k <= 122) || k === 95 || k === 36;
  return /[\p{L}\p{N}\p{M}]/u.test(c);
}

/**
 * Tokens of a text in a language we cannot parse: whitespace between tokens and blank lines do not
 * count, string literals are kept verbatim, line breaks count (except in free-form languages and
 * inside Python brackets) and indentation counts as nesting depth in indentation-sensitive languages.
 */
function fallbackTokens(path: string, text: string): string[] {
  const name = posix.basename(path).toLowerCase();
  const ext = posix.extname(name);
  const makefile = name === 'makefile' || name === 'gnumakefile' || ext === '.mk';
  const indent = INDENT_LANGS.has(ext) || makefile;
  const free = FREE_FORM.has(ext);
  const python = ext === '.py' || ext === '.pyi' || ext === '.pyw';
  const out: string[] = [];
  const stack = [0];
  const n = text.length;
  let depth = 0;
  let i = 0;
  let lineStart = true;
  while (i < n) {
    if (lineStart) {
      lineStart = false;
      let j = i;
      let width = 0;
      let tab = false;
      while (j < n && (text[j] === ' ' || text[j] === '\t' || text[j] === '\f')) {
        if (text[j] === '\t') {
          tab = true;
          width += 8 - (width % 8);
        } else width++;
        j++;
      }
      i = j;
      if (j >= n || text[j] === '\n' || text[j] === '\r') continue;
      if (!free && !(python && depth > 0)) {
        let tok = '\n';
        if (indent) {
          if (width > stack[stack.length - 1]) stack.push(width);
          else while (stack.length > 1 && width < stack[stack.length - 1]) stack.pop();
          tok += width === stack[stack.length - 1] ? String(stack.length - 1) : `?${width}`;
          if (makefile && tab) tok += 't';
        }
        out.push(tok);
      }
      continue;
    }
    const c = text[i];
    if (c === '\n') {
      lineStart = true;
      i++;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r' || c === '\f' || c === '\v') {
      i++;
      continue;
    }
    if (c === '"' || c === "'" || c === '`') {
      const triple = python && text.startsWith(c + c + c, i);
      const q = triple ? c + c + c : c;
      let j = i + q.length;
      while (j < n) {
        if (text[j] === '\\') {
          j += 2;
          continue;
        }
        if (text.startsWith(q, j)) {
          j += q.length;
          break;
        }
        if (!triple && c !== '`' && text[j] === '\n') break;
        j++;
      }
      j = Math.min(j, n);
      out.push(text.slice(i, j));
      i = j;
      continue;
    }
    if (isWordChar(c)) {
      let j = i + 1;
      while (j < n && isWordChar(text[j])) j++;
      out.push(text.slice(i, j));
      i = j;
      continue;
    }
    if (BRACKETS.includes(c)) {
      out.push(c);
      if (c === '(' || c === '[' || c === '{') depth++;
      else if ((c === ')' || c === ']' || c === '}') && depth > 0) depth--;
      i++;
      continue;
    }
    let j = i + 1;
    while (j < n) {
      const d = text[j];
      if (d === ' ' || d === '\t' || d === '\n' || d === '\r' || d === '"' || d === "'" || d === '`' || BRACKETS.includes(d) || isWordChar(d)) break;
      j++;
    }
    out.push(text.slice(i, j));
    i = j;
  }
  return out;
}

function fallbackKey(path: string, text: string): string {
  return fallbackTokens(path, text).join('\0');
}

function compareFallback(items: { e: Entry; note: string }[]): void {
  const added: Entry[] = [];
  const deleted: Entry[] = [];
  for (const { e, note } of items) {
    if (e.old === null) added.push(e);
    else if (e.new === null) deleted.push(e);
    else if (fallbackKey(e.path, e.old) !== fallbackKey(e.path, e.new)) e.problems.push({ line: 0, reason: `changed lines in ${e.path} ${note}` });
  }
  // A file deleted here and added there with the same tokens is a move.
  const used = new Set<Entry>();
  for (const a of added) {
    const key = fallbackKey(a.path, a.new as string);
    const ext = posix.extname(a.path).toLowerCase();
    const d = deleted.find((x) => !used.has(x) && posix.extname(x.oldPath).toLowerCase() === ext && fallbackKey(x.oldPath, x.old as string) === key);
    if (d) used.add(d);
    else a.problems.push({ line: 0, reason: `new file ${a.path}` });
  }
  for (const d of deleted) if (!used.has(d)) d.problems.push({ line: 0, reason: `file ${d.oldPath} deleted` });
}

// ---------------------------------------------------------------------------------------------
// TypeScript: lazy loading, parsing, one checker per file side

type Ts = typeof TS;
let tsModule: Ts | null | undefined;

/** Loads the TypeScript compiler now (the classify-ahead worker, while git works); false when it is not installed. */
export function preloadCompiler(): boolean {
  return loadTypeScript() !== null;
}

function loadTypeScript(): Ts | null {
  if (tsModule === undefined) {
    try {
      tsModule = requireTypeScript<Ts>(import.meta.url);
    } catch {
      tsModule = null;
    }
  }
  return tsModule;
}

/** A symbol key: `T|path|name|v|t|n` (file scope) or `C|<class T key>|tpN|m:name` (class scope). */
type ExportTarget = { key: string } | { module: string; name: string };

interface Fact {
  name: string;
  target: ExportTarget;
  line: number;
  label: string;
}

interface SideFile {
  entry: number;
  path: string;
  sf: TS.SourceFile;
  checker: TS.TypeChecker;
  exports: Map<string, ExportTarget>;
  stars: string[];
  facts: Fact[];
}

interface Side {
  idx: 0 | 1;
  files: Map<string, SideFile>;
  /** File-scope symbols imported by another file of this side (a new export is then needed). */
  witness: Set<string>;
}

function virtualExt(path: string): string {
  const lower = path.toLowerCase();
  const dts = /\.d\.[mc]?ts$/.exec(lower);
  return dts ? dts[0] : posix.extname(lower);
}

function parseSide(ts: Ts, side: 0 | 1, e: Entry, path: string, text: string): SideFile | Problem {
  const kind = syntaxOf(path) ?? 'ts';
  const scriptKind = { ts: ts.ScriptKind.TS, tsx: ts.ScriptKind.TSX, js: ts.ScriptKind.JS, jsx: ts.ScriptKind.JSX }[kind];
  const fileName = `/intent-ast/${side}-${e.index}${virtualExt(path)}`;
  const sf = ts.createSourceFile(
    fileName,
    text,
    { languageVersion: ts.ScriptTarget.Latest, jsDocParsingMode: ts.JSDocParsingMode?.ParseNone },
    true,
    scriptKind,
  );
  const host: TS.CompilerHost = {
    getSourceFile: (name) => (name === fileName ? sf : undefined),
    getDefaultLibFileName: () => '/intent-ast/lib.d.ts',
    writeFile: () => undefined,
    getCurrentDirectory: () => '/intent-ast',
    getCanonicalFileName: (name) => name,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => '\n',
    fileExists: (name) => name === fileName,
    readFile: () => undefined,
    directoryExists: () => true,
    getDirectories: () => [],
  };
  const options: TS.CompilerOptions = {
    noLib: true,
    noResolve: true,
    allowJs: true,
    checkJs: false,
    noEmit: true,
    types: [],
    target: ts.ScriptTarget.Latest,
    module: ts.ModuleKind.ESNext,
    jsx: ts.JsxEmit.Preserve,
  };
  const program = ts.createProgram({ rootNames: [fileName], options, host });
  const diags = program.getSyntacticDiagnostics(sf);
  if (diags.length) {
    const d = diags[0];
    const line = d.start !== undefined ? sf.getLineAndCharacterOfPosition(d.start).line + 1 : 1;
    const msg = short(ts.flattenDiagnosticMessageText(d.messageText, ' '), 60);
    const reason =
      side === 1 ? `syntax error: ${msg} (${path}:${line})` : `the previous version of ${path} has a syntax error (line ${line}); cannot compare`;
    return { line, reason };
  }
  return { entry: e.index, path, sf, checker: program.getTypeChecker(), exports: new Map(), stars: [], facts: [] };
}

function compareSyntax(ts: Ts, entries: Entry[], changed: Entry[], unchanged: Entry[]): void {
  const sides: [Side, Side] = [
    { idx: 0, files: new Map(), witness: new Set() },
    { idx: 1, files: new Map(), witness: new Set() },
  ];
  const isChanged = new Set(changed);
  const included: Entry[] = [];
  /** Files that gained or lost import/export: strict mode and scope change for the code in them. */
  const flipped: Entry[] = [];
  for (const e of [...changed, ...unchanged].sort((a, b) => a.index - b.index)) {
    let oldF: SideFile | undefined;
    let newF: SideFile | undefined;
    if (e.new !== null) {
      const r = parseSide(ts, 1, e, e.path, e.new);
      if (!('sf' in r)) {
        if (isChanged.has(e)) e.problems.push(r);
        continue;
      }
      newF = r;
    }
    if (e.old !== null) {
      // An unchanged file is parsed once and serves both sides.
      const r =
        isChanged.has(e) || !newF ? parseSide(ts, 0, e, e.oldPath, e.old) : { ...newF, path: e.oldPath, exports: new Map(), stars: [], facts: [] };
      if (!('sf' in r)) {
        if (isChanged.has(e)) e.problems.push(r);
        continue;
      }
      oldF = r;
    }
    if (oldF && newF && isChanged.has(e) && ts.isExternalModule(oldF.sf) !== ts.isExternalModule(newF.sf)) flipped.push(e);
    if (oldF) sides[0].files.set(oldF.path, oldF);
    if (newF) sides[1].files.set(newF.path, newF);
    included.push(e);
  }
  for (const side of sides) for (const f of side.files.values()) collectExports(ts, f);
  const units: [Unit[], Unit[]] = [[], []];
  for (const side of sides) for (const f of side.files.values()) units[side.idx].push(...new Canon(ts, side, f).units());
  compareUnits(ts, entries, sides, units[0], units[1]);
  for (const e of flipped) {
    if (!units[0].some((u) => u.entry === e.index) || !units[1].some((u) => u.entry === e.index)) continue;
    const now = ts.isExternalModule(sides[1].files.get(e.path)!.sf) ? 'now an ES module (strict mode, own scope)' : 'no longer an ES module';
    e.problems.push({ line: 1, reason: `${e.path} is ${now} (${e.path}:1)` });
  }
  for (const e of included) {
    if (!isChanged.has(e)) continue;
    if (e.old === null && !units[1].some((u) => u.entry === e.index)) e.problems.push({ line: 1, reason: `new file ${e.path}` });
    if (e.new === null && !units[0].some((u) => u.entry === e.index)) e.problems.push({ line: 1, reason: `file ${e.oldPath} deleted` });
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers over the TypeScript AST

function hasMod(node: TS.Node, kind: TS.SyntaxKind): boolean {
  const mods = (node as { modifiers?: TS.NodeArray<TS.ModifierLike> }).modifiers;
  return !!mods && mods.some((m) => m.kind === kind);
}

function firstDecl(sym: TS.Symbol | undefined): TS.Declaration | undefined {
  const decls = sym?.declarations;
  if (!decls || !decls.length) return undefined;
  let best = decls[0];
  for (const d of decls) if (d.pos < best.pos) best = d;
  return best;
}

function declName(ts: Ts, decl: TS.Node): string {
  const n = ts.getNameOfDeclaration(decl as TS.Declaration);
  return n && (ts.isIdentifier(n) || ts.isPrivateIdentifier(n) || ts.isStringLiteral(n)) ? n.text : 'default';
}

function tKey(ts: Ts, path: string, decl: TS.Node): string {
  const SK = ts.SyntaxKind;
  const type = decl.kind === SK.InterfaceDeclaration || decl.kind === SK.TypeAliasDeclaration;
  const meaning = type ? 't' : decl.kind === SK.ModuleDeclaration ? 'n' : 'v';
  return `T|${path}|${declName(ts, decl)}|${meaning}`;
}

function keyName(key: string): string {
  const last = key.lastIndexOf('|');
  return key.slice(key.lastIndexOf('|', last - 1) + 1, last);
}

function keyFile(key: string): string {
  const last = key.lastIndexOf('|');
  return key.slice(2, key.lastIndexOf('|', last - 1));
}

function isFileScope(ts: Ts, decl: TS.Node): boolean {
  const SK = ts.SyntaxKind;
  let d = decl;
  while (d.kind === SK.BindingElement || d.kind === SK.ObjectBindingPattern || d.kind === SK.ArrayBindingPattern) d = d.parent;
  switch (d.kind) {
    case SK.FunctionDeclaration:
    case SK.ClassDeclaration:
    case SK.EnumDeclaration:
    case SK.InterfaceDeclaration:
    case SK.TypeAliasDeclaration:
    case SK.ModuleDeclaration:
    case SK.ImportEqualsDeclaration:
      return d.parent.kind === SK.SourceFile;
    case SK.VariableDeclaration: {
      const list = d.parent;
      if (!ts.isVariableDeclarationList(list)) return false;
      if (list.flags & ts.NodeFlags.BlockScoped) return list.parent.kind === SK.VariableStatement && list.parent.parent.kind === SK.SourceFile;
      for (let n: TS.Node | undefined = list.parent; n; n = n.parent) {
        if (n.kind === SK.SourceFile) return true;
        if (ts.isFunctionLike(n) || n.kind === SK.ModuleBlock || n.kind === SK.ClassStaticBlockDeclaration || ts.isClassLike(n)) return false;
      }
      return false;
    }
    default:
      return false;
  }
}

function moduleText(node: TS.Node | undefined): string {
  const spec = (node as { moduleSpecifier?: TS.Expression } | undefined)?.moduleSpecifier;
  return spec && (spec as TS.StringLiteral).text !== undefined ? (spec as TS.StringLiteral).text : '';
}

const EXTS = ['.ts', '.tsx', '.mts', '.cts', '.d.ts', '.js', '.jsx', '.mjs', '.cjs'];

function stripExt(p: string): string {
  return p.replace(/(\.d)?\.[mc]?[jt]sx?$/i, '');
}

function moduleKey(fromPath: string, spec: string): string {
  return spec.startsWith('.') ? stripExt(posix.normalize(posix.join(posix.dirname(fromPath), spec))) : spec;
}

function resolveModule(side: Side, fromPath: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = posix.normalize(posix.join(posix.dirname(fromPath), spec));
  const stem = stripExt(base);
  if (side.files.has(base)) return base;
  for (const list of [EXTS.map((x) => stem + x), EXTS.map((x) => base + x), EXTS.map((x) => `${base}/index${x}`)]) {
    for (const c of list) if (side.files.has(c)) return c;
  }
  return undefined;
}

/** The key an imported name stands for: a file-scope symbol of a file in this change, or a fixed name. */
function lookup(side: Side, fromPath: string, spec: string, name: string, depth = 0): string {
  const target = resolveModule(side, fromPath, spec);
  if (!target) return `m:${moduleKey(fromPath, spec)}#${name}`;
  const f = side.files.get(target) as SideFile;
  const e = f.exports.get(name);
  if (e) return 'key' in e ? e.key : depth < 8 ? lookup(side, target, e.module, e.name, depth + 1) : `m:${stripExt(target)}#${name}`;
  if (name !== 'default' && depth < 8) {
    for (const star of f.stars) {
      const k = lookup(side, target, star, name, depth + 1);
      if (k.startsWith('T|')) return k;
    }
  }
  return `m:${stripExt(target)}#${name}`;
}

function resolveTarget(side: Side, path: string, t: ExportTarget): string {
  return 'key' in t ? t.key : lookup(side, path, t.module, t.name);
}

function bindingIdentifiers(ts: Ts, name: TS.BindingName, out: TS.Identifier[] = []): TS.Identifier[] {
  if (ts.isIdentifier(name)) out.push(name);
  else for (const el of name.elements) if (!ts.isOmittedExpression(el)) bindingIdentifiers(ts, el.name, out);
  return out;
}

/** The key of a name an export refers to, as references in the file would see it. */
function localTarget(ts: Ts, f: SideFile, sym: TS.Symbol | undefined, text: string): ExportTarget {
  const decl = firstDecl(sym);
  const SK = ts.SyntaxKind;
  if (decl) {
    if (decl.kind === SK.ImportSpecifier) {
      const s = decl as TS.ImportSpecifier;
      return { module: moduleText(s.parent.parent.parent), name: (s.propertyName ?? s.name).text };
    }
    if (decl.kind === SK.ImportClause) return { module: moduleText(decl.parent), name: 'default' };
    if (decl.kind === SK.NamespaceImport) return { key: `ns:${moduleKey(f.path, moduleText(decl.parent.parent))}` };
    if (isFileScope(ts, decl)) return { key: tKey(ts, f.path, decl) };
  }
  return { key: `m:${stripExt(f.path)}#${text}` };
}

function collectExports(ts: Ts, f: SideFile): void {
  const SK = ts.SyntaxKind;
  const line = (n: TS.Node) => lineOf(f.sf, n);
  for (const st of f.sf.statements) {
    if (ts.isExportDeclaration(st)) {
      const clause = st.exportClause;
      if (st.moduleSpecifier) {
        const mod = moduleText(st);
        if (!clause) f.stars.push(mod);
        else if (ts.isNamespaceExport(clause)) f.exports.set(clause.name.text, { key: `ns:${moduleKey(f.path, mod)}` });
        else for (const s of clause.elements) f.exports.set(s.name.text, { module: mod, name: (s.propertyName ?? s.name).text });
      } else if (clause && ts.isNamedExports(clause)) {
        for (const s of clause.elements) {
          const local = (s.propertyName ?? s.name).text;
          const target = localTarget(ts, f, f.checker.getExportSpecifierLocalTargetSymbol(s), local);
          f.exports.set(s.name.text, target);
          f.facts.push({ name: s.name.text, target, line: line(s), label: s.name.text });
        }
      }
      continue;
    }
    if (ts.isExportAssignment(st)) {
      if (!st.isExportEquals && ts.isIdentifier(st.expression)) {
        f.exports.set('default', localTarget(ts, f, f.checker.getSymbolAtLocation(st.expression), st.expression.text));
      }
      continue;
    }
    if (!hasMod(st, SK.ExportKeyword)) continue;
    const isDefault = hasMod(st, SK.DefaultKeyword);
    if (ts.isVariableStatement(st)) {
      const kw = declKindWord(ts, st.declarationList.flags);
      for (const d of st.declarationList.declarations) {
        for (const id of bindingIdentifiers(ts, d.name)) {
          const decl = firstDecl(f.checker.getSymbolAtLocation(id)) ?? id.parent;
          const target = { key: tKey(ts, f.path, decl) };
          f.exports.set(id.text, target);
          f.facts.push({ name: id.text, target, line: line(id), label: `${kw} ${id.text}` });
        }
      }
      continue;
    }
    const named = st as TS.DeclarationStatement;
    const nm = named.name && ts.isIdentifier(named.name) ? named.name : undefined;
    const decl = nm ? firstDecl(f.checker.getSymbolAtLocation(nm)) ?? st : st;
    const key = nm ? tKey(ts, f.path, decl) : `T|${f.path}|default|v`;
    const exportName = isDefault ? 'default' : nm?.text ?? 'default';
    const target = { key };
    f.exports.set(exportName, target);
    f.facts.push({ name: exportName, target, line: line(st), label: topLabel(ts, f.sf, st).label });
  }
}

function declKindWord(ts: Ts, flags: TS.NodeFlags): string {
  const k = flags & (ts.NodeFlags.Let | ts.NodeFlags.Const | ts.NodeFlags.Using);
  if (k === ts.NodeFlags.Let) return 'let';
  if (k === ts.NodeFlags.Const) return 'const';
  if (k === ts.NodeFlags.Using) return 'using';
  if (k === (ts.NodeFlags.Const | ts.NodeFlags.Using)) return 'await using';
  return 'var';
}

/** NodeFlags.Ambient (declare, .d.ts): set by the parser, not part of the public typings. */
function ambientFlag(ts: Ts): number {
  return (ts.NodeFlags as unknown as Record<string, number>).Ambient ?? 1 << 25;
}

function lineOf(sf: TS.SourceFile, node: TS.Node): number {
  try {
    return sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
  } catch {
    return 1;
  }
}

function short(text: string, max = 40): string {
  const s = text.replace(/\s+/g, ' ').trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

function nodeText(sf: TS.SourceFile, node: TS.Node, max = 40): string {
  try {
    return short(node.getText(sf), max);
  } catch {
    return '';
  }
}

function propName(ts: Ts, sf: TS.SourceFile, name: TS.Node | undefined): string {
  if (!name) return '';
  if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  return nodeText(sf, name, 30);
}

function className(ts: Ts, sf: TS.SourceFile, node: TS.Node): string {
  return ts.isClassLike(node) && node.name ? node.name.text : ts.isClassLike(node) ? '(anonymous class)' : nodeText(sf, node, 20);
}

function topLabel(ts: Ts, sf: TS.SourceFile, st: TS.Node): { label: string; decl: boolean } {
  const SK = ts.SyntaxKind;
  const name = propName(ts, sf, ts.getNameOfDeclaration(st as TS.Declaration));
  switch (st.kind) {
    case SK.FunctionDeclaration:
      return { label: name ? `function ${name}` : 'default-exported function', decl: true };
    case SK.ClassDeclaration:
      return { label: name ? `class ${name}` : 'default-exported class', decl: true };
    case SK.InterfaceDeclaration:
      return { label: `interface ${name}`, decl: true };
    case SK.TypeAliasDeclaration:
      return { label: `type ${name}`, decl: true };
    case SK.EnumDeclaration:
      return { label: `enum ${name}`, decl: true };
    case SK.ModuleDeclaration:
      return { label: ts.isStringLiteral((st as TS.ModuleDeclaration).name) ? `module '${name}'` : `namespace ${name}`, decl: true };
    case SK.ImportEqualsDeclaration:
      return { label: `import ${name}`, decl: true };
    case SK.ImportDeclaration:
      return { label: `import '${moduleText(st)}'`, decl: false };
    case SK.ExportDeclaration:
      return { label: `re-export from '${moduleText(st)}'`, decl: false };
    case SK.ExportAssignment:
      return { label: (st as TS.ExportAssignment).isExportEquals ? 'export =' : 'export default', decl: false };
    default:
      return { label: describe(ts, sf, st), decl: false };
  }
}

let kindNames: Map<number, string> | undefined;

/** A human name for a construct: "if statement", "call to jwt.sign", "function login". */
function describe(ts: Ts, sf: TS.SourceFile, node: TS.Node): string {
  const SK = ts.SyntaxKind;
  switch (node.kind) {
    case SK.IfStatement: return 'if statement';
    case SK.ReturnStatement: return 'return statement';
    case SK.ThrowStatement: return 'throw statement';
    case SK.TryStatement: return 'try statement';
    case SK.CatchClause: return 'catch clause';
    case SK.SwitchStatement: return 'switch statement';
    case SK.CaseClause: return 'case clause';
    case SK.DefaultClause: return 'default clause';
    case SK.ForStatement: return 'for loop';
    case SK.ForOfStatement: return 'for…of loop';
    case SK.ForInStatement: return 'for…in loop';
    case SK.WhileStatement: return 'while loop';
    case SK.DoStatement: return 'do…while loop';
    case SK.BreakStatement: return 'break statement';
    case SK.ContinueStatement: return 'continue statement';
    case SK.Block: return 'block';
    case SK.ExpressionStatement: return `statement ${nodeText(sf, node)}`;
    case SK.VariableStatement:
    case SK.VariableDeclarationList: return `declaration ${nodeText(sf, node)}`;
    case SK.VariableDeclaration: return `variable ${propName(ts, sf, (node as TS.VariableDeclaration).name)}`;
    case SK.Parameter: return `parameter ${propName(ts, sf, (node as TS.ParameterDeclaration).name)}`;
    case SK.FunctionDeclaration:
    case SK.ClassDeclaration: return topLabel(ts, sf, node).label;
    case SK.MethodDeclaration: return `method ${propName(ts, sf, (node as TS.MethodDeclaration).name)}`;
    case SK.PropertyDeclaration: return `property ${propName(ts, sf, (node as TS.PropertyDeclaration).name)}`;
    case SK.PropertyAssignment: return `property ${propName(ts, sf, (node as TS.PropertyAssignment).name)}`;
    case SK.ShorthandPropertyAssignment: return `property ${propName(ts, sf, (node as TS.ShorthandPropertyAssignment).name)}`;
    case SK.ArrowFunction: return 'arrow function';
    case SK.FunctionExpression: return 'function expression';
    case SK.CallExpression: return `call to ${nodeText(sf, (node as TS.CallExpression).expression, 30)}`;
    case SK.NewExpression: return `new ${nodeText(sf, (node as TS.NewExpression).expression, 30)}`;
    case SK.AwaitExpression: return `await ${nodeText(sf, (node as TS.AwaitExpression).expression, 30)}`;
    case SK.BinaryExpression: return `expression ${nodeText(sf, node)}`;
    case SK.ConditionalExpression: return `conditional ${nodeText(sf, node)}`;
    case SK.Identifier:
    case SK.PrivateIdentifier: return `identifier ${nodeText(sf, node)}`;
    case SK.StringLiteral:
    case SK.NumericLiteral:
    case SK.BigIntLiteral:
    case SK.NoSubstitutionTemplateLiteral:
    case SK.RegularExpressionLiteral: return `literal ${nodeText(sf, node)}`;
    case SK.Decorator: return `decorator ${nodeText(sf, node)}`;
  }
  if (node.kind <= SK.LastToken) {
    const mods = (node.parent as { modifiers?: readonly TS.Node[] } | undefined)?.modifiers;
    return mods?.includes(node) ? `modifier ${nodeText(sf, node)}` : `'${nodeText(sf, node)}'`;
  }
  if (!kindNames) {
    kindNames = new Map();
    for (const [k, v] of Object.entries(SK)) {
      if (typeof v === 'number' && !/^(First|Last)/.test(k) && !kindNames.has(v)) kindNames.set(v, k);
    }
  }
  const words = (kindNames.get(node.kind) ?? 'construct').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return `${words} ${nodeText(sf, node, 30)}`.trim();
}

function isNamedMember(ts: Ts, n: TS.Node): n is TS.PropertyDeclaration | TS.MethodDeclaration | TS.AccessorDeclaration {
  return ts.isPropertyDeclaration(n) || ts.isMethodDeclaration(n) || ts.isGetAccessorDeclaration(n) || ts.isSetAccessorDeclaration(n);
}

/** " to the arguments of call to f" when a node is a call argument. */
function argumentOf(ts: Ts, sf: TS.SourceFile, node: TS.Node, word: string): string {
  const p = node.parent;
  const isArgument = p && (ts.isCallExpression(p) || ts.isNewExpression(p)) && p.arguments?.some((x) => x === node);
  return isArgument ? ` ${word} the arguments of ${describe(ts, sf, p)}` : '';
}

/** The innermost named function, method or class around a node, within a unit. */
function enclosingName(ts: Ts, sf: TS.SourceFile, node: TS.Node, unit: Unit): string {
  for (let n: TS.Node | undefined = node; n; n = n.parent) {
    const p: TS.Node | undefined = n.parent;
    if (ts.isFunctionDeclaration(n) && n.name) return `function ${n.name.text}`;
    if ((ts.isMethodDeclaration(n) || ts.isGetAccessorDeclaration(n) || ts.isSetAccessorDeclaration(n)) && p) {
      const kind = ts.isMethodDeclaration(n) ? 'method' : ts.isGetAccessorDeclaration(n) ? 'getter' : 'setter';
      return ts.isClassLike(p) ? `${kind} ${className(ts, sf, p)}.${propName(ts, sf, n.name)}` : `${kind} ${propName(ts, sf, n.name)}`;
    }
    if (ts.isConstructorDeclaration(n) && p) return `constructor of ${className(ts, sf, p)}`;
    if (ts.isFunctionExpression(n) && n.name) return `function ${n.name.text}`;
    const holder: TS.VariableDeclaration | TS.PropertyAssignment | TS.PropertyDeclaration | undefined =
      p && (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) ? p : undefined;
    if ((ts.isArrowFunction(n) || ts.isFunctionExpression(n)) && holder?.initializer === n) return `function ${propName(ts, sf, holder.name)}`;
    if (n === unit.root) break;
  }
  return unit.label;
}

// ---------------------------------------------------------------------------------------------
// Canonical token streams

type Cat = 'open' | 'close' | 'arr' | 'lit' | 'id' | 'kw' | 'attr';
/** H: hoisted or type-only (order-free); L: inert declaration (must stay before what followed it); N: runs code. */
type Order = 'H' | 'L' | 'N';

interface Tok {
  t: string;
  cat: Cat;
  node: TS.Node;
  /** The symbol key of a renameable binding (t is then "§"). */
  ref?: string;
  /** Open tokens and "[": the index just past the matching close. */
  end?: number;
  disp?: string;
}

interface Unit {
  side: 0 | 1;
  entry: number;
  path: string;
  sf: TS.SourceFile;
  root: TS.Node;
  label: string;
  decl: boolean;
  line: number;
  order: Order;
  seq: number;
  classKey?: string;
  toks: Tok[];
  shape: string;
  refs: string[];
  defs: string[];
  match?: Unit;
}

const RENAMEABLE_KINDS = [
  'VariableDeclaration', 'BindingElement', 'Parameter', 'FunctionDeclaration', 'FunctionExpression', 'ClassDeclaration',
  'ClassExpression', 'EnumDeclaration', 'InterfaceDeclaration', 'TypeAliasDeclaration', 'ModuleDeclaration', 'TypeParameter',
  'ImportEqualsDeclaration',
] as const;

class Canon {
  private readonly ts: Ts;
  private readonly SK: typeof TS.SyntaxKind;
  private readonly side: Side;
  private readonly file: SideFile;
  private readonly renameable: Set<number>;
  private readonly privCache = new Map<TS.Node, Map<string, TS.Node>>();
  private toks: Tok[] = [];
  private locals = new Map<TS.Node, number>();
  private defs: string[] = [];
  private root: TS.Node;
  private strip: TS.Node | undefined;
  private split: { node: TS.ClassDeclaration; key: string } | undefined;
  /** `eval` or `with` can see names by their spelling: then names count, not just bindings. */
  private readonly dynamic: boolean;

  constructor(ts: Ts, side: Side, file: SideFile) {
    this.ts = ts;
    this.SK = ts.SyntaxKind;
    this.side = side;
    this.file = file;
    this.root = file.sf;
    this.renameable = new Set(RENAMEABLE_KINDS.map((k) => ts.SyntaxKind[k]));
    this.dynamic = /\beval\b|\bwith\b/.test(file.sf.text) && this.usesDynamicScope(file.sf);
  }

  /** A `with` statement or a reference to `eval` (not a property named eval). */
  private usesDynamicScope(root: TS.Node): boolean {
    const { ts } = this;
    const visit = (n: TS.Node): boolean =>
      n.kind === ts.SyntaxKind.WithStatement ||
      (ts.isIdentifier(n) && n.text === 'eval' && !(ts.isPropertyAccessExpression(n.parent) && n.parent.name === n)) ||
      !!ts.forEachChild(n, visit);
    return visit(root);
  }

  units(): Unit[] {
    const { ts, SK } = this;
    const sf = this.file.sf;
    const out: Unit[] = [];
    sf.statements.forEach((st, s) => {
      const seq = s * 65536;
      switch (st.kind) {
        case SK.ImportDeclaration:
          if (!(st as TS.ImportDeclaration).importClause) out.push(this.statementUnit(st, seq, 'N'));
          return;
        case SK.ImportEqualsDeclaration:
          if (ts.isExternalModuleReference((st as TS.ImportEqualsDeclaration).moduleReference)) return;
          break;
        case SK.ExportDeclaration:
          if ((st as TS.ExportDeclaration).moduleSpecifier) out.push(this.statementUnit(st, seq, 'H'));
          return;
        case SK.EmptyStatement:
          return;
        case SK.VariableStatement: {
          const vs = st as TS.VariableStatement;
          vs.declarationList.declarations.forEach((d, j) => out.push(this.varUnit(vs, d, seq + j)));
          return;
        }
        case SK.ClassDeclaration:
          out.push(...this.classUnits(st as TS.ClassDeclaration, seq));
          return;
      }
      out.push(this.statementUnit(st, seq, this.order(st)));
    });
    return out;
  }

  // --- units ---------------------------------------------------------------------------------

  private build(
    root: TS.Node,
    strip: TS.Node | undefined,
    seq: number,
    order: Order,
    label: { label: string; decl: boolean },
    body: () => void,
    classKey?: string,
  ): Unit {
    this.toks = [];
    this.locals = new Map();
    this.defs = [];
    this.root = root;
    this.strip = strip;
    body();
    const toks = this.toks;
    const refs: string[] = [];
    for (const t of toks) if (t.ref !== undefined) refs.push(t.ref);
    return {
      side: this.side.idx,
      entry: this.file.entry,
      path: this.file.path,
      sf: this.file.sf,
      root,
      label: label.label,
      decl: label.decl,
      line: lineOf(this.file.sf, root),
      order,
      seq,
      ...(classKey !== undefined ? { classKey } : {}),
      toks,
      shape: toks.map((t) => t.t).join('\u0001'),
      refs,
      defs: this.defs,
    };
  }

  private statementUnit(st: TS.Statement, seq: number, order: Order): Unit {
    const { ts, SK } = this;
    return this.build(st, st, seq, order, topLabel(ts, this.file.sf, st), () => {
      const anonymous = (st.kind === SK.FunctionDeclaration || st.kind === SK.ClassDeclaration) && !(st as TS.FunctionDeclaration).name;
      if (anonymous) this.def(`T|${this.file.path}|default|v`, st);
      this.emit(st);
    });
  }

  private varUnit(vs: TS.VariableStatement, d: TS.VariableDeclaration, seq: number): Unit {
    const { ts } = this;
    const kw = declKindWord(ts, vs.declarationList.flags);
    const names = bindingIdentifiers(ts, d.name).map((i) => i.text).join(', ');
    const ambient = (vs.flags & ambientFlag(ts)) !== 0;
    // A `var` is hoisted and may be assigned before its declaration runs: its initializer keeps its place.
    const order: Order = ambient ? 'H' : !d.initializer ? (kw === 'var' ? 'H' : 'L') : kw !== 'var' && this.inert(d.initializer) ? 'L' : 'N';
    return this.build(d, vs, seq, order, { label: `${kw} ${names || nodeText(this.file.sf, d.name)}`, decl: true }, () => {
      const at = this.open(d, '(var');
      this.attr(`v:${kw}`, kw, d);
      if (vs.modifiers) this.array(vs, vs.modifiers);
      this.emit(d);
      this.close(at, d);
    });
  }

  private classUnits(cls: TS.ClassDeclaration, seq: number): Unit[] {
    const { ts, SK } = this;
    const sf = this.file.sf;
    const key = cls.name ? this.keyOfName(cls.name) : `T|${this.file.path}|default|v`;
    const cname = cls.name?.text ?? 'default';
    this.split = { node: cls, key };
    try {
      const out = [
        this.build(cls, cls, seq, this.classOrder(cls), topLabel(ts, sf, cls), () => {
          const at = this.open(cls);
          if (cls.modifiers) this.array(cls, cls.modifiers);
          if (cls.name) this.emit(cls.name);
          else this.def(key, cls);
          if (cls.typeParameters) this.array(cls, cls.typeParameters);
          if (cls.heritageClauses) this.array(cls, cls.heritageClauses);
          this.close(at, cls);
        }),
      ];
      cls.members.forEach((m, j) => {
        if (m.kind === SK.SemicolonClassElement) return;
        const n = propName(ts, sf, m.name);
        const label =
          m.kind === SK.Constructor ? `constructor of ${cname}`
          : m.kind === SK.MethodDeclaration ? `method ${cname}.${n}`
          : m.kind === SK.PropertyDeclaration ? `property ${cname}.${n}`
          : m.kind === SK.GetAccessor ? `getter ${cname}.${n}`
          : m.kind === SK.SetAccessor ? `setter ${cname}.${n}`
          : m.kind === SK.ClassStaticBlockDeclaration ? `static block of ${cname}`
          : m.kind === SK.IndexSignature ? `index signature of ${cname}`
          : `member of ${cname}`;
        out.push(
          this.build(m, undefined, j, this.memberOrder(m), { label, decl: true }, () => {
            const at = this.open(m, '(member');
            this.ref(key, m);
            this.emit(m);
            this.close(at, m);
          }, key),
        );
      });
      return out;
    } finally {
      this.split = undefined;
    }
  }

  private keyOfName(id: TS.Identifier): string {
    const decl = firstDecl(this.file.checker.getSymbolAtLocation(id)) ?? id.parent;
    return tKey(this.ts, this.file.path, decl);
  }

  // --- ordering ------------------------------------------------------------------------------

  private order(st: TS.Statement): Order {
    const { ts, SK } = this;
    if (st.flags & ambientFlag(ts)) return 'H';
    switch (st.kind) {
      case SK.FunctionDeclaration:
        return (st as TS.FunctionDeclaration).body ? 'H' : 'N';
      case SK.InterfaceDeclaration:
      case SK.TypeAliasDeclaration:
        return 'H';
      case SK.ModuleDeclaration:
        return this.typeOnly(st as TS.ModuleDeclaration) ? 'H' : 'N';
      case SK.EnumDeclaration:
        return (st as TS.EnumDeclaration).members.every((m) => !m.initializer || this.inert(m.initializer)) ? 'L' : 'N';
      default:
        return 'N';
    }
  }

  private typeOnly(md: TS.ModuleDeclaration): boolean {
    const { ts } = this;
    const body = md.body;
    if (!body) return true;
    if (ts.isModuleDeclaration(body)) return this.typeOnly(body);
    if (!ts.isModuleBlock(body)) return false;
    return body.statements.every(
      (s) => ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s) || (ts.isModuleDeclaration(s) && this.typeOnly(s)),
    );
  }

  private decorated(node: TS.Node): boolean {
    return hasMod(node, this.SK.Decorator);
  }

  private classOrder(cls: TS.ClassDeclaration): Order {
    const { ts, SK } = this;
    if (cls.flags & ambientFlag(ts)) return 'H';
    if (this.decorated(cls)) return 'N';
    for (const h of cls.heritageClauses ?? []) {
      if (h.token !== SK.ExtendsKeyword) continue;
      for (const t of h.types) {
        let e: TS.Expression = t.expression;
        while (ts.isPropertyAccessExpression(e)) e = e.expression;
        const decl = ts.isIdentifier(e) ? firstDecl(this.file.checker.getSymbolAtLocation(e)) : undefined;
        if (!decl || !(ts.isImportSpecifier(decl) || ts.isImportClause(decl) || ts.isNamespaceImport(decl))) return 'N';
      }
    }
    for (const m of cls.members) {
      if (ts.isClassStaticBlockDeclaration(m) || this.decorated(m)) return 'N';
      if (m.name && ts.isComputedPropertyName(m.name)) return 'N';
      if (ts.isPropertyDeclaration(m) && m.initializer && hasMod(m, SK.StaticKeyword)) return 'N';
    }
    return 'L';
  }

  private memberOrder(m: TS.ClassElement): Order {
    const { ts, SK } = this;
    if (this.decorated(m) || (m.name && ts.isComputedPropertyName(m.name))) return 'N';
    switch (m.kind) {
      case SK.MethodDeclaration:
      case SK.Constructor:
        return (m as TS.MethodDeclaration).body ? 'H' : 'N';
      case SK.GetAccessor:
      case SK.SetAccessor:
      case SK.IndexSignature:
        return 'H';
      case SK.PropertyDeclaration:
        return hasMod(m, SK.DeclareKeyword) || hasMod(m, SK.AbstractKeyword) ? 'H' : 'N';
      default:
        return 'N';
    }
  }

  /** An initializer that reads no binding when evaluated (so moving its declaration is safe). */
  private inert(e: TS.Expression): boolean {
    const { ts, SK } = this;
    const wrapper = (x: TS.Expression) =>
      ts.isParenthesizedExpression(x) || ts.isAsExpression(x) || ts.isSatisfiesExpression(x) || ts.isTypeAssertionExpression(x) || ts.isNonNullExpression(x);
    while (wrapper(e)) e = (e as TS.ParenthesizedExpression).expression;
    switch (e.kind) {
      case SK.ArrowFunction:
      case SK.FunctionExpression:
      case SK.StringLiteral:
      case SK.NumericLiteral:
      case SK.BigIntLiteral:
      case SK.NoSubstitutionTemplateLiteral:
      case SK.RegularExpressionLiteral:
      case SK.TrueKeyword:
      case SK.FalseKeyword:
      case SK.NullKeyword:
        return true;
      case SK.PrefixUnaryExpression:
        return this.inert((e as TS.PrefixUnaryExpression).operand);
      case SK.ArrayLiteralExpression:
        return (e as TS.ArrayLiteralExpression).elements.every((x) => ts.isOmittedExpression(x) || (!ts.isSpreadElement(x) && this.inert(x)));
      case SK.ObjectLiteralExpression:
        return (e as TS.ObjectLiteralExpression).properties.every((p) => {
          if (p.name && ts.isComputedPropertyName(p.name)) return false;
          if (ts.isPropertyAssignment(p)) return this.inert(p.initializer);
          return ts.isMethodDeclaration(p) || ts.isGetAccessorDeclaration(p) || ts.isSetAccessorDeclaration(p);
        });
      default:
        return false;
    }
  }

  // --- tokens --------------------------------------------------------------------------------

  private push(t: string, cat: Cat, node: TS.Node, disp?: string): void {
    this.toks.push(disp === undefined ? { t, cat, node } : { t, cat, node, disp });
  }

  private open(node: TS.Node, t = `(${node.kind}`): number {
    this.toks.push({ t, cat: 'open', node });
    return this.toks.length - 1;
  }

  private close(at: number, node: TS.Node): void {
    this.toks.push({ t: ')', cat: 'close', node });
    this.toks[at].end = this.toks.length;
  }

  private attr(t: string, disp: string, node: TS.Node): void {
    this.push(t, 'attr', node, disp);
  }

  private ref(key: string, node: TS.Node): void {
    const spelled = this.dynamic && (this.ts.isIdentifier(node) || this.ts.isPrivateIdentifier(node));
    this.toks.push({ t: spelled ? `§${(node as TS.Identifier).text}` : '§', cat: 'id', node, ref: key });
  }

  private def(key: string, node: TS.Node): void {
    this.defs.push(key);
    this.ref(key, node);
  }

  private local(decl: TS.Node, node: TS.Node): void {
    let n = this.locals.get(decl);
    if (n === undefined) this.locals.set(decl, (n = this.locals.size));
    const spelled = this.dynamic && (this.ts.isIdentifier(node) || this.ts.isPrivateIdentifier(node));
    this.push(spelled ? `L${n}:${(node as TS.Identifier).text}` : `L${n}`, 'id', node);
  }

  private array(parent: TS.Node, arr: TS.NodeArray<TS.Node>): void {
    let items: readonly TS.Node[] = arr;
    if ((parent as { modifiers?: unknown }).modifiers === arr) {
      const SK = this.SK;
      if (parent === this.strip) items = arr.filter((m) => m.kind !== SK.ExportKeyword && m.kind !== SK.DefaultKeyword);
      if (!items.length) return;
    }
    const at = this.toks.length;
    this.toks.push({ t: '[', cat: 'arr', node: items[0] ?? parent });
    for (const c of items) this.emit(c);
    this.toks.push({ t: ']', cat: 'arr', node: parent });
    this.toks[at].end = this.toks.length;
  }

  private emit(node: TS.Node): void {
    const { ts, SK } = this;
    switch (node.kind) {
      case SK.Identifier:
        return this.identifier(node as TS.Identifier);
      case SK.PrivateIdentifier:
        return this.privateIdentifier(node as TS.PrivateIdentifier);
      case SK.StringLiteral:
        if (this.isPropertyName(node)) return this.push(`i:${(node as TS.StringLiteral).text}`, 'id', node);
        return this.push(`s:${JSON.stringify((node as TS.StringLiteral).text)}`, 'lit', node);
      case SK.NumericLiteral: {
        const v = canonNumber((node as TS.NumericLiteral).text);
        if (this.isPropertyName(node)) return this.push(`i:${v}`, 'id', node);
        return this.push(`n:${v}`, 'lit', node);
      }
      case SK.BigIntLiteral:
        return this.push(`b:${(node as TS.BigIntLiteral).text.replace(/_/g, '').toLowerCase()}`, 'lit', node);
      case SK.RegularExpressionLiteral:
        return this.push(`r:${(node as TS.RegularExpressionLiteral).text}`, 'lit', node);
      case SK.NoSubstitutionTemplateLiteral:
      case SK.TemplateHead:
      case SK.TemplateMiddle:
      case SK.TemplateTail: {
        const tl = node as TS.TemplateLiteralLikeNode;
        const raw = this.tagged(node) ? `|${JSON.stringify(tl.rawText ?? '')}` : '';
        return this.push(`t${node.kind}:${JSON.stringify(tl.text)}${raw}`, 'lit', node);
      }
      case SK.JsxText: {
        const s = jsxText((node as TS.JsxText).text);
        if (s) this.push(`x:${JSON.stringify(s)}`, 'lit', node);
        return;
      }
      case SK.ParenthesizedExpression: {
        const inner = (node as TS.ParenthesizedExpression).expression;
        const keep = (inner.flags & ts.NodeFlags.OptionalChain) !== 0 || (ts.isExpressionStatement(node.parent) && ts.isStringLiteral(inner));
        if (!keep) return this.emit(inner);
        break;
      }
      case SK.ParenthesizedType:
        return this.emit((node as TS.ParenthesizedTypeNode).type);
      case SK.EmptyStatement:
        if (ts.isBlock(node.parent) || ts.isSourceFile(node.parent) || ts.isModuleBlock(node.parent) || ts.isCaseOrDefaultClause(node.parent)) return;
        break;
      case SK.SemicolonClassElement:
        return;
      case SK.ShorthandPropertyAssignment:
        return this.shorthand(node as TS.ShorthandPropertyAssignment);
      case SK.BindingElement:
        return this.bindingElement(node as TS.BindingElement);
      case SK.NewExpression: {
        const ne = node as TS.NewExpression;
        const at = this.open(node);
        this.emit(ne.expression);
        if (ne.typeArguments) this.array(ne, ne.typeArguments);
        if (ne.arguments && ne.arguments.length) this.array(ne, ne.arguments);
        this.close(at, node);
        return;
      }
      case SK.PropertyAccessExpression:
        if (this.namespaceMember(node as TS.PropertyAccessExpression)) return;
        break;
    }
    if (node.kind <= SK.LastToken) return this.push(`k${node.kind}`, 'kw', node);
    const at = this.open(node);
    this.attrs(node);
    ts.forEachChild(
      node,
      (c) => {
        this.emit(c);
      },
      (arr) => {
        this.array(node, arr);
      },
    );
    this.close(at, node);
  }

  private attrs(node: TS.Node): void {
    const { ts, SK } = this;
    const n = node as unknown as Record<string, unknown>;
    switch (node.kind) {
      case SK.PrefixUnaryExpression:
      case SK.PostfixUnaryExpression:
      case SK.TypeOperator: {
        const op = n.operator as TS.SyntaxKind;
        this.attr(`op${op}`, `operator ${ts.tokenToString(op) ?? op}`, node);
        break;
      }
      case SK.HeritageClause:
        this.attr(`h${n.token}`, n.token === SK.ExtendsKeyword ? 'extends' : 'implements', node);
        break;
      case SK.MetaProperty:
        this.attr(`m${n.keywordToken}`, String(ts.tokenToString(n.keywordToken as TS.SyntaxKind)), node);
        break;
      case SK.VariableDeclarationList: {
        const kw = declKindWord(ts, node.flags);
        this.attr(`v:${kw}`, kw, node);
        break;
      }
      case SK.ImportClause:
      case SK.ImportSpecifier:
      case SK.ExportSpecifier:
      case SK.ExportDeclaration:
      case SK.ImportEqualsDeclaration:
        if (n.isTypeOnly) this.attr('type-only', 'type-only', node);
        if (n.phaseModifier) this.attr(`phase${String(n.phaseModifier)}`, 'import phase', node);
        break;
      case SK.ExportAssignment:
        this.attr(n.isExportEquals ? 'export=' : 'export-default', n.isExportEquals ? 'export =' : 'export default', node);
        break;
      case SK.ModuleDeclaration: {
        const kind = node.flags & ts.NodeFlags.Namespace ? 'namespace' : node.flags & ts.NodeFlags.GlobalAugmentation ? 'global' : 'module';
        this.attr(`mod:${kind}`, kind, node);
        break;
      }
      case SK.ImportType:
        if (n.isTypeOf) this.attr('typeof', 'typeof', node);
        break;
      case SK.PropertyAccessExpression:
      case SK.ElementAccessExpression:
      case SK.CallExpression:
      case SK.NonNullExpression:
        if (node.flags & ts.NodeFlags.OptionalChain) this.attr('?.', 'optional chain', node);
        break;
    }
  }

  private tagged(node: TS.Node): boolean {
    const { ts } = this;
    let n = node.parent;
    if (ts.isTemplateSpan(n)) n = n.parent;
    return ts.isTemplateExpression(n) ? ts.isTaggedTemplateExpression(n.parent) : ts.isTaggedTemplateExpression(n);
  }

  /** `{ a }` is `{ a: a }`; `{ a = 1 } = o` is `{ a: a = 1 } = o`. */
  private shorthand(node: TS.ShorthandPropertyAssignment): void {
    const { SK } = this;
    const at = this.open(node, `(${SK.PropertyAssignment}`);
    this.push(`i:${node.name.text}`, 'id', node.name);
    const value = () => this.symbol(this.file.checker.getShorthandAssignmentValueSymbol(node), node.name);
    if (node.objectAssignmentInitializer) {
      const b = this.open(node, `(${SK.BinaryExpression}`);
      value();
      this.push(`k${SK.EqualsToken}`, 'kw', node, '=');
      this.emit(node.objectAssignmentInitializer);
      this.close(b, node);
    } else value();
    this.close(at, node);
  }

  /** `{ a }` in a pattern is `{ a: a }`. */
  private bindingElement(node: TS.BindingElement): void {
    const { ts } = this;
    const at = this.open(node);
    if (node.dotDotDotToken) this.emit(node.dotDotDotToken);
    if (node.propertyName) this.emit(node.propertyName);
    else if (ts.isObjectBindingPattern(node.parent) && ts.isIdentifier(node.name)) this.push(`i:${node.name.text}`, 'id', node.name);
    this.emit(node.name);
    if (node.initializer) this.emit(node.initializer);
    this.close(at, node);
  }

  /** `ns.name` where `ns` is a namespace import of a file in this change: the name is that file's binding. */
  private namespaceMember(pa: TS.PropertyAccessExpression): boolean {
    const { ts } = this;
    if (!ts.isIdentifier(pa.expression) || !ts.isIdentifier(pa.name)) return false;
    const decl = firstDecl(this.file.checker.getSymbolAtLocation(pa.expression));
    if (!decl || !ts.isNamespaceImport(decl)) return false;
    const spec = moduleText(decl.parent.parent);
    if (!resolveModule(this.side, this.file.path, spec)) return false;
    const at = this.open(pa);
    this.attrs(pa);
    this.emit(pa.expression);
    this.imported(spec, pa.name.text, pa.name);
    this.close(at, pa);
    return true;
  }

  private isPropertyName(node: TS.Node): boolean {
    const { SK } = this;
    const p = node.parent as TS.Node & { name?: TS.Node; propertyName?: TS.Node; right?: TS.Node; label?: TS.Node; tagName?: TS.Node };
    switch (p.kind) {
      case SK.PropertyAccessExpression:
      case SK.PropertyAssignment:
      case SK.PropertyDeclaration:
      case SK.PropertySignature:
      case SK.MethodDeclaration:
      case SK.MethodSignature:
      case SK.GetAccessor:
      case SK.SetAccessor:
      case SK.EnumMember:
      case SK.JsxAttribute:
        return p.name === node;
      case SK.QualifiedName:
        return p.right === node;
      case SK.BindingElement:
        return p.propertyName === node;
      case SK.ImportSpecifier:
      case SK.ExportSpecifier:
      case SK.NamespaceExport:
      case SK.NamespaceExportDeclaration:
      case SK.JsxNamespacedName:
      case SK.MetaProperty:
      case SK.ImportType:
        return true;
      case SK.LabeledStatement:
      case SK.BreakStatement:
      case SK.ContinueStatement:
        return p.label === node;
      case SK.JsxOpeningElement:
      case SK.JsxSelfClosingElement:
      case SK.JsxClosingElement:
        return p.tagName === node && /^[a-z]|-/.test((node as TS.Identifier).text);
      default:
        return false;
    }
  }

  private identifier(id: TS.Identifier): void {
    const { ts, SK } = this;
    const p = id.parent;
    if (this.isPropertyName(id)) {
      if (!this.memberName(id)) this.push(`i:${id.text}`, 'id', id);
      return;
    }
    if (ts.isParameter(p) && p.name === id && ts.isConstructorDeclaration(p.parent) && hasMod(p, SK.PrivateKeyword)) {
      const cls = p.parent.parent;
      return this.member(cls, this.privateMembers(cls).get(id.text) ?? p, id.text, id);
    }
    let sym: TS.Symbol | undefined;
    if (ts.isTypePredicateNode(p) && p.parameterName === id) {
      const sig = p.parent as TS.SignatureDeclaration;
      const param = sig.parameters?.find((q) => ts.isIdentifier(q.name) && q.name.text === id.text);
      sym = param ? this.file.checker.getSymbolAtLocation(param.name) : undefined;
    } else sym = this.file.checker.getSymbolAtLocation(id);
    this.symbol(sym, id);
  }

  private symbol(sym: TS.Symbol | undefined, id: TS.Identifier): void {
    const { ts, SK } = this;
    const decl = firstDecl(sym);
    if (!decl || decl.getSourceFile() !== this.file.sf) return this.push(`i:${id.text}`, 'id', id);
    switch (decl.kind) {
      case SK.ImportSpecifier: {
        const s = decl as TS.ImportSpecifier;
        return this.imported(moduleText(s.parent.parent.parent), (s.propertyName ?? s.name).text, id);
      }
      case SK.ImportClause:
        return this.imported(moduleText(decl.parent), 'default', id);
      case SK.NamespaceImport:
        return this.push(`x:ns:${moduleKey(this.file.path, moduleText(decl.parent.parent))}`, 'id', id);
      case SK.ImportEqualsDeclaration: {
        const ref = (decl as TS.ImportEqualsDeclaration).moduleReference;
        if (ts.isExternalModuleReference(ref)) {
          const spec = ts.isStringLiteral(ref.expression) ? ref.expression.text : '';
          return this.push(`x:ns:${moduleKey(this.file.path, spec)}`, 'id', id);
        }
        break;
      }
    }
    if (!this.renameable.has(decl.kind) || decl.flags & ambientFlag(ts) || this.namespaceExport(decl)) return this.push(`i:${id.text}`, 'id', id);
    const split = this.split;
    if (split && decl.kind === SK.TypeParameter && (decl.parent as TS.Node) === split.node) {
      return this.ref(`C|${split.key}|tp${split.node.typeParameters?.indexOf(decl as TS.TypeParameterDeclaration) ?? -1}`, id);
    }
    if (isFileScope(ts, decl)) {
      const key = tKey(ts, this.file.path, decl);
      if (this.isRootName(id)) this.defs.push(key);
      return this.ref(key, id);
    }
    if (decl.pos >= this.root.pos && decl.end <= this.root.end) return this.local(decl, id);
    this.push(`i:${id.text}`, 'id', id);
  }

  private imported(spec: string, name: string, node: TS.Node): void {
    const key = lookup(this.side, this.file.path, spec, name);
    if (key.startsWith('T|')) {
      if (keyFile(key) !== this.file.path) this.side.witness.add(key);
      return this.ref(key, node);
    }
    this.push(`x:${key}`, 'id', node);
  }

  /** A declaration exported from a namespace or ambient module: a property, not a renameable binding. */
  private namespaceExport(decl: TS.Node): boolean {
    const { ts } = this;
    let st: TS.Node = decl;
    const inDeclaration = (x: TS.Node) =>
      ts.isBindingElement(x) || ts.isObjectBindingPattern(x) || ts.isArrayBindingPattern(x) || ts.isVariableDeclaration(x) || ts.isVariableDeclarationList(x);
    while (inDeclaration(st)) st = st.parent;
    return ts.isModuleBlock(st.parent) && hasMod(st, this.SK.ExportKeyword);
  }

  private isRootName(id: TS.Identifier): boolean {
    const { ts } = this;
    let n: TS.Node = id;
    const pattern = (x: TS.Node) => ts.isObjectBindingPattern(x) || ts.isArrayBindingPattern(x);
    while (n.parent && ((ts.isBindingElement(n.parent) && n.parent.name === n) || pattern(n.parent))) n = n.parent;
    return n.parent === this.root && ts.getNameOfDeclaration(this.root as TS.Declaration) === n;
  }

  private privateMembers(cls: TS.ClassLikeDeclaration): Map<string, TS.Node> {
    const { ts, SK } = this;
    let m = this.privCache.get(cls);
    if (m) return m;
    m = new Map();
    for (const mem of cls.members) {
      const nm = mem.name;
      if (nm && (ts.isPrivateIdentifier(nm) || (ts.isIdentifier(nm) && hasMod(mem, SK.PrivateKeyword)))) {
        if (!m.has(nm.text)) m.set(nm.text, mem);
      }
      if (ts.isConstructorDeclaration(mem)) {
        for (const prm of mem.parameters) {
          if (ts.isIdentifier(prm.name) && hasMod(prm, SK.PrivateKeyword) && !m.has(prm.name.text)) m.set(prm.name.text, prm);
        }
      }
    }
    this.privCache.set(cls, m);
    return m;
  }

  private member(cls: TS.ClassLikeDeclaration, decl: TS.Node, name: string, node: TS.Node): void {
    if (this.split && this.split.node === cls) return this.ref(`C|${this.split.key}|m:${name}`, node);
    this.local(decl, node);
  }

  /** `this.x` or the declaration of `private x`: a private member, renameable with its class. */
  private memberName(id: TS.Identifier): boolean {
    const { ts } = this;
    const p = id.parent;
    let cls: TS.ClassLikeDeclaration | undefined;
    if (ts.isPropertyAccessExpression(p) && p.name === id && p.expression.kind === this.SK.ThisKeyword) cls = this.thisClass(p);
    else if (isNamedMember(ts, p) && p.name === id && ts.isClassLike(p.parent)) cls = p.parent;
    if (!cls) return false;
    const decl = this.privateMembers(cls).get(id.text);
    if (!decl) return false;
    this.member(cls, decl, id.text, id);
    return true;
  }

  private thisClass(node: TS.Node): TS.ClassLikeDeclaration | undefined {
    const { ts } = this;
    for (let n: TS.Node = node; n.parent; n = n.parent) {
      const p: TS.Node = n.parent;
      if (ts.isComputedPropertyName(p) || ts.isDecorator(p)) return undefined;
      if (ts.isArrowFunction(p)) continue;
      const member = isNamedMember(ts, p) || ts.isConstructorDeclaration(p) || ts.isClassStaticBlockDeclaration(p);
      if (member && p.parent && ts.isClassLike(p.parent)) return p.parent;
      if (ts.isFunctionLike(p) || ts.isSourceFile(p) || ts.isModuleBlock(p) || ts.isClassLike(p)) return undefined;
    }
    return undefined;
  }

  private privateIdentifier(node: TS.PrivateIdentifier): void {
    const { ts } = this;
    for (let n: TS.Node | undefined = node.parent; n; n = n.parent) {
      if (!ts.isClassLike(n)) continue;
      const d = this.privateMembers(n).get(node.text);
      if (d) return this.member(n, d, node.text, node);
    }
    this.push(`i:${node.text}`, 'id', node);
  }
}

function canonNumber(text: string): string {
  if (/^0\d/.test(text)) return text;
  const v = Number(text.replace(/_/g, ''));
  return Number.isFinite(v) ? String(v) : text;
}

/** JSX text as React sees it: lines trimmed, whitespace-only lines dropped, joined by spaces. */
function jsxText(s: string): string {
  const lines = s.split(/\r\n|\n|\r/);
  let last = -1;
  lines.forEach((l, i) => {
    if (/[^ \t]/.test(l)) last = i;
  });
  let out = '';
  lines.forEach((line, i) => {
    let l = line.replace(/\t/g, ' ');
    if (i > 0) l = l.replace(/^[ ]+/, '');
    if (i < lines.length - 1) l = l.replace(/[ ]+$/, '');
    if (l) out += i !== last ? `${l} ` : l;
  });
  return out;
}

// ---------------------------------------------------------------------------------------------
// Matching units of the two sides through one bijection of renameable symbols

class Matcher {
  readonly f = new Map<string, string>();
  readonly inv = new Map<string, string>();

  static sameKind(a: string, b: string): boolean {
    if (a[0] !== b[0]) return false;
    const sa = a.slice(a.lastIndexOf('|'));
    const sb = b.slice(b.lastIndexOf('|'));
    if (a[0] === 'T') return sa === sb;
    if (sa.startsWith('|tp') || sb.startsWith('|tp')) return sa === sb;
    return sa.startsWith('|m:#') === sb.startsWith('|m:#');
  }

  compatible(o: Unit, n: Unit): boolean {
    if (o.refs.length !== n.refs.length) return false;
    let tmp: Map<string, string> | undefined;
    let tmpInv: Map<string, string> | undefined;
    for (let i = 0; i < o.refs.length; i++) {
      const a = o.refs[i];
      const b = n.refs[i];
      if (!Matcher.sameKind(a, b)) return false;
      const fa = this.f.get(a) ?? tmp?.get(a);
      if (fa !== undefined) {
        if (fa !== b) return false;
        continue;
      }
      if (this.inv.has(b) || tmpInv?.has(b)) return false;
      (tmp ??= new Map()).set(a, b);
      (tmpInv ??= new Map()).set(b, a);
    }
    return true;
  }

  commit(o: Unit, n: Unit): void {
    for (let i = 0; i < o.refs.length; i++) {
      this.f.set(o.refs[i], n.refs[i]);
      this.inv.set(n.refs[i], o.refs[i]);
    }
    o.match = n;
    n.match = o;
  }

  refEq(a: string, b: string | undefined): boolean {
    if (b === undefined) return false;
    const fa = this.f.get(a);
    if (fa !== undefined) return fa === b;
    return !this.inv.has(b) && keyName(a) === keyName(b);
  }
}

function matchUnits(m: Matcher, oldUnits: Unit[], newUnits: Unit[]): void {
  const groups = new Map<string, { o: Unit[]; n: Unit[] }>();
  const group = (shape: string) => {
    let g = groups.get(shape);
    if (!g) groups.set(shape, (g = { o: [], n: [] }));
    return g;
  };
  for (const u of oldUnits) group(u.shape).o.push(u);
  for (const u of newUnits) group(u.shape).n.push(u);
  const live = [...groups.values()].filter((g) => g.o.length && g.n.length);
  // Units without renameable names: pair in order, same file first.
  for (const g of live) {
    if (g.o[0].refs.length) continue;
    for (const sameFile of [true, false]) {
      for (const o of g.o) {
        if (o.match) continue;
        const n = g.n.find((x) => !x.match && (!sameFile || x.entry === o.entry));
        if (n) m.commit(o, n);
      }
    }
  }
  const score = (o: Unit, n: Unit) => (n.entry === o.entry ? 4 : 0) + (n.label === o.label ? 2 : 0);
  for (;;) {
    let progress = false;
    for (const g of live) {
      const os = g.o.filter((u) => !u.match);
      const ns = g.n.filter((u) => !u.match);
      if (!os.length || !ns.length || os.length * ns.length > 400) continue;
      for (const o of os) {
        if (o.match) continue;
        const c = ns.filter((n) => !n.match && m.compatible(o, n));
        if (c.length !== 1) continue;
        if (os.filter((x) => !x.match && m.compatible(x, c[0])).length !== 1) continue;
        m.commit(o, c[0]);
        progress = true;
      }
    }
    if (progress) continue;
    // Ambiguous: take the best candidate of the first open unit and try again.
    outer: for (const g of live) {
      for (const o of g.o) {
        if (o.match) continue;
        let best: Unit | undefined;
        for (const n of g.n) if (!n.match && m.compatible(o, n) && (!best || score(o, n) > score(o, best))) best = n;
        if (best) {
          m.commit(o, best);
          progress = true;
          break outer;
        }
      }
    }
    if (!progress) break;
  }
}

function compareUnits(ts: Ts, entries: Entry[], sides: [Side, Side], oldUnits: Unit[], newUnits: Unit[]): void {
  const m = new Matcher();
  matchUnits(m, oldUnits, newUnits);
  const problem = (entry: number, line: number, reason: string) => entries[entry].problems.push({ line, reason });
  const at = (u: Unit, line = u.line) => `(${u.path}:${line})`;
  const was = (u: Unit) => `(was ${u.path}:${u.line})`;

  // Class-scope names (type parameters, private members) belong to their class.
  const introducedBy = new Map<string, Unit>();
  for (const u of newUnits) if (u.match) for (const r of u.refs) if (!introducedBy.has(r)) introducedBy.set(r, u);
  for (const [a, b] of m.f) {
    if (a[0] !== 'C') continue;
    const oa = a.slice(2, a.lastIndexOf('|'));
    const ob = b.slice(2, b.lastIndexOf('|'));
    if (m.f.get(oa) !== ob) {
      const u = introducedBy.get(b);
      if (u) problem(u.entry, u.line, `${u.label}: class member ${a.slice(a.lastIndexOf('|') + 3)} now belongs to another class ${at(u)}`);
    }
  }

  // Order: code that runs keeps its file and stays after what it followed.
  const checkOrder = (list: Unit[], sameFile: boolean) => {
    let max = -Infinity;
    let maxUnit: Unit | undefined;
    for (const u of list.sort((a, b) => a.seq - b.seq)) {
      const n = u.match;
      if (!n) continue;
      if (sameFile && n.entry !== u.entry) {
        if (u.order === 'N') problem(n.entry, n.line, `${n.label} moved from ${u.path} ${at(n)}`);
        continue;
      }
      if (u.order === 'N' && n.seq < max && maxUnit) {
        problem(n.entry, n.line, `${n.label} now comes before ${maxUnit.match?.label ?? maxUnit.label} ${at(n)}`);
      }
      if (u.order !== 'H' && n.seq > max) {
        max = n.seq;
        maxUnit = u;
      }
    }
  };
  const topByEntry = new Map<number, Unit[]>();
  const membersByClass = new Map<string, Unit[]>();
  for (const u of oldUnits) {
    if (u.classKey !== undefined) {
      if (!membersByClass.has(u.classKey)) membersByClass.set(u.classKey, []);
      membersByClass.get(u.classKey)!.push(u);
    } else {
      if (!topByEntry.has(u.entry)) topByEntry.set(u.entry, []);
      topByEntry.get(u.entry)!.push(u);
    }
  }
  for (const list of topByEntry.values()) checkOrder(list, true);
  for (const list of membersByClass.values()) checkOrder(list, false);

  checkExports(entries, sides, m, newUnits);

  // Units left over: changed, added or removed constructs.
  const lostOld = oldUnits.filter((u) => !u.match);
  const lostNew = newUnits.filter((u) => !u.match);
  const paired = new Set<Unit>();
  const partner = (n: Unit): Unit | undefined => {
    const free = lostOld.filter((o) => !paired.has(o));
    return (
      free.find((o) => o.defs.some((d) => n.defs.includes(m.f.get(d) ?? ''))) ??
      free.find((o) => o.entry === n.entry && o.label === n.label && o.classKey === n.classKey) ??
      free.find((o) => o.entry === n.entry && o.label === n.label) ??
      free.find((o) => o.label === n.label) ??
      (() => {
        const sameEntryOld = free.filter((o) => o.entry === n.entry && !o.decl && o.classKey === n.classKey);
        const sameEntryNew = lostNew.filter((x) => x.entry === n.entry && !x.decl && x.classKey === n.classKey);
        return !n.decl && sameEntryOld.length === 1 && sameEntryNew.length === 1 ? sameEntryOld[0] : undefined;
      })()
    );
  };
  for (const n of lostNew) {
    const o = partner(n);
    if (!o) {
      problem(n.entry, n.line, n.decl ? `new ${n.label} ${at(n)}` : `${n.label} added ${at(n)}`);
      continue;
    }
    paired.add(o);
    const d = explain(ts, o, n, m);
    const line = lineOf(d.sf, d.node);
    const reason = `${enclosingName(ts, d.sf, d.node, d.sf === n.sf ? n : o)}: ${d.what} ${at(n, line)}`;
    problem(n.entry, line, reason);
    if (o.entry !== n.entry) problem(o.entry, o.line, reason);
  }
  for (const o of lostOld) if (!paired.has(o)) problem(o.entry, o.line, `${o.label} removed ${was(o)}`);
}

/** Exported names stay exported; a rename of an export follows the rename of its declaration. */
function checkExports(entries: Entry[], sides: [Side, Side], m: Matcher, newUnits: Unit[]): void {
  const [oldSide, newSide] = sides;
  const newFacts: { f: SideFile; fact: Fact; key: string; used: boolean }[] = [];
  for (const f of newSide.files.values()) {
    for (const fact of f.facts) newFacts.push({ f, fact, key: resolveTarget(newSide, f.path, fact.target), used: false });
  }
  const definedNew = new Set<string>();
  for (const u of newUnits) for (const d of u.defs) definedNew.add(d);
  for (const f of oldSide.files.values()) {
    for (const fact of f.facts) {
      const key = resolveTarget(oldSide, f.path, fact.target);
      const renameable = key.startsWith('T|');
      const target = renameable ? m.f.get(key) : key;
      if (target === undefined) continue; // the declaration itself changed or went away: reported there
      const cands = newFacts.filter((x) => !x.used && x.key === target);
      // Same export name, or a rename that follows the rename of the declaration itself.
      const follows = (x: (typeof cands)[number]) => renameable && fact.name === keyName(key) && x.fact.name === keyName(target);
      const nf = cands.find((x) => x.fact.name === fact.name) ?? cands.find(follows);
      if (nf) {
        nf.used = true;
        continue;
      }
      const reason = cands.length
        ? `export ${fact.name} renamed to ${cands[0].fact.name} (${cands[0].f.path}:${cands[0].fact.line})`
        : `${fact.label} is no longer exported (was ${f.path}:${fact.line})`;
      entries[cands.length ? cands[0].f.entry : f.entry].problems.push({ line: cands.length ? cands[0].fact.line : fact.line, reason });
    }
  }
  for (const x of newFacts) {
    if (x.used) continue;
    const renameable = x.key.startsWith('T|');
    if (renameable && !m.inv.has(x.key)) continue; // a new declaration: reported as such
    if (renameable && newSide.witness.has(x.key) && definedNew.has(x.key)) continue; // exported for a move
    entries[x.f.entry].problems.push({ line: x.fact.line, reason: `${x.fact.label} is now exported (${x.f.path}:${x.fact.line})` });
  }
}

/** The first differing construct of two units. */
function explain(ts: Ts, o: Unit, n: Unit, m: Matcher): { what: string; node: TS.Node; sf: TS.SourceFile } {
  const A = o.toks;
  const B = n.toks;
  const eq = (a: Tok, b: Tok) => a.t === b.t && (a.ref === undefined || m.refEq(a.ref, b.ref));
  const lim = Math.min(A.length, B.length);
  let i = 0;
  while (i < lim && eq(A[i], B[i])) i++;
  const a = A[i] as Tok | undefined;
  const b = B[i] as Tok | undefined;
  const tailEq = (ia: number, ib: number) => {
    if (A.length - ia !== B.length - ib) return false;
    for (let k = 0; ia + k < A.length; k++) if (!eq(A[ia + k], B[ib + k])) return false;
    return true;
  };
  const here = b ? b.node : n.root;
  if (!a && !b) return { what: 'names are used inconsistently (a rename that is not applied everywhere?)', node: n.root, sf: n.sf };
  const leaf = (t: Tok | undefined) => !!t && (t.cat === 'lit' || t.cat === 'id' || t.cat === 'kw' || t.cat === 'attr');
  // The index past a whole construct starting at k (a leaf, a node or a list).
  const span = (t: Tok | undefined, k: number) => {
    if (!t) return undefined;
    if (leaf(t)) return k + 1;
    return (t.cat === 'open' || t.t === '[') && t.end !== undefined ? t.end : undefined;
  };
  const endB = span(b, i);
  if (b && endB !== undefined && tailEq(i, endB)) {
    return { what: `${describe(ts, n.sf, b.node)} added${argumentOf(ts, n.sf, b.node, 'to')}`, node: b.node, sf: n.sf };
  }
  const endA = span(a, i);
  if (a && endA !== undefined && tailEq(endA, i)) {
    return { what: `${describe(ts, o.sf, a.node)} removed${argumentOf(ts, o.sf, a.node, 'from')}`, node: here, sf: n.sf };
  }
  if (a && b && leaf(a) && leaf(b)) {
    const sa = a.disp ?? nodeText(o.sf, a.node);
    const sb = b.disp ?? nodeText(n.sf, b.node);
    if (a.cat === 'lit' && b.cat === 'lit') return { what: `literal ${sa} became ${sb}`, node: b.node, sf: n.sf };
    if (a.cat === 'id' && b.cat === 'id' && sa === sb) {
      return { what: `${sb} now refers to a different declaration (a rename that is not applied everywhere?)`, node: b.node, sf: n.sf };
    }
    if (a.cat === 'kw' && b.cat === 'kw' && !/^\w/.test(sa)) return { what: `operator ${sa} became ${sb}`, node: b.node, sf: n.sf };
    return { what: `${sa} became ${sb}`, node: b.node, sf: n.sf };
  }
  if (a && b && a.cat === 'open' && b.cat === 'open') {
    return { what: `${describe(ts, o.sf, a.node)} became ${describe(ts, n.sf, b.node)}`, node: b.node, sf: n.sf };
  }
  let enc: TS.Node = n.root;
  for (let k = Math.min(i, B.length - 1); k >= 0; k--) {
    const t = B[k];
    if (t.cat === 'open' && (t.end ?? 0) > i) {
      enc = t.node;
      break;
    }
  }
  return { what: `${describe(ts, n.sf, enc)} changed`, node: b && b.cat !== 'close' ? b.node : enc, sf: n.sf };
}
