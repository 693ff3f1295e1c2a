import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addScopeGlobs, setIntentStatus } from '../../lib/intents/registry-edit.js';
import { checkRegistry, loadRegistry, parseRegistry } from '../../lib/intents/registry.js';
import { tempDir } from '../helpers.js';

// addScopeGlobs: appends globs to an intent's owned_scope, byte-surgically.

const NOW = new Date('2026-03-01T10:20:30.456Z');
const STAMP = '2026-03-01T10:20:30Z';

const MIXED = `# The intent registry. Edited by humans; tools touch only status, scope and updated_at.

active_intents:
  # first intent: double quotes, flow sequence, trailing comments
  - id: "INT-001"
    name: "JWT Authentication Migration"
    status: "IN_PROGRESS"        # PENDING | IN_PROGRESS
    owned_scope: ["src/auth/**", "src/middleware/jwt.ts", "!src/auth/legacy/**"]   # the scope
    updated_at: "2026-02-17T15:30:00Z"   # touched by tools

  # second intent: single quotes, block sequence with comments
  - id: 'INT-002'
    name: 'Billing'
    status: 'PENDING'
    owned_scope:
      - 'billing/**'      # all of billing
      - '!billing/vendor/**'   # not the vendored code
    # a comment after the list
    constraints: ['none']

  # third intent: plain scalars, no updated_at
  - id: INT-003
    name: Docs
    status: PENDING   # plain
    owned_scope: [ docs/**, README.md ]
  - { id: INT-004, name: Four, status: BLOCKED, owned_scope: [x/**] }
  - id: INT-005
    name: Multi-line flow
    status: PENDING
    owned_scope: [
      "a/**",
      "b/**"
    ]
  - id: INT-006
    name: Last, no newline at the end
    status: PENDING
    owned_scope:
    - z/**`;

function edit(id: string, globs: string[], text = MIXED): { added: string[]; after: string } {
  const file = join(tempDir(), 'active_intents.yaml');
  writeFileSync(file, text);
  const added = addScopeGlobs(file, id, globs, NOW);
  return { added, after: readFileSync(file, 'utf8') };
}

const scopeOf = (text: string, id: string) => checkRegistry(text).intents.find((i) => i.id === id)!.owned_scope;

describe('addScopeGlobs', () => {
  it('flow sequence, double quotes: appends after the last item and bumps updated_at, nothing else', () => {
    const r = edit('INT-001', ['src/billing/**', 'src/shared/plan.ts']);
    expect(r.added).toEqual(['src/billing/**', 'src/shared/plan.ts']);
    expect(r.after).toBe(MIXED
      .replace('"!src/auth/legacy/**"]   # the scope', '"!src/auth/legacy/**", "src/billing/**", "src/shared/plan.ts"]   # the scope')
      .replace('updated_at: "2026-02-17T15:30:00Z"', `updated_at: "${STAMP}"`));
    expect(scopeOf(r.after, 'INT-001')).toEqual(['src/auth/**', 'src/middleware/jwt.ts', '!src/auth/legacy/**', 'src/billing/**', 'src/shared/plan.ts']);
  });

  it('block sequence, single quotes: a new line after the last item, same indentation, comments kept', () => {
    const r = edit('INT-002', ["it's/**"]);
    expect(r.after).toBe(MIXED.replace(
      "      - '!billing/vendor/**'   # not the vendored code\n",
      "      - '!billing/vendor/**'   # not the vendored code\n      - 'it''s/**'\n",
    ));
    expect(scopeOf(r.after, 'INT-002')).toEqual(['billing/**', '!billing/vendor/**', "it's/**"]);
  });

  it('plain scalars stay plain where YAML reads them back unchanged, quoted otherwise', () => {
    const r = edit('INT-003', ['guides/**', '*.md', 'a #b']);
    expect(r.after).toBe(MIXED.replace('[ docs/**, README.md ]', '[ docs/**, README.md, guides/**, "*.md", "a #b" ]'));
    expect(scopeOf(r.after, 'INT-003')).toEqual(['docs/**', 'README.md', 'guides/**', '*.md', 'a #b']);
  });

  it('a flow sequence inside a flow mapping', () => {
    const r = edit('INT-004', ['y/**']);
    expect(r.after).toBe(MIXED.replace('owned_scope: [x/**] }', 'owned_scope: [x/**, y/**] }'));
  });

  it('a flow sequence over several lines gets a new line of the same indentation', () => {
    const r = edit('INT-005', ['c/**']);
    expect(r.after).toBe(MIXED.replace('      "b/**"\n    ]', '      "b/**",\n      "c/**"\n    ]'));
    expect(scopeOf(r.after, 'INT-005')).toEqual(['a/**', 'b/**', 'c/**']);
  });

  it('a block sequence at the end of a file without a final newline', () => {
    const r = edit('INT-006', ['y/**', 'x y/**']);
    expect(r.after).toBe(`${MIXED}\n    - y/**\n    - x y/**`);
    expect(scopeOf(r.after, 'INT-006')).toEqual(['z/**', 'y/**', 'x y/**']);
  });

  it('keeps CRLF line endings', () => {
    const text = MIXED.replace(/\n/g, '\r\n');
    const r = edit('INT-002', ['c/**']);
    expect(r.after).toContain("      - 'c/**'\n");
    const crlf = edit('INT-002', ['c/**'], text);
    expect(crlf.after).toBe(text.replace("# not the vendored code\r\n", "# not the vendored code\r\n      - 'c/**'\r\n"));
    const flow = edit('INT-005', ['c/**'], text);
    expect(flow.after).toBe(text.replace('      "b/**"\r\n    ]', '      "b/**",\r\n      "c/**"\r\n    ]'));
  });

  it('is idempotent: globs already in the scope are skipped; none new leaves the file untouched', () => {
    const r = edit('INT-001', ['src/auth/**', 'src/billing/**', 'src/billing/**']);
    expect(r.added).toEqual(['src/billing/**']);
    const file = join(tempDir(), 'active_intents.yaml');
    writeFileSync(file, MIXED);
    const before = statSync(file);
    expect(addScopeGlobs(file, 'INT-001', ['src/auth/**', 'src/middleware/jwt.ts'], NOW)).toEqual([]);
    expect(readFileSync(file, 'utf8')).toBe(MIXED);
    expect(statSync(file).ino).toBe(before.ino);
  });

  it('refuses an unknown intent and an invalid file, leaving the file as it was', () => {
    const file = join(tempDir(), 'active_intents.yaml');
    writeFileSync(file, MIXED);
    expect(() => addScopeGlobs(file, 'INT-999', ['a/**'], NOW)).toThrowError(expect.objectContaining({ code: 'UNKNOWN_INTENT' }));
    const bad = MIXED.replace("status: 'PENDING'", "status: 'pending'");
    writeFileSync(file, bad);
    expect(() => addScopeGlobs(file, 'INT-001', ['a/**'], NOW)).toThrowError(expect.objectContaining({ code: 'REGISTRY_INVALID' }));
    expect(readFileSync(file, 'utf8')).toBe(bad);
  });
});

// setIntentStatus has two ways: with a fresh registry cache it edits at the cached spans without
// parsing YAML; without one it parses. Both must write the same bytes, and the registry and
// spans it caches for the new text must be what a parse of that text gives.
describe('setIntentStatus: the cached-span edit equals the parsing edit', () => {
  /** A registry file at <dir>/.orchestration/active_intents.yaml; `cached`: with <dir>/.git/intent (so the cache is used). */
  function registryFile(text: string, cached: boolean): string {
    const dir = tempDir();
    mkdirSync(join(dir, '.orchestration'));
    if (cached) mkdirSync(join(dir, '.git', 'intent'), { recursive: true });
    const file = join(dir, '.orchestration', 'active_intents.yaml');
    writeFileSync(file, text);
    return file;
  }
  const CRLF = MIXED.replace(/\n/g, '\r\n');
  const UNICODE = MIXED.replace('name: "JWT Authentication Migration"', 'name: "Ünïcødé 😀 naïve"').replace('name: Docs', 'name: Döcs ✓');

  for (const [label, text] of [['mixed styles', MIXED], ['CRLF', CRLF], ['non-ASCII before the edits', UNICODE]] as const) {
    it(`${label}: every intent, two edits in a row, same bytes both ways; the cache equals a fresh parse`, () => {
      const ids = checkRegistry(text).intents.map((i) => i.id);
      expect(ids.length).toBeGreaterThan(4);
      for (const id of ids) {
        const fast = registryFile(text, true);
        const slow = registryFile(text, false);
        loadRegistry(fast); // fills the cache: the next edit takes the span way
        expect(loadRegistry(fast).spans?.[id]).toBeDefined();
        for (const status of ['COMPLETED', 'ABANDONED'] as const) {
          expect(setIntentStatus(fast, id, status, NOW)).toBe(true);
          expect(setIntentStatus(slow, id, status, NOW)).toBe(true);
          const after = readFileSync(fast, 'utf8');
          expect(after).toBe(readFileSync(slow, 'utf8'));
          const parsed = parseRegistry(after, fast);
          expect(parsed.intents.find((i) => i.id === id)!.status).toBe(status);
          // the cache hit (no parse) returns exactly what parsing the new text returns
          const cachedNow = loadRegistry(fast);
          expect(cachedNow).toStrictEqual(parsed);
        }
        expect(setIntentStatus(fast, id, 'ABANDONED', NOW)).toBe(false);
      }
    });
  }

  it('a status written as a block scalar has no span; an edit that cannot keep the meaning is refused and writes nothing', () => {
    const multi = 'active_intents:\n  - id: B\n    name: b\n    status: >-\n      PENDING\n    owned_scope: [b/**]\n';
    const file = registryFile(multi, true);
    expect(loadRegistry(file).spans?.B).toBeUndefined();
    expect(() => setIntentStatus(file, 'B', 'IN_PROGRESS', NOW)).toThrowError(expect.objectContaining({ code: 'WRITE_FAILED' }));
    expect(readFileSync(file, 'utf8')).toBe(multi);
  });
});
