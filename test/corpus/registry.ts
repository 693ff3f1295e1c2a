// Broken, odd and large intent registries (.orchestration/active_intents.yaml of the main worktree).
// A broken registry must be refused with every problem located (file:line:col, intent, field) and
// change nothing; odd but valid ones (BOM, CRLF, tabs inside lines, unicode names, 10k intents)
// must work, and `intent checkout` must keep their bytes apart from the status it sets.
import { intentYaml, type Case, type Step } from './types.js';

const CHECKOUT: string[] = ['checkout', 'INT-001'];
const INVALID = 'Invalid intent registry {reg} (1 problem):';

/** `intent checkout INT-001` must exit 1 naming these, and change nothing. */
function refusedCheckout(...stderrContains: string[]): Step[] {
  return [{ intent: CHECKOUT, expect: { exit: 1, stderrContains } }];
}

/** A registry of one intent INT-001 whose other lines are given. */
function one(fields: string): string {
  return `active_intents:\n  - id: "INT-001"\n${fields}`;
}

const NAME_STATUS = '    name: "Corpus Intent"\n    status: "PENDING"\n';

/** Check out INT-001, commit in scope; the note must exist and verify clean. */
const CHECKOUT_AND_COMMIT: Step[] = [
  { intent: ['checkout', 'INT-001'], expect: { stdoutContains: ['{root}/repo.worktrees/INT-001'] } },
  { write: { 'src/new.ts': 'x\n' }, in: 'dir:repo.worktrees/INT-001' },
  { git: ['add', '-A'], in: 'dir:repo.worktrees/INT-001' },
  { commit: ['-q', '-m', 'in scope'], in: 'dir:repo.worktrees/INT-001', expect: { governed: 'INT-001', ranges: { 'src/new.ts': [[1, 1]] } } },
  { verify: [], in: 'dir:repo.worktrees/INT-001' },
];

/** 10 000 intents, INT-00000 … INT-09999, each owning src/m<n>/**. */
function tenThousand(): string {
  let s = 'active_intents:\n';
  for (let i = 0; i < 10_000; i++) {
    s += intentYaml({ id: `INT-${String(i).padStart(5, '0')}`, name: `Intent ${i}`, scope: [`src/m${i}/**`] });
  }
  return s;
}

export const registryCases: Case[] = [
  {
    name: 'empty file',
    setup: { registry: '', checkout: false },
    steps: refusedCheckout(INVALID, '{reg}: the file must be a mapping with an `active_intents:` list at the top'),
  },
  {
    name: 'only comments',
    setup: { registry: '# nothing here yet\n# active_intents:\n', checkout: false },
    steps: refusedCheckout(INVALID, 'the file must be a mapping with an `active_intents:` list at the top'),
  },
  {
    name: 'not YAML (unclosed flow sequence)',
    setup: { registry: 'active_intents: [unclosed\n', checkout: false },
    steps: refusedCheckout(INVALID, '{reg}:2:1: YAML syntax error'),
  },
  {
    name: 'a YAML list at the top instead of a mapping',
    setup: { registry: '- id: "INT-001"\n  name: "x"\n  status: "PENDING"\n  owned_scope: ["src/**"]\n', checkout: false },
    steps: refusedCheckout(INVALID, '{reg}:1:1: the file must be a mapping with an `active_intents:` list at the top'),
  },
  {
    name: 'active_intents is a mapping, not a list',
    setup: { registry: 'active_intents:\n  INT-001: { name: "x" }\n', checkout: false },
    steps: refusedCheckout(INVALID, '{reg}:2:3: field active_intents: must be a list of intents'),
  },
  {
    name: 'active_intents is empty: the intent is unknown',
    setup: { registry: 'active_intents:\n', checkout: false },
    steps: refusedCheckout('Unknown intent INT-001: it is not in {reg}'),
  },
  {
    name: 'unknown top-level key',
    setup: { registry: `intents:\n  - id: "INT-001"\n`, checkout: false },
    steps: refusedCheckout('{reg}:1:1: unknown top-level key "intents"; only "active_intents" is allowed', 'missing the `active_intents:` list'),
  },
  {
    name: 'missing id',
    setup: { registry: `active_intents:\n  - name: "Corpus Intent"\n    status: "PENDING"\n    owned_scope: ["src/**"]\n`, checkout: false },
    steps: refusedCheckout(INVALID, '{reg}:2:5: intent active_intents[0], field id: missing; every intent needs an id'),
  },
  {
    name: 'id is a number (unquoted 001)',
    setup: { registry: `active_intents:\n  - id: 001\n${NAME_STATUS}    owned_scope: ["src/**"]\n`, checkout: false },
    steps: refusedCheckout(INVALID, '{reg}:2:9: intent active_intents[0], field id: must be a string such as "INT-001", got 1 (quote it)'),
  },
  {
    name: 'unicode id',
    setup: { registry: `active_intents:\n  - id: "ИНТ-001"\n${NAME_STATUS}    owned_scope: ["src/**"]\n`, checkout: false },
    steps: [{ intent: ['checkout', 'ИНТ-001'], expect: { exit: 1, stderrContains: [INVALID, '{reg}:2:9: intent ИНТ-001, field id: "ИНТ-001" is not a valid id'] } }],
  },
  {
    name: 'duplicate ids',
    setup: {
      registry: `active_intents:\n${intentYaml({ id: 'INT-001', scope: ['src/**'] })}${intentYaml({ id: 'INT-001', scope: ['docs/**'] })}`,
      checkout: false,
    },
    steps: refusedCheckout(INVALID, '{reg}:6:9: intent INT-001, field id: duplicate id; "INT-001" is already defined on line 2'),
  },
  {
    name: 'duplicate key inside one intent',
    setup: { registry: one(`${NAME_STATUS}    status: "BLOCKED"\n    owned_scope: ["src/**"]\n`), checkout: false },
    steps: refusedCheckout(INVALID, '{reg}:5:5: YAML syntax error: Map keys must be unique'),
  },
  {
    name: 'bad status',
    setup: { registry: one('    name: "x"\n    status: "DONE"\n    owned_scope: ["src/**"]\n'), checkout: false },
    steps: refusedCheckout(INVALID, '{reg}:4:13: intent INT-001, field status: unknown status "DONE"; use one of PENDING, IN_PROGRESS, BLOCKED, COMPLETED, ABANDONED'),
  },
  {
    name: 'lower-case status',
    setup: { registry: one('    name: "x"\n    status: in_progress\n    owned_scope: ["src/**"]\n'), checkout: false },
    steps: refusedCheckout(INVALID, 'field status: unknown status "in_progress"'),
  },
  {
    name: 'scope is a string, not a list',
    setup: { registry: one(`${NAME_STATUS}    owned_scope: "src/**"\n`), checkout: false },
    steps: refusedCheckout(INVALID, '{reg}:5:18: intent INT-001, field owned_scope: must be a list of path globs'),
  },
  {
    name: 'scope is an empty list',
    setup: { registry: one(`${NAME_STATUS}    owned_scope: []\n`), checkout: false },
    steps: refusedCheckout(INVALID, 'field owned_scope: is empty; an intent must own at least one path glob'),
  },
  {
    name: 'scope has only negations',
    setup: { registry: one(`${NAME_STATUS}    owned_scope: ["!src/**"]\n`), checkout: false },
    steps: refusedCheckout(INVALID, 'field owned_scope: has only "!" negations'),
  },
  {
    name: 'globs with ".." (two problems reported at once)',
    setup: { registry: one(`${NAME_STATUS}    owned_scope: ["src/**", "../x", "src/../../etc/**"]\n`), checkout: false },
    steps: refusedCheckout(
      'Invalid intent registry {reg} (2 problems):',
      '{reg}:5:29: intent INT-001, field owned_scope[1]: "../x" contains ".." and would leave the repository',
      'field owned_scope[2]: "src/../../etc/**" contains ".." and would leave the repository',
    ),
  },
  {
    name: 'absolute globs (POSIX and Windows)',
    setup: { registry: one(`${NAME_STATUS}    owned_scope: ["/etc/**", "C:/Users/**"]\n`), checkout: false },
    steps: refusedCheckout(
      'Invalid intent registry {reg} (2 problems):',
      '{reg}:5:19: intent INT-001, field owned_scope[0]: "/etc/**" is an absolute path',
      'field owned_scope[1]: "C:/Users/**" is an absolute path',
    ),
  },
  {
    name: 'backslash glob',
    setup: { registry: one(`${NAME_STATUS}    owned_scope: ['src\\auth\\**']\n`), checkout: false },
    steps: refusedCheckout(INVALID, '{reg}:5:19: intent INT-001, field owned_scope[0]: "src\\auth\\**" contains a backslash; use "/" as the separator'),
  },
  {
    name: 'empty, bare "!" and padded globs',
    setup: { registry: one(`${NAME_STATUS}    owned_scope: ["src/**", "", "!", " docs/** "]\n`), checkout: false },
    steps: refusedCheckout(
      'Invalid intent registry {reg} (3 problems):',
      'field owned_scope[1]: "" is empty',
      'field owned_scope[2]: "!" negation "!" has no pattern after it',
      'field owned_scope[3]: " docs/** " has leading or trailing whitespace',
    ),
  },
  {
    name: 'invalid glob (unbalanced bracket)',
    setup: { registry: one(`${NAME_STATUS}    owned_scope: ["src/[a-"]\n`), checkout: false },
    steps: refusedCheckout(INVALID, 'field owned_scope[0]: "src/[a-" has unbalanced brackets or braces'),
  },
  {
    name: 'every problem of several intents reported at once',
    setup: {
      registry: 'active_intents:\n' +
        '  - id: "INT-001"\n    name: "x"\n    status: "PENDING"\n    owned_scope: ["src/**", 42, null]\n    colour: red\n' +
        '  - id: "INT-002"\n    status: "WIP"\n',
      checkout: false,
    },
    steps: refusedCheckout(
      'Invalid intent registry {reg} (6 problems):',
      '{reg}:6:5: intent INT-001, field colour: unknown field',
      '{reg}:5:29: intent INT-001, field owned_scope[1]: must be a string, got number 42',
      'intent INT-001, field owned_scope[2]: must be a string, got null',
      'intent INT-002, field name: missing',
      'intent INT-002, field status: unknown status "WIP"',
      'intent INT-002, field owned_scope: missing',
    ),
  },
  {
    name: 'multiple YAML documents',
    setup: { registry: `${one(`${NAME_STATUS}    owned_scope: ["src/**"]\n`)}---\nactive_intents: []\n`, checkout: false },
    steps: refusedCheckout(INVALID, '{reg}:6:1: YAML syntax error: Source contains multiple documents'),
  },
  {
    name: 'tabs as indentation',
    setup: { registry: 'active_intents:\n\t- id: "INT-001"\n\t  name: "x"\n', checkout: false },
    steps: refusedCheckout('Invalid intent registry {reg} (2 problems):', '{reg}:2:1: YAML syntax error: Tabs are not allowed as indentation', '{reg}:3:1: YAML syntax error: Tabs'),
  },
  {
    name: 'tabs inside lines are fine',
    setup: {
      registry: 'active_intents:\n  - id: "INT-001"\n    name: "x"\t# a comment after a tab\n    status:\t"PENDING"\n    owned_scope: ["src/**",\t"docs/x.md"]\n',
      checkout: false,
    },
    steps: CHECKOUT_AND_COMMIT,
  },
  {
    name: 'missing registry file',
    setup: { checkout: false },
    steps: [
      { remove: ['.orchestration/active_intents.yaml'], in: 'main' },
      { intent: CHECKOUT, expect: { exit: 1, stderrContains: ['No intent registry at {reg}. Run `intent init` to create one.'] } },
    ],
  },
  {
    name: 'registry path is a directory',
    setup: { checkout: false },
    steps: [
      { remove: ['.orchestration/active_intents.yaml'], in: 'main' },
      { write: { '.orchestration/active_intents.yaml/README': 'not a file\n' }, in: 'main' },
      { intent: CHECKOUT, expect: { exit: 1, stderrContains: ['Cannot read the intent registry {reg}: EISDIR'] } },
    ],
  },
  {
    name: 'BOM: works and is kept by checkout',
    setup: { registry: `\ufeffactive_intents:\n${intentYaml({ id: 'INT-001', scope: ['src/**'] })}`, checkout: false },
    steps: [
      ...CHECKOUT_AND_COMMIT,
      // The registry still starts with the BOM and only the status line changed.
      { file: '.orchestration/active_intents.yaml', in: 'main', matches: [/^\ufeffactive_intents:\n/, /^ {4}status: "IN_PROGRESS"$/m] },
      { git: ['diff', '--numstat', '--', '.orchestration/active_intents.yaml'], in: 'main', expect: { stdoutContains: ['1\t1\t'] } },
    ],
  },
  {
    name: 'CRLF line endings: work and are kept by checkout',
    setup: { registry: `active_intents:\n${intentYaml({ id: 'INT-001', scope: ['src/**'] })}`.replace(/\n/g, '\r\n'), checkout: false },
    steps: [
      ...CHECKOUT_AND_COMMIT,
      // Every line still ends in CRLF, the status line included, and only that line changed.
      { file: '.orchestration/active_intents.yaml', in: 'main', matches: [/^ {4}status: "IN_PROGRESS"\r$/m], notMatches: [/(^|[^\r])\n/] },
      { git: ['diff', '--numstat', '--', '.orchestration/active_intents.yaml'], in: 'main', expect: { stdoutContains: ['1\t1\t'] } },
    ],
  },
  {
    name: 'unicode names and scope',
    setup: { registry: one('    name: "認証 — JWT 🚀 migração"\n    status: "PENDING"\n    owned_scope: ["src/日本語/**", "src/**"]\n'), checkout: false },
    steps: [
      { intent: CHECKOUT, expect: {} },
      { write: { 'src/日本語/ファイル.ts': 'x\n' }, in: 'dir:repo.worktrees/INT-001' },
      { git: ['add', '-A'], in: 'dir:repo.worktrees/INT-001' },
      {
        commit: ['-q', '-m', 'unicode'],
        in: 'dir:repo.worktrees/INT-001',
        expect: { governed: 'INT-001', summaryContains: ['INT-001 認証 — JWT 🚀 migração · '], ranges: { 'src/日本語/ファイル.ts': [[1, 1]] } },
      },
      { verify: [], in: 'dir:repo.worktrees/INT-001' },
    ],
  },
  {
    name: 'control characters in a name (a line break would split the note summary line): refused with file:line',
    setup: { registry: one('    name: "two\\nlines \\u001b[31mred"\n    status: "PENDING"\n    owned_scope: ["src/**"]\n'), checkout: false },
    steps: [
      { intent: CHECKOUT, expect: { exit: 1, stderrContains: [INVALID, '{reg}:3:11', 'intent INT-001, field name: must be one line of printable text'] } },
    ],
  },
  {
    name: 'a registry that is not UTF-8 (a Latin-1 name): refused with file:line:column, its bytes untouched by checkout',
    setup: {
      registry: { bytes: [...Buffer.from('active_intents:\n  - id: "INT-001"\n    name: "Caf'), 0xe9, ...Buffer.from('"\n    status: "PENDING"\n    owned_scope: ["src/**"]\n')] },
      checkout: false,
    },
    steps: [
      { intent: CHECKOUT, expect: { exit: 1, stderrContains: [INVALID, '{reg}:3:15', 'the file is not valid UTF-8 text'] } },
    ],
  },
  {
    name: '10 000 intents',
    setup: { registry: tenThousand(), checkout: false },
    timeout: 150,
    steps: [
      { intent: ['checkout', 'INT-09999'], expect: { exit: 0 } },
      { write: { 'src/m9999/a.ts': 'x\n' }, in: 'dir:repo.worktrees/INT-09999' },
      { git: ['add', 'src/m9999/a.ts'], in: 'dir:repo.worktrees/INT-09999' },
      { commit: ['-q', '-m', 'in scope'], in: 'dir:repo.worktrees/INT-09999', expect: { governed: 'INT-09999', ranges: { 'src/m9999/a.ts': [[1, 1]] } } },
    ],
  },
  {
    name: 'checkout of a BLOCKED intent is refused',
    setup: { registry: [{ id: 'INT-001', status: 'BLOCKED', scope: ['src/**'] }], checkout: false },
    steps: refusedCheckout('Intent INT-001 is BLOCKED; only PENDING or IN_PROGRESS intents can be checked out.'),
  },
  {
    name: 'checkout of an unknown intent is refused',
    setup: { checkout: false },
    steps: [{ intent: ['checkout', 'INT-404'], expect: { exit: 1, stderrContains: ['Unknown intent INT-404: it is not in {reg}'] } }],
  },
  {
    name: 'registry broken after checkout: commits in the worktree are blocked',
    steps: [
      { write: { '.orchestration/active_intents.yaml': one(`${NAME_STATUS}    owned_scope: ["src/**"\n`) }, in: 'main' },
      { write: { 'src/a.ts': 'export const a = 2;\n' } },
      { commit: ['-q', '-a', '-m', 'blocked'], expect: { exit: 1, stderrContains: [INVALID, '{reg}:', 'YAML syntax error'] } },
    ],
  },
  {
    name: 'intent marked BLOCKED after checkout: commits are refused',
    steps: [
      { write: { '.orchestration/active_intents.yaml': `active_intents:\n${intentYaml({ id: 'INT-001', status: 'BLOCKED', scope: ['src/**'] })}` }, in: 'main' },
      { write: { 'src/a.ts': 'export const a = 2;\n' } },
      {
        commit: ['-q', '-a', '-m', 'blocked'],
        expect: { exit: 1, stderrContains: ['You must cite a valid active Intent ID.', 'INT-001 is BLOCKED, not IN_PROGRESS'] },
      },
    ],
  },
  {
    name: "a worktree's own copy of the registry does not widen its scope",
    steps: [
      { write: { '.orchestration/active_intents.yaml': `active_intents:\n${intentYaml({ id: 'INT-001', status: 'IN_PROGRESS', scope: ['**'] })}`, 'docs/guide.md': '# mine now\n' } },
      { git: ['add', 'docs/guide.md'] },
      { commit: ['-q', '-m', 'widened copy'], expect: { exit: 1, violations: ['docs/guide.md'] } },
    ],
  },
];
