/*
 * Helpers over the TypeScript AST: symbol keys, module resolution between the change's files,
 * each file's exports, and the labels and descriptions that name the first differing construct.
 */
import { posix } from 'node:path';
import type * as TS from 'typescript';
import { short } from './entries.js';
import { type ExportTarget, type Side, type SideFile, type Ts, type Unit } from './sides.js';

export function hasMod(node: TS.Node, kind: TS.SyntaxKind): boolean {
  const mods = (node as { modifiers?: TS.NodeArray<TS.ModifierLike> }).modifiers;
  return !!mods && mods.some((m) => m.kind === kind);
}

export function firstDecl(sym: TS.Symbol | undefined): TS.Declaration | undefined {
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

export function tKey(ts: Ts, path: string, decl: TS.Node): string {
  const SK = ts.SyntaxKind;
  const type = decl.kind === SK.InterfaceDeclaration || decl.kind === SK.TypeAliasDeclaration;
  const meaning = type ? 't' : decl.kind === SK.ModuleDeclaration ? 'n' : 'v';
  return `T|${path}|${declName(ts, decl)}|${meaning}`;
}

export function keyName(key: string): string {
  const last = key.lastIndexOf('|');
  return key.slice(key.lastIndexOf('|', last - 1) + 1, last);
}

export function keyFile(key: string): string {
  const last = key.lastIndexOf('|');
  return key.slice(2, key.lastIndexOf('|', last - 1));
}

export function isFileScope(ts: Ts, decl: TS.Node): boolean {
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

export function moduleText(node: TS.Node | undefined): string {
  const spec = (node as { moduleSpecifier?: TS.Expression } | undefined)?.moduleSpecifier;
  return spec && (spec as TS.StringLiteral).text !== undefined ? (spec as TS.StringLiteral).text : '';
}

const EXTS = ['.ts', '.tsx', '.mts', '.cts', '.d.ts', '.js', '.jsx', '.mjs', '.cjs'];

function stripExt(p: string): string {
  return p.replace(/(\.d)?\.[mc]?[jt]sx?$/i, '');
}

export function moduleKey(fromPath: string, spec: string): string {
  return spec.startsWith('.') ? stripExt(posix.normalize(posix.join(posix.dirname(fromPath), spec))) : spec;
}

export function resolveModule(side: Side, fromPath: string, spec: string): string | undefined {
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
export function lookup(side: Side, fromPath: string, spec: string, name: string, depth = 0): string {
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

export function resolveTarget(side: Side, path: string, t: ExportTarget): string {
  return 'key' in t ? t.key : lookup(side, path, t.module, t.name);
}

export function bindingIdentifiers(ts: Ts, name: TS.BindingName, out: TS.Identifier[] = []): TS.Identifier[] {
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

export function collectExports(ts: Ts, f: SideFile): void {
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

export function declKindWord(ts: Ts, flags: TS.NodeFlags): string {
  const k = flags & (ts.NodeFlags.Let | ts.NodeFlags.Const | ts.NodeFlags.Using);
  if (k === ts.NodeFlags.Let) return 'let';
  if (k === ts.NodeFlags.Const) return 'const';
  if (k === ts.NodeFlags.Using) return 'using';
  if (k === (ts.NodeFlags.Const | ts.NodeFlags.Using)) return 'await using';
  return 'var';
}

/** NodeFlags.Ambient (declare, .d.ts): set by the parser, not part of the public typings. */
export function ambientFlag(ts: Ts): number {
  return (ts.NodeFlags as unknown as Record<string, number>).Ambient ?? 1 << 25;
}

export function lineOf(sf: TS.SourceFile, node: TS.Node): number {
  try {
    return sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
  } catch {
    return 1;
  }
}

export function nodeText(sf: TS.SourceFile, node: TS.Node, max = 40): string {
  try {
    return short(node.getText(sf), max);
  } catch {
    return '';
  }
}

export function propName(ts: Ts, sf: TS.SourceFile, name: TS.Node | undefined): string {
  if (!name) return '';
  if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  return nodeText(sf, name, 30);
}

function className(ts: Ts, sf: TS.SourceFile, node: TS.Node): string {
  return ts.isClassLike(node) && node.name ? node.name.text : ts.isClassLike(node) ? '(anonymous class)' : nodeText(sf, node, 20);
}

export function topLabel(ts: Ts, sf: TS.SourceFile, st: TS.Node): { label: string; decl: boolean } {
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
export function describe(ts: Ts, sf: TS.SourceFile, node: TS.Node): string {
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

export function isNamedMember(ts: Ts, n: TS.Node): n is TS.PropertyDeclaration | TS.MethodDeclaration | TS.AccessorDeclaration {
  return ts.isPropertyDeclaration(n) || ts.isMethodDeclaration(n) || ts.isGetAccessorDeclaration(n) || ts.isSetAccessorDeclaration(n);
}

/** " to the arguments of call to f" when a node is a call argument. */
export function argumentOf(ts: Ts, sf: TS.SourceFile, node: TS.Node, word: string): string {
  const p = node.parent;
  const isArgument = p && (ts.isCallExpression(p) || ts.isNewExpression(p)) && p.arguments?.some((x) => x === node);
  return isArgument ? ` ${word} the arguments of ${describe(ts, sf, p)}` : '';
}

/** The innermost named function, method or class around a node, within a unit. */
export function enclosingName(ts: Ts, sf: TS.SourceFile, node: TS.Node, unit: Unit): string {
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

/** The pragmas that decide what JSX compiles to (a factory, a fragment, an import source, a runtime). */
export const JSX_PRAGMAS: readonly string[] = ['jsx', 'jsxfrag', 'jsximportsource', 'jsxruntime'];

/**
 * A file's pragmas (comments TypeScript reads: `@jsx`, `@ts-nocheck`, `/// <reference>`…), or only
 * those named in `only`, as one comparable text: names and arguments, not where they are written.
 */
export function pragmasOf(sf: TS.SourceFile, only?: readonly string[]): string {
  const map = (sf as unknown as { pragmas?: Map<string, unknown> }).pragmas;
  if (!map) return '';
  const where = (k: string, v: unknown) => (k === 'pos' || k === 'end' || k === 'range' ? undefined : v);
  const kept = [...map].filter(([name]) => !only || only.includes(name)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify(kept, where);
}
