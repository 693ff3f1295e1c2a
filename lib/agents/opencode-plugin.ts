/**
 * The OpenCode plugin `intent init --agent opencode` writes to `.opencode/plugin/intent.js`
 * (OpenCode 1.18 loads `{plugin,plugins}/*.{js,ts}` of each `.opencode/` folder from the session's
 * directory up to its worktree, with no trust step). Plain JavaScript with no dependencies: it runs
 * inside OpenCode's runtime (Bun). It remembers each session's model from `chat.params`, and
 * around every tool call it asks intent's runner (`<git common dir>/intent/bin/agent opencode
 * tool-execute-before|tool-execute-after`, found from the session's directory as the other
 * agents' hook commands find it) with the payload described in lib/agents/opencode.ts. A refusal
 * before the tool is thrown (OpenCode gives the model the message; the tool does not run); a note
 * after it is appended to the tool's output. A runner that is missing, fails or answers no JSON is
 * a refusal too (fail closed).
 */

/** The file's text. No backquotes or `${` in it: it is kept in a template literal. */
export const OPENCODE_PLUGIN = String.raw`// Written by 'intent init --agent opencode': intent governs OpenCode's tool calls (intent/bin/agent).
// Before each tool call it asks intent's runner (<git common dir>/intent/bin/agent) whether the call
// may run, and after it which files to stage and credit. Do not edit: re-run intent init instead.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

// Tools that neither write nor run anything: not asked about (read is asked after it, for the stale check).
const QUIET = new Set(['glob', 'grep', 'list', 'webfetch', 'websearch', 'codesearch', 'todowrite', 'todoread', 'question', 'skill', 'lsp', 'invalid', 'task']);
// Agents whose chat turns do not use tools (the session's title, its summary): their model is not the session's.
const SIDE = new Set(['title', 'summary', 'compaction']);
const MAX_OUTPUT = 1 << 20;
const TIMEOUT_MS = 120000;

function runnerFor(dir) {
  const r = spawnSync('git', ['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd: dir, encoding: 'utf8' });
  const common = r.status === 0 ? r.stdout.trim() : '';
  return common ? join(common, 'intent', 'bin', 'agent') : '';
}

function refuse(message) {
  return new Error('intent: ' + message + ' The tool call is refused.');
}

function ask(dir, event, payload) {
  const runner = runnerFor(dir);
  if (!runner || !existsSync(runner)) {
    return Promise.reject(refuse('this clone has no intent hooks (no runner at ' + (runner || '<git common dir>/intent/bin/agent') + ' for ' + dir + '); run intent init.'));
  }
  return new Promise((resolve, reject) => {
    const child = spawn(runner, ['opencode', event], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    child.stdin.on('error', () => { /* the runner exited before reading all of it: its exit says why */ });
    child.on('error', (e) => { clearTimeout(timer); reject(refuse('the hook runner ' + runner + ' could not start (' + e.message + '); run intent init to repair it.')); });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const why = err.trim() ? ': ' + err.trim().slice(0, 2000) : '';
      if (code !== 0) return reject(refuse('the hook runner failed (' + (signal ? 'signal ' + signal : 'exit ' + code) + why + '); run intent init to repair it.'));
      let answer;
      try { answer = JSON.parse(out); } catch { answer = undefined; }
      if (!answer || typeof answer !== 'object' || Array.isArray(answer)) return reject(refuse('the hook runner gave no answer (' + JSON.stringify(out.slice(0, 200)) + why + '); run intent init to repair it.'));
      resolve(answer);
    });
    child.stdin.end(JSON.stringify(payload));
  });
}

function capped(text) {
  return typeof text === 'string' && text.length > MAX_OUTPUT ? text.slice(0, MAX_OUTPUT) : text;
}

// What the model gets from a tool: OpenCode's own tools return {title, output, metadata}; an MCP
// server's tool returns the MCP result, whose text is in content[].
function textOf(output) {
  if (!output) return undefined;
  if (typeof output.output === 'string') return output.output;
  if (Array.isArray(output.content)) return output.content.filter((c) => c && c.type === 'text').map((c) => c.text).join('\n');
  return undefined;
}

function tell(output, note) {
  if (!output) return;
  if (Array.isArray(output.content) && typeof output.output !== 'string') output.content.push({ type: 'text', text: note });
  else output.output = (typeof output.output === 'string' && output.output ? output.output + '\n\n' : '') + note;
}

export const IntentGovernance = async ({ directory, worktree }) => {
  const models = new Map();
  const base = (event, input) => ({ event, tool: input.tool, sessionID: input.sessionID, callID: input.callID, directory, worktree, model: models.get(input.sessionID) });
  return {
    'chat.params': async (input) => {
      const m = input && input.model;
      if (!m || SIDE.has(input.agent) || typeof m.providerID !== 'string' || typeof m.id !== 'string') return;
      models.set(input.sessionID, m.providerID + '/' + m.id);
    },
    'tool.execute.before': async (input, output) => {
      if (QUIET.has(input.tool) || input.tool === 'read') return;
      const answer = await ask(directory, 'tool-execute-before', { ...base('tool.execute.before', input), args: output.args });
      if (answer.decision === 'allow') return;
      throw answer.decision === 'deny' && typeof answer.reason === 'string' && answer.reason ? new Error(answer.reason)
        : refuse('the hook runner gave no decision (' + JSON.stringify(answer).slice(0, 200) + '); run intent init to repair it.');
    },
    'tool.execute.after': async (input, output) => {
      if (QUIET.has(input.tool)) return;
      let metadata = output && output.metadata;
      try { if (JSON.stringify(metadata).length > MAX_OUTPUT) metadata = undefined; } catch { metadata = undefined; }
      const answer = await ask(directory, 'tool-execute-after', { ...base('tool.execute.after', input), args: input.args, title: output && output.title, output: capped(textOf(output)), metadata });
      if (typeof answer.note === 'string' && answer.note) tell(output, answer.note);
    },
  };
};
`;
