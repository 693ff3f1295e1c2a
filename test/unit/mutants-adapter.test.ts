import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { codeOf } from '../error-code.js';
import { checkWrite, contentHash } from '../../lib/agents/adapter.js';
import { IntentError } from '../../lib/core/errors.js';
import { checkoutIntent, forFile, governedRepo } from '../helpers.js';

// The adapter's checks (issue 42, mutation testing): the optimistic lock (expectedSha256: the bytes
// last read, bare or `sha256:` hex in either case; null: the file must not exist) and the path
// checks (inside the worktree, outside git's own directory, symlinks followed). checkWrite runs
// them without writing.


describe('the adapter\'s checks', () => {
  let wt: string;
  const body = 'export const a = 1;\n';
  const hex = createHash('sha256').update(body).digest('hex');
  beforeAll(() => forFile(() => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/auth/**'] }], { 'README.md': '# r\n', 'src/auth/login.ts': body });
    wt = checkoutIntent(repo, 'INT-001');
  }));

  it('accepts the hash of the bytes on disk in every spelling, and no check when omitted', () => {
    expect(contentHash(body)).toBe(`sha256:${hex}`);
    for (const expected of [`sha256:${hex}`, hex, hex.toUpperCase(), `SHA256:${hex.toUpperCase()}`, undefined]) {
      expect(codeOf(() => checkWrite({ worktree: wt, path: 'src/auth/login.ts', expectedSha256: expected })), String(expected)).toBeUndefined();
    }
    expect(checkWrite({ worktree: wt, path: 'src/auth/login.ts', expectedSha256: hex }).rel).toBe('src/auth/login.ts');
  });

  it('refuses another file\'s hash as stale, and null for a file that exists', () => {
    const other = createHash('sha256').update('other\n').digest('hex');
    expect(codeOf(() => checkWrite({ worktree: wt, path: 'src/auth/login.ts', expectedSha256: other }))).toBe('STALE_FILE');
    expect(codeOf(() => checkWrite({ worktree: wt, path: 'src/auth/login.ts', expectedSha256: null }))).toBe('STALE_FILE');
    // A missing file matches only null.
    expect(codeOf(() => checkWrite({ worktree: wt, path: 'src/auth/new.ts', expectedSha256: null }))).toBeUndefined();
    expect(codeOf(() => checkWrite({ worktree: wt, path: 'src/auth/new.ts', expectedSha256: hex }))).toBe('STALE_FILE');
    // A directory is not a file: it matches null, not a hash.
    mkdirSync(join(wt, 'src/auth/dir'), { recursive: true });
    expect(codeOf(() => checkWrite({ worktree: wt, path: 'src/auth/dir', expectedSha256: null }))).toBeUndefined();
  });

  it('names both hashes in the stale refusal', () => {
    const other = createHash('sha256').update('other\n').digest('hex');
    try {
      checkWrite({ worktree: wt, path: 'src/auth/login.ts', expectedSha256: other });
      expect.unreachable();
    } catch (e) {
      expect((e as IntentError).data).toMatchObject({ path: 'src/auth/login.ts', expected: `sha256:${other}`, found: `sha256:${hex}` });
    }
    try {
      checkWrite({ worktree: wt, path: 'src/auth/gone.ts', expectedSha256: other });
      expect.unreachable();
    } catch (e) {
      expect((e as IntentError).data).toMatchObject({ expected: `sha256:${other}`, found: null });
    }
  });

  it('refuses malformed hashes as invalid input', () => {
    for (const bad of ['abc', `${hex}0`, hex.slice(1), `sha256:${hex.slice(0, 63)}g`, `x${hex}`, `${hex} `, `md5:${hex}`, 42, '']) {
      expect(codeOf(() => checkWrite({ worktree: wt, path: 'src/auth/login.ts', expectedSha256: bad as string })), String(bad)).toBe('INVALID_INPUT');
    }
  });

  it('refuses paths outside the worktree or in .git, also through symlinks', () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'elsewhere-'));
    for (const p of ['.', '..', '../x.txt', join(elsewhere, 'x'), '.git/config', 'src/.GIT/x', 'src/auth/.git']) {
      expect(codeOf(() => checkWrite({ worktree: wt, path: p })), p).toBe('PATH_OUTSIDE_WORKTREE');
    }
    // Names that only start like `..` or `.git` are ordinary files.
    expect(codeOf(() => checkWrite({ worktree: wt, path: 'src/auth/..x' }))).toBeUndefined();
    expect(codeOf(() => checkWrite({ worktree: wt, path: 'src/auth/.gitignore' }))).toBeUndefined();
    symlinkSync(elsewhere, join(wt, 'src/auth/out'));
    expect(codeOf(() => checkWrite({ worktree: wt, path: 'src/auth/out/new/deep.ts' }))).toBe('PATH_OUTSIDE_WORKTREE');
    symlinkSync(join(wt, '.git'), join(wt, 'src/auth/gitlink'));
    expect(codeOf(() => checkWrite({ worktree: wt, path: 'src/auth/gitlink' }))).toBe('PATH_OUTSIDE_WORKTREE');
    symlinkSync('loop-b', join(wt, 'src/auth/loop-a'));
    symlinkSync('loop-a', join(wt, 'src/auth/loop-b'));
    expect(codeOf(() => checkWrite({ worktree: wt, path: 'src/auth/loop-a' }))).toBe('PATH_OUTSIDE_WORKTREE');
    // A chain of symlinks inside the worktree lands on its real target, which is checked.
    writeFileSync(join(wt, 'src/auth/real.ts'), 'x\n');
    symlinkSync('real.ts', join(wt, 'src/auth/l1'));
    symlinkSync('l1', join(wt, 'src/auth/l2'));
    expect(checkWrite({ worktree: wt, path: 'src/auth/l2' }).rel).toBe('src/auth/l2');
    expect(codeOf(() => checkWrite({ worktree: wt, path: 'src/auth/l2' }))).toBeUndefined();
    expect(codeOf(() => checkWrite({ worktree: wt, path: 'src/auth/new/deeper/x.ts' }))).toBeUndefined();
  });
});
