// The package's public API: `import { writeFile } from 'intent-governance'` (or `intent-governance/adapter`).
export * from './agents/adapter.js';
export { IntentError, NO_ACTIVE_INTENT_MESSAGE, type ErrorCode } from './core/errors.js';
