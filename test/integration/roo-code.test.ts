import { existsSync, readFileSync, writeFileSync, mkdirSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rooCheck, rooDelete, rooMove, rooSaved, type RooTask } from '../../lib/agents/roo-code.js';
import { checkoutIntent, git, governedRepo, noteOf } from '../helpers.js';

// Drives the glue exactly as the patch in docs/roo-code.md does: Roo's own save (the diff view
// writes finalContent to disk) happens between rooCheck and rooSaved.
function rooTask(cwd: string): RooTask {
  return { cwd, taskId: '0193f0c2-task', api: { getModel: () => ({ id: 'claude-sonnet-4-5' }) }, apiConfiguration: { apiProvider: 'anthropic' } };
}

/** What `diffViewProvider.saveChanges()` does: write the final content (with the user's edits). */
function saveChanges(cwd: string, relPath: string, finalContent: string): void {
  mkdirSync(dirname(join(cwd, relPath)), { recursive: true });
  writeFileSync(join(cwd, relPath), finalContent);
}

function lines(wt: string, path: string, type: string): number[] {
  const f = noteOf(wt)!.record.files.find((x: any) => x.path === path);
  return f.conversations.filter((c: any) => c.contributor.type === type)
    .flatMap((c: any) => c.ranges.flatMap((r: any) => Array.from({ length: r.end_line - r.start_line + 1 }, (_, i) => r.start_line + i)));
}

describe('Roo Code write path (docs/roo-code.md)', () => {
  it('write_to_file / apply_diff: refuses out of scope before approval; credits the model, not the user’s diff-view edits', () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/auth/**'] }], { 'src/auth/jwt.ts': 'a\nb\n', 'docs/x.md': 'x\n' });
    const wt = checkoutIntent(repo, 'INT-001');
    const task = rooTask(wt);

    const refused = rooCheck(task, 'docs/x.md');
    expect(refused.ok).toBe(false);
    expect(JSON.parse((refused as { error: string }).error).error).toMatchObject({ code: 'SCOPE_VIOLATION' });
    expect((refused as { error: string }).error).toContain('Scope Violation: INT-001 is not authorized to edit docs/x.md');

    // apply_diff on src/auth/jwt.ts: the model proposes two new lines; the user edits one of them in the diff view.
    expect(rooCheck(task, 'src/auth/jwt.ts')).toEqual({ ok: true });
    const originalContent = readFileSync(join(wt, 'src/auth/jwt.ts'), 'utf8');
    const newContent = 'a\nb\nmodel1\nmodel2\n';
    const finalContent = 'a\nb\nmodel1\nuser-tweaked\n';
    saveChanges(wt, 'src/auth/jwt.ts', finalContent);
    const saved = rooSaved(task, 'apply_diff', 'src/auth/jwt.ts', { originalContent, newContent, finalContent });
    expect(saved).toMatchObject({ ok: true, result: { intent: 'INT-001', aiLines: 1, staged: true } });

    // write_to_file of a new file (no originalContent).
    saveChanges(wt, 'src/auth/new.ts', 'n1\nn2\n');
    expect(rooSaved(task, 'write_to_file', 'src/auth/new.ts', { newContent: 'n1\nn2\n', finalContent: 'n1\nn2\n' }).ok).toBe(true);
    git(wt, 'commit', '-q', '-m', 'roo');

    expect(lines(wt, 'src/auth/jwt.ts', 'ai')).toEqual([3]);
    expect(lines(wt, 'src/auth/jwt.ts', 'human')).toEqual([4]);
    expect(lines(wt, 'src/auth/new.ts', 'ai')).toEqual([1, 2]);
    const ai = noteOf(wt)!.record.files.find((x: any) => x.path === 'src/auth/new.ts').conversations[0];
    expect(ai).toMatchObject({ contributor: { type: 'ai', model_id: 'anthropic/claude-sonnet-4-5' }, url: 'roo-code://task/0193f0c2-task' });
  });

  it('apply_patch: deletes and moves go through the adapter; out-of-scope ones are refused and nothing changes', () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/auth/**'] }], { 'src/auth/a.ts': 'a\n', 'src/auth/b.ts': 'b\n', 'docs/x.md': 'x\n' });
    const wt = checkoutIntent(repo, 'INT-001');
    const task = rooTask(wt);
    expect(rooDelete(task, 'apply_patch', 'docs/x.md').ok).toBe(false);
    expect(existsSync(join(wt, 'docs/x.md'))).toBe(true);
    expect(rooMove(task, 'apply_patch', 'src/auth/b.ts', 'docs/b.ts').ok).toBe(false);
    expect(existsSync(join(wt, 'src/auth/b.ts'))).toBe(true);
    expect(rooDelete(task, 'apply_patch', 'src/auth/a.ts')).toMatchObject({ ok: true, result: { operation: 'delete' } });
    expect(rooMove(task, 'apply_patch', 'src/auth/b.ts', 'src/auth/c.ts', 'b\nc\n')).toMatchObject({ ok: true, result: { operation: 'move', aiLines: 1 } });
    expect(git(wt, 'diff', '--cached', '--name-status', '--no-renames').split('\n').filter(Boolean).sort()).toEqual(['A\tsrc/auth/c.ts', 'D\tsrc/auth/a.ts', 'D\tsrc/auth/b.ts']);
    git(wt, 'commit', '-q', '-m', 'patch');
    expect(lines(wt, 'src/auth/c.ts', 'ai')).toEqual([2]);
    // A bare fs.unlink (unpatched Roo) would leave an unstaged deletion instead:
    unlinkSync(join(wt, 'src/auth/c.ts'));
    expect(git(wt, 'status', '--porcelain').trim()).toBe('D src/auth/c.ts');
  });
});
