/**
 * The token signature behind the cheap filter of lib/mutation/classify.ts: the multiset of a
 * text's tokens with layout, comments, names, quotes, `;` and `,` left out, kept as a digest that
 * needs no sort. Its own module so that pre-commit can predict a refactor-like change from the
 * staged patch without loading the classifier.
 */
const KEYWORDS = ('break case catch class const continue debugger default delete do else export extends finally for function if import in ' +
  'instanceof new return super switch this throw try typeof var void while with yield let static enum await implements package protected ' +
  'interface private public as async from get set of type declare readonly abstract namespace module keyof infer is asserts satisfies ' +
  'true false null undefined def elif lambda pass raise not and or None True False self fn func struct impl pub mut use go').split(' ');

/**
 * A digest of a token multiset: the count and two independent 32-bit sums (mod 2^32) of a hash
 * of each normalised token. Addition is commutative, so the order of the tokens does not matter
 * and no sort is needed; the digest of a union of multisets is the sum of their digests
 * (`addDigests`). Equal multisets always give equal digests; different ones give equal digests
 * only by a hash collision, which makes the filter coarser (the change goes on to the syntax
 * comparison), never finer.
 */
export interface TokenDigest {
  readonly n: number;
  readonly a: number;
  readonly b: number;
}

/** The digest of no tokens (an absent side of a change, an empty text). */
export const EMPTY_DIGEST: TokenDigest = Object.freeze({ n: 0, a: 0, b: 0 });

/** The digest of the union of two token multisets. */
export function addDigests(x: TokenDigest, y: TokenDigest): TokenDigest {
  return { n: x.n + y.n, a: (x.a + y.a) | 0, b: (x.b + y.b) | 0 };
}

/** Whether two digests are equal (the multisets are the same, but for a hash collision). */
export function sameDigest(x: TokenDigest, y: TokenDigest): boolean {
  return x.n === y.n && x.a === y.a && x.b === y.b;
}

/** The digest as a string, equal exactly when the digests are. */
export function digestKey(d: TokenDigest): string {
  return `${d.n}:${(d.a >>> 0).toString(16)}:${(d.b >>> 0).toString(16)}`;
}

/**
 * The multiset signature of a text's tokens, blind to layout, comments, names, quotes, escapes,
 * numeric spelling, parentheses, `;` and `,`. Coarser than the syntax comparison: texts it tells
 * apart, syntax tells apart too (a string that could be a property name counts as a name). A
 * string (`digestKey` of `tokenDigest`): equal for texts with the same token multiset.
 */
export function tokenSignature(text: string): string {
  return digestKey(tokenDigest(text));
}

// A token's hash: two lanes over its UTF-16 code units (FNV-1a with two multipliers and seeds),
// each finished by murmur3's mixer so that the sums of many hashes stay spread over 32 bits. The
// result of `hash` is left in HA and HB (no allocation per token).
let HA = 0;
let HB = 0;

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

function hash(s: string): void {
  let a = 0x811c9dc5;
  let b = 0x3c6ef372;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  HA = fmix(a ^ s.length);
  HB = fmix(b + s.length);
}

// Character classes of the ASCII range, as the regular expressions the tokeniser is defined by
// read them: 1 a name's first character ([A-Za-z_$]), 2 a digit, 4 a name's other characters
// ([\w$]), 8 a word character (\w), 16 layout (\s).
const CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  CLASS[c] = (/[A-Za-z_$]/.test(ch) ? 1 : 0) | (/\d/.test(ch) ? 2 : 0) | (/[\w$]/.test(ch) ? 4 : 0) | (/\w/.test(ch) ? 8 : 0) | (/\s/.test(ch) ? 16 : 0);
}
const SPACE = /\s/;
/** Layout (`\s`) beyond ASCII: rare outside strings and comments, so asked of the regular expression. */
const wideSpace = (c: number): boolean => SPACE.test(String.fromCharCode(c));
/** What `.` does not match: the line terminators. */
const lineEnd = (c: number): boolean => c === 10 || c === 13 || c === 0x2028 || c === 0x2029;

/** The hashes of the normalised tokens met most: a name (`I`), each keyword (by its length and first character), each ASCII character. */
const NAME_A = (hash('I'), HA);
const NAME_B = HB;
const MAX_KEYWORD = Math.max(...KEYWORDS.map((k) => k.length));
const KEYWORD_AT: ({ word: string; a: number; b: number }[] | undefined)[] = [];
for (const word of KEYWORDS) {
  hash(word);
  (KEYWORD_AT[word.length * 128 + word.charCodeAt(0)] ??= []).push({ word, a: HA, b: HB });
}
const CHAR_A = new Int32Array(128);
const CHAR_B = new Int32Array(128);
for (let c = 0; c < 128; c++) {
  hash(String.fromCharCode(c));
  CHAR_A[c] = HA;
  CHAR_B[c] = HB;
}

/**
 * The digest of a text's token multiset (what `tokenSignature` names): comments dropped, then the
 * tokens of `/[A-Za-z_$][\w$]*|\d[\w.]*|\.\d[\w]*|"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|`(?:\\.|[^`\\])*`|[^\s\w]/g`
 * (names, numbers, quoted strings and templates with no escaped line break, any other single
 * character but layout), found by a scan of the characters that matches exactly what that
 * expression matches, each normalised (a name to `I`, a keyword to itself, a string to its value
 * or to `I` when it could be a property name, a number to its value, a template to its text with
 * names as `I`) and hashed as it is found; `;`, `,`, `(` and `)` are not counted.
 */
export function tokenDigest(text: string): TokenDigest {
  const src = text.indexOf('/') < 0 ? text : text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/(^|[^:\\])\/\/[^\n]*/g, '$1 ');
  const len = src.length;
  let n = 0;
  let a = 0;
  let b = 0;
  let i = 0;
  while (i < len) {
    const c = src.charCodeAt(i);
    const k = c < 128 ? CLASS[c]! : 0;
    if (k & 1) {
      // A name or keyword: [A-Za-z_$][\w$]*
      let j = i + 1;
      for (let d: number; j < len && (d = src.charCodeAt(j)) < 128 && CLASS[d]! & 4; ) j++;
      let kw: { a: number; b: number } | undefined;
      if (j - i <= MAX_KEYWORD) {
        const list = KEYWORD_AT[(j - i) * 128 + c];
        if (list) for (const e of list) if (src.startsWith(e.word, i)) kw = e;
      }
      a = (a + (kw ? kw.a : NAME_A)) | 0;
      b = (b + (kw ? kw.b : NAME_B)) | 0;
      n++;
      i = j;
      continue;
    }
    let j = -1;
    if (k & 2) {
      // A number: \d[\w.]*
      j = i + 1;
      for (let d: number; j < len && (d = src.charCodeAt(j)) < 128 && (CLASS[d]! & 8 || d === 46); ) j++;
    } else if (c === 46 && i + 1 < len && src.charCodeAt(i + 1) < 128 && CLASS[src.charCodeAt(i + 1)]! & 2) {
      // A number: \.\d\w*
      j = i + 2;
      for (let d: number; j < len && (d = src.charCodeAt(j)) < 128 && CLASS[d]! & 8; ) j++;
    } else if (c === 34 || c === 39 || c === 96) {
      // A string or template up to the first quote not escaped; none (a backslash before a line
      // break or the end of the text comes first): the quote alone.
      for (let p = i + 1; p < len; ) {
        const d = src.charCodeAt(p);
        if (d === c) {
          j = p + 1;
          break;
        }
        if (d === 92) {
          if (p + 1 >= len || lineEnd(src.charCodeAt(p + 1))) break;
          p += 2;
        } else p++;
      }
      if (j < 0) j = i + 1;
    } else if (k & 16 || (c >= 128 && wideSpace(c))) {
      i++;
      continue;
    }
    if (j < 0) {
      // Any other character.
      i++;
      if (c === 59 || c === 44 || c === 40 || c === 41) continue;
      if (c < 128) {
        a = (a + CHAR_A[c]!) | 0;
        b = (b + CHAR_B[c]!) | 0;
      } else {
        hash(String.fromCharCode(c));
        a = (a + HA) | 0;
        b = (b + HB) | 0;
      }
      n++;
      continue;
    }
    if (k & 2 && plainInteger(src, i, j)) hashPlainInteger(src, i, j);
    else {
      const t = src.slice(i, j);
      hash(c === 96 ? `t:${t.slice(1, -1).replace(/[A-Za-z_$][\w$]*/g, 'I')}` // names inside ${…} may be renamed
        : c === 34 || c === 39 ? stringKey(cook(t.slice(1, -1)))
          : numberKey(t));
    }
    a = (a + HA) | 0;
    b = (b + HB) | 0;
    n++;
    i = j;
  }
  return { n, a, b };
}

/** The two lanes of `hash` after `n:` (110, 58), before a number's digits. */
const N_PREFIX_A = Math.imul(Math.imul(0x811c9dc5 ^ 110, 0x01000193) ^ 58, 0x01000193);
const N_PREFIX_B = Math.imul(Math.imul(0x3c6ef372 ^ 110, 0x5bd1e995) ^ 58, 0x5bd1e995);

/**
 * Whether `src[i..j)` is a decimal integer that `numberKey` gives back as it is written (`n:` and
 * its digits): no leading zero, no separator, at most 15 digits (exact as a double, printed alike).
 */
function plainInteger(src: string, i: number, j: number): boolean {
  if (j - i > 15 || (src.charCodeAt(i) === 48 && j - i > 1)) return false;
  for (let p = i; p < j; p++) {
    const d = src.charCodeAt(p);
    if (d < 48 || d > 57) return false;
  }
  return true;
}

/** `hash(\`n:${src.slice(i, j)}\`)` without making the string (the common number: see plainInteger). */
function hashPlainInteger(src: string, i: number, j: number): void {
  let a = N_PREFIX_A;
  let b = N_PREFIX_B;
  for (let p = i; p < j; p++) {
    const c = src.charCodeAt(p);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  HA = fmix(a ^ (j - i + 2));
  HB = fmix(b + (j - i + 2));
}

/** A quoted string by its value; one that could be a property name (`{ 'a': 1 }` is `{ a: 1 }`) as a name. */
function stringKey(value: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(value) ? 'I' : /^\d+$/.test(value) ? numberKey(value) : `s:${value}`;
}

const SIMPLE_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', v: '\v', 0: '\0', '\n': '', '\r': '' };

/** The value of a string literal's body: escapes (`\'`, `\n`, `\x41`, `\u{1F600}`) replaced by what they mean. */
function cook(body: string): string {
  if (body.indexOf('\\') < 0) return body;
  return body.replace(/\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|\r\n|[^])/g, (_, e: string) => {
    if (e[0] === 'u' || e[0] === 'x') {
      const code = parseInt(e[1] === '{' ? e.slice(2, -1) : e.slice(1), 16);
      return code <= 0x10ffff ? String.fromCodePoint(code) : e;
    }
    return e === '\r\n' ? '' : SIMPLE_ESCAPES[e] ?? e;
  });
}

/** A number by its value (`0x10`, `16` and `1_6` alike; `.5` and `0.50` alike); a number it cannot read (a word that starts with a digit) as a name. */
function numberKey(t: string): string {
  const v = Number(t.replace(/_/g, ''));
  if (Number.isFinite(v)) return `n:${v}`;
  return /^\d+n$/i.test(t.replace(/_/g, '')) ? `n:${BigInt(t.replace(/_/g, '').slice(0, -1))}n` : 'N';
}
