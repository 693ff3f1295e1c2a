// What a commit stages and how: `commit -a` and `commit -- <path>` (temporary indexes), an
// alternate GIT_INDEX_FILE, renames across the scope boundary, mode-only and type changes,
// deletions, and `.intentignore` exemptions. The check must read the index the commit uses.
import type { Case } from './types.js';

export const stagingCases: Case[] = [
  {
    name: 'commit -a: out-of-scope modification refused, own index untouched; in scope recorded',
    steps: [
      { write: { 'src/a.ts': 'export const a = 2;\n', 'docs/guide.md': '# guide, edited\n' } },
      { commit: ['-q', '-a', '-m', 'mixed'], expect: { exit: 1, violations: ['docs/guide.md'] } },
      { git: ['checkout', '--', 'docs/guide.md'] },
      { commit: ['-q', '-a', '-m', 'in scope'], expect: { ranges: { 'src/a.ts': [[1, 1]] } } },
    ],
  },
  {
    name: 'commit -- <path>: only the named path counts, in both directions',
    steps: [
      { write: { 'src/a.ts': 'export const a = 2;\n', 'docs/guide.md': '# staged, out of scope\n' } },
      { git: ['add', 'docs/guide.md'] },
      { commit: ['-q', '-m', 'partial in scope', '--', 'src/a.ts'], expect: { ranges: { 'src/a.ts': [[1, 1]] } } },
      { git: ['restore', '--staged', 'docs/guide.md'] },
      { write: { 'src/b.ts': 'one\ntwo\nthree\nfour\n' } },
      { git: ['add', 'src/b.ts'] },
      { commit: ['-q', '-m', 'partial out of scope', '--', 'docs/guide.md'], expect: { exit: 1, violations: ['docs/guide.md'] } },
      { commit: ['-q', '-m', 'include', '--include', 'docs/guide.md'], expect: { exit: 1, violations: ['docs/guide.md'] } },
    ],
  },
  {
    name: 'an alternate index (GIT_INDEX_FILE) is the one checked',
    steps: [
      { git: ['read-tree', 'HEAD'], env: { GIT_INDEX_FILE: '{root}/alt.index' } },
      { write: { 'docs/guide.md': '# via another index\n' } },
      { git: ['add', 'docs/guide.md'], env: { GIT_INDEX_FILE: '{root}/alt.index' } },
      { commit: ['-q', '-m', 'alt index'], env: { GIT_INDEX_FILE: '{root}/alt.index' }, expect: { exit: 1, violations: ['docs/guide.md'] } },
    ],
  },
  {
    name: 'rename across the scope boundary: both directions refused, inside the scope recorded',
    steps: [
      { git: ['mv', 'src/a.ts', 'docs/a.ts'] },
      { commit: ['-q', '-m', 'out of scope'], expect: { exit: 1, violations: ['docs/a.ts'] } },
      { git: ['reset', '-q', '--hard'] },
      { git: ['mv', 'docs/guide.md', 'src/guide.md'] },
      { commit: ['-q', '-m', 'into scope'], expect: { exit: 1, violations: ['docs/guide.md'] } },
      { git: ['reset', '-q', '--hard'] },
      { git: ['mv', 'src/b.ts', 'src/renamed.ts'] },
      {
        commit: ['-q', '-m', 'inside'],
        expect: { ranges: { 'src/renamed.ts': [] }, meta: { 'src/renamed.ts': { status: 'R', old_path: 'src/b.ts', mutation_class: 'AST_REFACTOR' } } },
      },
      { verify: [] },
    ],
  },
  {
    name: 'mode-only change (chmod +x): in scope recorded without ranges, out of scope refused',
    steps: [
      { chmod: { 'src/a.ts': 0o755 } },
      { commit: ['-q', '-a', '-m', 'exec'], expect: { ranges: { 'src/a.ts': [] }, meta: { 'src/a.ts': { status: 'M', added_lines: 0, deleted_lines: 0 } } } },
      { chmod: { 'docs/guide.md': 0o755 } },
      { commit: ['-q', '-a', '-m', 'exec outside'], expect: { exit: 1, violations: ['docs/guide.md'] } },
      { verify: [] },
    ],
  },
  {
    name: 'type change file -> symlink -> file',
    steps: [
      { write: { 'src/a.ts': { symlink: 'b.ts' } } },
      { commit: ['-q', '-a', '-m', 'to link'], expect: { ranges: { 'src/a.ts': [[1, 1]] }, meta: { 'src/a.ts': { status: 'T', added_lines: 1, deleted_lines: 1 } } } },
      { remove: ['src/a.ts'] },
      { write: { 'src/a.ts': 'back\nto a file\n' } },
      { commit: ['-q', '-a', '-m', 'to file'], expect: { ranges: { 'src/a.ts': [[1, 2]] }, meta: { 'src/a.ts': { status: 'T' } } } },
      { write: { 'docs/guide.md': { symlink: '../README.md' } } },
      { commit: ['-q', '-a', '-m', 'link outside'], expect: { exit: 1, violations: ['docs/guide.md'] } },
      { verify: [] },
    ],
  },
  {
    name: 'deleting a file: out of scope refused (git rm and commit -a), in scope recorded',
    steps: [
      { git: ['rm', '-q', 'docs/guide.md'] },
      { commit: ['-q', '-m', 'rm outside'], expect: { exit: 1, violations: ['docs/guide.md'] } },
      { git: ['reset', '-q', '--hard'] },
      { remove: ['README.md'] },
      { commit: ['-q', '-a', '-m', 'deleted outside'], expect: { exit: 1, violations: ['README.md'] } },
      { git: ['checkout', '--', 'README.md'] },
      { git: ['rm', '-q', 'src/b.ts'] },
      { commit: ['-q', '-m', 'rm inside'], expect: { ranges: { 'src/b.ts': [] }, meta: { 'src/b.ts': { status: 'D', deleted_lines: 3 } } } },
      { verify: [] },
    ],
  },
  {
    name: '.intentignore exempts a lockfile (CRLF lines in .intentignore too)',
    setup: { mainFiles: { '.orchestration/.intentignore': '# lockfiles\r\npackage-lock.json\r\n' } },
    steps: [
      { write: { 'package-lock.json': '{ "lockfileVersion": 3 }\n', 'src/a.ts': 'export const a = 2;\n' } },
      { commit: ['-q', '-a', '-m', 'with lockfile'], expect: { ranges: { 'package-lock.json': [[1, 1]], 'src/a.ts': [[1, 1]] } } },
      { verify: [] },
      { write: { 'docs/guide.md': '# not exempt\n' } },
      { commit: ['-q', '-a', '-m', 'not exempt'], expect: { exit: 1, violations: ['docs/guide.md'] } },
    ],
  },
  {
    name: '.intentignore never exempts .orchestration/ from an intent worktree',
    setup: { registry: [{ id: 'INT-001', scope: ['**'] }], mainFiles: { '.orchestration/.intentignore': '.orchestration/**\n**\n' } },
    steps: [
      { write: { '.orchestration/AGENT.md': '# rewritten by the agent\n' } },
      { commit: ['-q', '-a', '-m', 'agent edits .orchestration'], expect: { exit: 1, violations: ['.orchestration/AGENT.md'] } },
    ],
  },
  {
    name: 'amend that adds an out-of-scope file: refused, the original commit kept',
    steps: [
      { write: { 'src/a.ts': 'export const a = 2;\n' } },
      { commit: ['-q', '-a', '-m', 'first'], expect: {} },
      { write: { 'docs/guide.md': '# amended in\n' } },
      { git: ['add', 'docs/guide.md'] },
      { commit: ['-q', '--amend', '--no-edit'], expect: { exit: 1, violations: ['docs/guide.md'] } },
      { verify: [] },
    ],
  },
];
