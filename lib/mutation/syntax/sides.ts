/*
 * The TypeScript compiler, loaded lazily, and the two sides of a change: each file parsed with its
 * own checker (no lib, no resolution), its exports, and the unit and token types the comparison uses.
 */
import { posix } from 'node:path';
import type * as TS from 'typescript';
import { requireTypeScript } from '../ts-cache.js';
import { syntaxOf } from '../languages.js';
import { type Entry, type Problem, short } from './entries.js';

export type Ts = typeof TS;

let tsModule: Ts | null | undefined;


export function loadTypeScript(): Ts | null {
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
export type ExportTarget = { key: string } | { module: string; name: string };

export interface Fact {
  name: string;
  target: ExportTarget;
  line: number;
  label: string;
}

export interface SideFile {
  entry: number;
  path: string;
  sf: TS.SourceFile;
  checker: TS.TypeChecker;
  exports: Map<string, ExportTarget>;
  stars: string[];
  facts: Fact[];
}

export interface Side {
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

export function parseSide(ts: Ts, side: 0 | 1, e: Entry, path: string, text: string): SideFile | Problem {
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

export type Cat = 'open' | 'close' | 'arr' | 'lit' | 'id' | 'kw' | 'attr';

/** H: hoisted or type-only (order-free); L: inert declaration (must stay before what followed it); N: runs code. */
export type Order = 'H' | 'L' | 'N';

export interface Tok {
  t: string;
  cat: Cat;
  node: TS.Node;
  /** The symbol key of a renameable binding (t is then "§"). */
  ref?: string;
  /** Open tokens and "[": the index just past the matching close. */
  end?: number;
  disp?: string;
}

export interface Unit {
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
