import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cQuote, matchName, recordPath, recordPathOf, splitNulPaths, unquoteBytes } from '../../lib/git/paths.js';
import { git, makeRepo } from '../helpers.js';

// File names are bytes: the recorded form keeps names that are not UTF-8 apart (lib/git/paths.ts).

const b = (...parts: (string | number[])[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));

describe('recorded path form', () => {
  it('writes UTF-8 names as themselves and the rest quoted as git quotes them, so no two names share a form', () => {
    expect(recordPath(b('src/café ✓.ts'))).toBe('src/café ✓.ts');
    expect(recordPath(b('src/caf', [0xe9], '.txt'))).toBe('"src/caf\\351.txt"');
    expect(recordPath(b('src/caf', [0xe8], '.txt'))).toBe('"src/caf\\350.txt"');
    // a UTF-8 name that starts with a double quote is quoted too, so a quoted form is never a real name
    expect(recordPath(b('"top".txt'))).toBe('"\\"top\\".txt"');
    expect(recordPath(b('a"b'))).toBe('a"b');
    expect(recordPath(b('tab\there'))).toBe('tab\there');
  });

  it('round-trips: the bytes of a recorded quoted form are the name; matchName decodes it for the globs', () => {
    for (const name of [b('src/caf', [0xe9], '.txt'), b('"x'), b([0xff, 0xfe, 0x0a, 0x5c, 0x22, 0x07])]) {
      const rec = recordPath(name);
      expect(rec.startsWith('"')).toBe(true);
      expect(unquoteBytes(rec).equals(name)).toBe(true);
      expect(recordPathOf(rec)).toBe(rec);
    }
    expect(matchName('"src/caf\\351.txt"')).toBe('src/caf\uFFFD.txt');
    expect(matchName('src/plain.txt')).toBe('src/plain.txt');
  });

  it("quotes exactly like git's core.quotePath, and reads git's -z output by bytes", () => {
    const repo = makeRepo();
    const names = [b('src/caf', [0xe9], '.txt'), b('src/ü ber.txt'), b('src/q"uote\\.txt'), b('src/', [0x01, 0x7f, 0xc3], 'x')];
    mkdirSync(join(repo, 'src'));
    for (const n of names) writeFileSync(Buffer.concat([Buffer.from(repo + '/'), n]), 'x\n');
    git(repo, 'add', '-A');
    const quoted = git(repo, '-c', 'core.quotePath=true', 'ls-files').split('\n').filter((l) => l.startsWith('src/') || l.startsWith('"src/'));
    const z = spawnSync('git', ['ls-files', '-z', 'src'], { cwd: repo }).stdout as Buffer;
    const fromZ = splitNulPaths(z);
    const ours = names.map((n) => cQuote(n));
    // git quotes every name here that has a byte outside printable ASCII; ours matches it byte for byte
    for (const q of quoted.filter((l) => l.startsWith('"'))) expect(ours).toContain(q);
    expect(fromZ.sort()).toEqual(quoted.map(recordPathOf).sort());
  });
});
