/**
 * The mutation class of each file of a commit, decided by syntax but paid for only when it can
 * matter: a cheap token comparison (identifiers, comments, quotes, escapes, numeric spelling,
 * parentheses and separators normalised, so it is never finer than the syntax comparison) settles
 * every change whose tokens differ as INTENT_EVOLUTION; only changes that survive it (formatting,
 * renames, reorderings, moves) go to the comparison in lib/mutation/syntax.ts, which loads the
 * TypeScript compiler only then. One decision: the post-commit record and the commit-msg check of
 * an `Intent-Mutation: AST_REFACTOR` claim both take it from `classifyChanges`, given the claim (a
 * claimed refactor is compared by syntax without the token filter, so an accepted claim is recorded
 * as AST_REFACTOR; a change over the size limits is an evolution, claimed or not).
 */
import { classifyChange as astClassify } from './syntax.js';
import { isBinary } from '../git/blobs.js';
import type { FileChange } from '../git/hunks.js';
import { classifyFile, type MutationClass } from './classes.js';

export const MAX_SYNTAX_BYTES = 4 * 1024 * 1024;
export const MAX_SYNTAX_FILES = 500;

/**
 * Per path: the class and, for an evolution found by syntax, the first differing construct.
 * `overSize`: the change was settled without syntax because it is over the size limits (not
 * recorded; a refused claim explains it).
 */
export type FileClasses = Map<string, { cls: MutationClass; reason?: string; overSize?: true }>;

const KEYWORDS = new Set(('break case catch class const continue debugger default delete do else export extends finally for function if import in ' +
  'instanceof new return super switch this throw try typeof var void while with yield let static enum await implements package protected ' +
  'interface private public as async from get set of type declare readonly abstract namespace module keyof infer is asserts satisfies ' +
  'true false null undefined def elif lambda pass raise not and or None True False self fn func struct impl pub mut use go').split(' '));

/**
 * The multiset signature of a text's tokens, blind to layout, comments, names, quotes, escapes,
 * numeric spelling, parentheses, `;` and `,`. Coarser than the syntax comparison: texts it tells
 * apart, syntax tells apart too (a string that could be a property name counts as a name).
 */
export function tokenSignature(text: string): string {
  const noComments = text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/(^|[^:\\])\/\/[^\n]*/g, '$1 ');
  const tokens = noComments.match(/[A-Za-z_$][\w$]*|\d[\w.]*|\.\d[\w]*|"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|`(?:\\.|[^`\\])*`|[^\s\w]/g) ?? [];
  const norm = tokens
    .filter((t) => t !== ';' && t !== ',' && t !== '(' && t !== ')')
    .map((t) => (/^[A-Za-z_$]/.test(t) ? (KEYWORDS.has(t) ? t : 'I')
      : t.startsWith('`') ? `t:${t.slice(1, -1).replace(/[A-Za-z_$][\w$]*/g, 'I')}` // names inside ${…} may be renamed
        : /^["']/.test(t) ? stringKey(cook(t.slice(1, -1)))
          : /^\.?\d/.test(t) ? numberKey(t) : t));
  return norm.sort().join('\u0000');
}

/** A quoted string by its value; one that could be a property name (`{ 'a': 1 }` is `{ a: 1 }`) as a name. */
function stringKey(value: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(value) ? 'I' : /^\d+$/.test(value) ? numberKey(value) : `s:${value}`;
}

/** The value of a string literal's body: escapes (`\'`, `\n`, `\x41`, `\u{1F600}`) replaced by what they mean. */
function cook(body: string): string {
  const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', v: '\v', 0: '\0', '\n': '', '\r': '' };
  return body.replace(/\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|\r\n|[^])/g, (_, e: string) => {
    if (e[0] === 'u' || e[0] === 'x') {
      const code = parseInt(e[1] === '{' ? e.slice(2, -1) : e.slice(1), 16);
      return code <= 0x10ffff ? String.fromCodePoint(code) : e;
    }
    return e === '\r\n' ? '' : simple[e] ?? e;
  });
}

/** A number by its value (`0x10`, `16` and `1_6` alike; `.5` and `0.50` alike); a number it cannot read (a word that starts with a digit) as a name. */
function numberKey(t: string): string {
  const v = Number(t.replace(/_/g, ''));
  if (Number.isFinite(v)) return `n:${v}`;
  return /^\d+n$/i.test(t.replace(/_/g, '')) ? `n:${BigInt(t.replace(/_/g, '').slice(0, -1))}n` : 'N';
}

/**
 * Classifies a commit's changes from their bytes: the one decision the trace note records and a
 * claimed refactor is checked against. `claimedRefactor` (the commit's message says
 * `Intent-Mutation: AST_REFACTOR`) skips the token filter: the syntax comparison decides, and
 * names the first differing construct.
 */
export function classifyChanges(changes: FileChange[], blobs: Map<string, Buffer>, claimedRefactor = false): FileClasses {
  const out: FileClasses = new Map();
  const candidates: { c: FileChange; oldText: string | null; newText: string | null }[] = [];
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
  if (!candidates.length) return out;
  // A very large change is settled by the byte-level rule: the syntax comparison would cost
  // seconds in the post-commit hook (and a claimed refactor of it is refused: lib/mutation/claim.ts).
  const size = changedTextBytes(candidates);
  if (size > MAX_SYNTAX_BYTES || candidates.length > MAX_SYNTAX_FILES) {
    for (const x of candidates) out.set(x.c.path, { cls: 'INTENT_EVOLUTION', overSize: true });
    return out;
  }
  let survivors = candidates;
  if (!claimedRefactor) {
    const sig = (t: string | null) => (t === null ? '' : tokenSignature(t));
    const whole = candidates.map((x) => sig(x.oldText)).join('\u0001') === candidates.map((x) => sig(x.newText)).join('\u0001')
      || [...candidates.map((x) => sig(x.oldText))].sort().join() === [...candidates.map((x) => sig(x.newText))].sort().join()
      || sortedAll(candidates.map((x) => x.oldText)) === sortedAll(candidates.map((x) => x.newText));
    survivors = whole ? candidates : candidates.filter((x) => x.oldText !== null && x.newText !== null && sig(x.oldText) === sig(x.newText));
    for (const x of candidates) if (!survivors.includes(x)) out.set(x.c.path, { cls: 'INTENT_EVOLUTION' });
  }
  if (!survivors.length) return out;
  const verdict = astClassify(survivors.map((x) => ({ path: x.c.path, oldText: x.oldText, newText: x.newText, ...(x.c.oldPath ? { oldPath: x.c.oldPath } : {}) })));
  for (const x of survivors) {
    const v = verdict.files[x.c.path] ?? { class: verdict.class, reason: verdict.reason };
    out.set(x.c.path, { cls: v.class, ...(v.reason ? { reason: v.reason } : {}) });
  }
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

/** Token signature of several texts together (declarations moved between files). */
function sortedAll(texts: (string | null)[]): string {
  return tokenSignature(texts.filter((t): t is string => t !== null).join('\n'));
}

