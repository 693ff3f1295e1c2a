// Registry validation of `budget:` and `acceptance_checks:` (lib/intents/registry.ts), and the glob-overlap
// test of lib/intents/overlap.ts.
import { describe, expect, it } from 'vitest';
import { IntentError } from '../../lib/core/errors.js';
import { globsOverlap, literalPrefix } from '../../lib/intents/overlap.js';
import { checkRegistry, parseRegistry } from '../../lib/intents/registry.js';

/** One intent whose extra lines start on line 6 (after id, name, status, owned_scope). */
function withLines(extra: string): string {
  return `active_intents:\n  - id: "INT-001"\n    name: "N"\n    status: "PENDING"\n    owned_scope: ["src/**"]\n${extra}`;
}

describe('registry: budget', () => {
  it('accepts every key, in block and flow style, and keeps the values', () => {
    const { intents, problems } = checkRegistry(withLines('    budget:\n      max_commits: 20\n      max_changed_lines: 2000\n      expires_at: "2026-03-01T00:00:00Z"\n'));
    expect(problems).toEqual([]);
    expect(intents[0].budget).toEqual({ max_commits: 20, max_changed_lines: 2000, expires_at: '2026-03-01T00:00:00Z' });

    const flow = checkRegistry(withLines('    budget: { max_commits: 1 }\n    acceptance_checks: ["npm test", "npm run lint"]\n'));
    expect(flow.problems).toEqual([]);
    expect(flow.intents[0].budget).toEqual({ max_commits: 1 });
    expect(flow.intents[0].acceptance_checks).toEqual(['npm test', 'npm run lint']);
  });

  it('leaves budget and acceptance_checks out when the registry does not give them', () => {
    const { intents } = checkRegistry(withLines(''));
    expect(Object.keys(intents[0])).not.toContain('budget');
    expect(Object.keys(intents[0])).not.toContain('acceptance_checks');
  });

  it.each([
    ['a negative count', '      max_commits: -3\n', 'budget.max_commits', 20, 'must be a whole number of at least 1, got -3'],
    ['zero', '      max_changed_lines: 0\n', 'budget.max_changed_lines', 26, 'must be a whole number of at least 1, got 0'],
    ['a word', '      max_commits: lots\n', 'budget.max_commits', 20, 'got "lots"'],
    ['a quoted number', '      max_commits: "5"\n', 'budget.max_commits', 20, 'got "5" (write the number without quotes)'],
    ['a fraction', '      max_changed_lines: 2.5\n', 'budget.max_changed_lines', 26, 'got 2.5'],
    ['nothing', '      max_commits:\n', 'budget.max_commits', 19, 'got null'],
    ['an unknown key', '      max_files: 3\n', 'budget.max_files', 7, 'unknown budget key; known keys are max_commits, max_changed_lines, expires_at'],
    ['an unparsable date', '      expires_at: "next tuesday"\n', 'budget.expires_at', 19, 'must be an RFC 3339 date-time string'],
    ['a day that does not exist', '      expires_at: "2026-02-30T00:00:00Z"\n', 'budget.expires_at', 19, 'got "2026-02-30T00:00:00Z"'],
  ])('rejects %s with line, column, intent and field', (_name, line, field, column, message) => {
    const { problems } = checkRegistry(withLines(`    budget:\n${line}`));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ line: 7, column, intent: 'INT-001', field });
    expect(problems[0].message).toContain(message);
  });

  it('reports every bad key of one budget at once, and a budget that is not a mapping', () => {
    const { problems } = checkRegistry(withLines('    budget: { max_commits: -1, max_changed_lines: x, expires_at: 5 }\n'));
    expect(problems.map((p) => [p.line, p.field])).toEqual([[6, 'budget.max_commits'], [6, 'budget.max_changed_lines'], [6, 'budget.expires_at']]);
    const scalar = checkRegistry(withLines('    budget: 10\n'));
    expect(scalar.problems).toMatchObject([{ line: 6, column: 13, field: 'budget', intent: 'INT-001' }]);
    expect(scalar.problems[0].message).toContain('must be a mapping');
    const list = checkRegistry(withLines('    budget: [1]\n'));
    expect(list.problems[0].message).toContain('got a list');
  });

  it('rejects acceptance_checks that are not a list of non-empty strings', () => {
    expect(checkRegistry(withLines('    acceptance_checks: "npm test"\n')).problems).toMatchObject([{ line: 6, field: 'acceptance_checks', message: 'must be a list of strings' }]);
    expect(checkRegistry(withLines('    acceptance_checks: ["npm test", ""]\n')).problems).toMatchObject([{ line: 6, field: 'acceptance_checks[1]' }]);
  });

  it('parseRegistry throws REGISTRY_INVALID naming file:line:column, intent and field', () => {
    let err: unknown;
    try {
      parseRegistry(withLines('    budget:\n      max_commits: -1\n'), '/r/active_intents.yaml');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(IntentError);
    expect((err as IntentError).code).toBe('REGISTRY_INVALID');
    expect((err as IntentError).message).toContain('/r/active_intents.yaml:7:20: intent INT-001, field budget.max_commits: must be a whole number of at least 1, got -1');
  });
});

describe('overlap: literal prefixes and negations', () => {
  it('takes the part before the first glob metacharacter', () => {
    expect(literalPrefix('src/auth/**')).toBe('src/auth/');
    expect(literalPrefix('src/')).toBe('src/');
    expect(literalPrefix('./docs/*.md')).toBe('docs/');
    expect(literalPrefix('src/{a,b}/x')).toBe('src/');
    expect(literalPrefix('**')).toBe('');
    expect(literalPrefix('@types/x.ts')).toBe('@types/x.ts');
  });

  it.each([
    [['src/auth/**'], ['src/**'], true],
    [['src/**'], ['src/auth/**'], true],
    [['src/auth/**'], ['src/billing/**'], false],
    [['src/a*'], ['src/b*'], false],
    [['**'], ['docs/**'], true],
    [['src/**', '!src/auth/**'], ['src/auth/**'], false],
    [['src/auth/**'], ['src/**', '!src/auth/legacy/**'], true],
    [['src/middleware/jwt.ts'], ['src/**'], true],
    [['src/middleware/jwt.ts'], ['src/**', '!src/middleware/**'], false],
    [['src/auth'], ['src/auth/x/**'], false],
    [['src/auth/'], ['src/auth/x.ts'], true],
  ])('%j and %j overlap: %s', (a, b, want) => {
    expect(globsOverlap(a, b) !== null).toBe(want);
    expect(globsOverlap(b, a) !== null).toBe(want);
  });
});
