/**
 * mutation: is a change a refactor (AST_REFACTOR) or new behaviour (INTENT_EVOLUTION)? The classes
 * and the byte-level rules (classes), a cheap token pre-filter that settles most changes
 * (classify), the syntax comparison that loads the TypeScript compiler only when needed (syntax/),
 * the V8 code cache that loads that compiler in a fraction of its compile time (ts-cache), the
 * token signature (tokens) and the languages the compiler parses (languages), post-commit's
 * traced classification (classify-commit), and the commit-msg check of an `Intent-Mutation:` claim (claim).
 * Imports: core, git.
 */
export { classifyChanges } from './classify.js';
export type { MutationClass } from './classes.js';
export { useTypeScriptCodeCache } from './ts-cache.js';
