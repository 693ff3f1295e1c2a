// A pinned agent CLI from npm for the end-to-end tests, installed into a cache directory outside
// this package's dependencies (so a user's `npm ci` stays small). Used by scripts/gemini-e2e.mjs
// and scripts/codex-e2e.mjs; `.ci/run` runs their `install` first.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * One pinned CLI: `pkg@version` installed with `npm install --prefix <dir>`, where dir is
 * `$<envDir>` or `$XDG_CACHE_HOME` (else ~/.cache) `/intent-e2e/<name>-<version>`; `bin` is the
 * path of the binary under the prefix's node_modules.
 */
export function pinnedCli({ name, pkg, version, envDir, bin }) {
  const dir = () => {
    if (process.env[envDir]) return resolve(process.env[envDir]);
    const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
    return join(cache, 'intent-e2e', `${name}-${version}`);
  };
  const binPath = () => join(dir(), 'node_modules', ...bin.split('/'));
  const ready = () => {
    if (!existsSync(binPath())) return false;
    const r = spawnSync(binPath(), ['--version'], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, NO_COLOR: '1' } });
    return r.status === 0 && r.stdout.includes(version);
  };
  const install = () => {
    if (ready()) return binPath();
    mkdirSync(dir(), { recursive: true });
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const r = spawnSync(npm, ['install', '--prefix', dir(), '--no-audit', '--no-fund', '--no-save', `${pkg}@${version}`], { stdio: 'inherit' });
    if (r.status !== 0) throw new Error(`npm install ${pkg}@${version} into ${dir()} failed (exit ${r.status}).`);
    if (!ready()) throw new Error(`${binPath()} does not run or is not version ${version} after the install.`);
    return binPath();
  };
  return { version, dir, bin: binPath, ready, install };
}

/** The command line of a script built on `pinnedCli`: `install` or `path`. */
export function pinnedCliMain(cli, script) {
  const cmd = process.argv[2];
  if (cmd === 'install') console.log(cli.install());
  else if (cmd === 'path') console.log(cli.bin());
  else {
    console.error(`usage: node ${script} install|path`);
    process.exit(2);
  }
}
