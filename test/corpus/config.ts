// Broken configuration (cosmiconfig: .intentrc*, .config/intentrc*, intent.config.*, package.json
// "intent"), read from the main worktree. A file that does not parse or has an unknown or
// mistyped key must block commits and `intent checkout` with a message naming the file and key.
import type { Case, FileMap, Step } from './types.js';

/** A human commit in the main worktree (and, with `checkout`, `intent checkout`) must be refused naming `what`. */
function refused(checkout: boolean, what: string[]): Step[] {
  return [
    { write: { 'README.md': '# changed by a human\n' }, in: 'main' },
    { git: ['add', 'README.md'], in: 'main' },
    { commit: ['-q', '-m', 'human commit'], in: 'main', expect: { exit: 1, stderrContains: what } },
    ...(checkout ? [{ intent: ['checkout', 'INT-001'], expect: { exit: 1, stderrContains: what } }] : []),
  ];
}

/** A broken configuration: a human commit is refused naming `what`; with `checkout`, `intent checkout` too. */
function broken(name: string, files: FileMap, what: string[], checkout = false): Case {
  return { name, setup: { mainFiles: files, checkout: false }, steps: refused(checkout, what) };
}

export const configCases: Case[] = [
  broken('.intentrc.json: requireIntent is a string', { '.intentrc.json': '{ "requireIntent": "yes" }\n' },
    ['{main}/.intentrc.json: "requireIntent" must be a boolean, got "yes".'], true),
  broken('.intentrc.yaml: requireIntent: yes (a string in YAML 1.2)', { '.intentrc.yaml': 'requireIntent: yes\n' },
    ['{main}/.intentrc.yaml: "requireIntent" must be a boolean, got "yes".']),
  broken('.intentrc does not parse', { '.intentrc': '{"requireIntent": true,\n' },
    ['Cannot read the intent configuration in {main}:', '{main}/.intentrc'], true),
  broken('.intentrc.json: unknown key (a typo)', { '.intentrc.json': '{ "requireIntnet": true }\n' },
    ['{main}/.intentrc.json: unknown key "requireIntnet"; known keys are requireIntent, worktreeDir'], true),
  broken('.intentrc.json: worktreeDir is a number', { '.intentrc.json': '{ "worktreeDir": 42 }\n' },
    ['{main}/.intentrc.json: "worktreeDir" must be a string, got 42.']),
  broken('.intentrc.yml: worktreeDir is a list', { '.intentrc.yml': 'worktreeDir: [a, b]\n' },
    ['{main}/.intentrc.yml: "worktreeDir" must be a string, got ["a","b"].']),
  broken('.intentrc.json: a list at the top', { '.intentrc.json': '[]\n' },
    ['{main}/.intentrc.json: the intent configuration must be an object']),
  broken('.intentrc.json: counts that are not whole numbers', { '.intentrc.json': '{ "breakerMaxRejections": 2.5 }\n' },
    ['{main}/.intentrc.json: "breakerMaxRejections" must be a whole number of at least 1, got 2.5.']),
  broken('.config/intentrc.json: strictOverlap is a string', { '.config/intentrc.json': '{ "strictOverlap": "no" }\n' },
    ['{main}/.config/intentrc.json: "strictOverlap" must be a boolean, got "no".']),
  broken('package.json "intent" key with a mistyped value', { 'package.json': '{ "name": "x", "intent": { "requireIntent": 1 } }\n' },
    ['{main}/package.json: "requireIntent" must be a boolean, got 1.'], true),
  broken('intent.config.cjs throws', { 'intent.config.cjs': 'throw new Error("boom from the config");\n' },
    ['Cannot read the intent configuration in {main}: boom from the config'], true),
  broken('intent.config.cjs exports a mistyped value', { 'intent.config.cjs': 'module.exports = { requireIntent: "true" };\n' },
    ['{main}/intent.config.cjs: "requireIntent" must be a boolean, got "true".']),
  {
    name: '.intentignore with a glob that leaves the repository blocks governed commits',
    steps: [
      { write: { '.orchestration/.intentignore': 'package-lock.json\n../outside\n' }, in: 'main' },
      { write: { 'src/a.ts': 'export const a = 2;\n' } },
      {
        commit: ['-q', '-a', '-m', 'blocked'],
        expect: { exit: 1, stderrContains: ['{main}/.orchestration/.intentignore: "../outside" contains ".." and would leave the repository.'] },
      },
    ],
  },
  {
    name: 'a package.json that does not parse is not an intent config: nothing blocks',
    setup: { mainFiles: { 'package.json': '{ "name": "x",\n' }, checkout: false },
    steps: [
      { write: { 'README.md': '# changed by a human\n' }, in: 'main' },
      { git: ['add', 'README.md'], in: 'main' },
      { commit: ['-q', '-m', 'human commit'], in: 'main', expect: { governed: null } },
      { intent: ['checkout', 'INT-001'], expect: { stdoutContains: ['{root}/repo.worktrees/INT-001'] } },
    ],
  },
  {
    name: 'requireIntent: true (valid YAML) refuses a human commit and governs a named one',
    setup: { mainFiles: { '.intentrc.yml': 'requireIntent: true\n' } },
    steps: [
      { write: { 'src/a.ts': 'export const a = 2;\n' }, in: 'main' },
      { git: ['add', 'src/a.ts'], in: 'main' },
      {
        commit: ['-q', '-m', 'human commit'],
        in: 'main',
        expect: { exit: 1, stderrContains: ['You must cite a valid active Intent ID.', '{main}/.intentrc.yml sets requireIntent'] },
      },
      { commit: ['-q', '-m', 'named'], in: 'main', env: { INTENT_ID: 'INT-001' }, expect: { ranges: { 'src/a.ts': [[1, 1]] } } },
    ],
  },
  {
    name: "a broken config in the main worktree blocks the intent worktree's commits",
    steps: [
      { write: { '.intentrc.json': '{ "requireIntent": "sometimes" }\n' }, in: 'main' },
      { write: { 'src/a.ts': 'export const a = 2;\n' } },
      { commit: ['-q', '-a', '-m', 'blocked'], expect: { exit: 1, stderrContains: ['{main}/.intentrc.json: "requireIntent" must be a boolean'] } },
    ],
  },
  {
    name: "a broken config in the intent worktree is not read (the main worktree's governs)",
    steps: [
      { write: { '.intentrc.json': '{ "requireIntent": "sometimes"', 'src/a.ts': 'export const a = 2;\n' } },
      { commit: ['-q', '-m', 'in scope', '--', 'src/a.ts'], expect: { ranges: { 'src/a.ts': [[1, 1]] } } },
    ],
  },
];
