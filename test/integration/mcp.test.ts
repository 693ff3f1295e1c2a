import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { listExpansionRequests } from '../../lib/intents/expansion.js';
import { CLI, checkoutIntent, git, governedRepo, intent, tempDir } from '../helpers.js';

// `intent mcp` as a real process, driven by the SDK's own client over a real stdio connection.

const INTENTS = [
  { id: 'INT-001', name: 'JWT Authentication Migration', scope: ['src/auth/**', '!src/auth/legacy/**'] },
  { id: 'INT-002', name: 'Invoice rounding fix', scope: ['src/billing/**'] },
];

interface Text { type: 'text'; text: string }
interface Result { isError?: boolean; content: Text[] }

const clients: Client[] = [];
afterEach(async () => {
  while (clients.length) await clients.pop()!.close();
});

/** Starts `intent mcp --cwd <dir>` and connects the SDK client to it. */
async function connect(dir: string): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--cwd', dir],
    // The pinned git settings of test/setup.ts (the SDK passes only a few variables by default).
    env: Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined)),
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (c: Buffer) => { err += c.toString('utf8'); });
  const client = new Client({ name: 'intent-test', version: '0.0.0' });
  await client.connect(transport);
  clients.push(client);
  return { client, stderr: () => err };
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Result> {
  return (await client.callTool({ name, arguments: args })) as unknown as Result;
}

/** The `{code, message, data}` of an isError result. */
function errorOf(r: Result): { code: string; message: string; data: Record<string, unknown> } {
  expect(r.isError, JSON.stringify(r)).toBe(true);
  return JSON.parse(r.content[0].text);
}

describe('intent mcp', () => {
  it('serves the four tools, with input schemas, under the name "intent"', async () => {
    const repo = governedRepo(INTENTS);
    const { client } = await connect(repo);
    expect(client.getServerVersion()?.name).toBe('intent');
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(Object.keys(byName).sort()).toEqual(['get_active_intent', 'record_lesson', 'request_scope_expansion', 'select_active_intent']);
    for (const t of tools) {
      expect(t.description, t.name).toBeTruthy();
      expect(t.inputSchema.type, t.name).toBe('object');
    }
    const props = (n: string) => Object.keys(byName[n].inputSchema.properties ?? {}).sort();
    expect(props('select_active_intent')).toEqual(['intent_id', 'max_bytes']);
    expect(byName.select_active_intent.inputSchema.required).toEqual(['intent_id']);
    expect(props('get_active_intent')).toEqual([]);
    expect(props('record_lesson')).toEqual(['intent_id', 'text']);
    expect(byName.record_lesson.inputSchema.required).toEqual(['text']);
    expect(props('request_scope_expansion')).toEqual(['globs', 'intent_id', 'reason']);
    expect([...(byName.request_scope_expansion.inputSchema.required as string[])].sort()).toEqual(['globs', 'intent_id', 'reason']);
    expect((byName.request_scope_expansion.inputSchema.properties as any).globs).toMatchObject({ type: 'array', items: { type: 'string' } });
  });

  it('select_active_intent returns the <intent_context> of the named intent', async () => {
    const repo = governedRepo(INTENTS);
    const { client } = await connect(repo);
    const r = await call(client, 'select_active_intent', { intent_id: 'INT-001' });
    expect(r.isError ?? false, JSON.stringify(r)).toBe(false);
    expect(r.content[0].type).toBe('text');
    const text = r.content[0].text;
    expect(text).toContain('<intent_context');
    expect(text).toContain('INT-001');
    expect(text).toContain('JWT Authentication Migration');
    expect(text).toContain('src/auth/**');
    const small = await call(client, 'select_active_intent', { intent_id: 'INT-001', max_bytes: 4096 });
    expect(small.isError ?? false, JSON.stringify(small)).toBe(false);
    expect(Buffer.byteLength(small.content[0].text)).toBeLessThanOrEqual(4096);
    expect(errorOf(await call(client, 'select_active_intent', { intent_id: 'INT-404' })).message).toContain('INT-404');
  });

  it('get_active_intent reports the intent of an intent worktree, and an error in the main worktree', async () => {
    const repo = governedRepo(INTENTS);
    const wt = checkoutIntent(repo, 'INT-002');
    const inWorktree = await connect(wt);
    const r = await call(inWorktree.client, 'get_active_intent');
    expect(r.isError ?? false, JSON.stringify(r)).toBe(false);
    expect(JSON.parse(r.content[0].text)).toEqual({
      intent_id: 'INT-002', status: 'IN_PROGRESS', name: 'Invoice rounding fix', owned_scope: ['src/billing/**'], worktree: wt,
    });
    const inMain = await connect(repo);
    const e = errorOf(await call(inMain.client, 'get_active_intent'));
    expect(e.code).toBe('NO_ACTIVE_INTENT');
    expect(e.message).toContain('No intent is active');
    expect(e.message).toContain('intent checkout');
  });

  it('record_lesson appends to the main worktree\'s AGENT.md, also from an intent worktree', async () => {
    const repo = governedRepo(INTENTS);
    const wt = checkoutIntent(repo, 'INT-001');
    const { client } = await connect(wt);
    const r = await call(client, 'record_lesson', { text: 'Token refresh needs the clock skew option. Set it to 30s.', intent_id: 'INT-001' });
    expect(r.isError ?? false, JSON.stringify(r)).toBe(false);
    const out = JSON.parse(r.content[0].text);
    expect(out.appended).toBe(true);
    expect(out.lesson).toMatchObject({ intentId: 'INT-001', title: 'Token refresh needs the clock skew option.' });
    expect(out.path).toBe(join(repo, '.orchestration', 'AGENT.md'));
    const md = readFileSync(join(repo, '.orchestration', 'AGENT.md'), 'utf8');
    expect(md).toContain('· INT-001 · Token refresh needs the clock skew option.');
    // The worktree's own copy is untouched: lessons are shared through the main worktree.
    expect(readFileSync(join(wt, '.orchestration', 'AGENT.md'), 'utf8')).not.toContain('clock skew');
    const general = JSON.parse((await call(client, 'record_lesson', { text: 'Run npm run build before the tests.', intent_id: 'general' })).content[0].text);
    expect(general.lesson.intentId).toBeNull();
    expect(errorOf(await call(client, 'record_lesson', { text: '   ' })).code).toBe('INVALID_INPUT');
  });

  it('request_scope_expansion files a PENDING request from "mcp", visible to every worktree', async () => {
    const repo = governedRepo(INTENTS);
    const wt = checkoutIntent(repo, 'INT-001');
    const { client } = await connect(wt);
    const r = await call(client, 'request_scope_expansion', {
      intent_id: 'INT-001', globs: ['src/billing/plan.ts', 'src/shared/**'], reason: 'JWT claims carry the billing plan',
    });
    expect(r.isError ?? false, JSON.stringify(r)).toBe(false);
    const req = JSON.parse(r.content[0].text);
    expect(req).toMatchObject({
      intent: 'INT-001', globs: ['src/billing/plan.ts', 'src/shared/**'], reason: 'JWT claims carry the billing plan',
      requested_by: 'mcp', status: 'PENDING',
    });
    expect(req.message).toContain(`intent approve ${req.id}`);
    const file = join(repo, '.git', 'intent', 'requests', `${req.id}.json`);
    const stored = { ...req };
    delete stored.message;
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(stored);
    expect(listExpansionRequests(repo)).toEqual([stored]);
    expect(listExpansionRequests(wt)).toEqual([stored]);
  });

  it('bad inputs return isError results with the error JSON, and the server keeps serving', async () => {
    const repo = governedRepo(INTENTS);
    const { client, stderr } = await connect(repo);
    const unknown = errorOf(await call(client, 'request_scope_expansion', { intent_id: 'INT-404', globs: ['src/**'], reason: 'x' }));
    expect(unknown.code).toBe('UNKNOWN_INTENT');
    expect(unknown.message).toContain('INT-001, INT-002');
    const empty = errorOf(await call(client, 'request_scope_expansion', { intent_id: 'INT-001', globs: [], reason: 'x' }));
    expect(empty.code).toBe('INVALID_INPUT');
    expect(empty.data.field).toBe('globs');
    const dotdot = errorOf(await call(client, 'request_scope_expansion', { intent_id: 'INT-001', globs: ['src/../../etc/**'], reason: 'x' }));
    expect(dotdot.code).toBe('INVALID_INPUT');
    expect(dotdot.message).toContain('contains ".."');
    const noReason = errorOf(await call(client, 'request_scope_expansion', { intent_id: 'INT-001', globs: ['src/x/**'], reason: '' }));
    expect(noReason.data.field).toBe('reason');
    // Arguments that do not fit the schema are refused by the SDK, as an error result too.
    const wrongType = await call(client, 'request_scope_expansion', { intent_id: 'INT-001', globs: 'src/**', reason: 'x' });
    expect(wrongType.isError).toBe(true);
    expect(listExpansionRequests(repo)).toEqual([]);
    // Still up: a later call works.
    const ok = await call(client, 'request_scope_expansion', { intent_id: 'INT-001', globs: ['src/x/**'], reason: 'needs x' });
    expect(ok.isError ?? false, JSON.stringify(ok)).toBe(false);
    expect(listExpansionRequests(repo)).toHaveLength(1);
    expect(stderr()).toBe('');
  });

  it('refuses to start outside a repository (exit 1, says why)', () => {
    const dir = tempDir();
    const r = intent(dir, ['mcp', '--cwd', dir]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('not inside a git repository');
  });
});

describe('intent mcp: the session, limits and validation (issue 14)', () => {
  it('the schemas carry every limit the server enforces', async () => {
    const repo = governedRepo(INTENTS);
    const { client } = await connect(repo);
    const { tools } = await client.listTools();
    const prop = (tool: string, name: string) => (tools.find((t) => t.name === tool)!.inputSchema.properties as any)[name];
    expect(prop('select_active_intent', 'max_bytes')).toMatchObject({ type: 'integer', minimum: 512 });
    expect(prop('select_active_intent', 'intent_id').pattern).toBeTruthy();
    expect(prop('record_lesson', 'text')).toMatchObject({ type: 'string', minLength: 1, maxLength: 2000 });
    expect(prop('request_scope_expansion', 'globs')).toMatchObject({ type: 'array', minItems: 1, maxItems: 100, items: { type: 'string', minLength: 1 } });
    expect(prop('request_scope_expansion', 'reason')).toMatchObject({ type: 'string', minLength: 1, maxLength: 2000 });
  });

  it('schema failures and unknown tools are isError results with our {code, message, data}', async () => {
    const repo = governedRepo(INTENTS);
    const { client } = await connect(repo);
    const wrongType = errorOf(await call(client, 'request_scope_expansion', { intent_id: 'INT-001', globs: 'src/**', reason: 'x' }));
    expect(wrongType).toMatchObject({ code: 'INVALID_INPUT', data: { tool: 'request_scope_expansion', field: 'globs' } });
    expect(wrongType.message).toContain('globs');
    const small = errorOf(await call(client, 'select_active_intent', { intent_id: 'INT-001', max_bytes: 100 }));
    expect(small).toMatchObject({ code: 'INVALID_INPUT', data: { field: 'max_bytes' } });
    const emptyGlob = errorOf(await call(client, 'request_scope_expansion', { intent_id: 'INT-001', globs: [''], reason: 'x' }));
    expect(emptyGlob.data.field).toBe('globs');
    const longReason = errorOf(await call(client, 'request_scope_expansion', { intent_id: 'INT-001', globs: ['src/x/**'], reason: 'r'.repeat(2001) }));
    expect(longReason.data.field).toBe('reason');
    const unknown = errorOf(await call(client, 'frobnicate', {}));
    expect(unknown.code).toBe('USAGE');
    expect(unknown.message).toContain('select_active_intent');
    expect(listExpansionRequests(repo)).toEqual([]);
  });

  it('limits a lesson\'s length: 200,000 characters are refused and AGENT.md is left alone', async () => {
    const repo = governedRepo(INTENTS);
    const { client } = await connect(repo);
    const agentMd = join(repo, '.orchestration', 'AGENT.md');
    const before = existsSync(agentMd) ? readFileSync(agentMd, 'utf8') : null;
    const e = errorOf(await call(client, 'record_lesson', { text: 'x'.repeat(200_000) }));
    expect(e).toMatchObject({ code: 'INVALID_INPUT', data: { field: 'text' } });
    expect(existsSync(agentMd) ? readFileSync(agentMd, 'utf8') : null).toBe(before);
  });

  it('select_active_intent selects for the session: get_active_intent answers with it, and the handshake is recorded', async () => {
    const repo = governedRepo(INTENTS);
    const { client } = await connect(repo);
    expect(errorOf(await call(client, 'get_active_intent')).code).toBe('NO_ACTIVE_INTENT');
    expect((await call(client, 'select_active_intent', { intent_id: 'INT-002' })).isError ?? false).toBe(false);
    expect(JSON.parse((await call(client, 'get_active_intent')).content[0].text)).toMatchObject({ intent_id: 'INT-002', name: 'Invoice rounding fix' });

    // In an intent worktree only its own intent can be selected; the selection is the worktree's.
    const wt = checkoutIntent(repo, 'INT-001');
    const inWt = await connect(wt);
    const other = errorOf(await call(inWt.client, 'select_active_intent', { intent_id: 'INT-002' }));
    expect(other.code).toBe('NO_ACTIVE_INTENT');
    expect(other.message).toContain('You must cite a valid active Intent ID.');
    expect(other.message).toContain('works on INT-001');
    expect((await call(inWt.client, 'select_active_intent', { intent_id: 'INT-001' })).isError ?? false).toBe(false);
    const gitDir = git(wt, 'rev-parse', '--path-format=absolute', '--git-dir').trim();
    const records = readdirSync(join(gitDir, 'intent-handshake')).map((f) => JSON.parse(readFileSync(join(gitDir, 'intent-handshake', f), 'utf8')));
    expect(records).toEqual([expect.objectContaining({ agent: 'mcp', intent: 'INT-001' })]);
  });

  it('record_lesson validates its tag like `intent lesson`: known intents only, and in a worktree only its own', async () => {
    const repo = governedRepo(INTENTS);
    const wt = checkoutIntent(repo, 'INT-001');
    const { client } = await connect(wt);
    expect(errorOf(await call(client, 'record_lesson', { text: 'A lesson.', intent_id: 'INT-404' })).code).toBe('UNKNOWN_INTENT');
    const foreign = errorOf(await call(client, 'record_lesson', { text: 'A lesson.', intent_id: 'INT-002' }));
    expect(foreign.code).toBe('INVALID_INPUT');
    expect(foreign.message).toContain('works on INT-001');
    const own = JSON.parse((await call(client, 'record_lesson', { text: 'Untagged in a worktree means its intent.' })).content[0].text);
    expect(own.lesson.intentId).toBe('INT-001');
    const cli = intent(wt, ['lesson', 'From the CLI, for another intent.', '--intent', 'INT-002']);
    expect(cli.status).not.toBe(0);
    expect(cli.stderr).toContain('works on INT-001');
    expect(intent(repo, ['lesson', 'Unknown tag.', '--intent', 'INT-404']).stderr).toContain('Unknown intent "INT-404"');
  });

  it('request_scope_expansion refuses governance paths, like `intent expand`', async () => {
    const repo = governedRepo(INTENTS);
    const { client } = await connect(repo);
    for (const glob of ['.orchestration/**', '.orchestration/active_intents.yaml', './.git/hooks/*']) {
      const e = errorOf(await call(client, 'request_scope_expansion', { intent_id: 'INT-001', globs: [glob], reason: 'x' }));
      expect(e.code, glob).toBe('INVALID_INPUT');
      expect(e.message, glob).toContain('governance state');
    }
    expect(intent(repo, ['expand', 'INT-001', '.orchestration/**', '--reason', 'x']).stderr).toContain('governance state');
    expect(listExpansionRequests(repo)).toEqual([]);
  });

  it('says what is wrong with a --cwd that does not exist', () => {
    const dir = join(tempDir(), 'missing');
    const r = intent(tempDir(), ['mcp', '--cwd', dir]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(`${dir} is not a directory`);
    expect(r.stderr).not.toMatch(/git (is )?missing|ENOENT/);
  });

  it('trimming keeps the intent\'s own lessons before general ones', async () => {
    const repo = governedRepo(INTENTS);
    const { client } = await connect(repo);
    const own = `Own lesson: ${'refresh tokens rotate on every use; '.repeat(40)}`;
    expect((await call(client, 'record_lesson', { text: own, intent_id: 'INT-001' })).isError ?? false).toBe(false);
    for (let i = 0; i < 5; i++) await call(client, 'record_lesson', { text: `General lesson ${i}: keep commits small.`, intent_id: 'general' });
    const r = await call(client, 'select_active_intent', { intent_id: 'INT-001', max_bytes: 1200 });
    expect(r.isError ?? false, JSON.stringify(r)).toBe(false);
    const text = r.content[0].text;
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(1200);
    expect(text).toMatch(/<lesson[^>]*intent="INT-001"[^>]*>Own lesson: refresh tokens rotate/);
  });
});
