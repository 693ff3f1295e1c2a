// What the end-to-end tests of the agent CLIs share: the repository, worktree, home and PATH each
// CLI runs in, and reading the per-line credit of a commit's note.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { CLI, checkoutIntent, forFile, git, governedRepo, intent, tempDir } from '../helpers.js';

/** Where an agent CLI runs: the governed repository, INT-001's worktree, its own home, a bin folder with `intent`. */
export interface AgentFixture {
  repo: string;
  wt: string;
  home: string;
  bin: string;
}

/**
 * Built once per file: a governed repository with INT-001 (`scope`) and `files`, `intent init
 * --agent <agent>` (for each agent, when several) committed (with what `beforeCommit` adds), INT-001's worktree, an empty home,
 * and a bin folder with `intent` in it, as after `npm install -g intent-governance` (put it on the
 * agent's PATH).
 */
export function agentFixture(agent: string | string[], scope: string[], files: Record<string, string>, beforeCommit?: (repo: string) => void): AgentFixture {
  const agents = Array.isArray(agent) ? agent : [agent];
  const name = agents.join('+');
  return forFile(() => {
    const repo = governedRepo([{ id: 'INT-001', name: 'E2E', scope }], files);
    for (const a of agents) expect(intent(repo, ['init', '--agent', a]).status).toBe(0);
    beforeCommit?.(repo);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', `${name} hooks`);
    const wt = checkoutIntent(repo, 'INT-001');
    const root = tempDir(`intent-e2e-${name}-`);
    const home = join(root, 'home');
    const bin = join(root, 'bin');
    mkdirSync(home);
    mkdirSync(bin);
    writeFileSync(join(bin, 'intent'), `#!/bin/sh\nexec '${process.execPath}' '${CLI}' "$@"\n`, { mode: 0o755 });
    return { repo, wt, home, bin };
  });
}

/** The AI contributions to `path` in a note's record: model, line ranges and conversation URL of each. */
export function aiCredit(record: any, path: string): { model: string; lines: number[][]; url: string }[] | undefined {
  return record.files.find((f: any) => f.path === path)?.conversations.filter((c: any) => c.contributor.type === 'ai')
    .map((c: any) => ({ model: c.contributor.model_id, lines: c.ranges.map((r: any) => [r.start_line, r.end_line]), url: c.url }));
}
