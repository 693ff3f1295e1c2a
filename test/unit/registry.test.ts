import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IntentError } from '../../lib/core/errors.js';
import { checkRegistry, loadRegistry, parseRegistry, registryError, type Intent, type RegistryProblem } from '../../lib/intents/registry.js';
import { setIntentStatus } from '../../lib/intents/registry-edit.js';
import { tempDir } from '../helpers.js';

/** The example of MISSION.md, every field present. */
const FULL = `active_intents:
  - id: "INT-001"
    name: "JWT Authentication Migration"
    status: "IN_PROGRESS"        # PENDING | IN_PROGRESS | BLOCKED | COMPLETED | ABANDONED
    owned_scope: ["src/auth/**", "src/middleware/jwt.ts", "!src/auth/legacy/**"]
    constraints: ["Must not use external auth providers"]
    acceptance_criteria: ["Unit tests in tests/auth/ pass"]
    assigned_agent: "agent-builder-01"          # optional
    related_specs: [{ type: "specification", value: "REQ-001" }]   # optional
    created_at: "2026-02-16T12:00:00Z"           # optional
    updated_at: "2026-02-17T15:30:00Z"           # optional
`;

/** Fields of one well-formed intent, in order; line of field k is k + 2. */
const BASE: [string, string][] = [
  ['id', '"INT-001"'],
  ['name', '"N"'],
  ['status', '"PENDING"'],
  ['owned_scope', '["src/**"]'],
];

/**
 * A registry with one intent: BASE with `over` applied (a value replaces, null removes, a new key
 * is appended after owned_scope, i.e. on line 6, 7, …).
 */
function one(over: Record<string, string | null> = {}): string {
  const fields: [string, string][] = [];
  for (const [k, v] of BASE) {
    if (!(k in over)) fields.push([k, v]);
    else if (over[k] !== null) fields.push([k, over[k]!]);
  }
  for (const [k, v] of Object.entries(over)) if (!BASE.some(([b]) => b === k) && v !== null) fields.push([k, v]);
  return `active_intents:\n${fields.map(([k, v], i) => `${i === 0 ? '  - ' : '    '}${k}:${v === '' ? '' : ` ${v}`}\n`).join('')}`;
}

interface Expected {
  line: number | undefined;
  column?: number;
  intent: string | undefined;
  field: string | undefined;
  message: string;
}

const KNOWN = 'known fields are id, name, status, owned_scope';
const STATUS_LIST = 'use one of PENDING, IN_PROGRESS, BLOCKED, COMPLETED, ABANDONED';

const CASES: [string, string, Expected[]][] = [
  // --- YAML level: every syntax error must say where it is.
  ['YAML syntax error (nested mapping)', 'active_intents:\n  - id: "INT-001"\n    name: "N": x\n    status: "PENDING"\n',
    [{ line: 3, column: 11, intent: undefined, field: undefined, message: 'YAML syntax error: Nested mappings are not allowed' }]],
  ['YAML syntax error (junk after a value)', one({ status: '"PENDING" x' }),
    [{ line: 4, column: 23, intent: undefined, field: undefined, message: 'YAML syntax error: Unexpected scalar' }]],
  ['unclosed quote', 'active_intents:\n  - id: "INT-001"\n    name: "N\n    status: "PENDING"\n',
    [{ line: 3, column: 13, intent: undefined, field: undefined, message: 'Missing closing "quote' }]],
  ['tab indentation', 'active_intents:\n\t- id: "INT-001"\n',
    [{ line: 2, column: 1, intent: undefined, field: undefined, message: 'Tabs are not allowed as indentation' }]],
  ['multiple documents', `${one()}---\nactive_intents: []\n`,
    [{ line: 6, column: 1, intent: undefined, field: undefined, message: 'multiple documents' }]],
  ['duplicate key in a mapping', 'active_intents:\n  - id: "INT-001"\n    name: "N"\n    name: "M"\n    status: "PENDING"\n    owned_scope: ["src/**"]\n',
    [{ line: 4, column: 5, intent: undefined, field: undefined, message: 'Map keys must be unique' }]],
  // --- file shape
  ['top-level list', '- id: "INT-001"\n- id: "INT-002"\n',
    [{ line: 1, column: 1, intent: undefined, field: undefined, message: 'must be a mapping with an `active_intents:` list' }]],
  ['top-level scalar', 'INT-001\n',
    [{ line: 1, column: 1, intent: undefined, field: undefined, message: 'must be a mapping with an `active_intents:` list' }]],
  ['missing active_intents', 'intents: []\n', [
    { line: 1, column: 1, intent: undefined, field: undefined, message: 'unknown top-level key "intents"' },
    { line: 1, column: 1, intent: undefined, field: undefined, message: 'missing the `active_intents:` list' },
  ]],
  ['active_intents is a string', 'active_intents: "INT-001"\n',
    [{ line: 1, column: 17, intent: undefined, field: 'active_intents', message: 'must be a list of intents' }]],
  ['active_intents is a mapping', 'active_intents:\n  INT-001: {}\n',
    [{ line: 2, column: 3, intent: undefined, field: 'active_intents', message: 'must be a list of intents' }]],
  ['unknown top-level key', `${one()}version: 2\n`,
    [{ line: 6, column: 1, intent: undefined, field: undefined, message: 'unknown top-level key "version"; only "active_intents" is allowed' }]],
  ['item is a scalar', 'active_intents:\n  - INT-001\n',
    [{ line: 2, column: 5, intent: undefined, field: 'active_intents[0]', message: 'each intent must be a mapping' }]],
  ['item is empty', 'active_intents:\n  -\n  - id: "INT-002"\n',
    [{ line: 2, intent: undefined, field: 'active_intents[0]', message: 'each intent must be a mapping' },
      { line: 3, column: 5, intent: 'INT-002', field: 'name', message: 'missing' },
      { line: 3, column: 5, intent: 'INT-002', field: 'status', message: 'missing; one of PENDING' },
      { line: 3, column: 5, intent: 'INT-002', field: 'owned_scope', message: 'missing; list the path globs' }]],
  // --- id
  ['missing id', one({ id: null }),
    [{ line: 2, column: 5, intent: 'active_intents[0]', field: 'id', message: 'missing; every intent needs an id' }]],
  ['numeric id', one({ id: '1' }),
    [{ line: 2, column: 9, intent: 'active_intents[0]', field: 'id', message: 'must be a string such as "INT-001", got 1 (quote it)' }]],
  ['id with a space', one({ id: '"INT 001"' }),
    [{ line: 2, column: 9, intent: 'INT 001', field: 'id', message: '"INT 001" is not a valid id' }]],
  ['id with a slash', one({ id: '"INT/001"' }),
    [{ line: 2, column: 9, intent: 'INT/001', field: 'id', message: '"INT/001" is not a valid id' }]],
  ['id longer than 64', one({ id: `"${'A'.repeat(65)}"` }),
    [{ line: 2, column: 9, intent: 'A'.repeat(65), field: 'id', message: 'is not a valid id' }]],
  ['duplicate ids', `${one()}  - id: "INT-001"\n    name: "M"\n    status: "PENDING"\n    owned_scope: ["lib/**"]\n`,
    [{ line: 6, column: 9, intent: 'INT-001', field: 'id', message: 'duplicate id; "INT-001" is already defined on line 2' }]],
  // --- name, status
  ['missing name', one({ name: null }),
    [{ line: 2, column: 5, intent: 'INT-001', field: 'name', message: 'missing' }]],
  ['empty name', one({ name: '""' }),
    [{ line: 3, column: 11, intent: 'INT-001', field: 'name', message: 'must be a non-empty string, got ""' }]],
  ['blank name', one({ name: '"   "' }),
    [{ line: 3, column: 11, intent: 'INT-001', field: 'name', message: 'must be a non-empty string, got "   "' }]],
  ['null name', one({ name: '' }),
    [{ line: 3, intent: 'INT-001', field: 'name', message: 'must be a non-empty string, got null' }]],
  ['numeric name', one({ name: '12' }),
    [{ line: 3, column: 11, intent: 'INT-001', field: 'name', message: 'must be a non-empty string, got 12' }]],
  ['missing status', one({ status: null }),
    [{ line: 2, column: 5, intent: 'INT-001', field: 'status', message: 'missing; one of PENDING, IN_PROGRESS' }]],
  ['unknown status', one({ status: '"DONE"' }),
    [{ line: 4, column: 13, intent: 'INT-001', field: 'status', message: `unknown status "DONE"; ${STATUS_LIST}` }]],
  ['lowercase status', one({ status: 'in_progress' }),
    [{ line: 4, column: 13, intent: 'INT-001', field: 'status', message: 'unknown status "in_progress"' }]],
  ['numeric status', one({ status: '1' }),
    [{ line: 4, column: 13, intent: 'INT-001', field: 'status', message: 'unknown status 1;' }]],
  // --- owned_scope
  ['missing owned_scope', one({ owned_scope: null }),
    [{ line: 2, column: 5, intent: 'INT-001', field: 'owned_scope', message: 'missing; list the path globs this intent may edit' }]],
  ['owned_scope is a string', one({ owned_scope: '"src/**"' }),
    [{ line: 5, column: 18, intent: 'INT-001', field: 'owned_scope', message: 'must be a list of path globs' }]],
  ['owned_scope is null', one({ owned_scope: '' }),
    [{ line: 5, intent: 'INT-001', field: 'owned_scope', message: 'must be a list of path globs' }]],
  ['empty owned_scope', one({ owned_scope: '[]' }),
    [{ line: 5, column: 18, intent: 'INT-001', field: 'owned_scope', message: 'is empty; an intent must own at least one path glob' }]],
  ['empty glob', one({ owned_scope: '["src/**", ""]' }),
    [{ line: 5, column: 29, intent: 'INT-001', field: 'owned_scope[1]', message: '"" is empty' }]],
  ['absolute glob', one({ owned_scope: '["/etc/**"]' }),
    [{ line: 5, column: 19, intent: 'INT-001', field: 'owned_scope[0]', message: '"/etc/**" is an absolute path' }]],
  ['Windows absolute glob', one({ owned_scope: '["C:\\\\src\\\\**"]' }),
    [{ line: 5, column: 19, intent: 'INT-001', field: 'owned_scope[0]', message: '"C:\\src\\**" is an absolute path' }]],
  ['Windows absolute glob with slashes', one({ owned_scope: '["D:/src/**"]' }),
    [{ line: 5, column: 19, intent: 'INT-001', field: 'owned_scope[0]', message: 'is an absolute path' }]],
  ['.. glob', one({ owned_scope: '["src/../../etc/**"]' }),
    [{ line: 5, column: 19, intent: 'INT-001', field: 'owned_scope[0]', message: 'contains ".." and would leave the repository' }]],
  ['backslash glob', one({ owned_scope: '["src\\\\auth\\\\**"]' }),
    [{ line: 5, column: 19, intent: 'INT-001', field: 'owned_scope[0]', message: 'contains a backslash; use "/" as the separator' }]],
  ['non-string glob', one({ owned_scope: '["src/**", 5]' }),
    [{ line: 5, column: 29, intent: 'INT-001', field: 'owned_scope[1]', message: 'must be a string, got number 5' }]],
  ['null glob', one({ owned_scope: '[null]' }),
    [{ line: 5, column: 19, intent: 'INT-001', field: 'owned_scope[0]', message: 'must be a string, got null' }]],
  ['mapping glob', one({ owned_scope: '[{ path: "src/**" }]' }),
    [{ line: 5, column: 19, intent: 'INT-001', field: 'owned_scope[0]', message: 'must be a string, got a mapping' }]],
  ['unbalanced bracket glob', one({ owned_scope: '["src/[ab.ts"]' }),
    [{ line: 5, column: 19, intent: 'INT-001', field: 'owned_scope[0]', message: '"src/[ab.ts" has unbalanced brackets or braces' }]],
  ['unbalanced brace glob', one({ owned_scope: '["src/{a,b.ts"]' }),
    [{ line: 5, column: 19, intent: 'INT-001', field: 'owned_scope[0]', message: 'has unbalanced brackets or braces' }]],
  ['glob with surrounding spaces', one({ owned_scope: '[" src/**"]' }),
    [{ line: 5, column: 19, intent: 'INT-001', field: 'owned_scope[0]', message: 'has leading or trailing whitespace' }]],
  ['double negation', one({ owned_scope: '["src/**", "!!src/a"]' }),
    [{ line: 5, column: 29, intent: 'INT-001', field: 'owned_scope[1]', message: '"!!src/a" has a double negation' }]],
  ['only negations', one({ owned_scope: '["!src/legacy/**", "!lib/**"]' }),
    [{ line: 5, column: 18, intent: 'INT-001', field: 'owned_scope', message: 'has only "!" negations' }]],
  ['"!" alone', one({ owned_scope: '["src/**", "!"]' }),
    [{ line: 5, column: 29, intent: 'INT-001', field: 'owned_scope[1]', message: 'negation "!" has no pattern after it' }]],
  // --- optional fields
  ['constraints not a list', one({ constraints: '"Must not use external auth providers"' }),
    [{ line: 6, column: 18, intent: 'INT-001', field: 'constraints', message: 'must be a list of strings' }]],
  ['constraints item a number', one({ constraints: '["ok", 42]' }),
    [{ line: 6, column: 25, intent: 'INT-001', field: 'constraints[1]', message: 'must be a non-empty string, got 42' }]],
  ['acceptance_criteria item empty', one({ acceptance_criteria: '[""]' }),
    [{ line: 6, column: 27, intent: 'INT-001', field: 'acceptance_criteria[0]', message: 'must be a non-empty string, got ""' }]],
  ['acceptance_criteria is a mapping', one({ acceptance_criteria: '{ tests: pass }' }),
    [{ line: 6, column: 26, intent: 'INT-001', field: 'acceptance_criteria', message: 'must be a list of strings' }]],
  ['assigned_agent a number', one({ assigned_agent: '7' }),
    [{ line: 6, column: 21, intent: 'INT-001', field: 'assigned_agent', message: 'must be a non-empty string, got 7' }]],
  ['related_specs item a string', one({ related_specs: '["REQ-001"]' }),
    [{ line: 6, column: 21, intent: 'INT-001', field: 'related_specs[0]', message: 'must be a mapping with string "type" and "value"' }]],
  ['related_specs item without value', one({ related_specs: '[{ type: "specification" }]' }),
    [{ line: 6, column: 21, intent: 'INT-001', field: 'related_specs[0]', message: 'must be a mapping with string "type" and "value"' }]],
  ['related_specs not a list', one({ related_specs: '{ type: "specification", value: "REQ-001" }' }),
    [{ line: 6, column: 20, intent: 'INT-001', field: 'related_specs', message: 'must be a list of { type, value } mappings' }]],
  ['created_at not a date', one({ created_at: '"yesterday"' }),
    [{ line: 6, column: 17, intent: 'INT-001', field: 'created_at', message: 'must be an RFC 3339 date-time string such as "2026-02-16T12:00:00Z", got "yesterday"' }]],
  ['created_at month 13', one({ created_at: '"2026-13-01T00:00:00Z"' }),
    [{ line: 6, column: 17, intent: 'INT-001', field: 'created_at', message: 'got "2026-13-01T00:00:00Z"' }]],
  ['created_at on February 30', one({ created_at: '"2026-02-30T00:00:00Z"' }),
    [{ line: 6, column: 17, intent: 'INT-001', field: 'created_at', message: 'got "2026-02-30T00:00:00Z"' }]],
  ['updated_at a number', one({ updated_at: '20260217' }),
    [{ line: 6, column: 17, intent: 'INT-001', field: 'updated_at', message: 'got 20260217' }]],
  ['unknown field (typo owned_scopes)', one({ owned_scope: null, owned_scopes: '["src/**"]' }), [
    { line: 5, column: 5, intent: 'INT-001', field: 'owned_scopes', message: `unknown field; ${KNOWN}` },
    { line: 2, column: 5, intent: 'INT-001', field: 'owned_scope', message: 'missing' },
  ]],
  ['merge key is not a field', 'active_intents:\n  - <<: { id: "INT-001" }\n    name: "N"\n    status: "PENDING"\n    owned_scope: ["src/**"]\n', [
    { line: 2, column: 5, intent: 'active_intents[0]', field: '<<', message: 'unknown field' },
    { line: 2, column: 5, intent: 'active_intents[0]', field: 'id', message: 'missing' },
  ]],
];

function expectProblems(actual: RegistryProblem[], expected: Expected[]): void {
  expect(actual).toHaveLength(expected.length);
  expected.forEach((e, i) => {
    const a = actual[i];
    expect(a.line, `problem ${i} line (${a.message})`).toBe(e.line);
    if (e.column !== undefined) expect(a.column, `problem ${i} column (${a.message})`).toBe(e.column);
    expect(a.intent, `problem ${i} intent`).toBe(e.intent);
    expect(a.field, `problem ${i} field`).toBe(e.field);
    expect(a.message).toContain(e.message);
  });
}

describe('checkRegistry: a valid registry', () => {
  it('parses the MISSION.md example with every field', () => {
    const { intents, problems } = checkRegistry(FULL);
    expect(problems).toEqual([]);
    const want: Intent = {
      id: 'INT-001',
      name: 'JWT Authentication Migration',
      status: 'IN_PROGRESS',
      owned_scope: ['src/auth/**', 'src/middleware/jwt.ts', '!src/auth/legacy/**'],
      constraints: ['Must not use external auth providers'],
      acceptance_criteria: ['Unit tests in tests/auth/ pass'],
      assigned_agent: 'agent-builder-01',
      related_specs: [{ type: 'specification', value: 'REQ-001' }],
      created_at: '2026-02-16T12:00:00Z',
      updated_at: '2026-02-17T15:30:00Z',
    };
    expect(intents).toEqual([want]);
  });

  it('fills optional fields with empty lists and leaves optional scalars out', () => {
    const { intents, problems } = checkRegistry(
      'active_intents:\n  - id: INT-002\n    name: Plain YAML\n    status: PENDING\n    owned_scope:\n      - docs/\n      - "./README.md"\n',
    );
    expect(problems).toEqual([]);
    expect(intents).toEqual([
      { id: 'INT-002', name: 'Plain YAML', status: 'PENDING', owned_scope: ['docs/', './README.md'], constraints: [], acceptance_criteria: [], related_specs: [] },
    ]);
    expect(Object.keys(intents[0])).not.toContain('assigned_agent');
    expect(Object.keys(intents[0])).not.toContain('created_at');
  });

  it('accepts every status, keeps file order, and accepts date-only and offset dates', () => {
    const statuses = ['PENDING', 'IN_PROGRESS', 'BLOCKED', 'COMPLETED', 'ABANDONED'];
    const text = `active_intents:\n${statuses
      .map((s, i) => `  - id: "INT-00${i}"\n    name: "n${i}"\n    status: ${s}\n    owned_scope: ["p${i}/**"]\n    created_at: "${i % 2 ? '2026-02-16' : '2026-02-16T12:00:00+02:00'}"\n`)
      .join('')}`;
    const { intents, problems } = checkRegistry(text);
    expect(problems).toEqual([]);
    expect(intents.map((i) => [i.id, i.status])).toEqual(statuses.map((s, i) => [`INT-00${i}`, s]));
  });

  it('treats `active_intents: []` and `active_intents:` (null) as valid and empty', () => {
    expect(checkRegistry('active_intents: []\n')).toEqual({ intents: [], problems: [], spans: {} });
    expect(checkRegistry('active_intents:\n')).toEqual({ intents: [], problems: [], spans: {} });
    expect(checkRegistry('# header\nactive_intents:   # none yet\n')).toEqual({ intents: [], problems: [], spans: {} });
  });

  it('reads CRLF files with the same lines', () => {
    const { problems } = checkRegistry(one({ bogus: '1' }).replace(/\n/g, '\r\n'));
    expectProblems(problems, [{ line: 6, column: 5, intent: 'INT-001', field: 'bogus', message: 'unknown field' }]);
  });
});

describe('checkRegistry: malformed registries', () => {
  it('has at least 25 distinct cases', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(25);
    expect(new Set(CASES.map((c) => c[1])).size).toBe(CASES.length);
  });

  it.each(CASES)('%s', (_name, text, expected) => {
    const { intents, problems } = checkRegistry(text);
    expectProblems(problems, expected);
    // A malformed intent is never returned as if it were valid.
    for (const p of problems) {
      if (p.intent && !p.message.startsWith('duplicate id')) expect(intents.map((i) => i.id)).not.toContain(p.intent);
    }
  });

  it('reports several problems in one file, in file order, and keeps the valid intents', () => {
    const text = [
      'active_intents:',
      '  - id: "INT-001"', //            2
      '    name: ""', //                  3
      '    status: "DONE"', //            4
      '    owned_scope: ["/abs", "ok/**"]', // 5
      '  - id: "INT-002"', //            6
      '    name: "fine"',
      '    status: "PENDING"',
      '    owned_scope: ["src/**"]',
      '  - id: "INT-003"', //            10
      '    name: "three"',
      '    status: "BLOCKED"',
      '    owned_scope: ["lib/**"]',
      '    constraints: [1]', //         14
      'extra: true', //                   15
      '',
    ].join('\n');
    const { intents, problems } = checkRegistry(text);
    expectProblems(problems, [
      { line: 15, column: 1, intent: undefined, field: undefined, message: 'unknown top-level key "extra"' },
      { line: 3, column: 11, intent: 'INT-001', field: 'name', message: 'non-empty string' },
      { line: 4, column: 13, intent: 'INT-001', field: 'status', message: 'unknown status "DONE"' },
      { line: 5, column: 19, intent: 'INT-001', field: 'owned_scope[0]', message: 'absolute path' },
      { line: 14, column: 19, intent: 'INT-003', field: 'constraints[0]', message: 'got 1' },
    ]);
    expect(intents.map((i) => i.id)).toEqual(['INT-002']);
  });
});

describe('parseRegistry and registryError', () => {
  const path = join('repo', '.orchestration', 'active_intents.yaml');

  it('throws REGISTRY_INVALID naming the file, line, column, intent and field of every problem', () => {
    let err: unknown;
    try {
      parseRegistry(one({ status: 'in_progress', assigned_agent: '7' }), path);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(IntentError);
    const ie = err as IntentError;
    expect(ie.code).toBe('REGISTRY_INVALID');
    expect(ie.message).toContain(`Invalid intent registry ${path} (2 problems)`);
    expect(ie.message).toContain(`${path}:4:13: intent INT-001, field status: unknown status "in_progress"`);
    expect(ie.message).toContain(`${path}:6:21: intent INT-001, field assigned_agent: must be a non-empty string, got 7`);
    expect(ie.data.path).toBe(path);
    expect(ie.data.problems).toEqual(checkRegistry(one({ status: 'in_progress', assigned_agent: '7' })).problems);
  });

  it('names the line of a YAML syntax error in the thrown message', () => {
    const text = 'active_intents:\n  - id: "INT-001"\n    name: "N": x\n';
    expect(() => parseRegistry(text, path)).toThrowError(new RegExp(`${path.replace(/[.\\]/g, '\\$&')}:3:\\d+: YAML syntax error`));
  });

  it('returns the registry when there is nothing wrong', () => {
    const { intents, spans } = checkRegistry(FULL);
    expect(parseRegistry(FULL, path)).toEqual({ path, intents, spans });
    // the spans point at each intent's status value in the text
    for (const i of intents) expect(FULL.slice(spans[i.id].status.start, spans[i.id].status.end).replace(/^["']|["']$/g, '')).toBe(i.status);
  });

  it('formats problems without a line, intent or field, and counts one problem in the singular', () => {
    const e = registryError('f.yaml', [{ message: 'the file must be a mapping' }]);
    expect(e.code).toBe('REGISTRY_INVALID');
    expect(e.message).toContain('Invalid intent registry f.yaml (1 problem):\n  f.yaml: the file must be a mapping\n');
    const e2 = registryError('f.yaml', [{ line: 7, field: 'active_intents', message: 'm' }, { line: 2, column: 4, intent: 'X', message: 'n' }]);
    expect(e2.message).toContain('(2 problems)');
    expect(e2.message).toContain('  f.yaml:7:1: field active_intents: m\n');
    expect(e2.message).toContain('  f.yaml:2:4: intent X: n\n');
  });

  it('loadRegistry reads a file and reports a missing one as REGISTRY_MISSING', () => {
    const dir = tempDir();
    const file = join(dir, 'active_intents.yaml');
    expect(() => loadRegistry(file)).toThrowError(expect.objectContaining({ code: 'REGISTRY_MISSING' }));
    writeFileSync(file, FULL);
    expect(loadRegistry(file).intents.map((i) => i.id)).toEqual(['INT-001']);
    writeFileSync(file, one({ id: '1' }));
    expect(() => loadRegistry(file)).toThrowError(expect.objectContaining({ code: 'REGISTRY_INVALID' }));
  });
});

describe('setIntentStatus', () => {
  const NOW = new Date('2026-03-01T10:20:30.456Z');
  const STAMP = '2026-03-01T10:20:30Z';

  const MIXED = `# The intent registry. Edited by humans; tools touch only status and updated_at.

active_intents:
  # first intent: double quotes, flow sequences, trailing comments
  - id: "INT-001"
    name: "JWT Authentication Migration"
    status: "IN_PROGRESS"        # PENDING | IN_PROGRESS | BLOCKED | COMPLETED | ABANDONED
    owned_scope: ["src/auth/**", "src/middleware/jwt.ts", "!src/auth/legacy/**"]
    constraints: ["Must not use external auth providers"]
    acceptance_criteria: ["Unit tests in tests/auth/ pass"]
    related_specs: [{ type: "specification", value: "REQ-001" }]
    updated_at: "2026-02-17T15:30:00Z"   # touched by tools


  # second intent: single quotes, block sequences
  - id: 'INT-002'
    name: 'Billing'
    status: 'PENDING'
    owned_scope:
      - 'billing/**'      # all of billing
      - '!billing/vendor/**'
    updated_at: '2026-02-17T15:30:00Z'

  # third intent: plain scalars, no updated_at
  - id: INT-003
    name: Docs
    status: PENDING   # plain
    owned_scope: [ docs/**, README.md ]
  - { id: INT-004, name: Four, status: BLOCKED, owned_scope: [x/**] }
`;

  function edit(id: string, status: Parameters<typeof setIntentStatus>[2], text = MIXED): { changed: boolean; before: string; after: string; file: string } {
    const file = join(tempDir(), 'active_intents.yaml');
    writeFileSync(file, text);
    const changed = setIntentStatus(file, id, status, NOW);
    return { changed, before: text, after: readFileSync(file, 'utf8'), file };
  }

  it('double-quoted: rewrites only the status and updated_at values', () => {
    const r = edit('INT-001', 'COMPLETED');
    expect(r.changed).toBe(true);
    expect(r.after).toBe(
      r.before
        .replace('status: "IN_PROGRESS"        #', 'status: "COMPLETED"        #')
        .replace('updated_at: "2026-02-17T15:30:00Z"   # touched', `updated_at: "${STAMP}"   # touched`),
    );
    expect(checkRegistry(r.after).intents.find((i) => i.id === 'INT-001')).toMatchObject({ status: 'COMPLETED', updated_at: STAMP });
  });

  it('single-quoted: keeps single quotes', () => {
    const r = edit('INT-002', 'BLOCKED');
    expect(r.after).toBe(
      r.before
        .replace("status: 'PENDING'", "status: 'BLOCKED'")
        .replace("updated_at: '2026-02-17T15:30:00Z'", `updated_at: '${STAMP}'`),
    );
  });

  it('plain: keeps the value plain and adds no updated_at when there is none', () => {
    const r = edit('INT-003', 'IN_PROGRESS');
    expect(r.after).toBe(r.before.replace('status: PENDING   # plain', 'status: IN_PROGRESS   # plain'));
    expect(r.after).not.toContain(STAMP);
  });

  it('flow mapping: edits inside the flow layout', () => {
    const r = edit('INT-004', 'ABANDONED');
    expect(r.after).toBe(r.before.replace('status: BLOCKED, owned_scope', 'status: ABANDONED, owned_scope'));
  });

  it('keeps a plain updated_at plain', () => {
    const text = one({ status: 'PENDING', updated_at: '2026-02-17T15:30:00Z' });
    const r = edit('INT-001', 'IN_PROGRESS', text);
    expect(r.after).toBe(text.replace('status: PENDING', 'status: IN_PROGRESS').replace('updated_at: 2026-02-17T15:30:00Z', `updated_at: ${STAMP}`));
  });

  it('keeps CRLF line endings', () => {
    const text = MIXED.replace(/\n/g, '\r\n');
    const r = edit('INT-002', 'COMPLETED', text);
    expect(r.after).toBe(text.replace("status: 'PENDING'", "status: 'COMPLETED'").replace("updated_at: '2026-02-17T15:30:00Z'", `updated_at: '${STAMP}'`));
  });

  it('returns false and leaves the file untouched when the status is already set', () => {
    const dir = tempDir();
    const file = join(dir, 'active_intents.yaml');
    writeFileSync(file, MIXED);
    const before = statSync(file);
    expect(setIntentStatus(file, 'INT-001', 'IN_PROGRESS', NOW)).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe(MIXED);
    expect(statSync(file).ino).toBe(before.ino);
  });

  it('refuses an invalid file and leaves it as it was', () => {
    const bad = MIXED.replace("status: 'PENDING'", "status: 'pending'");
    const file = join(tempDir(), 'active_intents.yaml');
    writeFileSync(file, bad);
    expect(() => setIntentStatus(file, 'INT-001', 'COMPLETED', NOW)).toThrowError(
      expect.objectContaining({ code: 'REGISTRY_INVALID', message: expect.stringContaining(':18:13: intent INT-002, field status') }),
    );
    expect(readFileSync(file, 'utf8')).toBe(bad);
  });

  it('refuses an unknown intent with UNKNOWN_INTENT', () => {
    const file = join(tempDir(), 'active_intents.yaml');
    writeFileSync(file, MIXED);
    expect(() => setIntentStatus(file, 'INT-999', 'COMPLETED', NOW)).toThrowError(expect.objectContaining({ code: 'UNKNOWN_INTENT' }));
    expect(readFileSync(file, 'utf8')).toBe(MIXED);
  });
});

describe('a duplicate id', () => {
  it('is reported even when that entry has another problem too', () => {
    const text = 'active_intents:\n  - id: INT-001\n    name: a\n    status: PENDING\n    owned_scope: ["src/**"]\n' +
      '  - id: INT-001\n    name: b\n    status: NOT_A_STATUS\n    owned_scope: ["lib/**"]\n';
    const { problems } = checkRegistry(text);
    expect(problems.some((p) => p.field === 'id' && p.message.startsWith('duplicate id; "INT-001" is already defined on line 2'))).toBe(true);
    expect(problems.some((p) => p.field !== 'id' && /status/.test(`${p.field} ${p.message}`))).toBe(true);
  });
});
