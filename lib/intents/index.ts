/**
 * intents: the data model and the decisions about one intent. The registry of the main worktree
 * (registry, and byte-keeping edits in registry-edit), scopes and their exemptions (scope,
 * ignore), the repository config (config), which intent a worktree works on (active), overlaps
 * between intents (overlap), the shared brain (lessons), scope-expansion requests and their
 * approval (expansion, approval), the handshake block an agent gets (context), and the commit
 * messages intent suggests, in the project's convention (commit-style).
 * Imports: core, git.
 */
export { resolveIntentId } from './active.js';
export { approveRequest, listRequests, rejectRequest } from './approval.js';
export { DEFAULT_CONTEXT_BYTES, MIN_CONTEXT_BYTES, renderContext } from './context.js';
export { requestExpansion } from './expansion.js';
export { appendLesson, checkLessonTag } from './lessons.js';
export { registryCommitMessage } from './commit-style.js';
export { describeOverlap } from './overlap.js';
