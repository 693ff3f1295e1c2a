// The authorship/3.0.0 log's text both ways (lib/interop/git-ai-log.ts), on logs shaped as the
// standard's complete examples (sessions, legacy prompts, mixed) and on what it forbids.
import { describe, expect, it } from 'vitest';
import { formatLog, humanKey, mergeRuns, parseLog, resolveKey, sessionId, type AuthorshipLog } from '../../lib/interop/git-ai-log.js';

const meta = (extra: object) => JSON.stringify({ schema_version: 'authorship/3.0.0', git_ai_version: '1.4.5', base_commit_sha: '7734793b756b3921c88db5375a8c156e9532447b', prompts: {}, ...extra }, null, 2);
const SESSIONS = [
  'src/main.rs',
  '  s_c9883b05a2487d::t_9f8e7d6c5b4a32 1-10,15-20',
  '  s_c9883b05a2487d::t_a1b2c3d4e5f678 25,30-35',
  '  h_31dce776f88375 42-50',
  'src/lib.rs',
  '  s_e7f2a90b31cc48::t_deadbeef012345 1-50',
  '---',
  meta({
    humans: { h_31dce776f88375: { author: 'Developer <dev@example.com>' } },
    sessions: {
      s_c9883b05a2487d: { agent_id: { tool: 'cursor', id: '6ef2299e', model: 'claude-sonnet-4-5-20250514' }, human_author: 'dev@example.com' },
      s_e7f2a90b31cc48: { agent_id: { tool: 'claude', id: 'conv_abc123def456', model: 'claude-sonnet-4-5-20250514' }, custom_attributes: { team: 'backend' } },
    },
  }),
].join('\n') + '\n';
const LEGACY = [
  'src/main.rs', '  abcd1234abcd1234 1-10,15-20', '  ef0b5678ef0b5678 25,30-35', 'src/lib.rs', '  abcd1234abcd1234 1-50', '---',
  meta({ prompts: {
    abcd1234abcd1234: { agent_id: { tool: 'cursor', id: 'a', model: 'claude-4.5-opus' }, total_additions: 25, total_deletions: 5, accepted_lines: 20, overriden_lines: 0 },
    ef0b5678ef0b5678: { agent_id: { tool: 'cursor', id: 'b', model: 'claude-3-sonnet' }, total_additions: 6, total_deletions: 0, accepted_lines: 6, overriden_lines: 0 },
  } }),
].join('\n') + '\n';

describe('authorship/3.0.0 logs', () => {
  it.each([['sessions and a known human', SESSIONS], ['legacy prompts', LEGACY]])('%s: read and written back byte for byte', (_, text) => {
    const log = parseLog(text) as AuthorshipLog;
    expect(typeof log).toBe('object');
    expect(formatLog(log)).toBe(text);
  });

  it('routes each key by its prefix', () => {
    const s = parseLog(SESSIONS) as AuthorshipLog;
    expect(resolveKey(s.metadata, 's_e7f2a90b31cc48::t_deadbeef012345')).toMatchObject({ session: 's_e7f2a90b31cc48', ai: { agent_id: { tool: 'claude' } } });
    expect(resolveKey(s.metadata, 'h_31dce776f88375')).toEqual({ human: { author: 'Developer <dev@example.com>' } });
    const l = parseLog(LEGACY) as AuthorshipLog;
    expect(resolveKey(l.metadata, 'ef0b5678ef0b5678')).toMatchObject({ ai: { agent_id: { model: 'claude-3-sonnet' } } });
    expect(resolveKey(l.metadata, 's_00000000000000::t_00000000000000')).toBeNull();
  });

  it('writes merged, ascending ranges, quotes paths with spaces, and leaves out files with no entry', () => {
    expect(mergeRuns([[5, 6], [1, 2], [3, 3], [9, 9]])).toEqual([[1, 3], [5, 6], [9, 9]]);
    const text = formatLog({ files: [{ path: 'a b.ts', entries: [{ key: humanKey('A <a@x>'), lines: [[3, 4], [1, 2]] }] }, { path: 'empty.ts', entries: [] }], metadata: { schema_version: 'authorship/3.0.0', base_commit_sha: 'c', prompts: {} } });
    expect(text.split('\n').slice(0, 3)).toEqual(['"a b.ts"', `  ${humanKey('A <a@x>')} 1-4`, '---']);
    expect((parseLog(text) as AuthorshipLog).files[0].path).toBe('a b.ts');
    // A name our records keep as git quotes it, with a space: quoted once more, read back as it was.
    const quoted = formatLog({ files: [{ path: '"caf\\351 x.ts"', entries: [{ key: humanKey('A <a@x>'), lines: [[1, 1]] }] }], metadata: { schema_version: 'authorship/3.0.0', base_commit_sha: 'c', prompts: {} } });
    expect((parseLog(quoted) as AuthorshipLog).files[0].path).toBe('"caf\\351 x.ts"');
  });

  it('derives ids as the standard says', () => {
    expect(sessionId('claude', 'conv')).toMatch(/^s_[0-9a-f]{14}$/);
    expect(sessionId('claude', 'conv')).toBe(sessionId('claude', 'conv'));
    expect(sessionId('claude', 'conv')).not.toBe(sessionId('cursor', 'conv'));
    expect(humanKey('Alice <a@x>')).toMatch(/^h_[0-9a-f]{14}$/);
  });

  it.each([
    ['no divider', 'src/a.ts\n  h_31dce776f88375 1\n', 'has no divider'],
    ['another schema', `---\n${JSON.stringify({ schema_version: 'authorship/2.0.0', base_commit_sha: 'c', prompts: {} })}`, 'not "authorship/3.0.0"'],
    ['three spaces', `a.ts\n   h_31dce776f88375 1\n---\n${meta({})}`, 'is not an attestation entry'],
    ['descending', `a.ts\n  h_31dce776f88375 5,2\n---\n${meta({})}`, 'not in ascending order'],
    ['line 0', `a.ts\n  h_31dce776f88375 0-2\n---\n${meta({})}`, '1-based'],
    ['a bad key', `a.ts\n  x_1 1\n---\n${meta({})}`, 'is not an attestation key'],
    ['an entry first', `  h_31dce776f88375 1\n---\n${meta({})}`, 'before any file path'],
    ['metadata not JSON', 'a.ts\n  h_31dce776f88375 1\n---\n{', 'is not JSON'],
  ])('refuses %s', (_, text, why) => {
    const r = parseLog(text);
    expect(typeof r).toBe('string');
    expect(r).toContain(why);
  });
});
