import { isUtf8 } from 'node:buffer';

// Git file names are bytes; notes, the ledger and messages are UTF-8 text. A name whose bytes are
// UTF-8 is written as itself. A name that is not UTF-8 cannot be (decoding would turn each bad
// byte into U+FFFD, so two names could become one): it is written the way git quotes it with
// core.quotePath, double quotes included, e.g. "src/caf\351.txt". So that this stays unambiguous,
// a name that itself starts with a double quote is written quoted too. Everything that compares
// names (notes with diffs, verify, the scope check) sees the same form.

const ESCAPES: Record<number, string> = { 7: 'a', 8: 'b', 9: 't', 10: 'n', 11: 'v', 12: 'f', 13: 'r', 34: '"', 92: '\\' };
const UNESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92 };

/** The bytes of a name as git prints it: as is, or C-quoted ("a\303\251", with core.quotePath). */
export function unquoteBytes(s: string): Buffer {
  if (!s.startsWith('"') || !s.endsWith('"') || s.length < 2) return Buffer.from(s, 'utf8');
  const bytes: number[] = [];
  for (let i = 1; i < s.length - 1; i++) {
    const c = s[i];
    if (c !== '\\') {
      bytes.push(...Buffer.from(c, 'utf8'));
      continue;
    }
    const n = s[++i];
    if (n >= '0' && n <= '7') {
      bytes.push(Number.parseInt(s.slice(i, i + 3), 8));
      i += 2;
    } else bytes.push(UNESCAPES[n] ?? n.charCodeAt(0));
  }
  return Buffer.from(bytes);
}

/** Git's C-style quoting of a name (core.quotePath=true): printable ASCII as is, the rest escaped. */
export function cQuote(bytes: Buffer): string {
  let out = '"';
  for (const b of bytes) {
    if (ESCAPES[b] !== undefined) out += `\\${ESCAPES[b]}`;
    else if (b < 0x20 || b >= 0x7f) out += `\\${b.toString(8).padStart(3, '0')}`;
    else out += String.fromCharCode(b);
  }
  return `${out}"`;
}

/** The form a name is recorded and compared in (see the top of this file). */
export function recordPath(bytes: Buffer): string {
  return isUtf8(bytes) && bytes[0] !== 0x22 ? bytes.toString('utf8') : cQuote(bytes);
}

/** A name as git prints it (plain or C-quoted) in its recorded form. */
export function recordPathOf(printed: string): string {
  return printed.startsWith('"') ? recordPath(unquoteBytes(printed)) : printed;
}

/**
 * The name the scope's globs are matched against: the recorded form decoded (a byte that is not
 * UTF-8 becomes U+FFFD, which no glob names, so only wildcards match it).
 */
export function matchName(recorded: string): string {
  return recorded.startsWith('"') ? unquoteBytes(recorded).toString('utf8') : recorded;
}

/** The NUL-separated fields of `git … -z` output, as bytes. */
export function splitNulBytes(out: Buffer): Buffer[] {
  const fields: Buffer[] = [];
  let start = 0;
  for (let i = out.indexOf(0); i !== -1; i = out.indexOf(0, start)) {
    fields.push(out.subarray(start, i));
    start = i + 1;
  }
  if (start < out.length) fields.push(out.subarray(start));
  return fields;
}

/** The recorded forms of the NUL-separated names of `git … -z` output (raw bytes). */
export function splitNulPaths(out: Buffer): string[] {
  return splitNulBytes(out).map(recordPath);
}
