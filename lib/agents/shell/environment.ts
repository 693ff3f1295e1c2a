/*
 * Environment variables a command sets (VAR=x cmd, export, env): those that switch off or
 * redirect the governance are refused, those that change which code runs are asked about.
 */
import { ASK_ENV, ASK_ENV_PREFIXES, DENY_ENV, DENY_ENV_PREFIXES, PAGER_ENV, SAFE_PAGERS } from './tables.js';
import { type Word } from './tokenizer.js';
import { ALLOW, type Verdict, ask, clip, deny } from './verdict.js';

export function isAssignment(w: Word): boolean {
  return /^[A-Za-z_]\w*\+?=/.test(w.text);
}

export function checkAssignment(w: Word): Verdict {
  const eq = w.text.indexOf('=');
  const name = w.text.slice(0, eq).replace(/\+$/, '');
  return checkEnv(name, w.text.slice(eq + 1), clip(w.text));
}

export function checkEnv(name: string, value: string, label: string): Verdict {
  if (name === 'INTENT_ID') {
    return deny(`${label} picks the active intent, which an agent may not do: run the command without INTENT_ID, in the intent's worktree`);
  }
  if (DENY_ENV.has(name) || DENY_ENV_PREFIXES.some((p) => name.startsWith(p))) {
    return deny(`${label} would switch off or redirect the governance hooks: run the command without setting ${name}`);
  }
  if (PAGER_ENV.has(name) && SAFE_PAGERS.has(value)) return ALLOW;
  if (ASK_ENV.has(name) || ASK_ENV_PREFIXES.some((p) => name.startsWith(p))) {
    return ask(`${label} changes which programs or code run: a human must approve it`);
  }
  return ALLOW;
}
