import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { contentHash, deleteFile, moveFile, readForEdit, recordWrite, writeFile, type WriteRequest } from '../../lib/agents/adapter.js';
import { renderContext } from '../../lib/intents/context.js';
import { IntentError } from '../../lib/core/errors.js';
import { checkoutIntent, git, governedRepo, noteOf, tempDir, writeFiles } from '../helpers.js';
import { expectValid } from '../trace-validator.js';

const MODEL = 'anthropic/claude-sonnet-4-5';
const URL_ = 'roo-code://task/7f3a';

function setup(): { repo: string; wt: string } {
  const repo = governedRepo(
    [{ id: 'INT-001', name: 'JWT auth', scope: ['src/auth/**'] }, { id: 'INT-002', scope: ['docs/**'] }],
    { 'README.md': '# r\n', 'src/auth/login.ts': 'export const a = 1;\nexport const b = 2;\n', 'docs/x.md': 'x\n' },
  );
  return { repo, wt: checkoutIntent(repo, 'INT-001') };
}

function req(wt: string, path: string, content: string, extra: Partial<WriteRequest> = {}): WriteRequest {
  return { worktree: wt, path, content, tool: 'write_to_file', modelId: MODEL, conversationUrl: URL_, ...extra };
}

function refusal(fn: () => unknown): IntentError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(IntentError);
    return e as IntentError;
  }
  throw new Error('expected a refusal');
}

/** Conversations of `path` in the HEAD note, keyed by contributor. */
function credit(wt: string, path: string): Record<string, { model?: string; url?: string; lines: number[] }> {
  const file = noteOf(wt)!.record.files.find((f: any) => f.path === path);
  const out: Record<string, { model?: string; url?: string; lines: number[] }> = {};
  for (const c of file.conversations) {
    const lines = c.ranges.flatMap((r: any) => Array.from({ length: r.end_line - r.start_line + 1 }, (_, i) => r.start_line + i));
    out[c.contributor.model_id ?? c.contributor.type] = { model: c.contributor.model_id, url: c.url, lines };
  }
  return out;
}

describe('the adapter: an agent-shaped session ending in one commit', () => {
  it('credits the model for its lines and the human for theirs; refusals write nothing', () => {
    const { wt } = setup();
    const login = join(wt, 'src/auth/login.ts');

    // The handshake: the agent selects its intent and gets the context block.
    const context = renderContext(wt, 'INT-001');
    expect(context).toMatch(/^<intent_context id="INT-001" status="IN_PROGRESS"/);
    expect(context).toContain('<glob>src/auth/**</glob>');

    // The agent reads the file, then writes it in scope.
    const read = readForEdit({ worktree: wt, path: 'src/auth/login.ts' });
    expect(read.sha256).toBe(contentHash('export const a = 1;\nexport const b = 2;\n'));
    const ok = writeFile(req(wt, 'src/auth/login.ts', 'export const a = 1;\nexport const b = 2;\nexport const ai1 = 3;\nexport const ai2 = 4;\n', { expectedSha256: read.sha256 }));
    expect(ok).toMatchObject({ intent: 'INT-001', operation: 'write', path: 'src/auth/login.ts', aiLines: 2, staged: true });
    expect(git(wt, 'diff', '--cached', '--name-only').trim()).toBe('src/auth/login.ts');

    // Out of scope: refused with the hook's sentence, nothing written.
    const out = refusal(() => writeFile(req(wt, 'docs/x.md', 'hacked\n')));
    expect(out.code).toBe('SCOPE_VIOLATION');
    expect(out.message).toContain('Scope Violation: INT-001 is not authorized to edit docs/x.md');
    expect(out.toJSON()).toMatchObject({ code: 'SCOPE_VIOLATION', data: { intent: 'INT-001', paths: ['docs/x.md'] } });
    expect(readFileSync(join(wt, 'docs/x.md'), 'utf8')).toBe('x\n');

    // Stale: the agent still holds the hash from before its own write.
    const stale = refusal(() => writeFile(req(wt, 'src/auth/login.ts', 'clobber\n', { expectedSha256: read.sha256 })));
    expect(stale.code).toBe('STALE_FILE');
    expect(stale.message).toMatch(/^Stale File: src\/auth\/login\.ts changed since it was read \(expected sha256:[0-9a-f]{64}, found sha256:[0-9a-f]{64}\)/);
    expect(readFileSync(login, 'utf8')).toContain('ai2');

    // A human edits after the agent: changes one of the model's lines and adds one of their own.
    writeFileSync(login, 'export const a = 1;\nexport const b = 2;\nexport const ai1 = 3;\nexport const human = 42;\nexport const human2 = 5;\n');
    git(wt, 'add', 'src/auth/login.ts');
    git(wt, 'commit', '-q', '-m', 'agent and human');

    const notes = git(wt, 'notes', '--ref=intents', 'list').trim().split('\n');
    expect(notes).toHaveLength(1);
    const c = credit(wt, 'src/auth/login.ts');
    expect(c[MODEL]).toEqual({ model: MODEL, url: URL_, lines: [3] });
    expect(c.human.lines).toEqual([4, 5]);
    expectValid(noteOf(wt)!.record);
    // Every range's hash is the committed bytes of its lines.
    const committed = git(wt, 'show', 'HEAD:src/auth/login.ts').split(/(?<=\n)/);
    for (const conv of noteOf(wt)!.record.files[0].conversations) {
      for (const r of conv.ranges) expect(r.content_hash).toBe(contentHash(committed.slice(r.start_line - 1, r.end_line).join('')));
    }
    // The credit was consumed by the commit: the next human commit credits nobody's model.
    writeFileSync(login, readFileSync(login, 'utf8') + 'export const later = 6;\n');
    git(wt, 'commit', '-q', '-am', 'human only');
    expect(Object.keys(credit(wt, 'src/auth/login.ts'))).toEqual(['human']);
  });

  it('carries credit across several writes and models, and splits a hunk into ranges per contributor', () => {
    const { wt } = setup();
    writeFile(req(wt, 'src/auth/new.ts', 'one\ntwo\n', { expectedSha256: null }));
    writeFile(req(wt, 'src/auth/new.ts', 'one\ntwo\nthree\n', { modelId: 'openai/gpt-5', conversationUrl: 'https://chat.example/c/9' }));
    // The human inserts a line between the models' lines without staging; commit -a takes it.
    writeFileSync(join(wt, 'src/auth/new.ts'), 'one\nhuman\ntwo\nthree\n');
    git(wt, 'commit', '-q', '-am', 'two models and a human');
    const c = credit(wt, 'src/auth/new.ts');
    expect(c[MODEL].lines).toEqual([1, 3]);
    expect(c['openai/gpt-5']).toEqual({ model: 'openai/gpt-5', url: 'https://chat.example/c/9', lines: [4] });
    expect(c.human.lines).toEqual([2]);
    expectValid(noteOf(wt)!.record);
  });

  it('expectedSha256: null means "this file must not exist yet": an existing file is refused as stale, left as it was and not staged', () => {
    const { wt } = setup();
    const before = readFileSync(join(wt, 'src/auth/login.ts'));
    const stale = refusal(() => writeFile(req(wt, 'src/auth/login.ts', 'clobber\n', { expectedSha256: null })));
    expect(stale.code).toBe('STALE_FILE');
    expect(stale.message).toContain('Stale File: src/auth/login.ts changed since it was read (expected no file, found sha256:');
    expect(readFileSync(join(wt, 'src/auth/login.ts'))).toEqual(before);
    expect(git(wt, 'diff', '--cached', '--name-only')).toBe('');
    // A new file with null goes through.
    writeFile(req(wt, 'src/auth/fresh.ts', 'new\n', { expectedSha256: null }));
    expect(readFileSync(join(wt, 'src/auth/fresh.ts'), 'utf8')).toBe('new\n');
  });

  it('refuses paths that leave the worktree, through .., absolute paths and symlinks', () => {
    const { wt } = setup();
    const elsewhere = tempDir();
    for (const p of ['../outside.txt', join(elsewhere, 'x.txt'), 'src/auth/../../../escape.txt', '.git/config']) {
      const e = refusal(() => writeFile(req(wt, p, 'x\n')));
      expect(e.code, p).toBe('PATH_OUTSIDE_WORKTREE');
    }
    symlinkSync(elsewhere, join(wt, 'src/auth/link'));
    expect(refusal(() => writeFile(req(wt, 'src/auth/link/evil.txt', 'x\n'))).code).toBe('PATH_OUTSIDE_WORKTREE');
    expect(existsSync(join(elsewhere, 'evil.txt'))).toBe(false);
    // A symlink inside the scope pointing at a file outside the scope is a scope violation.
    symlinkSync('../../docs/x.md', join(wt, 'src/auth/docs-link.md'));
    const e = refusal(() => writeFile(req(wt, 'src/auth/docs-link.md', 'x\n')));
    expect(e.code).toBe('SCOPE_VIOLATION');
    expect(e.message).toContain('docs/x.md');
    expect(readFileSync(join(wt, 'docs/x.md'), 'utf8')).toBe('x\n');
  });

  it('refuses without an active intent, and with malformed input, writing nothing', () => {
    const { repo, wt } = setup();
    const none = refusal(() => writeFile(req(repo, 'src/auth/login.ts', 'x\n')));
    expect(none.code).toBe('NO_ACTIVE_INTENT');
    expect(none.message).toMatch(/^You must cite a valid active Intent ID\./);
    expect(refusal(() => writeFile(req(wt, 'src/auth/a.ts', 'x\n', { modelId: 'no-provider' }))).code).toBe('INVALID_INPUT');
    expect(refusal(() => writeFile(req(wt, 'src/auth/a.ts', 'x\n', { expectedSha256: 'abc' }))).code).toBe('INVALID_INPUT');
    expect(refusal(() => writeFile({ ...req(wt, 'src/auth/a.ts', ''), content: 42 as unknown as string })).code).toBe('INVALID_INPUT');
    expect(existsSync(join(wt, 'src/auth/a.ts'))).toBe(false);
    expect(git(wt, 'status', '--porcelain')).toBe('');
  });

  it('deletes and moves within the scope and stages both sides', () => {
    const { wt } = setup();
    writeFiles(wt, { 'src/auth/old.ts': 'keep\n' });
    git(wt, 'add', '-A');
    git(wt, 'commit', '-q', '-m', 'add old');
    const mv = moveFile({ worktree: wt, path: 'src/auth/old.ts', newPath: 'src/auth/moved/new.ts', content: 'keep\nadded\n', tool: 'apply_patch', modelId: MODEL });
    expect(mv).toMatchObject({ operation: 'move', path: 'src/auth/moved/new.ts', oldPath: 'src/auth/old.ts', aiLines: 1 });
    expect(refusal(() => moveFile({ worktree: wt, path: 'src/auth/login.ts', newPath: 'docs/login.ts', tool: 'apply_patch', modelId: MODEL })).code).toBe('SCOPE_VIOLATION');
    expect(existsSync(join(wt, 'src/auth/login.ts'))).toBe(true);
    const del = deleteFile({ worktree: wt, path: 'src/auth/login.ts', tool: 'apply_patch', modelId: MODEL });
    expect(del).toMatchObject({ operation: 'delete', sha256: null });
    expect(git(wt, 'status', '--porcelain').split('\n').filter(Boolean).sort()).toEqual(['A  src/auth/moved/new.ts', 'D  src/auth/login.ts', 'D  src/auth/old.ts']);
    git(wt, 'commit', '-q', '-m', 'move and delete');
    expect(credit(wt, 'src/auth/moved/new.ts')[MODEL].lines).toEqual([2]);
  });

  it('records a write the agent tool made itself (post-tool hooks), crediting only what changed', () => {
    const { wt } = setup();
    const file = join(wt, 'src/auth/login.ts');
    const before = readFileSync(file);
    writeFileSync(file, 'export const a = 1;\nexport const tool = 9;\nexport const b = 2;\n');
    expect(recordWrite({ worktree: wt, path: file, before, tool: 'Edit', modelId: MODEL })).toMatchObject({ aiLines: 1, staged: true });
    git(wt, 'commit', '-q', '-m', 'tool edit');
    expect(credit(wt, 'src/auth/login.ts')[MODEL].lines).toEqual([2]);
  });
});
