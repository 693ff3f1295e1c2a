/**
 * The glue Roo Code's write tools call (see docs/roo-code.md for the patch): shaped after what
 * Roo has at hand (`task.cwd`, `task.taskId`, `task.api.getModel().id`, the relative path, the
 * diff view's `originalContent`/`newContent` and the saved `finalContent`). Refusals come back as
 * the text Roo hands to the model (`formatResponse.toolError(text)`), never as exceptions.
 *
 * Import it as `intent-governance/roo-code`.
 */
import { checkWrite, deleteFile, moveFile, recordWrite, type WriteResult } from './adapter.js';
import { IntentError } from '../core/errors.js';

/** The part of Roo Code's `Task` the glue reads. */
export interface RooTask {
  cwd: string;
  taskId: string;
  api: { getModel(): { id: string } };
  apiConfiguration?: { apiProvider?: string };
}

/** A refusal as Roo shows it to the model, or a result. */
export type RooOutcome = { ok: true; result?: WriteResult } | { ok: false; error: string };

function origin(task: RooTask, tool: string) {
  const id = task.api.getModel().id;
  const provider = task.apiConfiguration?.apiProvider ?? 'roo-code';
  return { tool, modelId: id.includes('/') ? id : `${provider}/${id}`, conversationUrl: `roo-code://task/${encodeURIComponent(task.taskId)}` };
}

function guard(fn: () => WriteResult | void): RooOutcome {
  try {
    const result = fn();
    return result ? { ok: true, result } : { ok: true };
  } catch (e) {
    if (e instanceof IntentError) return { ok: false, error: JSON.stringify({ error: e.toJSON() }) };
    return { ok: false, error: JSON.stringify({ error: { code: 'INTERNAL', message: String((e as Error)?.message ?? e), data: {} } }) };
  }
}

/** Before approval: may this tool write `relPath` (and `newPath` for a move)? Nothing is written. */
export function rooCheck(task: RooTask, relPath: string, newPath?: string): RooOutcome {
  return guard(() => void checkWrite({ worktree: task.cwd, path: relPath, ...(newPath ? { newPath } : {}) }));
}

/**
 * After `saveChanges`/`saveDirectly`: stage `relPath` and credit the model with the lines it
 * proposed (`newContent`); lines the user changed in the diff view (in `finalContent` only) stay
 * human. `originalContent` is the file before the edit (undefined for a new file).
 */
export function rooSaved(
  task: RooTask,
  tool: string,
  relPath: string,
  edit: { originalContent?: string; newContent: string; finalContent: string },
): RooOutcome {
  return guard(() =>
    recordWrite({
      worktree: task.cwd,
      path: relPath,
      before: edit.originalContent === undefined ? null : Buffer.from(edit.originalContent, 'utf8'),
      proposed: edit.newContent,
      ...origin(task, tool),
    }));
}

/** `apply_patch`'s `*** Delete File:`: instead of a bare `fs.unlink`. */
export function rooDelete(task: RooTask, tool: string, relPath: string): RooOutcome {
  return guard(() => deleteFile({ worktree: task.cwd, path: relPath, ...origin(task, tool) }));
}

/** `apply_patch`'s `*** Move to:` (with the updated content, when the patch also changes it). */
export function rooMove(task: RooTask, tool: string, relPath: string, newPath: string, content?: string): RooOutcome {
  return guard(() => moveFile({ worktree: task.cwd, path: relPath, newPath, ...(content === undefined ? {} : { content }), ...origin(task, tool) }));
}
