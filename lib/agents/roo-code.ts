/**
 * The glue Roo Code calls (integrations/roo-code/roo-code.patch wires it in; docs/roo-code.md is
 * the step-by-step). Shaped after what Roo has at hand: the task (`task.cwd`, `task.taskId`,
 * `task.api.getModel().id`, `task.apiConfiguration.apiProvider`), the tool's relative path, the
 * content the model proposed. Refusals come back as the text Roo hands to the model
 * (`formatResponse.toolError(text)`), never as exceptions.
 *
 * - `select_active_intent` (`rooSelectIntent`) is the handshake: until a task has named its
 *   worktree's intent, every write is refused with "You must cite a valid active Intent ID.".
 * - `rooRead` remembers the hash of each file the model read; `rooCheck` (before approval)
 *   refuses a write to a file changed since (STALE_FILE), outside the scope, or without handshake.
 * - `rooSaved` (after Roo's save) stages the file and credits the model's proposed lines to
 *   `<provider>/<model>`; `rooDelete` / `rooMove` do `apply_patch`'s deletes and moves.
 * - `rooCommand` is the shell policy's verdict on `execute_command`.
 *
 * - Governance is a setting (`rooConfigure({governance})`, Roo's `roo-cline.intentGovernance`):
 *   `auto`, the default, is on in a governed repository (one with
 *   `.orchestration/active_intents.yaml`) and off elsewhere; `on` and `off` force it. Off, every
 *   function lets Roo work as without the patch (deletes and moves done plainly, commands left to
 *   Roo's own approval), `rooGoverned` is false (no tool, no prompt section).
 * - In a governed repository only an intent's worktree may be written by a task: the main worktree
 *   (or any other checkout) refuses every write and names `intent checkout`.
 *
 * Import it as `intent-governance/roo-code`: every condition (`require`, `import`, bundlers) gets
 * the self-contained CommonJS build `dist/roo-code.cjs` (scripts/bundle.mjs), which depends on
 * nothing but Node: Roo's pnpm overrides (brace-expansion 2) cannot reach our minimatch.
 * The handshake is the shared one (agents/handshake: a file per session under the worktree's git
 * dir; the session is the Roo task id). What the model read lives in this module, per task id.
 */
import { existsSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { checkWriteAsync, contentHash, deleteFileAsync, moveFileAsync, recordWriteAsync, type WriteResult } from './adapter.js';
import { recordHandshake, selectedIntent, type AgentSession } from './handshake.js';
import { classifyCommand, type CommandDecision } from './shell/index.js';
import { IntentError, NO_ACTIVE_INTENT_MESSAGE } from '../core/errors.js';
import { requireActive, resolveIntentId } from '../intents/active.js';
import { renderContextAsync } from '../intents/context.js';
import { loadIgnore } from '../intents/ignore.js';
import { loadRegistry } from '../intents/registry.js';
import { compileScope, outOfScope } from '../intents/scope.js';
import { openRepoAsync, orchestrationPath, type Repo } from '../git/repo.js';

export { classifyCommand, type CommandContext, type CommandDecision, type CommandVerdict } from './shell/index.js';
export { contentHash } from './adapter.js';

/** The part of Roo Code's `Task` the glue reads (Roo's `Task` satisfies it). */
export interface RooTask {
  cwd: string;
  taskId: string;
  api: { getModel(): { id: string } };
  apiConfiguration?: { apiProvider?: string };
}

/** A refusal as Roo shows it to the model (the JSON of the IntentError), or a result. */
export type RooOutcome = { ok: true; result?: WriteResult } | { ok: false; error: string };

/** What `select_active_intent` answers: the `<intent_context>` block, or the refusal. */
export type RooSelection = { ok: true; intent: string; context: string } | { ok: false; error: string };

/** The `select_active_intent` tool as Roo declares it to the model (an OpenAI function tool). */
export const SELECT_ACTIVE_INTENT_TOOL = {
  name: 'select_active_intent',
  description:
    'Select the intent (the scoped unit of work) this task works on, before writing or editing any file. ' +
    'Name the intent of this worktree (its branch is intent/<ID>). Returns an <intent_context> block: the files ' +
    'you may change (owned_scope), constraints, acceptance criteria and lessons. Until it succeeded, every write ' +
    'is refused with "You must cite a valid active Intent ID.".',
  parameters: {
    type: 'object',
    properties: {
      intent_id: { type: 'string', description: 'The intent id, e.g. INT-001 (the worktree\'s branch is intent/INT-001).' },
    },
    required: ['intent_id'],
    additionalProperties: false,
  },
} as const;

/** The system prompt section that tells the model about the handshake and the refusals. */
export const INTENT_SYSTEM_PROMPT = `====

INTENT GOVERNANCE

This workspace is governed by intent: every change belongs to an intent, a scoped unit of work, and the worktree belongs to one intent (its branch is intent/<ID>).
- Before you write, edit, move or delete any file, call select_active_intent with this worktree's intent id. Its answer, an <intent_context> block, lists the files you may change (owned_scope), the constraints and the acceptance criteria: follow them. Until you have called it, every write is refused with "You must cite a valid active Intent ID.".
- A write outside the owned scope is refused (Scope Violation): do not retry it; ask the user to expand the intent.
- A write to a file that changed since you last read it is refused (Stale File): read the file again, then redo the edit.
- Some commands are refused by the shell policy or need the user's approval: the tool result says why.`;

// ---------------------------------------------------------------------------------------------
// The setting.

/** Roo's setting: `auto` (on in a governed repository, off elsewhere), `on`, `off`. */
export type RooGovernanceSetting = 'auto' | 'on' | 'off';

let setting: RooGovernanceSetting = 'auto';

/** Sets the governance setting (the extension calls it at activation and when the setting changes). */
export function rooConfigure(options: { governance?: unknown }): RooGovernanceSetting {
  const g = options.governance;
  setting = g === 'on' || g === 'off' ? g : 'auto';
  return setting;
}

/**
 * Whether intent governs tasks in `cwd`: the setting, and for `auto` whether the repository
 * around `cwd` is governed (its checkout holds `.orchestration/active_intents.yaml`). No git
 * process: a few `stat`s, cheap enough for every tool call and every system prompt.
 */
export function rooGoverned(cwd: string): boolean {
  if (setting !== 'auto') return setting === 'on';
  let dir = resolve(cwd);
  for (;;) {
    if (existsSync(join(dir, '.git'))) return existsSync(join(dir, '.orchestration', 'active_intents.yaml'));
    const up = dirname(dir);
    if (up === dir) return false;
    dir = up;
  }
}

/** The INTENT GOVERNANCE section for the system prompt of a task in `cwd` ("" when not governed). */
export function rooIntentPrompt(cwd: string): string {
  return rooGoverned(cwd) ? INTENT_SYSTEM_PROMPT : '';
}

// ---------------------------------------------------------------------------------------------
// State per task (one extension host): what the model last read.

interface TaskState {
  /** Absolute path → `sha256:<hex>` of what the model last saw, or null (it saw no file). */
  reads: Map<string, string | null>;
  /** Absolute path → the file's bytes when `rooCheck` passed (the "before" of the write). */
  before: Map<string, Buffer | null>;
}

const MAX_TASKS = 500;
const tasks = new Map<string, TaskState>();

function stateOf(task: RooTask): TaskState {
  const key = String(task.taskId);
  let s = tasks.get(key);
  if (!s) {
    if (tasks.size >= MAX_TASKS) tasks.delete(tasks.keys().next().value!);
    s = { reads: new Map(), before: new Map() };
    tasks.set(key, s);
  }
  return s;
}

function absOf(task: RooTask, p: string): string {
  return resolve(task.cwd, p);
}

function origin(task: RooTask, tool: string) {
  const id = task.api.getModel().id;
  const provider = task.apiConfiguration?.apiProvider || 'roo-code';
  return { tool, modelId: `${provider}/${id}`, conversationUrl: `roo-code://task/${encodeURIComponent(task.taskId)}` };
}

function refusal(e: unknown): { ok: false; error: string } {
  if (e instanceof IntentError) return { ok: false, error: JSON.stringify({ error: e.toJSON() }) };
  return { ok: false, error: JSON.stringify({ error: { code: 'INTERNAL', message: String((e as Error)?.message ?? e), data: {} } }) };
}

/**
 * The calls that write or check, one at a time in this extension host: each holds the worktree's
 * adapter lock across the git processes it awaits, and a second call waiting for that lock
 * in-line would block the event loop those processes need.
 */
let queue: Promise<unknown> = Promise.resolve();

function serial<T>(fn: () => Promise<T>): Promise<T> {
  const run = queue.then(fn, fn);
  queue = run.catch(() => undefined);
  return run;
}

function guard(fn: () => Promise<WriteResult | void>): Promise<RooOutcome> {
  return serial(async () => {
    try {
      const result = await fn();
      return result ? { ok: true, result } : { ok: true };
    } catch (e) {
      return refusal(e);
    }
  });
}

/** The handshake session of a Roo task. */
function sessionOf(task: RooTask): AgentSession {
  return { agent: 'roo-code', sessionId: String(task.taskId) };
}

/**
 * The intent the task selected with `select_active_intent` (it must be the worktree's own); the
 * handshake refusal when it did not.
 */
function requireHandshake(task: RooTask, repo: Repo): string {
  const own = resolveIntentId(repo, undefined)?.id ?? null;
  if (!own) throw notAWorktree(repo);
  const selected = selectedIntent(repo, sessionOf(task));
  if (selected && (!own || selected === own)) return selected;
  const why = selected
    ? `This task selected ${selected}, but this worktree works on ${own}.`
    : `This task has not selected an intent yet${own ? `; this worktree works on ${own}` : ''}.`;
  const how = own
    ? `Call select_active_intent with intent_id "${own}", read the context it returns, then retry.`
    : 'Call select_active_intent with the id of the intent you work on, then retry.';
  throw new IntentError('NO_ACTIVE_INTENT', `${NO_ACTIVE_INTENT_MESSAGE} ${why} ${how} Nothing was written.`, {
    intent: own, selected, agent: 'roo-code', session: String(task.taskId), worktree: repo.root,
  });
}

/** The refusal in a governed repository's main worktree (or any checkout that is no intent's). */
function notAWorktree(repo: Repo): IntentError {
  const where = repo.isMainWorktree ? 'the main worktree of a governed repository' : 'a checkout of a governed repository that is no intent\'s worktree';
  return new IntentError(
    'NO_ACTIVE_INTENT',
    `${NO_ACTIVE_INTENT_MESSAGE} ${repo.root} is ${where}: an agent works in an intent's worktree. ` +
      'Run `intent checkout <ID>` and open the folder it prints in VS Code. Nothing was written.',
    { worktree: repo.root, mainWorktree: repo.isMainWorktree, agent: 'roo-code' },
  );
}

/** The file's bytes, or null when there is no file. */
function readIfFile(abs: string): Buffer | null {
  try {
    return statSync(abs).isFile() ? readFileSync(abs) : null;
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------

/**
 * `select_active_intent`: the handshake. `intentId` must be the worktree's own intent (in the
 * main worktree: any intent in progress). Answers the `<intent_context>` block.
 */
export function rooSelectIntent(task: RooTask, intentId: string): Promise<RooSelection> {
  return serial(() => selectIntent(task, intentId));
}

async function selectIntent(task: RooTask, intentId: string): Promise<RooSelection> {
  try {
    const id = typeof intentId === 'string' ? intentId.trim() : '';
    if (!id) throw new IntentError('NO_ACTIVE_INTENT', `${NO_ACTIVE_INTENT_MESSAGE}\nselect_active_intent needs intent_id, e.g. INT-001.`, {});
    if (!rooGoverned(task.cwd)) {
      throw new IntentError('NO_ACTIVE_INTENT', `${NO_ACTIVE_INTENT_MESSAGE} intent does not govern ${task.cwd} (not a governed repository, or the setting is "off"): there is no intent to select.`, {});
    }
    const repo = await openRepoAsync(task.cwd);
    const own = resolveIntentId(repo, undefined);
    if (!own) throw notAWorktree(repo);
    if (own.id !== id) {
      throw new IntentError(
        'NO_ACTIVE_INTENT',
        `${NO_ACTIVE_INTENT_MESSAGE}\nThis worktree belongs to ${own.id}, not ${id}. Select ${own.id}, or work on ${id} in its own worktree (intent checkout ${id}).`,
        { worktreeIntent: own.id, intent: id },
      );
    }
    requireActive(loadRegistry(orchestrationPath(repo, 'active_intents.yaml')), id);
    const context = await renderContextAsync(task.cwd, id);
    recordHandshake(repo, sessionOf(task), id);
    return { ok: true, intent: id, context };
  } catch (e) {
    return refusal(e);
  }
}

/** `read_file` read `relPath`: remember the hash of the file as it is now (never throws). */
export function rooRead(task: RooTask, relPath: string): void {
  try {
    if (!rooGoverned(task.cwd)) return;
    const abs = absOf(task, relPath);
    const content = readIfFile(abs);
    stateOf(task).reads.set(abs, content ? contentHash(content) : null);
  } catch {
    // Reading is never refused; without a hash the write is not checked for staleness.
  }
}

/**
 * Before approval: may this tool write `relPath` (and `newPath` for a move)? The task must have
 * selected its intent, the path must be in scope, and the file must be what the model last read
 * (when it read it). Nothing is written; the file's current bytes are kept for `rooSaved`.
 */
export function rooCheck(task: RooTask, relPath: string, newPath?: string): Promise<RooOutcome> {
  return guard(async () => {
    if (!rooGoverned(task.cwd)) return;
    const intentId = requireHandshake(task, await openRepoAsync(task.cwd));
    const s = stateOf(task);
    const abs = absOf(task, relPath);
    const expected = s.reads.get(abs);
    await checkWriteAsync({ worktree: task.cwd, path: relPath, intentId, ...(newPath ? { newPath } : {}), ...(expected === undefined ? {} : { expectedSha256: expected }) });
    s.before.set(abs, readIfFile(abs));
  });
}

/**
 * After Roo's save (`saveChanges` / `saveDirectly`): stage `relPath` and credit the model with
 * the lines it proposed (`newContent`, after `stripLineNumbers`); lines the user changed in the
 * diff view stay human. The "before" is the file as `rooCheck` saw it (else `originalContent`).
 * What is staged is the file on disk (Roo's `finalContent`, with the user's edits); passing
 * `finalContent` is accepted and not needed.
 */
export function rooSaved(
  task: RooTask,
  tool: string,
  relPath: string,
  edit: { originalContent?: string; newContent: string; finalContent?: string },
): Promise<RooOutcome> {
  return guard(async () => {
    if (!rooGoverned(task.cwd)) return;
    const intentId = requireHandshake(task, await openRepoAsync(task.cwd));
    const s = stateOf(task);
    const abs = absOf(task, relPath);
    const checked = s.before.get(abs);
    s.before.delete(abs);
    const before = checked !== undefined ? checked : edit.originalContent === undefined ? null : Buffer.from(edit.originalContent, 'utf8');
    const result = await recordWriteAsync({ worktree: task.cwd, path: relPath, before, proposed: edit.newContent, intentId, ...origin(task, tool) });
    s.reads.set(abs, result.sha256);
    return result;
  });
}

/** `apply_patch`'s `*** Delete File:`: instead of a bare `fs.unlink`; checks, deletes, stages. */
export function rooDelete(task: RooTask, tool: string, relPath: string): Promise<RooOutcome> {
  return guard(async () => {
    if (!rooGoverned(task.cwd)) {
      unlinkSync(absOf(task, relPath)); // what Roo does without the patch
      return;
    }
    const intentId = requireHandshake(task, await openRepoAsync(task.cwd));
    const s = stateOf(task);
    const abs = absOf(task, relPath);
    const expected = s.reads.get(abs);
    const result = await deleteFileAsync({ worktree: task.cwd, path: relPath, intentId, ...(expected === undefined ? {} : { expectedSha256: expected }), ...origin(task, tool) });
    s.reads.set(abs, null);
    s.before.delete(abs);
    return result;
  });
}

/** `apply_patch`'s `*** Move to:` with the updated content: checks both paths, moves, stages both sides. */
export function rooMove(task: RooTask, tool: string, relPath: string, newPath: string, content?: string): Promise<RooOutcome> {
  return guard(async () => {
    if (!rooGoverned(task.cwd)) {
      // What Roo does without the patch: the new file written, the old one removed.
      const from = absOf(task, relPath);
      const to = absOf(task, newPath);
      const bytes = content === undefined ? readFileSync(from) : Buffer.from(content, 'utf8');
      mkdirSync(dirname(to), { recursive: true });
      writeFileSync(to, bytes);
      if (to !== from) unlinkSync(from);
      return;
    }
    const intentId = requireHandshake(task, await openRepoAsync(task.cwd));
    const s = stateOf(task);
    const abs = absOf(task, relPath);
    const expected = s.reads.get(abs);
    const result = await moveFileAsync({
      worktree: task.cwd, path: relPath, newPath, intentId,
      ...(content === undefined ? {} : { content }),
      ...(expected === undefined ? {} : { expectedSha256: expected }),
      ...origin(task, tool),
    });
    s.reads.set(abs, null);
    s.before.delete(abs);
    s.reads.set(absOf(task, newPath), result.sha256);
    return result;
  });
}

/**
 * The shell policy's verdict on `execute_command` (in `customCwd`, relative to the task's cwd):
 * `deny` is the tool's error, `ask` goes to Roo's approval prompt (never auto-approved), `allow`
 * runs. Before the handshake nothing is in scope, so commands that write files need approval.
 * Never throws: when the policy cannot be applied, a human decides.
 */
export async function rooCommand(task: RooTask, command: string, customCwd?: string): Promise<Pick<CommandDecision, 'decision' | 'reason'>> {
  try {
    if (!rooGoverned(task.cwd)) return { decision: 'allow', reason: '' };
    const repo = await openRepoAsync(task.cwd);
    let intentId: string | null = null;
    try {
      intentId = requireHandshake(task, repo);
    } catch {
      // No handshake: nothing is in scope.
    }
    let inScope: (p: string) => boolean = () => false;
    if (intentId) {
      const intent = requireActive(loadRegistry(orchestrationPath(repo, 'active_intents.yaml')), intentId);
      const scope = compileScope(intent.owned_scope);
      const ignore = loadIgnore(repo);
      inScope = (p) => outOfScope([p], scope, ignore, !repo.isMainWorktree).length === 0;
    }
    const d = classifyCommand(command, { cwd: resolve(task.cwd, customCwd ?? '.'), root: repo.root, inScope });
    return { decision: d.decision, reason: d.reason };
  } catch (e) {
    return { decision: 'ask', reason: `intent could not check this command (${(e as Error)?.message ?? e}): a human must approve it` };
  }
}
