// Each error code's data is typed (ErrorData in lib/core/errors.ts, with the entries of
// lib/*/error-data.ts) and docs/errors.md lists it as the types say: the doc's generated part is
// current, every code has an entry, and the compiler refuses data of the wrong shape.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { errorTypes, updatedDoc } from '../../scripts/error-docs.mjs';

const ROOT = resolve(import.meta.dirname, '../..');

/** The compiler's errors for `body`, type-checked as a module of lib/ that imports the error types. */
function typeErrors(body: string): string[] {
  const file = join(ROOT, 'lib/__error-data-check.ts');
  const text = `import { IntentError, type AnyIntentError } from './core/errors.js';\nimport type {} from './intents/error-data.js';\nimport type {} from './lifecycle/error-data.js';\n${body}\n`;
  const cfg = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!;
  const host = ts.createCompilerHost({ ...cfg.options, noEmit: true, incremental: false });
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (name, lang, ...rest) => (resolve(name) === file ? ts.createSourceFile(name, text, lang) : read(name, lang, ...rest));
  const program = ts.createProgram([file, join(ROOT, 'lib/intents/error-data.ts'), join(ROOT, 'lib/lifecycle/error-data.ts')], { ...cfg.options, noEmit: true, incremental: false }, host);
  return program.getSemanticDiagnostics(program.getSourceFile(file)).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('error data', () => {
  it('docs/errors.md lists every code with its data as the types declare it (node scripts/error-docs.mjs rewrites it)', () => {
    const doc = readFileSync(join(ROOT, 'docs/errors.md'), 'utf8');
    expect(updatedDoc(doc, ROOT), 'docs/errors.md differs from the types: run node scripts/error-docs.mjs').toBe(doc);
    const { codes, entries } = errorTypes(ROOT) as { codes: string[]; entries: Map<string, unknown> };
    expect(codes.length).toBeGreaterThan(30);
    expect(codes.filter((c) => !entries.has(c))).toEqual([]);
    for (const c of codes) expect(doc).toContain(`### ${c}\n`);
  });

  it('the compiler accepts each code\'s own data and refuses another shape', () => {
    const errors = typeErrors(`
      export const ok = [
        new IntentError('SCOPE_VIOLATION', 'm', { intent: 'INT-1', paths: ['a'], scope: ['src/**'] }),
        new IntentError('BUDGET_EXCEEDED', 'm', { intent: 'INT-1', limit: 'max_commits', max: 1, used: 1, would_be: 2 }),
        new IntentError('CHECK_FAILED', 'm', { intent: 'INT-1', check: { index: 1, command: 'x', passed: false, exit_code: 1, signal: null, timed_out: false, duration_ms: 1, log: 'l' }, checks: [], skipped: [], worktree: 'w' }),
      ];
      export function paths(e: AnyIntentError): string[] {
        return e.code === 'SCOPE_VIOLATION' && 'paths' in e.data ? e.data.paths : [];
      }
      // @ts-expect-error SCOPE_VIOLATION needs paths and scope with its intent
      export const missing = new IntentError('SCOPE_VIOLATION', 'm', { intent: 'INT-1' });
      // @ts-expect-error STALE_FILE has no field 'hash'
      export const extra = new IntentError('STALE_FILE', 'm', { path: 'a', expected: null, found: null, hash: 'x' });
      // @ts-expect-error an unknown status
      export const status = new IntentError('INTENT_EXISTS', 'm', { intent: 'INT-1', path: 'p', status: 'DONE' });
      // @ts-expect-error expires_at is the limit of an expiry, with no max
      export const budget = new IntentError('BUDGET_EXCEEDED', 'm', { intent: 'INT-1', limit: 'expires_at', max: 1, now: 'n' });
    `);
    // Each @ts-expect-error above must be used (else TS2578), and nothing else may fail.
    expect(errors).toEqual([]);
  });

  it('a refusal told anew keeps its code and data (the JSON agents read)', async () => {
    const { IntentError } = await import('../../lib/core/errors.js');
    const e = new IntentError('SCOPE_VIOLATION', 'first', { intent: 'INT-1', paths: ['a'], scope: ['src/**'] });
    const again = e.withMessage('second', { breaker: { open: true, reason: 'r' } });
    expect(JSON.parse(JSON.stringify(again))).toEqual({
      code: 'SCOPE_VIOLATION',
      message: 'second',
      data: { intent: 'INT-1', paths: ['a'], scope: ['src/**'], breaker: { open: true, reason: 'r' } },
    });
    expect(again instanceof IntentError).toBe(true);
  });
});
