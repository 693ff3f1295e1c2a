/**
 * Git configuration passed through the environment that turns git's hooks off. Gemini CLI runs
 * every shell command with `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>` setting
 * `core.hooksPath` to an empty value and `GIT_CONFIG_GLOBAL`/`GIT_CONFIG_SYSTEM` at /dev/null, so
 * a `git commit` there runs no hook: no scope check, no Agent Trace note. `hooksRestoredEnv` gives
 * the environment a commit needs for its hooks to run (`intent commit`).
 */

const NULL_FILES = new Set(['/dev/null', 'NUL', 'nul']);

function isHooksPath(key: string | undefined): boolean {
  return (key ?? '').trim().toLowerCase() === 'core.hookspath';
}

/** The `core.hooksPath` values the environment forces (GIT_CONFIG_COUNT entries, GIT_CONFIG_PARAMETERS). */
export function envHooksPaths(env: NodeJS.ProcessEnv): string[] {
  const out: string[] = [];
  const count = Number.parseInt(env.GIT_CONFIG_COUNT ?? '0', 10);
  for (let i = 0; Number.isFinite(count) && i < count; i++) {
    if (isHooksPath(env[`GIT_CONFIG_KEY_${i}`])) out.push(env[`GIT_CONFIG_VALUE_${i}`] ?? '');
  }
  if (/core\.hookspath/i.test(env.GIT_CONFIG_PARAMETERS ?? '')) out.push('(GIT_CONFIG_PARAMETERS)');
  return out;
}

/** `env` without the `core.hooksPath` overrides (GIT_CONFIG_COUNT entries, the others kept and renumbered; a GIT_CONFIG_PARAMETERS that sets it). */
export function withoutHooksPathOverrides(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  const count = Number.parseInt(env.GIT_CONFIG_COUNT ?? '0', 10);
  const kept: [string, string][] = [];
  for (let i = 0; Number.isFinite(count) && i < count; i++) {
    const key = env[`GIT_CONFIG_KEY_${i}`];
    if (key !== undefined && !isHooksPath(key)) kept.push([key, env[`GIT_CONFIG_VALUE_${i}`] ?? '']);
  }
  if (kept.length === (Number.isFinite(count) ? count : 0) && !/core\.hookspath/i.test(env.GIT_CONFIG_PARAMETERS ?? '')) return out;
  for (const k of Object.keys(out)) if (/^GIT_CONFIG_(KEY|VALUE)_\d+$/.test(k)) delete out[k];
  delete out.GIT_CONFIG_COUNT;
  kept.forEach(([k, v], i) => {
    out[`GIT_CONFIG_KEY_${i}`] = k;
    out[`GIT_CONFIG_VALUE_${i}`] = v;
  });
  if (kept.length) out.GIT_CONFIG_COUNT = String(kept.length);
  if (/core\.hookspath/i.test(out.GIT_CONFIG_PARAMETERS ?? '')) delete out.GIT_CONFIG_PARAMETERS;
  return out;
}

/**
 * `env` without what keeps git's hooks from running, for a commit: the `core.hooksPath` overrides
 * and, when there were any, a global or system config pointed at /dev/null by the same hand (the
 * user's own config, with their identity, comes back: the commit is made as the user's would be).
 * Everything else is kept; an environment without hooksPath overrides is returned as it is.
 */
export function hooksRestoredEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (!envHooksPaths(env).length) return { ...env };
  const out = withoutHooksPathOverrides(env);
  if (NULL_FILES.has(out.GIT_CONFIG_GLOBAL ?? '')) delete out.GIT_CONFIG_GLOBAL;
  if (NULL_FILES.has(out.GIT_CONFIG_SYSTEM ?? '')) {
    delete out.GIT_CONFIG_SYSTEM;
    delete out.GIT_CONFIG_NOSYSTEM;
  }
  return out;
}

/** What `withoutHooksPathOverrides` changes, as overrides for `gitRaw`'s `env` (undefined: removed). */
export function hooksPathOverridesRemoved(env: NodeJS.ProcessEnv): Record<string, string | undefined> {
  const restored = withoutHooksPathOverrides(env);
  const out: Record<string, string | undefined> = {};
  for (const k of new Set([...Object.keys(env), ...Object.keys(restored)])) {
    if (env[k] !== restored[k]) out[k] = restored[k];
  }
  return out;
}

/**
 * `env` with git's hooks folder pointed at `dir` for everything started from it (a
 * `GIT_CONFIG_COUNT` entry, which wins over every config file): what a project's own set-up or
 * check runs (`npm ci` running `prepare: lefthook install`, `npm pack` running `prepare` again)
 * installs its hooks there, not over intent's.
 */
export function withHooksPath(env: NodeJS.ProcessEnv, dir: string): NodeJS.ProcessEnv {
  const out = withoutHooksPathOverrides(env);
  const n = Number.parseInt(out.GIT_CONFIG_COUNT ?? '0', 10) || 0;
  out[`GIT_CONFIG_KEY_${n}`] = 'core.hooksPath';
  out[`GIT_CONFIG_VALUE_${n}`] = dir;
  out.GIT_CONFIG_COUNT = String(n + 1);
  return out;
}
