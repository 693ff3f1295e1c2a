/*
 * Matching the units of the two sides through one bijection of renameable symbols: a consistent
 * rename is a refactor, hoisted declarations may move (also between files), statements that run code
 * keep their order; checks that exports still resolve, and explains the first difference.
 */
import type * as TS from 'typescript';
import { JSX_PRAGMAS, argumentOf, collectExports, describe, enclosingName, keyName, lineOf, nodeText, pragmasOf, resolveTarget } from './ast.js';
import { Canon } from './canon.js';
import { type Entry } from './entries.js';
import { type Fact, type Side, type SideFile, type Tok, type Ts, type Unit, parseSide } from './sides.js';

export function compareSyntax(ts: Ts, entries: Entry[], changed: Entry[], unchanged: Entry[]): void {
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
    if (oldF && newF && isChanged.has(e) && newF.sf.languageVariant === ts.LanguageVariant.JSX && pragmasOf(oldF.sf, JSX_PRAGMAS) !== pragmasOf(newF.sf, JSX_PRAGMAS))
      e.problems.push({ line: 1, reason: `${e.path}: a JSX pragma (@jsx, @jsxFrag, @jsxImportSource, @jsxRuntime) changed what its JSX compiles to (${e.path}:1)` });
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
  // Which groups a commit can change the unique pass of: the pair's own group, and every group
  // with an old unit using one of the old refs now mapped, or a new unit using one of the new refs
  // now taken (what `compatible` reads). A group nothing touched since its last pass would find
  // again what it found: it is skipped (the same matching, without a pass over every group after
  // each commit: hundreds of look-alike declarations made that quadratic or worse).
  type Group = { o: Unit[]; n: Unit[] };
  const groupOf = new Map<Unit, Group>();
  const byOldRef = new Map<string, Set<Group>>();
  const byNewRef = new Map<string, Set<Group>>();
  const index = (byRef: Map<string, Set<Group>>, g: Group, u: Unit) => {
    groupOf.set(u, g);
    for (const r of u.refs) {
      let set = byRef.get(r);
      if (!set) byRef.set(r, (set = new Set()));
      set.add(g);
    }
  };
  for (const g of live) {
    for (const u of g.o) index(byOldRef, g, u);
    for (const u of g.n) index(byNewRef, g, u);
  }
  const dirty = new Set<Group>(live);
  const commit = (o: Unit, n: Unit) => {
    m.commit(o, n);
    const own = groupOf.get(o);
    if (own) dirty.add(own);
    for (const r of o.refs) for (const g of byOldRef.get(r) ?? []) dirty.add(g);
    for (const r of n.refs) for (const g of byNewRef.get(r) ?? []) dirty.add(g);
  };
  // Units without renameable names: pair in order, same file first.
  for (const g of live) {
    if (g.o[0].refs.length) continue;
    for (const sameFile of [true, false]) {
      for (const o of g.o) {
        if (o.match) continue;
        const n = g.n.find((x) => !x.match && (!sameFile || x.entry === o.entry));
        if (n) commit(o, n);
      }
    }
  }
  const score = (o: Unit, n: Unit) => (n.entry === o.entry ? 4 : 0) + (n.label === o.label ? 2 : 0);
  const MAX_SCORE = 6;
  let gi = 0;
  let ui = 0;
  for (;;) {
    let progress = false;
    for (const g of live) {
      if (!dirty.delete(g)) continue;
      const os = g.o.filter((u) => !u.match);
      const ns = g.n.filter((u) => !u.match);
      if (!os.length || !ns.length || os.length * ns.length > 400) continue;
      for (const o of os) {
        if (o.match) continue;
        const c = ns.filter((n) => !n.match && m.compatible(o, n));
        if (c.length !== 1) continue;
        if (os.filter((x) => !x.match && m.compatible(x, c[0])).length !== 1) continue;
        commit(o, c[0]);
        progress = true;
      }
    }
    if (progress) continue;
    // Ambiguous: take the best candidate of the first open unit that has one and try again. The
    // search resumes where the last one stopped: every open unit before that place had no
    // compatible candidate, and never will (candidates only get taken, mappings only added).
    for (; gi < live.length; gi++, ui = 0) {
      const g = live[gi];
      for (; ui < g.o.length; ui++) {
        const o = g.o[ui];
        if (o.match) continue;
        // The first compatible candidate of the highest score. The score is checked before the
        // (costlier) compatibility, and the scan ends at the highest score there is: the same
        // choice as comparing every candidate, without n² compatibility checks in a file of
        // hundreds of look-alike declarations.
        let best: Unit | undefined;
        let bestScore = -1;
        for (const n of g.n) {
          if (n.match) continue;
          const s = score(o, n);
          if (s <= bestScore || !m.compatible(o, n)) continue;
          best = n;
          bestScore = s;
          if (s === MAX_SCORE) break;
        }
        if (best) {
          commit(o, best);
          progress = true;
          break;
        }
      }
      if (progress) break;
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
  // The new side's facts by target, in order (one lookup per old fact, not a scan of them all).
  const byKey = new Map<string, (typeof newFacts)[number][]>();
  for (const f of newSide.files.values()) {
    for (const fact of f.facts) {
      const x = { f, fact, key: resolveTarget(newSide, f.path, fact.target), used: false };
      newFacts.push(x);
      let list = byKey.get(x.key);
      if (!list) byKey.set(x.key, (list = []));
      list.push(x);
    }
  }
  const definedNew = new Set<string>();
  for (const u of newUnits) for (const d of u.defs) definedNew.add(d);
  for (const f of oldSide.files.values()) {
    for (const fact of f.facts) {
      const key = resolveTarget(oldSide, f.path, fact.target);
      const renameable = key.startsWith('T|');
      const target = renameable ? m.f.get(key) : key;
      if (target === undefined) continue; // the declaration itself changed or went away: reported there
      const cands = (byKey.get(target) ?? []).filter((x) => !x.used);
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
