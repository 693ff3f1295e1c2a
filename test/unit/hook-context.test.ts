import { describe, expect, it } from 'vitest';
import { activeHookContext, warn, withHookContext, type HookContext } from '../../lib/core/hook-context.js';
import { hostEnv } from '../../lib/core/settings.js';

describe('hook context', () => {
  const ctx = (written: string[]): HookContext => ({ env: { INTENT_ID: 'INT-042' }, cwd: '/nowhere', warn: (t) => void written.push(t) });

  it('while a hook runs, hostEnv() is its environment and warn() writes to its warn; after, the process\'s again', async () => {
    const written: string[] = [];
    const seen = await withHookContext(ctx(written), async () => {
      warn('intent: WARNING: one\n');
      return hostEnv().INTENT_ID;
    });
    expect(seen).toBe('INT-042');
    expect(written).toEqual(['intent: WARNING: one\n']);
    expect(activeHookContext()).toBeNull();
    expect(hostEnv()).toBe(process.env);
  });

  it('puts the previous context back when the hook throws, and never touches the process\'s own state', async () => {
    const env = process.env;
    const cwd = process.cwd();
    const outer = ctx([]);
    await withHookContext(outer, async () => {
      await expect(withHookContext({ ...ctx([]), env: { INTENT_ID: 'INT-007' } }, async () => {
        expect(hostEnv().INTENT_ID).toBe('INT-007');
        throw new Error('refused');
      })).rejects.toThrow('refused');
      expect(activeHookContext()).toBe(outer);
    });
    expect(activeHookContext()).toBeNull();
    expect(process.env).toBe(env);
    expect(process.cwd()).toBe(cwd);
  });
});
