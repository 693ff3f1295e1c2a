// lib/core/settings.ts: the environment settings, parsed in one place.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostEnv, milliseconds, readSettings } from '../../lib/core/settings.js';

describe('readSettings', () => {
  it('gives the defaults for an empty environment', () => {
    expect(readSettings({})).toEqual({
      intentId: undefined,
      classifyAhead: true,
      classifyWaitMs: 4000,
      classifyResidentMs: 300_000,
      classifyTrace: undefined,
      claudeConfigDir: join(homedir(), '.claude'),
      gitQuarantine: false,
      notesInProcess: true,
      readAhead: true,
    });
  });

  it('reads each variable', () => {
    const s = readSettings({
      INTENT_ID: 'INT-007', INTENT_CLASSIFY_AHEAD: '0', INTENT_CLASSIFY_WAIT_MS: '250', INTENT_CLASSIFY_RESIDENT_MS: '0',
      INTENT_CLASSIFY_TRACE: '/t/trace.jsonl', CLAUDE_CONFIG_DIR: '/c/claude', GIT_QUARANTINE_PATH: '/q',
      INTENT_NOTES_IN_PROCESS: '0', INTENT_READ_AHEAD: '0',
    });
    expect(s).toEqual({
      intentId: 'INT-007', classifyAhead: false, classifyWaitMs: 250, classifyResidentMs: 0,
      classifyTrace: '/t/trace.jsonl', claudeConfigDir: '/c/claude', gitQuarantine: true, notesInProcess: false, readAhead: false,
    });
  });

  it('bounds durations and ignores what is not a duration', () => {
    expect(readSettings({ INTENT_CLASSIFY_WAIT_MS: '999999999' }).classifyWaitMs).toBe(60_000);
    expect(readSettings({ INTENT_CLASSIFY_RESIDENT_MS: '99999999999' }).classifyResidentMs).toBe(3_600_000);
    for (const bad of ['-1', 'soon', 'NaN', 'Infinity']) expect(readSettings({ INTENT_CLASSIFY_WAIT_MS: bad }).classifyWaitMs, bad).toBe(4000);
    // As before the settings module: Number('') is 0.
    expect(milliseconds('', 5, 10)).toBe(0);
    expect(milliseconds(undefined, 5, 10)).toBe(5);
    // Only `0` switches the worker off.
    expect(readSettings({ INTENT_CLASSIFY_AHEAD: '1' }).classifyAhead).toBe(true);
    expect(readSettings({ INTENT_CLASSIFY_AHEAD: '' }).classifyAhead).toBe(true);
    // Only `0` switches the in-process note off.
    expect(readSettings({ INTENT_NOTES_IN_PROCESS: '1' }).notesInProcess).toBe(true);
    expect(readSettings({ INTENT_NOTES_IN_PROCESS: 'false' }).notesInProcess).toBe(true);
    expect(readSettings({ INTENT_READ_AHEAD: 'no' }).readAhead).toBe(true);
  });

  it('hostEnv is the process environment at the time of the call', () => {
    expect(hostEnv()).toBe(process.env);
  });
});
