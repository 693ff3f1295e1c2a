import { describe, expect, it } from 'vitest';
import { formatStatus, type StatusReport } from '../../lib/lifecycle/status.js';

function row(id: string, overlaps: string[]): StatusReport['intents'][number] {
  return {
    intent: id, name: id, status: 'IN_PROGRESS', branch: `intent/${id}`, worktree: null, state: null, dirty_paths: 0,
    commits: 0, changed_lines: 0, budget: null, budget_left: null,
    breaker: { open: false, since: null, reason: null, recent_rejections: 0 },
    overlaps: overlaps.map((o) => ({ intent: o, paths: [], reason: 'x' })), scope: ['src/**'], unhooked_sessions: [],
  };
}

describe('formatStatus', () => {
  it('names at most three overlapping intents per row and counts the rest (the JSON lists them all)', () => {
    const many = Array.from({ length: 65 }, (_, i) => `INT-${String(i + 10).padStart(3, '0')}`);
    const text = formatStatus({ registry: 'r.yaml', hooks: [], intents: [row('A', many), row('B', ['INT-001', 'INT-002', 'INT-003']), row('C', [])] });
    const lines = text.trimEnd().split('\n');
    expect(lines[1]).toContain('INT-010, INT-011, INT-012 (+62 more)');
    expect(lines[1]).not.toContain('INT-013');
    expect(lines[2]).toContain('INT-001, INT-002, INT-003');
    expect(lines[2]).not.toContain('more');
    expect(lines[3]).toMatch(/closed\s+-\s+src\/\*\*$/);
    // The column is as wide as its widest cell, not as the whole list.
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThan(200);
  });
});
