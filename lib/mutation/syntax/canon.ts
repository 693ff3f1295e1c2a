/*
 * Canonical token streams: one per top-level declaration or statement (and per member of a
 * top-level class), without trivia, quote style or numeric spelling, with declared names replaced by
 * their binding (locals by index, file-scope and private members by a key the matcher maps).
 */
import type * as TS from 'typescript';
import { ambientFlag, bindingIdentifiers, declKindWord, firstDecl, hasMod, isFileScope, isNamedMember, keyFile, lineOf, lookup, moduleKey, moduleText, nodeText, propName, resolveModule, tKey, topLabel } from './ast.js';
import { type Cat, type Order, type Side, type SideFile, type Tok, type Ts, type Unit } from './sides.js';

const RENAMEABLE_KINDS = [
  'VariableDeclaration', 'BindingElement', 'Parameter', 'FunctionDeclaration', 'FunctionExpression', 'ClassDeclaration',
  'ClassExpression', 'EnumDeclaration', 'InterfaceDeclaration', 'TypeAliasDeclaration', 'ModuleDeclaration', 'TypeParameter',
  'ImportEqualsDeclaration',
] as const;

export class Canon {
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
        // A directive is its source text ("use\x20strict" is the string "use strict" and no directive).
        if (ts.isExpressionStatement(node.parent)) return this.push(`s:${JSON.stringify(node.getText(this.file.sf).slice(1, -1))}`, 'lit', node);
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
