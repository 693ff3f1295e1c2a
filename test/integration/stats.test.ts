// intent stats (lib/report/stats.ts): a pull request's range (main..intent/INT-001) with two models
// through the adapter, human lines and a commit out of scope: its numbers are the report's, by
// model, agent and intent; the markdown says them; a per-intent notes ref is read with --notes.
import { describe, expect, it } from 'vitest';
import { writeFile } from '../../lib/agents/adapter.js';
import { bypassCommit, checkoutIntent, git, governedRepo, intent, run, writeFiles } from '../helpers.js';

const MODELS = ['anthropic/claude-sonnet-4-5', 'openai/gpt-5-codex'];

function history(): { repo: string; wt: string } {
  const repo = governedRepo([
    { id: 'INT-001', name: 'Auth', status: 'IN_PROGRESS', scope: ['src/**'] },
    { id: 'INT-002', name: 'Docs', status: 'IN_PROGRESS', scope: ['docs/**'] },
  ], { 'README.md': '# r\n', 'src/a.ts': 'a\n', 'docs/d.md': 'd\n' });
  const wt = checkoutIntent(repo, 'INT-001');
  for (let i = 0; i < 6; i++) {
    writeFile({ worktree: wt, path: `src/f${i}.ts`, content: Array.from({ length: i + 1 }, (_, k) => `export const x${k} = ${k};`).join('\n') + '\n', tool: 'Write', modelId: MODELS[i % 2], conversationUrl: i % 2 ? 'codex://session/s1' : 'claude-code://session/c1' });
    writeFiles(wt, { 'src/a.ts': `a\n// human ${i}\n` });
    git(wt, 'add', '-A');
    const c = run('git', ['commit', '-q', '-m', `change ${i}`], wt);
    expect(c.status, c.stderr).toBe(0);
  }
  // A commit that got past every hook, recorded by repair: a scope violation in the note.
  writeFiles(wt, { 'README.md': '# changed out of scope\n' });
  git(wt, 'add', '-A');
  bypassCommit(wt, ['-q', '-m', 'outside']);
  return { repo, wt };
}

const json = (cwd: string, args: string[]) => {
  const r = intent(cwd, args);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};

describe('intent stats', () => {
  it("a pull request's range: the report's numbers by model, agent and intent, the scope result, as JSON and as markdown", () => {
    const { wt } = history();
    const range = 'main..intent/INT-001';
    const s = json(wt, ['stats', range, '--json']);
    const r = json(wt, ['report', range, '--json']);
    expect(s.commits).toBe(7);
    expect(s.commits).toBe(r.commits.length);
    const sum = (f: (c: any) => number) => r.commits.reduce((n: number, c: any) => n + f(c), 0);
    const contrib = (c: any, pred: (k: string) => boolean) => Object.entries(c.contributors).filter(([k]) => pred(k)).reduce((n, [, v]) => n + (v as number), 0);
    expect(s.lines.added).toBe(sum((c) => c.added));
    expect(s.lines.ai).toBe(sum((c) => contrib(c, (k) => k.startsWith('ai:'))));
    expect(s.lines.human).toBe(sum((c) => contrib(c, (k) => k === 'human')));
    expect(s.lines.ai).toBe(1 + 2 + 3 + 4 + 5 + 6);
    // By model: the report's lines added per model.
    expect(Object.fromEntries(s.by_model.map((m: any) => [m.model, m.lines]))).toEqual(Object.fromEntries(r.models.map((m: any) => [m.model, m.lines_added])));
    expect(s.by_model).toEqual([{ model: MODELS[1], lines: 2 + 4 + 6 }, { model: MODELS[0], lines: 1 + 3 + 5 }]);
    expect(s.by_agent).toEqual([{ agent: 'codex', lines: 12 }, { agent: 'claude-code', lines: 9 }]);
    expect(s.by_intent).toEqual([expect.objectContaining({ id: 'INT-001', name: 'Auth', commits: 7, ai: 21 })]);
    expect(s.scope.ok).toBe(false);
    expect(s.scope.violations).toEqual([expect.objectContaining({ intent: 'INT-001', paths: ['README.md'] })]);
    expect(s.scope.findings).toBe(r.verify.findings);

    const md = intent(wt, ['stats', range, '--markdown']).stdout;
    expect(md).toContain(`### intent stats: ${range}`);
    expect(md).toContain(`| AI | 21 | `);
    expect(md).toContain(`| ${MODELS[1]} | 12 | `);
    expect(md).toContain('| INT-001 Auth | 7 |');
    expect(md).toMatch(/\*\*Scope:\*\* 1 commit outside its intent's scope/);
    expect(intent(wt, ['stats', range]).stdout).toContain('by model: openai/gpt-5-codex 12, anthropic/claude-sonnet-4-5 9');
  });

  it("reads an intent's own notes ref with --notes (a pull request's records before the merge)", () => {
    const { wt } = history();
    git(wt, 'update-ref', 'refs/notes/intent/INT-001', 'refs/notes/intents');
    git(wt, 'update-ref', '-d', 'refs/notes/intents');
    expect(json(wt, ['stats', 'main..intent/INT-001', '--json']).commits).toBe(0);
    const s = json(wt, ['stats', 'main..intent/INT-001', '--notes', 'refs/notes/intent/INT-001', '--json']);
    expect(s).toMatchObject({ commits: 7, notes: 'refs/notes/intent/INT-001', lines: { ai: 21 } });
    const bad = intent(wt, ['stats', '--notes', 'intents']);
    expect(bad.status).toBeGreaterThan(0);
    expect(bad.stderr).toContain('--notes takes a notes ref');
    expect(intent(wt, ['stats', '--json', '--markdown']).stdout).toContain('give one');
  });
});
