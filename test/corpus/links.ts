// Symlinks and submodules. The hooks govern the paths a commit changes: a symlink is the path of
// the link (its content is the target string), a submodule is a gitlink with no lines.
import type { Case } from './types.js';

const SUB_FILES = { 'lib.txt': 'the library\n' };

export const linkCases: Case[] = [
  {
    name: 'symlink in scope pointing out of scope: only the link is committed',
    steps: [
      { write: { 'src/to-guide.md': { symlink: '../docs/guide.md' } } },
      { git: ['add', '-A'] },
      { commit: ['-q', '-m', 'link'], expect: { ranges: { 'src/to-guide.md': [[1, 1]] }, meta: { 'src/to-guide.md': { status: 'A', added_lines: 1 } } } },
      { verify: [] },
    ],
  },
  {
    name: 'dangling symlink in scope',
    steps: [
      { write: { 'src/dangling': { symlink: 'nowhere/at/all' } } },
      { git: ['add', '-A'] },
      { commit: ['-q', '-m', 'dangling'], expect: { ranges: { 'src/dangling': [[1, 1]] } } },
      { verify: [] },
    ],
  },
  {
    name: 'symlink to a directory: committing it is fine, writing through it is refused on the real path',
    steps: [
      { write: { 'src/docs-link': { symlink: '../docs' } } },
      { git: ['add', '-A'] },
      { commit: ['-q', '-m', 'dir link'], expect: { ranges: { 'src/docs-link': [[1, 1]] } } },
      { write: { 'src/docs-link/guide.md': '# rewritten through the link\n' } },
      { git: ['add', 'src/docs-link/guide.md'], expect: { exit: 'nonzero', stderrContains: ['beyond a symbolic link'] } },
      { commit: ['-q', '-a', '-m', 'through the link'], expect: { exit: 1, violations: ['docs/guide.md'] } },
    ],
  },
  {
    name: 'symlink out of scope pointing into scope: refused',
    steps: [
      { write: { 'docs/a-link.ts': { symlink: '../src/a.ts' } } },
      { git: ['add', '-A'] },
      { commit: ['-q', '-m', 'link outside'], expect: { exit: 1, violations: ['docs/a-link.ts'] } },
    ],
  },
  {
    name: 'submodule added in scope (with .gitmodules in scope)',
    setup: { registry: [{ id: 'INT-001', scope: ['src/**', '.gitmodules'] }], extraRepos: { sub: SUB_FILES } },
    steps: [
      { git: ['-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', '{root}/sub', 'src/vendor/lib'] },
      {
        commit: ['-q', '-m', 'submodule'],
        expect: {
          ranges: { 'src/vendor/lib': [], '.gitmodules': [[1, 3]] },
          meta: { 'src/vendor/lib': { status: 'A', submodule: true, added_lines: 0 } },
        },
      },
      { verify: [] },
    ],
  },
  {
    name: 'submodule added out of scope: refused, the submodule and .gitmodules named',
    setup: { extraRepos: { sub: SUB_FILES } },
    steps: [
      { git: ['-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', '{root}/sub', 'vendor/lib'] },
      { commit: ['-q', '-m', 'submodule outside'], expect: { exit: 1, violations: ['.gitmodules', 'vendor/lib'] } },
    ],
  },
  {
    name: 'bare gitlink (no .gitmodules) in scope',
    steps: [
      { git: ['update-index', '--add', '--cacheinfo', '160000,0123456789abcdef0123456789abcdef01234567,src/gitlink'] },
      {
        commit: ['-q', '-m', 'gitlink'],
        expect: { ranges: { 'src/gitlink': [] }, meta: { 'src/gitlink': { status: 'A', submodule: true } } },
      },
      { verify: [] },
    ],
  },
];
