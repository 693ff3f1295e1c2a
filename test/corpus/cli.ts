// The CLI on repositories it cannot or should not work in, and arguments that do not fit:
// exit 1 (or 2 for usage) with a message that says what and where, never a stack trace, and
// nothing changed.
import type { Case } from './types.js';

export const cliCases: Case[] = [
  {
    name: 'intent init outside a repository',
    setup: { repo: 'none' },
    steps: [{ intent: ['init'], expect: { exit: 1, stderrContains: ['{main} is not inside a git repository'] } }],
  },
  {
    name: 'intent init in a bare repository',
    setup: { repo: 'bare' },
    steps: [{ intent: ['init'], expect: { exit: 1, stderrContains: ['{main} is a bare repository'] } }],
  },
  {
    name: 'intent init in a repository without commits; twice; checkout needs a commit',
    setup: { repo: 'empty' },
    steps: [
      { intent: ['init'], expect: { stdoutContains: ['.orchestration/active_intents.yaml'] } },
      { intent: ['init'], expect: { stdoutContains: ['already initialised; nothing changed'] } },
      { write: { '.orchestration/active_intents.yaml': 'active_intents:\n  - id: "INT-001"\n    name: "x"\n    status: "PENDING"\n    owned_scope: ["src/**"]\n' }, in: 'main' },
      { intent: ['checkout', 'INT-001'], expect: { exit: 'nonzero', stderrContains: ['The repository has no commits yet'] } },
    ],
  },
  {
    name: 'intent verify in a repository without commits: nothing to verify, exit 0; a range there is still a usage error',
    setup: { repo: 'empty' },
    steps: [
      { intent: ['init'], expect: {} },
      { intent: ['verify', '--json', '--no-ledger'], expect: { stdoutContains: ['"commits": 0', '"findings": []'] } },
      { intent: ['verify', 'main..HEAD'], expect: { exit: 2, stderrContains: ['cannot list the commits of main..HEAD'] } },
    ],
  },
  {
    name: 'intent verify: a range that does not resolve, an option smuggled as a range',
    steps: [
      { intent: ['verify', 'nope..HEAD'], expect: { exit: 2, stderrContains: ["cannot list the commits of nope..HEAD"] } },
      { intent: ['verify', '--', '--output=/tmp/x'], expect: { exit: 2, stderrContains: ['"--output=/tmp/x" is not a revision range'] } },
      { intent: ['verify', '--no-such-option'], expect: { exit: 2, stderrContains: ["unknown option '--no-such-option'"] } },
    ],
  },
  {
    name: 'intent checkout: bad --base, non-empty --path, an id that walks out of the registry',
    setup: { checkout: false },
    steps: [
      { intent: ['checkout', 'INT-001', '--base', 'no-such-rev'], expect: { exit: 2, stderrContains: ['--base no-such-rev is not a commit in this repository.'] } },
      { intent: ['checkout', 'INT-001', '--path', '{main}/src'], expect: { exit: 1, stderrContains: ['{main}/src exists and is not empty'] } },
      { intent: ['checkout', 'INT-001/../../x'], expect: { exit: 1, stderrContains: ['Unknown intent INT-001/../../x'] } },
    ],
  },
];
