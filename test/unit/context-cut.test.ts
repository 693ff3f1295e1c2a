import { describe, expect, it } from 'vitest';
import { assemble } from '../../lib/intents/context.js';

describe('intent context under a small --max-bytes', () => {
  it('cuts a long constraint at a word boundary, never mid-word', () => {
    const constraint = 'Keep the session cookie HttpOnly and SameSite=strict because the admin console embeds third-party widgets that must never read it';
    const intent = {
      id: 'INT-001', name: 'JWT Authentication Migration', status: 'IN_PROGRESS' as const, owned_scope: ['src/auth/**'],
      constraints: [constraint, constraint.toUpperCase()], acceptance_criteria: ['Unit tests in tests/auth pass with the new token format'], related_specs: [],
    };
    let cuts = 0;
    for (const max of [600, 640, 700, 760]) {
      const text = assemble({ intent, worktree: null } as any, [], [], max);
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(max);
      for (const m of text.matchAll(/<constraint>([^<]*)<\/constraint>/g)) {
        if (!m[1].endsWith('…')) continue;
        cuts++;
        const kept = m[1].slice(0, -1);
        const original = [constraint, constraint.toUpperCase()].find((c) => c.startsWith(kept))!;
        expect(original, m[1]).toBeDefined();
        expect(/\s/.test(original[kept.length]), `"${m[1]}" cuts mid-word`).toBe(true);
      }
    }
    expect(cuts, 'some limit cut a constraint').toBeGreaterThan(0);
  });
});
