// lib/core/settings.ts: the environment settings, parsed in one place.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostEnv, readSettings } from '../../lib/core/settings.js';

describe('readSettings', () => {
  it('gives the defaults for an empty environment', () => {
    expect(readSettings({})).toEqual({
      intentId: undefined,
      classifyTrace: undefined,
      claudeConfigDir: join(homedir(), '.claude'),
      gitQuarantine: false,
      notesInProcess: true,
      readAhead: true,
    });
  });

  it('reads each variable', () => {
    const s = readSettings({
      INTENT_ID: 'INT-007', INTENT_CLASSIFY_TRACE: '/t/trace.jsonl', CLAUDE_CONFIG_DIR: '/c/claude', GIT_QUARANTINE_PATH: '/q',
      INTENT_NOTES_IN_PROCESS: '0', INTENT_READ_AHEAD: '0',
    });
    expect(s).toEqual({
      intentId: 'INT-007', classifyTrace: '/t/trace.jsonl', claudeConfigDir: '/c/claude', gitQuarantine: true, notesInProcess: false, readAhead: false,
    });
  });

  it('only `0` switches a mechanism off', () => {
    expect(readSettings({ INTENT_NOTES_IN_PROCESS: '' }).notesInProcess).toBe(true);
    // Only `0` switches the in-process note off.
    expect(readSettings({ INTENT_NOTES_IN_PROCESS: '1' }).notesInProcess).toBe(true);
    expect(readSettings({ INTENT_NOTES_IN_PROCESS: 'false' }).notesInProcess).toBe(true);
    expect(readSettings({ INTENT_READ_AHEAD: 'no' }).readAhead).toBe(true);
  });

  it('hostEnv is the process environment at the time of the call', () => {
    expect(hostEnv()).toBe(process.env);
  });
});
