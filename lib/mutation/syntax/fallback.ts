/*
 * Fallback for languages without a parser: a whitespace-insensitive token comparison (indentation
 * kept for the languages where it is syntax), which moves may not cross.
 */
import { posix } from 'node:path';
import { type Entry } from './entries.js';

const INDENT_LANGS = new Set([
  '.py', '.pyi', '.pyw', '.yaml', '.yml', '.coffee', '.pug', '.jade', '.sass', '.styl', '.haml', '.slim', '.nim', '.fs', '.fsx', '.mk',
]);

const FREE_FORM = new Set([
  '.json', '.jsonc', '.json5', '.css', '.scss', '.less', '.c', '.h', '.cc', '.cpp', '.cxx', '.hpp', '.hh', '.hxx',
  '.java', '.cs', '.rs', '.proto', '.graphql', '.gql', '.sql',
]);

const BRACKETS = '()[]{},;';

function isWordChar(c: string): boolean {
  const k = c.charCodeAt(0);
  if (k < 128) return (k >= 48 && k <= 57) || (k >= 65 && k <= 90) || (k >= 97 && k <= 122) || k === 95 || k === 36;
  return /[\p{L}\p{N}\p{M}]/u.test(c);
}

/**
 * Tokens of a text in a language we cannot parse: whitespace between tokens and blank lines do not
 * count, string literals are kept verbatim, line breaks count (except in free-form languages and
 * inside Python brackets) and indentation counts as nesting depth in indentation-sensitive languages.
 */
function fallbackTokens(path: string, text: string): string[] {
  const name = posix.basename(path).toLowerCase();
  const ext = posix.extname(name);
  const makefile = name === 'makefile' || name === 'gnumakefile' || ext === '.mk';
  const indent = INDENT_LANGS.has(ext) || makefile;
  const free = FREE_FORM.has(ext);
  const python = ext === '.py' || ext === '.pyi' || ext === '.pyw';
  const out: string[] = [];
  const stack = [0];
  const n = text.length;
  let depth = 0;
  let i = 0;
  let lineStart = true;
  while (i < n) {
    if (lineStart) {
      lineStart = false;
      let j = i;
      let width = 0;
      let tab = false;
      while (j < n && (text[j] === ' ' || text[j] === '\t' || text[j] === '\f')) {
        if (text[j] === '\t') {
          tab = true;
          width += 8 - (width % 8);
        } else width++;
        j++;
      }
      i = j;
      if (j >= n || text[j] === '\n' || text[j] === '\r') continue;
      if (!free && !(python && depth > 0)) {
        let tok = '\n';
        if (indent) {
          if (width > stack[stack.length - 1]) stack.push(width);
          else while (stack.length > 1 && width < stack[stack.length - 1]) stack.pop();
          tok += width === stack[stack.length - 1] ? String(stack.length - 1) : `?${width}`;
          if (makefile && tab) tok += 't';
        }
        out.push(tok);
      }
      continue;
    }
    const c = text[i];
    if (c === '\n') {
      lineStart = true;
      i++;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r' || c === '\f' || c === '\v') {
      i++;
      continue;
    }
    if (c === '"' || c === "'" || c === '`') {
      const triple = python && text.startsWith(c + c + c, i);
      const q = triple ? c + c + c : c;
      let j = i + q.length;
      while (j < n) {
        if (text[j] === '\\') {
          j += 2;
          continue;
        }
        if (text.startsWith(q, j)) {
          j += q.length;
          break;
        }
        if (!triple && c !== '`' && text[j] === '\n') break;
        j++;
      }
      j = Math.min(j, n);
      out.push(text.slice(i, j));
      i = j;
      continue;
    }
    if (isWordChar(c)) {
      let j = i + 1;
      while (j < n && isWordChar(text[j])) j++;
      out.push(text.slice(i, j));
      i = j;
      continue;
    }
    if (BRACKETS.includes(c)) {
      out.push(c);
      if (c === '(' || c === '[' || c === '{') depth++;
      else if ((c === ')' || c === ']' || c === '}') && depth > 0) depth--;
      i++;
      continue;
    }
    let j = i + 1;
    while (j < n) {
      const d = text[j];
      if (d === ' ' || d === '\t' || d === '\n' || d === '\r' || d === '"' || d === "'" || d === '`' || BRACKETS.includes(d) || isWordChar(d)) break;
      j++;
    }
    out.push(text.slice(i, j));
    i = j;
  }
  return out;
}

function fallbackKey(path: string, text: string): string {
  return fallbackTokens(path, text).join('\0');
}

export function compareFallback(items: { e: Entry; note: string }[]): void {
  const added: Entry[] = [];
  const deleted: Entry[] = [];
  for (const { e, note } of items) {
    if (e.old === null) added.push(e);
    else if (e.new === null) deleted.push(e);
    else if (fallbackKey(e.path, e.old) !== fallbackKey(e.path, e.new)) e.problems.push({ line: 0, reason: `changed lines in ${e.path} ${note}` });
  }
  // A file deleted here and added there with the same tokens is a move.
  const used = new Set<Entry>();
  for (const a of added) {
    const key = fallbackKey(a.path, a.new as string);
    const ext = posix.extname(a.path).toLowerCase();
    const d = deleted.find((x) => !used.has(x) && posix.extname(x.oldPath).toLowerCase() === ext && fallbackKey(x.oldPath, x.old as string) === key);
    if (d) used.add(d);
    else a.problems.push({ line: 0, reason: `new file ${a.path}` });
  }
  for (const d of deleted) if (!used.has(d)) d.problems.push({ line: 0, reason: `file ${d.oldPath} deleted` });
}
