/**
 * core: what every other layer stands on and that knows nothing of git or intents: typed errors
 * with stable codes (errors) and each code's data (error-data), atomic file writes (files), lock
 * files (lock), the package's identity and the notes ref (version), the check that a process is
 * an agent's (agent-env), the invisible characters stripped from text one agent leaves for others
 * (invisible), NODE_EXTRA_CA_CERTS parked for a node that makes no TLS connection (node-start),
 * and the environment settings, read in one place (settings: readSettings, hostEnv).
 * Imports: Node only.
 */
export { IntentError, NO_ACTIVE_INTENT_MESSAGE, type AnyIntentError, type ErrorCode, type ErrorData, type ErrorDataOf } from './errors.js';
export { NOTES_REF, TOOL_VERSION } from './version.js';
export { parkCaCerts, unparkCaCerts } from './node-start.js';
