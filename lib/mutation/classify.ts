/**
 * The mutation class of each file of a commit, decided by syntax but paid for only when it can
 * matter: a cheap token comparison (identifiers, comments, quotes and separators normalised)
 * settles every change whose tokens differ as INTENT_EVOLUTION; only changes that survive it
 * (formatting, renames, reorderings, moves) go to the comparison in lib/mutation/syntax.ts, which loads the
 * TypeScript compiler only then.
 */
import { classifyChange as astClassify } from './syntax.js';
import { isBinary } from '../git/blobs.js';
import type { FileChange } from '../git/hunks.js';
import { classifyFile, type MutationClass } from './classes.js';

const MAX_SYNTAX_BYTES = 4 * 1024 * 1024;
const MAX_SYNTAX_FILES = 500;

/** Per path: the class and, for an evolution found by syntax, the first differing construct. */
export type FileClasses = Map<string, { cls: MutationClass; reason?: string }>;

const KEYWORDS = new Set(('break case catch class const continue debugger default delete do else export extends finally for function if import in ' +
  'instanceof new return super switch this throw try typeof var void while with yield let static enum await implements package protected ' +
  'interface private public as async from get set of type declare readonly abstract namespace module keyof infer is asserts satisfies ' +
  'true false null undefined def elif lambda pass raise not and or None True False self fn func struct impl pub mut use go').split(' '));

/** The multiset signature of a text's tokens, blind to layout, comments, names, quotes, `;` and `,`. */
export function tokenSignature(text: string): string {
  const noComments = text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/(^|[^:\\])\/\/[^\n]*/g, '$1 ');
  const tokens = noComments.match(/[A-Za-z_$][\w$]*|\d[\w.]*|"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|`(?:\\.|[^`\\])*`|[^\s\w]/g) ?? [];
  const norm = tokens
    .filter((t) => t !== ';' && t !== ',')
    .map((t) => (/^[A-Za-z_$]/.test(t) ? (KEYWORDS.has(t) ? t : 'I')
      : t.startsWith('`') ? `t:${t.slice(1, -1).replace(/[A-Za-z_$][\w$]*/g, 'I')}` // names inside ${…} may be renamed
        : /^["']/.test(t) ? `s:${t.slice(1, -1)}` : t));
  return norm.sort().join('\u0000');
}

/**
 * Classifies a commit's changes from their bytes. `full` skips the cheap filter (for checking a
 * claimed refactor, where the first differing construct must be named).
 */
export function classifyChanges(changes: FileChange[], blobs: Map<string, Buffer>, full = false): FileClasses {
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
  // seconds in the post-commit hook. (A claimed refactor is still checked in full.)
  const size = candidates.reduce((n, x) => n + (x.oldText?.length ?? 0) + (x.newText?.length ?? 0), 0);
  if (!full && (size > MAX_SYNTAX_BYTES || candidates.length > MAX_SYNTAX_FILES)) {
    for (const x of candidates) out.set(x.c.path, { cls: 'INTENT_EVOLUTION' });
    return out;
  }
  let survivors = candidates;
  if (!full) {
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

/** Token signature of several texts together (declarations moved between files). */
function sortedAll(texts: (string | null)[]): string {
  return tokenSignature(texts.filter((t): t is string => t !== null).join('\n'));
}

