// intent export / import --format git-ai (lib/interop/git-ai.ts): a 100-commit history made through
// the adapter and real hooks (two models in three conversations, human lines, a path with a space,
// a rename, a deletion), exported to refs/notes/ai and imported back into
// refs/notes/intents-imported: model, intent and every credited line survive. Every exported log is
// checked against the standard's MUST rules by a reader written here from the spec (not ours).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { writeFile } from '../../lib/agents/adapter.js';
import { checkoutIntent, git, governedRepo, intent, noteOf, run, writeFiles } from '../helpers.js';
import { expectValid } from '../trace-validator.js';

const MODELS = ['anthropic/claude-sonnet-4-5', 'openai/gpt-5-codex'];
const URLS = ['claude-code://session/a1b2', 'codex://session/c3d4/agent/x', 'roo-code://task/7f3a'];

/** Per commit: `path|contributor|line` for every credited line of its record (the record's own lines, not its hashes). */
function creditLines(record: any): { intent: string; lines: string[] } {
  const lines: string[] = [];
  for (const f of record.files) {
    for (const c of f.conversations) {
      const who = c.contributor.type === 'ai' ? `ai:${c.contributor.model_id}:${c.url ?? ''}` : c.contributor.type;
      for (const r of c.ranges) for (let l = r.start_line; l <= r.end_line; l++) lines.push(`${f.path}|${who}|${l}`);
    }
  }
  return { intent: record.metadata['dev.intent'].intent_id, lines: lines.sort() };
}

const sha14 = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 14);

/** The standard's MUST rules for one log (Git AI Standard v3.0.0 §1.2), read from the text as the spec words them. */
function mustRules(text: string, commit: string): void {
  const lines = text.split('\n');
  const dividers = lines.map((l, i) => (l === '---' ? i : -1)).filter((i) => i >= 0);
  expect(dividers.length, 'the divider `---` on its own line').toBeGreaterThanOrEqual(1);
  const d = dividers[0];
  const meta = JSON.parse(lines.slice(d + 1).join('\n'));
  expect(meta.schema_version).toBe('authorship/3.0.0');
  expect(meta.base_commit_sha).toBe(commit);
  expect(typeof meta.prompts).toBe('object');
  let file: string | null = null;
  let entries = 0;
  const files: string[] = [];
  for (const line of lines.slice(0, d)) {
    if (!line.startsWith(' ')) {
      if (file !== null) expect(entries, `${file}: a file with no attestation is not listed`).toBeGreaterThan(0);
      file = line;
      entries = 0;
      files.push(line);
      // Paths with spaces, tabs or newlines are in double quotes.
      if (/[ \t]/.test(line)) expect(line).toMatch(/^".*"$/);
      continue;
    }
    const m = /^ {2}(\S+) (\S+)$/.exec(line);
    expect(m, `an entry is two spaces, a key, one space, ranges: ${JSON.stringify(line)}`).not.toBeNull();
    entries++;
    const [, key, ranges] = m!;
    expect(ranges).toMatch(/^\d+(-\d+)?(,\d+(-\d+)?)*$/);
    let last = 0;
    for (const part of ranges.split(',')) {
      const [a, b = a] = part.split('-').map(Number);
      expect(a, 'lines are 1-indexed, positive').toBeGreaterThanOrEqual(1);
      expect(b).toBeGreaterThanOrEqual(a);
      expect(a, 'sorted ascending').toBeGreaterThan(last);
      last = b;
    }
    if (key.startsWith('s_')) {
      expect(key).toMatch(/^s_[0-9a-f]{14}::t_[0-9a-f]{14}$/);
      const s = meta.sessions[key.split('::')[0]];
      expect(s, `${key} has its session`).toBeDefined();
      expect(Object.keys(s.agent_id).sort()).toEqual(['id', 'model', 'tool']);
      for (const banned of ['messages', 'messages_url', 'total_additions', 'total_deletions', 'accepted_lines', 'overriden_lines']) expect(s).not.toHaveProperty(banned);
      expect(key.split('::')[0]).toBe(`s_${sha14(`${s.agent_id.tool}:${s.agent_id.id}`)}`);
      for (const v of Object.values(s.custom_attributes ?? {})) expect(typeof v).toBe('string');
    } else if (key.startsWith('h_')) {
      expect(key).toMatch(/^h_[0-9a-f]{14}$/);
      const h = meta.humans[key];
      expect(h?.author, `${key} has its human`).toMatch(/^.+ <.+>$/);
      expect(key).toBe(`h_${sha14(h.author)}`);
    } else {
      expect(key).toMatch(/^[0-9a-f]{16}$/);
      expect(meta.prompts[key]).toBeDefined();
    }
  }
  if (file !== null) expect(entries, `${file}: a file with no attestation is not listed`).toBeGreaterThan(0);
  expect(new Set(files).size, 'each file once').toBe(files.length);
}

describe('git-ai interop', () => {
  it('export then import of a 100-commit history keeps model, intent and every line; the logs follow the standard', async () => {
    const repo = governedRepo([{ id: 'INT-001', name: 'Auth work', status: 'IN_PROGRESS', scope: ['src/**'] }], {
      'README.md': '# r\n',
      'src/a.ts': 'export const a = 0;\n',
    });
    const wt = checkoutIntent(repo, 'INT-001');
    const made: string[] = [];
    for (let i = 0; i < 100; i++) {
      // (A turn of the event loop: vitest's worker answers its runner, which gives up on a worker silent for 60 s.)
      await new Promise((r) => setImmediate(r));
      const path = i % 7 === 3 ? 'src/with space.ts' : `src/f${i % 5}.ts`;
      if (i === 50) {
        git(wt, 'mv', 'src/f1.ts', 'src/moved.ts');
      } else if (i === 60) {
        git(wt, 'rm', '-q', 'src/moved.ts');
      } else if (i % 3 === 0) {
        // A human's edit.
        writeFiles(wt, { [path]: `// human ${i}\nexport const h${i} = ${i};\n` });
        git(wt, 'add', '-A');
      } else {
        // A model's whole file, with a human line kept from before on every other one.
        const n = i % 4 === 1 ? 1 : 3;
        const body = Array.from({ length: n }, (_, k) => `export const m${i}_${k} = ${k};`).join('\n') + '\n';
        const r = writeFile({ worktree: wt, path, content: body, tool: 'Write', modelId: MODELS[i % 2], conversationUrl: URLS[i % 3] });
        expect(r.staged).toBe(true);
        if (i % 2 === 0) {
          writeFiles(wt, { [path]: `${body}// reviewed ${i}\n` });
          git(wt, 'add', path);
        }
      }
      const c = run('git', ['commit', '-q', '--allow-empty', '-m', `change ${i}`], wt);
      expect(c.status, c.stderr).toBe(0);
      made.push(git(wt, 'rev-parse', 'HEAD').trim());
    }
    const before = new Map(made.map((sha) => [sha, noteOf(wt, sha)!.record]));
    const ai = [...before.values()].flatMap((r) => creditLines(r).lines).filter((l) => l.includes('|ai:'));
    expect(ai.length, 'the history credits models').toBeGreaterThan(100);

    const ex = intent(wt, ['export', '--format', 'git-ai', 'main..HEAD', '--json']);
    expect(ex.status, ex.stderr).toBe(0);
    const exported = JSON.parse(ex.stdout);
    expect(exported.written).toHaveLength(100);
    expect(exported.leftOut).toBe(0);
    for (const sha of made) mustRules(git(wt, 'notes', '--ref=ai', 'show', sha), sha);
    // Not the default notes ref.
    expect(run('git', ['notes', 'list'], wt).stdout.trim()).toBe('');
    // Run again: kept, the same bytes.
    const first = git(wt, 'rev-parse', 'refs/notes/ai');
    const again = JSON.parse(intent(wt, ['export', '--format', 'git-ai', 'main..HEAD', '--json']).stdout);
    expect(again.kept).toHaveLength(100);
    expect(git(wt, 'rev-parse', 'refs/notes/ai')).toBe(first);
    expect(JSON.parse(intent(wt, ['export', '--format', 'git-ai', 'main..HEAD', '--force', '--json']).stdout).written).toHaveLength(100);
    expect(git(wt, 'notes', '--ref=ai', 'show', made[10])).toBe(git(wt, 'cat-file', 'blob', `${first.trim()}:${made[10]}`));

    const im = intent(wt, ['import', '--format', 'git-ai', 'main..HEAD', '--json']);
    expect(im.status, im.stderr).toBe(0);
    const imported = JSON.parse(im.stdout);
    expect(imported.ref).toBe('refs/notes/intents-imported');
    expect(imported.written).toHaveLength(100);
    expect(imported.leftOut).toBe(0);
    expect(imported.warnings).toEqual([]);
    for (const sha of made) {
      const note = run('git', ['notes', '--ref=intents-imported', 'show', sha], wt).stdout;
      const record = JSON.parse(note.split('\n')[1]);
      expectValid(record);
      expect(record.metadata['dev.intent'].imported).toMatchObject({ format: 'git-ai', schema_version: 'authorship/3.0.0' });
      expect(record.vcs.revision).toBe(sha);
      expect(creditLines(record), sha).toEqual(creditLines(before.get(sha)));
      expect(record.metadata['dev.intent'].intent_name).toBe('Auth work');
    }
    // The gate's notes are untouched: the imported records are on their own ref.
    expect(run('git', ['notes', '--ref=intents', 'show', made[0]], wt).stdout).toBe(`${noteOf(wt, made[0])!.raw}`);
    expect(intent(wt, ['verify']).status).toBe(0);
  });

  it('imports the standard\'s own logs: sessions, a known human and legacy prompts credited by model, hashes from the commit\'s files', () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }], { 'README.md': '# r\n' });
    const lines = (name: string) => Array.from({ length: 60 }, (_, i) => `${name} line ${i + 1}`).join('\n') + '\n';
    writeFiles(repo, { 'src/main.rs': lines('main'), 'src/lib.rs': lines('lib') });
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'rust');
    const sha = git(repo, 'rev-parse', 'HEAD').trim();
    const log = [
      'src/main.rs',
      '  s_c9883b05a2487d::t_9f8e7d6c5b4a32 1-10',
      '  h_31dce776f88375 15-20',
      'src/lib.rs',
      '  abcd1234abcd1234 1-50',
      '---',
      JSON.stringify({
        schema_version: 'authorship/3.0.0', git_ai_version: '1.4.5', base_commit_sha: sha,
        prompts: { abcd1234abcd1234: { agent_id: { tool: 'cursor', id: 'old_session_id', model: 'gpt-4' }, total_additions: 50, total_deletions: 0, accepted_lines: 50, overriden_lines: 0 } },
        humans: { h_31dce776f88375: { author: 'Developer <dev@example.com>' } },
        sessions: { s_c9883b05a2487d: { agent_id: { tool: 'claude', id: 'conv_abc123', model: 'claude-sonnet-4-5-20250514' }, human_author: 'dev@example.com' } },
      }, null, 2),
    ].join('\n');
    git(repo, 'notes', '--ref=ai', 'add', '-m', log, sha);
    const r = intent(repo, ['import', '--format', 'git-ai', '--intent', 'LEGACY', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const record = JSON.parse(run('git', ['notes', '--ref=intents-imported', 'show', sha], repo).stdout.split('\n')[1]);
    expectValid(record);
    expect(record.metadata['dev.intent']).toMatchObject({ intent_id: 'LEGACY', imported: { format: 'git-ai', git_ai_version: '1.4.5' } });
    const main = record.files.find((f: any) => f.path === 'src/main.rs');
    expect(main.conversations.map((c: any) => [c.contributor, c.url, c.ranges.map((x: any) => [x.start_line, x.end_line])])).toEqual([
      [{ type: 'ai', model_id: 'claude-sonnet-4-5-20250514' }, 'claude-code://session/conv_abc123', [[1, 10]]],
      [{ type: 'human' }, undefined, [[15, 20]]],
    ]);
    const lib = record.files.find((f: any) => f.path === 'src/lib.rs');
    expect(lib.conversations[0]).toMatchObject({ contributor: { type: 'ai', model_id: 'gpt-4' }, url: 'cursor://session/old_session_id' });
    // The hash of lines 1-10 as our records hash them: the same bytes give the same hash.
    const ours = noteOf(repo, sha);
    expect(ours, 'the main worktree commit is not governed').toBeNull();
    expect(lib.conversations[0].ranges[0].content_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    // intent blame credits the imported lines by content, marked as imported.
    const b = JSON.parse(intent(repo, ['blame', 'src/main.rs', '--json']).stdout);
    expect(b.lines.slice(0, 10).every((l: any) => l.contributor === 'ai' && l.model_id === 'claude-sonnet-4-5-20250514' && l.imported === true && l.intent === 'LEGACY')).toBe(true);
    expect(b.lines[14]).toMatchObject({ contributor: 'human', imported: true });
    expect(b.lines[11].imported).toBeUndefined();
    expect(intent(repo, ['blame', 'src/main.rs']).stdout.split('\n')[0]).toMatch(/ai:claude-sonnet-4-5-20250514 ~ +1\| main line 1$/);
  });

  it('refuses what it cannot do, with the way out', () => {
    const repo = governedRepo([{ id: 'INT-001', scope: ['src/**'] }]);
    const bad = intent(repo, ['export', '--format', 'cursor']);
    expect(bad.status).toBeGreaterThan(0);
    expect(bad.stderr).toContain('--format takes git-ai');
    const range = intent(repo, ['import', '--format', 'git-ai', 'nope..HEAD']);
    expect(range.status).toBeGreaterThan(0);
    expect(range.stderr).toContain('not a revision range');
    git(repo, 'notes', '--ref=ai', 'add', '-m', 'not a log', 'HEAD');
    const r = JSON.parse(intent(repo, ['import', '--format', 'git-ai', '--json']).stdout);
    expect(r.written).toEqual([]);
    expect(r.warnings[0]).toContain('has no divider line');
  });
});
