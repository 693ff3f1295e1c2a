// The pure parts of the authority's push model: what a notes-tree path may be, and the one line
// every refusal code carries.
import { describe, expect, it } from 'vitest';
import { nextStep, type GateCode } from '../../lib/authority/codes.js';
import { notePathProblem } from '../../lib/authority/objects.js';

const SHA = 'abcdef0123456789abcdef0123456789abcdef01';

describe('notePathProblem', () => {
  it('accepts a note at any fan-out depth of a full object id (SHA-1 or SHA-256)', () => {
    for (const p of [SHA, `ab/${SHA.slice(2)}`, `ab/cd/${SHA.slice(4)}`, `ab/cd/ef/01/${SHA.slice(8)}`, 'ab/' + 'c'.repeat(62)]) {
      expect(notePathProblem(p, '100644'), p).toBeNull();
    }
  });

  it('refuses anything else a tree can hold', () => {
    expect(notePathProblem('src/a.ts', '100644')).toMatch(/fan-out|object id/);
    expect(notePathProblem(`abc/${SHA.slice(3)}`, '100644')).toMatch(/fan-out/);
    expect(notePathProblem(`AB/${SHA.slice(2)}`, '100644')).toMatch(/fan-out/);
    expect(notePathProblem(SHA.slice(1), '100644')).toMatch(/object id/);
    expect(notePathProblem(SHA.toUpperCase(), '100644')).toMatch(/object id/);
    expect(notePathProblem(SHA, '100755')).toMatch(/mode 100755/);
    expect(notePathProblem(SHA, '120000')).toMatch(/mode 120000/);
    expect(notePathProblem(SHA, '160000')).toMatch(/mode 160000/);
  });
});

describe('nextStep', () => {
  const ctx = { commit: SHA, ref: 'refs/heads/intent/INT-001', intent: 'INT-001', base: 'main' };
  const codes: GateCode[] = [
    'AUTHORITY_INVALID', 'IDENTITY_REQUIRED', 'REF_NOT_ALLOWED', 'PROTECTED_DELETED', 'NOT_FAST_FORWARD', 'NOTES_DELETED',
    'NOTES_NOT_FAST_FORWARD', 'NOTES_NOT_NOTES_COMMIT', 'NOTE_DUPLICATE', 'NOTE_REWRITTEN', 'NOTE_REMOVED', 'NOTE_INTENT_MISMATCH',
    'INTENT_NOT_ALLOWED', 'INTENT_NOT_ACTIVE', 'UNGOVERNED', 'NOTE_MISSING', 'NOTES_ABSENT', 'NOTE_UNPARSABLE', 'NOTE_INVALID',
    'NOTE_MISPLACED', 'SUMMARY_MISMATCH', 'RANGE_MISMATCH', 'HASH_MISMATCH', 'FILES_MISMATCH', 'SCOPE_VIOLATION',
    'SCOPE_NOT_IN_REGISTRY', 'LEDGER_BROKEN', 'LEDGER_MISMATCH', 'SHALLOW',
  ];
  it('gives every code one line', () => {
    for (const c of codes) {
      const line = nextStep(c, ctx);
      expect(line.length, c).toBeGreaterThan(10);
      expect(line, c).not.toContain('\n');
    }
  });

  it('names the branch, the notes ref and the commit where they are the way out', () => {
    expect(nextStep('NOTE_MISSING', ctx)).toContain("intent push, from intent/INT-001's worktree");
    expect(nextStep('NOTE_MISSING', ctx)).toContain(`git notes --ref=intents list ${SHA.slice(0, 12)}`);
    expect(nextStep('NOTES_NOT_FAST_FORWARD', ctx)).toContain('intent push');
    expect(nextStep('NOTE_NOT_ON_BRANCH', ctx)).toContain(SHA.slice(0, 12));
    expect(nextStep('NOTE_DUPLICATE', ctx)).toContain(`git notes --ref=intents add -f -F note.txt ${SHA.slice(0, 12)}`);
    expect(nextStep('NOTE_REMOVED', ctx)).toContain(`show ${SHA.slice(0, 12)}`);
  });
});
