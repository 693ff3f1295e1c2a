import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { committedIntent } from '../../lib/intents/committed.js';
import { addIntent, checkNewIntent, type NewIntentSpec } from '../../lib/intents/registry-add.js';
import { checkRegistry } from '../../lib/intents/registry.js';
import { PKG_ROOT, tempDir } from '../helpers.js';

// addIntent (`intent new`): appends an intent as text in the list's own style; nothing else changes.
// committedIntent: one intent of a committed registry text, cut out when that is safe.

const NOW = new Date('2026-03-01T10:20:30.456Z');
const SPEC: NewIntentSpec = { id: 'INT-009', name: 'Retry on "503"', owned_scope: ['src/retry/**', '!src/retry/old/**'], constraints: ['No new dependencies'], acceptance_checks: ['npm test'] };
const ENTRY = [
  '- id: "INT-009"',
  '  name: "Retry on \\"503\\""',
  '  status: "PENDING"',
  '  owned_scope: ["src/retry/**", "!src/retry/old/**"]',
  '  constraints: ["No new dependencies"]',
  '  acceptance_checks: ["npm test"]',
  '  created_at: "2026-03-01T10:20:30Z"',
];
const indented = (n: number, nl = '\n') => ENTRY.map((l) => ' '.repeat(n) + l + nl).join('');

function added(text: string, spec = SPEC): string {
  const path = join(tempDir(), 'active_intents.yaml');
  writeFileSync(path, text);
  const intent = addIntent(path, spec, NOW);
  expect(intent).toMatchObject({ id: spec.id, name: spec.name, status: 'PENDING', owned_scope: spec.owned_scope });
  return readFileSync(path, 'utf8');
}

const BLOCK = `# Team registry: keep the comments!
active_intents:
  # auth
  - id: 'INT-001'
    name: JWT   # plain
    status: PENDING
    owned_scope:
      - "src/auth/**"   # all of auth
    acceptance_criteria: ["tests pass"]
# trailing comment
`;

describe('addIntent', () => {
  it('a block list: the entry after the last item, at its indentation; every other byte kept', () => {
    const out = added(BLOCK);
    const cut = BLOCK.indexOf('# trailing comment');
    expect(out).toBe(BLOCK.slice(0, cut) + indented(2) + BLOCK.slice(cut));
  });

  it('the template: `active_intents: []` becomes a block list; the comments above stay', () => {
    const template = readFileSync(join(PKG_ROOT, 'templates', 'orchestration', 'active_intents.yaml'), 'utf8');
    const out = added(template);
    expect(out).toBe(template.replace(/active_intents: \[\]\n$/, `active_intents:\n${indented(2)}`));
  });

  it('an empty value, a comment after it, CRLF line ends, no final newline', () => {
    expect(added('active_intents:   # none yet\n')).toBe(`active_intents:   # none yet\n${indented(2)}`);
    expect(added('active_intents:\r\n')).toBe(`active_intents:\r\n${indented(2, '\r\n')}`);
    const crlf = BLOCK.replace(/\n/g, '\r\n');
    expect(added(crlf)).toBe(crlf.replace('# trailing comment', indented(2, '\r\n') + '# trailing comment'));
    const flat = 'active_intents:\n- id: A\n  name: a\n  status: PENDING\n  owned_scope: [a/**]';
    expect(added(flat)).toBe(`${flat}\n${indented(0).slice(0, -1)}`);
  });

  it('a flow list gets a flow mapping, on its own line when the list spans lines', () => {
    const one = 'active_intents: [{ id: A, name: a, status: PENDING, owned_scope: [a/**] }]\n';
    const out = added(one);
    expect(out.startsWith('active_intents: [{ id: A, name: a, status: PENDING, owned_scope: [a/**] }, { id: "INT-009", ')).toBe(true);
    expect(checkRegistry(out).intents.map((i) => i.id)).toEqual(['A', 'INT-009']);
    const multi = 'active_intents: [\n    { id: A, name: a, status: PENDING, owned_scope: [a/**] }\n]\n';
    expect(added(multi)).toMatch(/\[a\/\*\*\] \},\n {4}\{ id: "INT-009", /);
  });

  it('refuses a duplicate id (INTENT_EXISTS) and leaves the file as it was', () => {
    const path = join(tempDir(), 'active_intents.yaml');
    writeFileSync(path, BLOCK);
    expect(() => addIntent(path, { ...SPEC, id: 'INT-001' }, NOW)).toThrow(expect.objectContaining({ code: 'INTENT_EXISTS', message: expect.stringContaining('INT-001 is already in') }));
    expect(readFileSync(path, 'utf8')).toBe(BLOCK);
  });

  it('checkNewIntent: bad ids, names, globs and empty values are INVALID_INPUT naming the value', () => {
    const bad = (spec: Partial<NewIntentSpec>, message: string) =>
      expect(() => checkNewIntent({ ...SPEC, ...spec })).toThrow(expect.objectContaining({ code: 'INVALID_INPUT', message: expect.stringContaining(message) }));
    bad({ id: 'INT 1' }, '"INT 1" is not a valid intent id');
    bad({ id: '-x' }, 'is not a valid intent id');
    bad({ name: 'two\nlines' }, '--name must be one non-empty line');
    bad({ owned_scope: [] }, 'at least one --scope');
    bad({ owned_scope: ['../up'] }, '--scope "../up" contains ".."');
    bad({ owned_scope: ['!a/**'] }, 'only "!" negations');
    bad({ acceptance_checks: [' '] }, '--acceptance-check must not be empty');
    expect(() => checkNewIntent(SPEC)).not.toThrow();
  });
});

describe('committedIntent', () => {
  it('finds the intent by cutting out its item, and agrees with a full parse', () => {
    const big = BLOCK.replace('# trailing comment\n', '') + Array.from({ length: 50 }, (_, k) => `  - id: "B-${k}"\n    name: "b"\n    status: PENDING\n    owned_scope: ["b${k}/**"]\n\n    # between\n`).join('');
    for (const id of ['INT-001', 'B-0', 'B-49']) {
      expect(committedIntent(big, id), id).toEqual(checkRegistry(big).intents.find((i) => i.id === id));
    }
    expect(committedIntent(big, 'B-7')?.owned_scope).toEqual(['b7/**']);
  });

  it('null when the text does not list it; a flow registry is parsed whole', () => {
    expect(committedIntent(BLOCK, 'INT-002')).toBeNull();
    expect(committedIntent('active_intents: []\n', 'INT-001')).toBeNull();
    expect(committedIntent('# INT-001 comes later\nactive_intents: []\n', 'INT-001')).toBeNull();
    const flow = 'active_intents: [{ id: A, name: a, status: PENDING, owned_scope: [a/**] }]\n';
    expect(committedIntent(flow, 'A')?.owned_scope).toEqual(['a/**']);
  });
});
