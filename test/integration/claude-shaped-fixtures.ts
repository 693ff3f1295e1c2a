// What the fixture-driven tests of agents with Claude Code-shaped hooks share (Qwen Code, Factory
// droid): a governed repository with `intent init --agent <agent>` committed and INT-001's
// worktree, the captured payloads with their placeholders filled in, the session's transcript put
// where the payloads say, and the hook commands run as the agent would, from the settings file
// intent wrote.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';
import { PKG_ROOT, checkoutIntent, git, governedRepo, intent, run, tempDir, type Run } from '../helpers.js';

export type Payload = Record<string, any>;
type Env = Record<string, string | undefined>;
const FIXTURES = join(PKG_ROOT, 'test', 'fixtures');

/** The repository, worktree and home of one fixture file's tests, with its payloads by name. */
export interface FixtureSession {
  repo: string;
  wt: string;
  home: string;
  fx: Record<string, Payload>;
  /** A fixture's text with {{ROOT}}, {{HOME}} and {{PROJECT}} filled in. */
  fill(text: string): string;
}

/**
 * `agent`'s fixture session (call it in beforeAll, inside forFile): payloads from
 * test/fixtures/<agent>/payloads.json, its transcript.jsonl written where the payload named
 * `transcriptOf` says.
 */
export function fixtureSession(agent: string, name: string, transcriptOf: string): FixtureSession {
  const repo = governedRepo([{ id: 'INT-001', name, scope: ['src/**'] }], { 'README.md': '# r\n', 'src/a.txt': 'one\n', 'docs/x.md': 'x\n' });
  expect(intent(repo, ['init', '--agent', agent]).status).toBe(0);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', `${agent} hooks`);
  const wt = checkoutIntent(repo, 'INT-001');
  const home = tempDir(`intent-${agent}-home-`);
  const fill = (text: string) => text.split('{{ROOT}}').join(wt).split('{{HOME}}').join(home).split('{{PROJECT}}').join('project');
  const fx = JSON.parse(fill(readFileSync(join(FIXTURES, agent, 'payloads.json'), 'utf8'))).payloads as Record<string, Payload>;
  const transcript = fx[transcriptOf].transcript_path;
  mkdirSync(dirname(transcript), { recursive: true });
  writeFileSync(transcript, fill(readFileSync(join(FIXTURES, agent, 'transcript.jsonl'), 'utf8')));
  return { repo, wt, home, fx, fill };
}

/** A fixture of `s`, changed by `change`, in session `session` (each test uses a session of its own). */
export function fixturePayload(s: FixtureSession, name: string, session: string, change: (p: Payload) => void = () => {}): Payload {
  const p = structuredClone(s.fx[name]);
  if (!p) throw new Error(`no fixture ${name}`);
  p.session_id = session;
  change(p);
  return p;
}

/**
 * Runs the command the settings file (`settings`, relative to the worktree) registers for the
 * event and tool, with `stdin`, in `cwd` (default: the worktree), with `env` on top of `baseEnv`.
 */
export function settingsHook(s: FixtureSession, settings: string, event: string, tool: string, stdin: string, opts: { cwd?: string; env?: Env; baseEnv?: Env } = {}): Run {
  const entry = JSON.parse(readFileSync(join(s.wt, settings), 'utf8')).hooks[event].find((e: any) => new RegExp(e.matcher).test(tool));
  if (!entry) throw new Error(`no ${event} hook matches ${tool}`);
  return run('sh', ['-c', entry.hooks[0].command], opts.cwd ?? s.wt, { ...opts.baseEnv, ...opts.env }, stdin);
}

/** The hook's answer to payload `p` as JSON (null: it printed nothing); the hook exits 0. */
export function hookAnswer(r: Run): any {
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim() ? JSON.parse(r.stdout) : null;
}

/** The reason of a Claude-shaped refusal before the tool, or undefined. */
export const denied = (a: any) => a?.hookSpecificOutput?.permissionDecision === 'deny' ? a.hookSpecificOutput.permissionDecisionReason as string : undefined;
/** What a Claude-shaped answer after the tool tells the model. */
export const context = (a: any) => a?.hookSpecificOutput?.additionalContext as string | undefined;
