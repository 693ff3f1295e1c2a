// The token filter as it was before token digests (session 14), kept as the reference that
// test/unit/token-digest.test.ts checks the digests against and bench/tokens.mjs times: the
// sorted, joined token list of a text, and the filter of lib/mutation/classify.ts's cheapClasses
// over it (per-file signatures in order, as a multiset, and the texts tokenised again joined).
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

/**
 * The old token filter over the candidates `cheapClasses(changes, blobs, true)` returns as
 * survivors (a claim skips the filter and nothing else): the candidates the filter keeps, and
 * `whole` with its three parts.
 */
export function oldFilter(candidates) {
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
