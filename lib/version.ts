import { readFileSync } from 'node:fs';

/** This package's version, read once from its package.json. */
export const TOOL_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** The `tool.name` written into every trace record. */
export const TOOL_NAME = 'intent';

/** The `metadata` key of this toolkit's fields in trace records. */
export const METADATA_KEY = 'dev.intent';

/** The notes ref that carries trace records. */
export const NOTES_REF = 'refs/notes/intents';
