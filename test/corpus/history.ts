// Unusual history and repository shapes: merges, detached HEADs, worktrees without an intent,
// rebases, shallow clones, a custom core.hooksPath set before `intent init`, SHA-256 repositories,
// and INTENT_ID values that do not fit.
import type { Case, Step } from './types.js';

/** A branch `side` and the intent branch, one commit each since they parted: ready to merge. */
const DIVERGED: Step[] = [
      { git: ['switch', '-q', '-c', 'side'] },
      { write: { 'src/a.ts': 'export const a = 2;\n' } },
      { commit: ['-q', '-a', '-m', 'on side'], expect: { ranges: { 'src/a.ts': [[1, 1]] } } },
      { git: ['switch', '-q', 'intent/INT-001'] },
      { write: { 'src/b.ts': 'one\ntwo\nthree\nfour\n' } },
      { commit: ['-q', '-a', '-m', 'on the intent branch'], expect: { ranges: { 'src/b.ts': [[4, 4]] } } },
];

export const historyCases: Case[] = [
  {
    name: 'merge commit in an intent worktree: the note describes the diff against the first parent',
    steps: [
      ...DIVERGED,
      { git: ['merge', '-q', '--no-ff', '--no-commit', 'side'] },
      { commit: ['-q', '--no-edit'], expect: { ranges: { 'src/a.ts': [[1, 1]] }, summaryContains: ['1 file, 1 range'] } },
      { git: ['rev-parse', '--verify', '-q', 'HEAD^2'] },
      { verify: [] },
    ],
  },
  {
    name: 'git merge making the merge commit itself (pre-merge-commit, post-merge): checked, and recorded against the first parent',
    steps: [
      ...DIVERGED,
      { git: ['merge', '-q', '--no-ff', '-m', 'merge side', 'side'] },
      { git: ['notes', '--ref=intents', 'show', 'HEAD'], expect: { stdoutContains: ['INT-001 ', '1 file, 1 range', '"path":"src/a.ts"'] } },
      { verify: [] },
    ],
  },
  {
    name: 'detached HEAD in an intent worktree: still governed by its intent',
    steps: [
      { git: ['checkout', '-q', '--detach'] },
      { write: { 'src/a.ts': 'export const a = 2;\n' } },
      { commit: ['-q', '-a', '-m', 'detached'], expect: { ranges: { 'src/a.ts': [[1, 1]] } } },
      { write: { 'docs/guide.md': '# detached, out of scope\n' } },
      { commit: ['-q', '-a', '-m', 'detached outside'], expect: { exit: 1, violations: ['docs/guide.md'] } },
      { verify: [] },
    ],
  },
  {
    name: 'a linked worktree without an intent (detached): commits are refused',
    steps: [
      { git: ['worktree', 'add', '-q', '--detach', '{root}/plain'], in: 'main' },
      { write: { 'src/a.ts': 'export const a = 2;\n' }, in: 'dir:plain' },
      {
        commit: ['-q', '-a', '-m', 'no intent'],
        in: 'dir:plain',
        expect: { exit: 1, stderrContains: ['You must cite a valid active Intent ID.', 'This worktree has no intent.'] },
      },
    ],
  },
  {
    name: 'INTENT_ID that does not fit: another intent in a worktree, an unknown or odd id in the main worktree',
    setup: { registry: [{ id: 'INT-001', scope: ['src/**'] }, { id: 'INT-002', status: 'IN_PROGRESS', scope: ['docs/**'] }] },
    steps: [
      { write: { 'src/a.ts': 'export const a = 2;\n' } },
      {
        commit: ['-q', '-a', '-m', 'wrong id'],
        env: { INTENT_ID: 'INT-002' },
        expect: { exit: 1, stderrContains: ['This worktree belongs to INT-001, but INTENT_ID names INT-002'] },
      },
      { write: { 'README.md': '# changed\n' }, in: 'main' },
      { git: ['add', 'README.md'], in: 'main' },
      { commit: ['-q', '-m', 'unknown'], in: 'main', env: { INTENT_ID: 'INT-404' }, expect: { exit: 1, stderrContains: ['INT-404 is not in {reg}'] } },
      { commit: ['-q', '-m', 'odd'], in: 'main', env: { INTENT_ID: '../../../x' }, expect: { exit: 1, stderrContains: ['You must cite a valid active Intent ID.'] } },
    ],
  },
  {
    name: 'rebase onto an updated main: notes follow the rewritten commits',
    steps: [
      { write: { 'src/a.ts': 'export const a = 2;\n' } },
      { commit: ['-q', '-a', '-m', 'one'], expect: {} },
      { write: { 'src/b.ts': 'one\ntwo\nthree\nfour\n' } },
      { commit: ['-q', '-a', '-m', 'two'], expect: {} },
      { write: { 'README.md': '# moved on\n' }, in: 'main' },
      { git: ['add', 'README.md'], in: 'main' },
      { commit: ['-q', '-m', 'human work on main'], in: 'main', expect: { governed: null } },
      { git: ['rebase', '-q', 'main'] },
      { verify: ['main~1..HEAD'] },
    ],
  },
  {
    name: 'shallow clone: verify does not crash; a range whose parents are present is clean',
    steps: [
      { write: { 'src/a.ts': 'export const a = 2;\n' } },
      { commit: ['-q', '-a', '-m', 'in the worktree'], expect: {} },
      { write: { 'src/b.ts': 'one\ntwo\nthree\nfour\n' }, in: 'main' },
      { git: ['add', 'src/b.ts'], in: 'main' },
      { commit: ['-q', '-m', 'governed on main'], in: 'main', env: { INTENT_ID: 'INT-001' }, expect: { ranges: { 'src/b.ts': [[4, 4]] } } },
      { git: ['clone', '-q', '--depth', '1', 'file://{main}', '{root}/shallow1'], in: 'dir:.' },
      { git: ['fetch', '-q', 'origin', 'refs/notes/intents:refs/notes/intents'], in: 'dir:shallow1' },
      { verify: [], in: 'dir:shallow1', expect: { findings: 'any' } },
      { verify: ['--all'], in: 'dir:shallow1', expect: { findings: 'any' } },
      { git: ['clone', '-q', '--depth', '2', 'file://{main}', '{root}/shallow2'], in: 'dir:.' },
      { git: ['fetch', '-q', 'origin', 'refs/notes/intents:refs/notes/intents'], in: 'dir:shallow2' },
      { verify: ['HEAD^..HEAD'], in: 'dir:shallow2' },
    ],
  },
  {
    name: 'core.hooksPath set to a custom folder before intent init: both hooks run',
    setup: {
      gitConfig: { 'core.hooksPath': '.githooks' },
      preInit: { '.githooks/pre-commit': { exec: '#!/bin/sh\necho "own pre-commit ran" >&2\n' } },
    },
    steps: [
      { write: { 'src/a.ts': 'export const a = 2;\n' } },
      { commit: ['-q', '-a', '-m', 'in scope'], expect: { stderrContains: ['own pre-commit ran'], ranges: { 'src/a.ts': [[1, 1]] } } },
      { write: { 'docs/guide.md': '# out of scope\n' } },
      { commit: ['-q', '-a', '-m', 'out of scope'], expect: { exit: 1, violations: ['docs/guide.md'] } },
      { write: { 'README.md': '# human\n' }, in: 'main' },
      { git: ['add', 'README.md'], in: 'main' },
      { commit: ['-q', '-m', 'human'], in: 'main', expect: { governed: null, stderrContains: ['own pre-commit ran'] } },
      { verify: [] },
    ],
  },
  {
    name: 'a non-shell pre-commit hook before intent init is chained and still runs',
    setup: {
      preInit: { '.git/hooks/pre-commit': { exec: '#!/usr/bin/env node\nprocess.stderr.write("node pre-commit ran\\n");\n' } },
    },
    steps: [
      { write: { 'src/a.ts': 'export const a = 2;\n' } },
      { commit: ['-q', '-a', '-m', 'in scope'], expect: { stderrContains: ['node pre-commit ran'] } },
      { write: { 'docs/guide.md': '# out of scope\n' } },
      { commit: ['-q', '-a', '-m', 'out of scope'], expect: { exit: 1, violations: ['docs/guide.md'] } },
    ],
  },
  {
    name: 'SHA-256 repository: init, checkout, commit, note, verify',
    setup: { objectFormat: 'sha256' },
    steps: [
      { write: { 'src/a.ts': 'export const a = 2;\n', 'src/crlf.ts': 'x\r\ny' } },
      { git: ['add', '-A'] },
      { commit: ['-q', '-m', 'sha256'], expect: { ranges: { 'src/a.ts': [[1, 1]], 'src/crlf.ts': [[1, 2]] } } },
      { git: ['mv', 'src/b.ts', 'src/c.ts'] },
      { commit: ['-q', '-m', 'rename'], expect: { meta: { 'src/c.ts': { status: 'R', old_path: 'src/b.ts' } } } },
      { write: { 'docs/guide.md': '# out of scope\n' } },
      { commit: ['-q', '-a', '-m', 'out of scope'], expect: { exit: 1, violations: ['docs/guide.md'] } },
      { verify: [] },
    ],
  },
];
