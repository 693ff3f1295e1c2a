/*
 * The flow of a comparison: each file goes to the syntax comparison (TS/JS, when the compiler
 * is available), to the token fallback (other languages, files over 2 MB) or is a problem in itself
 * (binary); the change is AST_REFACTOR only when no file has a problem. Nothing here throws.
 */
import type { MutationClass } from '../classes.js';
import { syntaxOf } from '../languages.js';
import { type AstVerdict, type ChangeVerdict, type Entry, type SourceChange, firstProblem, hasNul, toEntry, tooBig } from './entries.js';
import { compareFallback } from './fallback.js';
import { compareSyntax } from './match.js';
import { loadTypeScript } from './sides.js';
import { sameTrees } from './same-tree.js';

export type { MutationClass };

/** Compares one file's old and new text (null = absent). `path` decides the language by extension. */
export function classifySource(path: string, oldText: string | null, newText: string | null): AstVerdict {
  const v = classifyChange([{ path, oldText, newText }]);
  return v.files[String(path)] ?? verdict(v.reason);
}

/**
 * Classifies a whole change: AST_REFACTOR only when every file is, where declarations may move
 * between files (a function removed from a.ts and added, equal up to formatting and consistent
 * renames, to b.ts is a move). Returns per-file verdicts and the change's class with the first reason.
 */
export function classifyChange(files: readonly SourceChange[]): ChangeVerdict {
  try {
    return assemble(analyse(Array.isArray(files) ? files : []));
  } catch {
    try {
      return assemble((Array.isArray(files) ? files : []).map((f, i) => safeFallback(toEntry(f, i))));
    } catch {
      return { class: 'INTENT_EVOLUTION', files: {}, reason: 'could not compare the change' };
    }
  }
}

function assemble(entries: Entry[]): ChangeVerdict {
  const out: Record<string, AstVerdict> = {};
  let reason: string | undefined;
  for (const e of entries) {
    const first = firstProblem(e);
    const v = verdict(first);
    if (!out[e.key] || out[e.key].class === 'AST_REFACTOR') out[e.key] = v;
    if (first !== undefined && reason === undefined) reason = first;
  }
  if (!entries.length) reason = 'no files changed';
  return { class: reason === undefined ? 'AST_REFACTOR' : 'INTENT_EVOLUTION', files: out, ...(reason !== undefined ? { reason } : {}) };
}

function verdict(reason: string | undefined): AstVerdict {
  return reason === undefined ? { class: 'AST_REFACTOR' } : { class: 'INTENT_EVOLUTION', reason };
}

function analyse(files: readonly SourceChange[]): Entry[] {
  const entries = files.map(toEntry);
  const syntax: Entry[] = [];
  const unchangedSyntax: Entry[] = [];
  const fallback: { e: Entry; note: string }[] = [];
  for (const e of entries) {
    const kind = syntaxOf(e.new !== null ? e.path : e.oldPath);
    if (e.old === e.new) {
      if (kind && e.old !== null && !hasNul(e.old) && !tooBig(e.old)) unchangedSyntax.push(e);
      continue;
    }
    if (hasNul(e.old) || hasNul(e.new)) {
      const what =
        e.old === null ? `new binary file ${e.path}` : e.new === null ? `binary file ${e.oldPath} deleted` : `binary file ${e.path} changed`;
      e.problems.push({ line: 0, reason: what });
    } else if (!kind) fallback.push({ e, note: '(no syntax comparison for this language)' });
    else if (tooBig(e.old) || tooBig(e.new)) fallback.push({ e, note: '(file over 2 MB: no syntax comparison)' });
    else syntax.push(e);
  }
  if (syntax.length) {
    const ts = loadTypeScript();
    // Every changed file's tree as it was (comments, layout): nothing for the full comparison to find.
    if (ts && sameTrees(ts, syntax)) { /* AST_REFACTOR: no problem to record */ }
    else if (ts) compareSyntax(ts, entries, syntax, unchangedSyntax);
    else for (const e of syntax) fallback.push({ e, note: '(TypeScript compiler not available: no syntax comparison)' });
  }
  compareFallback(fallback);
  return entries;
}

/** When anything unexpected happens: compare this file's tokens, never throw. */
function safeFallback(e: Entry): Entry {
  try {
    e.problems = [];
    if (e.old === e.new) return e;
    if (hasNul(e.old) || hasNul(e.new)) e.problems.push({ line: 0, reason: `binary file ${e.path} changed` });
    else compareFallback([{ e, note: '(no syntax comparison available)' }]);
  } catch {
    e.problems = [{ line: 0, reason: `could not compare ${e.path}` }];
  }
  return e;
}
