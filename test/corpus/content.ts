// File contents: binaries (git's test: a NUL in the first 8000 bytes), a 16 MB file, CRLF and
// lone CR line endings, missing trailing newlines, empty files and empty commits, very long lines,
// many files. Ranges must cover exactly the added lines and hash exactly the committed bytes
// (the driver re-hashes every range independently; `intent verify` must agree).
import type { Case, FileMap } from './types.js';

const PNG = { bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x0a, 0xff, 0x00] };

function manyFiles(n: number): FileMap {
  return Object.fromEntries(Array.from({ length: n }, (_, i) => [`src/many/f${String(i).padStart(4, '0')}.ts`, `export const v${i} = ${i};\nexport const w${i} = ${i};\n`]));
}

export const contentCases: Case[] = [
  {
    name: 'binary file added, then changed, in scope: entries without ranges',
    steps: [
      { write: { 'src/logo.png': PNG } },
      { git: ['add', '-A'] },
      { commit: ['-q', '-m', 'binary'], expect: { ranges: { 'src/logo.png': [] }, meta: { 'src/logo.png': { status: 'A', binary: true, added_lines: 0 } } } },
      { write: { 'src/logo.png': { bytes: [...PNG.bytes, 0x0a, 0x41, 0x0a] }, 'src/b.ts': { bytes: [0x00, 0x0a, 0x01, 0x0a] } } },
      {
        commit: ['-q', '-a', '-m', 'binary changed, text became binary'],
        expect: { ranges: { 'src/logo.png': [], 'src/b.ts': [] }, meta: { 'src/logo.png': { status: 'M', binary: true }, 'src/b.ts': { status: 'M', binary: true } } },
      },
      { verify: [] },
    ],
  },
  {
    name: 'binary file out of scope: refused',
    steps: [
      { write: { 'docs/logo.png': PNG } },
      { git: ['add', '-A'] },
      { commit: ['-q', '-m', 'binary outside'], expect: { exit: 1, violations: ['docs/logo.png'] } },
    ],
  },
  {
    name: 'a NUL byte after the first 8000 bytes: text, with ranges',
    steps: [
      { write: { 'src/late-nul.txt': `${'line of text\n'.repeat(700)}tail \u0000 nul\nlast\n` } },
      { git: ['add', '-A'] },
      { commit: ['-q', '-m', 'late nul'], expect: { ranges: { 'src/late-nul.txt': [[1, 702]] }, meta: { 'src/late-nul.txt': { added_lines: 702 } } } },
      { verify: [] },
    ],
  },
  {
    // 16 MB: past every size limit of the hooks (the staged patch read up to 1 MB, the syntax
    // comparison up to 4 MB), so the same paths run as for 100 MB at about a sixth of the cost
    // (100 MB took 10 s of the suite); bench item 2 times a 100 MB file.
    name: 'a 16 MB binary file in scope: recorded without ranges (100 MB: bench item 2)',
    // Loose objects stored uncompressed: the test measures intent, not zlib.
    setup: { gitConfig: { 'core.looseCompression': '0' } },
    timeout: 180,
    steps: [
      { write: { 'src/big.bin': { random: 16 * 1024 * 1024, header: [0x00, 0x01, 0x02] } } },
      { git: ['add', 'src/big.bin'] },
      {
        commit: ['-q', '-m', '16 MB'],
        expect: { ranges: { 'src/big.bin': [] }, meta: { 'src/big.bin': { status: 'A', binary: true, added_lines: 0 } }, summaryContains: ['1 file, 0 ranges'] },
      },
      { verify: [] },
    ],
  },
  {
    name: 'CRLF file: ranges and hashes over the CRLF bytes',
    steps: [
      { write: { 'src/crlf.ts': 'one\r\ntwo\r\nthree\r\n' } },
      { git: ['add', '-A'] },
      { commit: ['-q', '-m', 'crlf'], expect: { ranges: { 'src/crlf.ts': [[1, 3]] } } },
      { write: { 'src/crlf.ts': 'one\r\nTWO\r\nthree\r\nfour' } },
      { commit: ['-q', '-a', '-m', 'crlf edit'], expect: { ranges: { 'src/crlf.ts': [[2, 2], [4, 4]] }, meta: { 'src/crlf.ts': { added_lines: 2, deleted_lines: 1 } } } },
      { write: { 'src/b.ts': 'one\r\ntwo\r\nthree\r\n' } },
      { commit: ['-q', '-a', '-m', 'LF to CRLF'], expect: { ranges: { 'src/b.ts': [[1, 3]] }, meta: { 'src/b.ts': { added_lines: 3, deleted_lines: 3 } } } },
      { verify: [] },
    ],
  },
  {
    name: 'core.autocrlf=true: hashes are over the committed (LF) bytes, not the CRLF working file',
    setup: { gitConfig: { 'core.autocrlf': 'true' } },
    steps: [
      { write: { 'src/auto.ts': 'alpha\r\nbeta\r\n' } },
      { git: ['add', '-A'] },
      { commit: ['-q', '-m', 'autocrlf'], expect: { ranges: { 'src/auto.ts': [[1, 2]] } } },
      { verify: [] },
    ],
  },
  {
    name: 'lone CR and mixed line endings',
    steps: [
      { write: { 'src/cr.txt': 'a\rb\rc', 'src/mixed.txt': 'one\r\ntwo\nthree\rfour\r\n' } },
      { git: ['add', '-A'] },
      { commit: ['-q', '-m', 'cr'], expect: { ranges: { 'src/cr.txt': [[1, 1]], 'src/mixed.txt': [[1, 3]] } } },
      { verify: [] },
    ],
  },
  {
    name: 'no trailing newline: added, extended, then the newline removed again',
    steps: [
      { write: { 'src/nonl.ts': 'x\ny' } },
      { git: ['add', '-A'] },
      { commit: ['-q', '-m', 'no newline'], expect: { ranges: { 'src/nonl.ts': [[1, 2]] } } },
      { write: { 'src/nonl.ts': 'x\ny\nz\n' } },
      { commit: ['-q', '-a', '-m', 'extended'], expect: { ranges: { 'src/nonl.ts': [[2, 3]] }, meta: { 'src/nonl.ts': { added_lines: 2, deleted_lines: 1 } } } },
      { write: { 'src/nonl.ts': 'x\ny\nz' } },
      { commit: ['-q', '-a', '-m', 'newline dropped'], expect: { ranges: { 'src/nonl.ts': [[3, 3]] } } },
      { verify: [] },
    ],
  },
  {
    name: 'empty files: added empty, filled, emptied',
    steps: [
      { write: { 'src/empty.ts': '' } },
      { git: ['add', '-A'] },
      { commit: ['-q', '-m', 'empty'], expect: { ranges: { 'src/empty.ts': [] }, meta: { 'src/empty.ts': { status: 'A', added_lines: 0 } } } },
      { write: { 'src/empty.ts': 'now\nfull\n' } },
      { commit: ['-q', '-a', '-m', 'filled'], expect: { ranges: { 'src/empty.ts': [[1, 2]] } } },
      { write: { 'src/b.ts': '' } },
      { commit: ['-q', '-a', '-m', 'emptied'], expect: { ranges: { 'src/b.ts': [] }, meta: { 'src/b.ts': { status: 'M', added_lines: 0, deleted_lines: 3 } } } },
      { verify: [] },
    ],
  },
  {
    name: 'empty commit (--allow-empty) in an intent worktree',
    steps: [
      { commit: ['-q', '--allow-empty', '-m', 'nothing'], expect: { summaryContains: ['0 files, 0 ranges'] } },
      { verify: [] },
    ],
  },
  {
    name: 'one 2 MB line without a newline',
    steps: [
      { write: { 'src/min.js': { repeat: 'var x=1;', times: 262_144 } } },
      { git: ['add', '-A'] },
      { commit: ['-q', '-m', 'minified'], expect: { ranges: { 'src/min.js': [[1, 1]] } } },
      { verify: [] },
    ],
  },
  {
    name: '1 000 files in one commit',
    timeout: 150,
    steps: [
      { write: manyFiles(1000) },
      { git: ['add', '-A'] },
      { commit: ['-q', '-m', 'many'], expect: { summaryContains: ['1000 files, 1000 ranges'] } },
      { verify: [] },
    ],
  },
];
