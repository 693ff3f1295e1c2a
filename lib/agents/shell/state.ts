/*
 * The classifier's state while it walks a line: the caller's context, the directory a cd led to,
 * how deep it has nested, what the command reads on its standard input, and the classifier itself
 * (programs that run other commands, such as xargs or sh -c, classify them through it).
 */
import { type Word } from './tokenizer.js';
import { type CommandContext, type Verdict } from './verdict.js';

export type Stdin = { kind: 'none' } | { kind: 'pipe'; download: boolean } | { kind: 'text'; word: Word | null };

export interface State {
  ctx: CommandContext;
  /** Where the command runs; null after a cd we cannot follow. */
  cwd: string | null;
  depth: number;
  stdin: Stdin;
  /** The classifier, for the programs that run other commands (passed here so that their modules need not import it back). */
  classify: Classifier;
}

/** Classifies a nested command: a whole line (sh -c, eval) or the words of one simple command (xargs, sudo, find -exec). */
export interface Classifier {
  line(text: string, st: State): Verdict;
  words(words: Word[], st: State): Verdict;
}

export const NO_STDIN: Stdin = { kind: 'none' };
