/*
 * Parser: the tokenizer's tokens as a flat list of simple commands (words and redirections),
 * subshell and group brackets, and function definitions.
 */
import { isAssignment } from './environment.js';
import { ParseError, type Redir, type Token, type Word } from './tokenizer.js';

export interface Simple {
  kind: 'cmd';
  words: Word[];
  redirs: Redir[];
  /** The operator before and after it: ; && || | |& & \n ( ) or '' at the ends. */
  prevOp: string;
  nextOp: string;
}

type Entry = Simple | { kind: 'open' } | { kind: 'close' } | { kind: 'func'; name: string };

export function parse(tokens: Token[]): Entry[] {
  const out: Entry[] = [];
  let words: Word[] = [];
  let redirs: Redir[] = [];
  let prevOp = '';
  let depth = 0;
  const flush = (nextOp: string): void => {
    if (words.length || redirs.length) out.push({ kind: 'cmd', words, redirs, prevOp, nextOp });
    words = [];
    redirs = [];
    prevOp = nextOp;
  };
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.kind === 'word') words.push(t.word);
    else if (t.kind === 'redir') redirs.push(t.redir);
    else if (t.op === '(') {
      const next = tokens[i + 1];
      const name = functionName(words, redirs);
      if (name !== null && next?.kind === 'op' && next.op === ')') {
        out.push({ kind: 'func', name });
        words = [];
        redirs = [];
        prevOp = ';';
        i++;
        continue;
      }
      if (words.length || redirs.length) throw new ParseError('a "(" appears in the middle of a command');
      out.push({ kind: 'open' });
      depth++;
      prevOp = '(';
    } else if (t.op === ')') {
      flush(')');
      if (--depth < 0) throw new ParseError('a ")" has no matching "("');
      out.push({ kind: 'close' });
    } else flush(t.op);
  }
  flush('');
  if (depth !== 0) throw new ParseError('a "(" is not closed');
  return out;
}

function functionName(words: Word[], redirs: Redir[]): string | null {
  if (redirs.length) return null;
  if (words.length === 1) return words[0].text;
  if (words.length === 2 && words[0].text === 'function') return words[1].text;
  return null;
}

export const KEYWORDS = new Set(['!', '{', '}', 'if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until', 'esac']);

export function programStart(words: Word[]): number {
  let i = 0;
  while (i < words.length && isAssignment(words[i])) i++;
  while (i < words.length && KEYWORDS.has(words[i].text) && !words[i].quoted) i++;
  return i;
}

export function commandName(words: Word[]): string {
  const w = words[programStart(words)];
  return w ? baseName(w.text) : '';
}

export function baseName(text: string): string {
  return text.slice(text.lastIndexOf('/') + 1);
}
