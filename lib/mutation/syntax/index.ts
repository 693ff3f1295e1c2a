/**
 * The syntax comparison: is a change a behaviour-preserving refactor (AST_REFACTOR) or does it
 * change what the code does (INTENT_EVOLUTION)? The only way into this folder.
 *
 * TS/JS files are parsed with the TypeScript compiler API (loaded lazily, only when a TS/JS file
 * actually changed) and compared as canonical token streams, one per top-level declaration or
 * statement (and per member of a top-level class):
 * - trivia (whitespace, comments, semicolons, trailing commas, redundant parentheses), quote style
 *   and numeric spelling do not count;
 * - names declared in the file are compared by binding, not by spelling: locals and parameters
 *   get an index per unit, file-scope declarations and private class members take part in one
 *   bijection over the whole change, so a consistent rename (also across files, through the
 *   imports of files in the same change) is a refactor and an inconsistent one is not;
 * - hoisted declarations may be reordered and moved between files; statements that run code keep
 *   their order and their file.
 * Other languages get a whitespace-insensitive token comparison. Nothing here throws.
 *
 * Its modules, by phase: classify (the flow: which comparison each file gets), entries (the files
 * of a change and the result types), fallback (the token comparison), sides (the compiler, each
 * side's parsed files), ast (helpers over the syntax tree: symbol keys, exports, labels), canon
 * (canonical token streams per unit), match (one bijection of renameable symbols over the change),
 * same-tree (the shortcut for changes that leave every parse tree as it was: comments, layout),
 * trivia (its proof, without a second parse, that a change touched only comments and whitespace).
 */
export { classifyChange, classifySource, type MutationClass } from './classify.js';
export type { AstVerdict, ChangeVerdict, SourceChange } from './entries.js';
export { unchangedTrees } from './same-tree.js';
