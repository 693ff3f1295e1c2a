/**
 * interop: other tools' notes both ways. git-ai's authorship logs (Git AI Standard v3.0.0 on
 * refs/notes/ai): the log's text (git-ai-log), our records written as logs and logs read back as
 * records credited as imported, on refs/notes/intents-imported (git-ai).
 */
export { exportGitAi, importGitAi, IMPORTED_REF, logOfRecord, recordOfLog, type InteropResult } from './git-ai.js';
export { formatLog, GIT_AI_REF, GIT_AI_SCHEMA, humanKey, mergeRuns, parseLog, resolveKey, sessionId, traceId, type AuthorshipLog } from './git-ai-log.js';
