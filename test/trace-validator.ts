import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';
import { PKG_ROOT } from './helpers.js';

/** The Agent Trace fixtures (the spec's examples); the schema ships in schemas/. */
export const AGENT_TRACE = join(PKG_ROOT, 'test', 'fixtures', 'agent-trace');
const schema = JSON.parse(readFileSync(join(PKG_ROOT, 'schemas', 'agent-trace', 'trace-record.schema.json'), 'utf8'));
// Both packages are CommonJS with `exports.default`; under NodeNext the default import is the module.
const ajv = new Ajv2020.default({ strict: true, allErrors: true });
addFormats.default(ajv);

/** The Agent Trace 0.1.0 record validator. */
export const validate = ajv.compile(schema);

/** Asserts that `record` validates, showing the schema errors when it does not. */
export function expectValid(record: unknown): void {
  const ok = validate(record);
  expect(validate.errors ?? [], JSON.stringify(validate.errors)).toEqual([]);
  expect(ok).toBe(true);
}
