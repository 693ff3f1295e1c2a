/**
 * The token signature behind the cheap filter of lib/mutation/classify.ts: the multiset of a
 * text's tokens with layout, comments, names, quotes, `;` and `,` left out. Its own module so
 * that pre-commit can predict a refactor-like change from the staged patch without loading the
 * classifier.
 */
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
