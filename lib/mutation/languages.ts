/**
 * Which files the syntax comparison parses with the TypeScript compiler (TS and JS, by
 * extension); every other language gets a token comparison that needs no compiler. A light module
 * of its own: pre-commit asks it before predicting whether post-commit will need the compiler.
 */
import { posix } from 'node:path';

export type SyntaxKindName = 'ts' | 'tsx' | 'js' | 'jsx';

const SYNTAX_EXT: Record<string, SyntaxKindName> = {
  '.ts': 'ts', '.mts': 'ts', '.cts': 'ts', '.tsx': 'tsx',
  '.js': 'js', '.mjs': 'js', '.cjs': 'js', '.jsx': 'jsx',
};

/** The TypeScript compiler's script kind for `path`, or undefined when it is not parsed. */
export function syntaxOf(path: string): SyntaxKindName | undefined {
  return SYNTAX_EXT[posix.extname(path).toLowerCase()];
}
