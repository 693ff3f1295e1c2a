// Unusual path names committed from an intent worktree (scope src/**): each must be matched
// against the scope byte for byte, reported verbatim when refused, and recorded in the note under
// its exact name (so `intent verify` finds the same file).
import type { Case, FileMap, Step } from './types.js';

/** Add `files` (all in scope), commit, expect one range each; with `verify`, `intent verify` must agree. */
function addedInScope(files: FileMap, verify = false): Step[] {
  const ranges = Object.fromEntries(Object.keys(files).map((p) => [p, [[1, 1]] as [number, number][]]));
  return [
    { write: files },
    { git: ['add', '-A'] },
    { commit: ['-q', '-m', 'odd names in scope'], expect: { ranges, meta: Object.fromEntries(Object.keys(files).map((p) => [p, { status: 'A', added_lines: 1 }])) } },
    ...(verify ? [{ verify: [] }] : []),
  ];
}

/** Add `files` (out of scope), commit: refused naming exactly `violations`, nothing lost. */
function addedOutOfScope(files: FileMap, violations: string[] = Object.keys(files)): Step[] {
  return [
    { write: files },
    { git: ['add', '-A'] },
    { commit: ['-q', '-m', 'odd names out of scope'], expect: { exit: 1, violations } },
  ];
}

const LONG = `src/${Array.from({ length: 14 }, (_, i) => String.fromCharCode(97 + i).repeat(200)).join('/')}/f.ts`;
const NFC = 'caf\u00e9';
const NFD = 'cafe\u0301';

export const pathCases: Case[] = [
  {
    name: 'newline in a file name, in scope',
    steps: addedInScope({ 'src/new\nline.ts': 'x\n' }, true),
  },
  {
    name: 'newline in a file name, out of scope: refused',
    steps: [
      { write: { 'docs/evil\nname.md': 'x\n' } },
      { git: ['add', '-A'] },
      // The path is named, quoted, so its newline cannot split the line.
      { commit: ['-q', '-m', 'newline out of scope'], expect: { exit: 1, stderrContains: ['Scope Violation: INT-001 is not authorized to edit "docs/evil\\nname.md"'] } },
    ],
  },
  {
    name: 'NFC scope: the NFC name is in scope, the NFD spelling of it is another path and refused',
    setup: { registry: [{ id: 'INT-001', scope: [`src/${NFC}/**`] }] },
    steps: [
      { write: { [`src/${NFC}/a.ts`]: 'nfc\n' } },
      { git: ['add', '-A'] },
      { commit: ['-q', '-m', 'nfc'], expect: { ranges: { [`src/${NFC}/a.ts`]: [[1, 1]] } } },
      { write: { [`src/${NFD}/b.ts`]: 'nfd\n' } },
      { git: ['add', '-A'] },
      { commit: ['-q', '-m', 'nfd'], expect: { exit: 1, violations: [`src/${NFD}/b.ts`] } },
    ],
  },
  {
    name: 'NFC and NFD names side by side are two files, recorded byte for byte',
    steps: addedInScope({ [`src/${NFC}.ts`]: 'nfc\n', [`src/${NFD}.ts`]: 'nfd\n' }, true),
  },
  {
    name: 'spaces: leading, trailing, doubled',
    steps: addedInScope({ 'src/ lead.ts': 'l\n', 'src/trail .ts': 't\n', 'src/two  spaces/x y.ts': 's\n' }),
  },
  {
    name: 'quotes and backslashes',
    steps: [
      ...addedInScope({ 'src/a"b\\c \'d\'.ts': 'q\n', 'src/\\\\double.ts': 'd\n' }, true),
      ...addedOutOfScope({ 'docs/q"\\x.md': 'x\n' }),
    ],
  },
  {
    name: 'names starting with "-"',
    steps: [
      { write: { 'src/-rf.ts': 'r\n', '-n.md': 'n\n' } },
      { git: ['add', '--', 'src/-rf.ts'] },
      { commit: ['-q', '-m', 'dash', '--', 'src/-rf.ts'], expect: { ranges: { 'src/-rf.ts': [[1, 1]] } } },
      { git: ['add', '--', '-n.md'] },
      { commit: ['-q', '-m', 'dash out of scope'], expect: { exit: 1, violations: ['-n.md'] } },
    ],
  },
  {
    name: 'a very long path (3 000 characters)',
    steps: addedInScope({ [LONG]: 'deep\n' }),
  },
  {
    name: 'leading-dot files: in scope under src/, refused elsewhere',
    steps: [
      ...addedInScope({ 'src/.env': 'A=1\n', 'src/.hidden/x.ts': 'h\n' }),
      ...addedOutOfScope({ '.github/workflows/ci.yml': 'on: push\n', '.env': 'B=2\n' }),
    ],
  },
  {
    name: 'glob metacharacters in names are literal names',
    steps: [
      ...addedInScope({ 'src/*.ts': 's\n', 'src/?x': 'q\n', 'src/[a].ts': 'b\n', 'src/{a,b}.ts': 'c\n', 'src/!bang.ts': 'e\n', 'src/#hash.ts': 'h\n' }),
      ...addedOutOfScope({ 'docs/*': 'star\n', 'docs/**': 'stars\n' }),
    ],
  },
  {
    name: 'control characters in names (tab, BEL, ESC)',
    steps: addedInScope({ 'src/tab\there.ts': 't\n', 'src/bell\x07.ts': 'b\n', 'src/esc\x1b[31m.ts': 'e\n' }, true),
  },
  {
    name: 'siblings that only look like the scope (src2/, srcx, SRC/)',
    steps: addedOutOfScope({ 'src2/x.ts': 'x\n', 'srcx.ts': 'y\n', 'SRC/a.ts': 'z\n' }),
  },
  {
    name: 'emoji and other 4-byte UTF-8 names',
    steps: addedInScope({ 'src/😀/🚀.ts': 'r\n', 'src/𝔘𝔫𝔦𝔠𝔬𝔡𝔢.ts': 'u\n' }),
  },
];
