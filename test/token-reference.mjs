// lib/mutation/classify.ts's cheapClasses as it was before token digests (session 14), kept as the
// reference that test/unit/token-digest.test.ts checks the new code against and bench/tokens.mjs
// times: the byte rules (the layout-only rule by squashing both texts), the sorted, joined token
// list of a text, and the filter over it (per-file signatures in order, as a multiset, and the
// texts tokenised again joined).
const KEYWORDS = new Set(('break case catch class const continue debugger default delete do else export extends finally for function if import in ' +
  'instanceof new return super switch this throw try typeof var void while with yield let static enum await implements package protected ' +
  'interface private public as async from get set of type declare readonly abstract namespace module keyof infer is asserts satisfies ' +
  'true false null undefined def elif lambda pass raise not and or None True False self fn func struct impl pub mut use go').split(' '));

/** The sorted token list of a text (the old tokenSignature). */
export function oldTokenSignature(text) {
  return oldTokens(text).sort().join('\u0000');
}

/** The normalised tokens of a text, in order (the old tokenSignature before its sort). */
export function oldTokens(text) {
  const noComments = text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/(^|[^:\\])\/\/[^\n]*/g, '$1 ');
  const tokens = noComments.match(/[A-Za-z_$][\w$]*|\d[\w.]*|\.\d[\w]*|"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|`(?:\\.|[^`\\])*`|[^\s\w]/g) ?? [];
  return tokens
    .filter((t) => t !== ';' && t !== ',' && t !== '(' && t !== ')')
    .map((t) => (/^[A-Za-z_$]/.test(t) ? (KEYWORDS.has(t) ? t : 'I')
      : t.startsWith('`') ? `t:${t.slice(1, -1).replace(/[A-Za-z_$][\w$]*/g, 'I')}`
        : /^["']/.test(t) ? stringKey(cook(t.slice(1, -1)))
          : /^\.?\d/.test(t) ? numberKey(t) : t));
}

function stringKey(value) {
  return /^[A-Za-z_$][\w$]*$/.test(value) ? 'I' : /^\d+$/.test(value) ? numberKey(value) : `s:${value}`;
}

function cook(body) {
  const simple = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', v: '\v', 0: '\0', '\n': '', '\r': '' };
  return body.replace(/\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|\r\n|[^])/g, (_, e) => {
    if (e[0] === 'u' || e[0] === 'x') {
      const code = parseInt(e[1] === '{' ? e.slice(2, -1) : e.slice(1), 16);
      return code <= 0x10ffff ? String.fromCodePoint(code) : e;
    }
    return e === '\r\n' ? '' : simple[e] ?? e;
  });
}

function numberKey(t) {
  const v = Number(t.replace(/_/g, ''));
  if (Number.isFinite(v)) return `n:${v}`;
  return /^\d+n$/i.test(t.replace(/_/g, '')) ? `n:${BigInt(t.replace(/_/g, '').slice(0, -1))}n` : 'N';
}

const MAX_SYNTAX_BYTES = 4 * 1024 * 1024;
const MAX_SYNTAX_FILES = 500;

/** The old byte rules (lib/mutation/classes.ts classifyFile). */
function classifyFile(change, oldContent, newContent, binary) {
  if (change.status === 'R' && change.similarity === 100 && change.oldMode === change.newMode) return 'AST_REFACTOR';
  if (binary || change.status === 'A' || change.status === 'D' || change.status === 'T') return 'INTENT_EVOLUTION';
  if (change.oldMode !== change.newMode) return 'INTENT_EVOLUTION';
  if (!oldContent || !newContent) return 'INTENT_EVOLUTION';
  return squash(oldContent) === squash(newContent) ? 'AST_REFACTOR' : 'INTENT_EVOLUTION';
}

function squash(b) {
  return b.toString('utf8').replace(/\s+/g, ' ').trim();
}

const isBinary = (content) => !!content && content.subarray(0, 8000).includes(0);

/**
 * The old cheapClasses: `out` and `survivors` as it returned them, and `candidates` (what the byte
 * rules left) with the parts of `whole` (undefined under a claim or over the size limits).
 */
export function oldCheapClasses(changes, blobs, claimedRefactor = false) {
  const out = new Map();
  const candidates = [];
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
  if (!candidates.length) return { out, survivors: [], candidates };
  const size = candidates.reduce((n, x) => n + (x.oldText?.length ?? 0) + (x.newText?.length ?? 0), 0);
  if (size > MAX_SYNTAX_BYTES || candidates.length > MAX_SYNTAX_FILES) {
    for (const x of candidates) out.set(x.c.path, { cls: 'INTENT_EVOLUTION', overSize: true });
    return { out, survivors: [], candidates };
  }
  if (claimedRefactor) return { out, survivors: candidates, candidates };
  const f = oldFilter(candidates);
  for (const x of candidates) if (!f.survivors.includes(x)) out.set(x.c.path, { cls: 'INTENT_EVOLUTION' });
  return { out, survivors: f.survivors, candidates, inOrder: f.inOrder, asSet: f.asSet, joined: f.joined };
}

/** The old token filter over the byte rules' candidates: the candidates it keeps, and `whole` with its three parts. */
function oldFilter(candidates) {
  const memo = new Map();
  const sig = (t) => {
    if (t === null) return '';
    let s = memo.get(t);
    if (s === undefined) memo.set(t, (s = oldTokenSignature(t)));
    return s;
  };
  const inOrder = candidates.map((x) => sig(x.oldText)).join('\u0001') === candidates.map((x) => sig(x.newText)).join('\u0001');
  const asSet = [...candidates.map((x) => sig(x.oldText))].sort().join() === [...candidates.map((x) => sig(x.newText))].sort().join();
  const all = (side) => oldTokenSignature(candidates.map((x) => x[side]).filter((t) => t !== null).join('\n'));
  const joined = all('oldText') === all('newText');
  const whole = inOrder || asSet || joined;
  const survivors = whole ? candidates : candidates.filter((x) => x.oldText !== null && x.newText !== null && sig(x.oldText) === sig(x.newText));
  return { survivors, whole, inOrder, asSet, joined };
}
