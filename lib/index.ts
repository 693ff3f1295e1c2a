// The package's public API: `import { writeFile } from 'intent-governance'` (or `intent-governance/adapter`).
export * from './agents/adapter.js';
export { IntentError, NO_ACTIVE_INTENT_MESSAGE, type ErrorCode } from './core/errors.js';
export type { AnyIntentError, ErrorData, ErrorDataOf, RefusalData } from './core/errors.js';
// The data of the codes declared above core (merged into ErrorData): loaded with the package's types.
export type * from './intents/error-data.js';
export type * from './lifecycle/error-data.js';
