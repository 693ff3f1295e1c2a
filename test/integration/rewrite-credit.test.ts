import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFile } from '../../lib/agents/adapter.js';
import { checkoutIntent, git, governedRepo, intent, noteOf, run, writeFiles } from '../helpers.js';

const MODEL = 'anthropic/claude-sonnet-4-5';

/** Lines credited to `who` (a model id or "human") in `path` of the note of `rev`. */
function credited(wt: string, path: string, who: string, rev = 'HEAD'): string[] {
  const rec = noteOf(wt, rev)!.record;
  const file = rec.files.find((f: any) => f.path === path);
  const text = git(wt, 'show', `${rev}:${path}`).split(/(?<=\n)/);
  return file.conversations
    .filter((c: any) => (c.contributor.model_id ?? c.contributor.type) === who)
    .flatMap((c: any) => c.ranges.flatMap((r: any) => text.slice(r.start_line - 1, r.end_line).map((l: string) => l.trimEnd())));
}

function clean(wt: string): void {
  const v = intent(wt, ['verify', '--json', '--no-ledger']);
  expect(JSON.parse(v.stdout).findings).toEqual([]);
}

function agentCommit(wt: string, path: string, content: string, message: string): void {
  writeFile({ worktree: wt, path, content, tool: 'write_to_file', modelId: MODEL, conversationUrl: 'roo-code://task/t1' });
  git(wt, 'commit', '-q', '-m', message);
}

describe('model credit through history rewrites', () => {
  it('survives amend, squash (rebase -i fixup) and cherry-pick; ranges and hashes describe the new commits', () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }], { 'src/a.ts': 'a\n' });
    const wt = checkoutIntent(repo, 'INT-001');
    agentCommit(wt, 'src/a.ts', 'a\nmodel1\nmodel2\n', 'agent');
    expect(credited(wt, 'src/a.ts', MODEL)).toEqual(['model1', 'model2']);

    // amend: a human adds a line on top and amends
    writeFiles(wt, { 'src/a.ts': 'human0\na\nmodel1\nmodel2\n' });
    git(wt, 'commit', '-q', '-a', '--amend', '--no-edit');
    expect(credited(wt, 'src/a.ts', MODEL)).toEqual(['model1', 'model2']);
    expect(credited(wt, 'src/a.ts', 'human')).toEqual(['human0']);
    expect(noteOf(wt)!.raw.split('\n').filter(Boolean)).toHaveLength(2);
    clean(wt);

    // squash: a fixup commit by the model into the first one
    agentCommit(wt, 'src/b.ts', 'b-model\n', 'fixup! agent');
    const r = run('git', ['rebase', '-q', '-i', '--autosquash', 'HEAD~2'], wt, { GIT_SEQUENCE_EDITOR: 'true' });
    expect(r.status, r.stderr).toBe(0);
    expect(git(wt, 'log', '--format=%s', 'main..HEAD').trim()).toBe('agent');
    expect(credited(wt, 'src/a.ts', MODEL)).toEqual(['model1', 'model2']);
    expect(credited(wt, 'src/b.ts', MODEL)).toEqual(['b-model']);
    clean(wt);

    // cherry-pick: drop the commit and pick it back (a new commit, a new date)
    const picked = git(wt, 'rev-parse', 'HEAD').trim();
    git(wt, 'reset', '-q', '--hard', 'HEAD~1');
    const when = new Date(Date.now() + 60_000).toISOString();
    expect(run('git', ['cherry-pick', picked], wt, { GIT_COMMITTER_DATE: when }).status).toBe(0);
    expect(git(wt, 'rev-parse', 'HEAD').trim()).not.toBe(picked);
    expect(credited(wt, 'src/a.ts', MODEL)).toEqual(['model1', 'model2']);
    expect(credited(wt, 'src/b.ts', MODEL)).toEqual(['b-model']);
    expect(noteOf(wt)!.record.vcs.revision).toBe(git(wt, 'rev-parse', 'HEAD').trim());
    clean(wt);
    expect(readFileSync(join(wt, 'src/a.ts'), 'utf8')).toBe('human0\na\nmodel1\nmodel2\n');
  });
});
