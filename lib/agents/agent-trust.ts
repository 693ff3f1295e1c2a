/**
 * What each agent CLI needs before it runs this repository's hooks in an intent worktree, read
 * from the user's own configuration (never written: trust is the user's decision). The CLIs
 * skip untrusted project hooks silently, and a session without hooks writes and commits
 * ungoverned.
 * - Gemini CLI: project hooks run only in a trusted folder (`~/.gemini/trustedFolders.json`,
 *   `$GEMINI_CLI_TRUSTED_FOLDERS_PATH`; `{"<dir>": "TRUST_FOLDER" | "TRUST_PARENT" |
 *   "DO_NOT_TRUST"}`, the longest matching rule wins, TRUST_PARENT trusts the rule's parent; folder
 *   trust off in `~/.gemini/settings.json` `security.folderTrust.enabled` trusts everything). Each
 *   intent worktree is a new folder: trusting the folder that holds them covers every one.
 * - Codex CLI: a linked worktree is the main checkout's project: its hooks are read from the main
 *   checkout's `.codex/hooks.json`, and run once the project is trusted (`$CODEX_HOME/config.toml`
 *   `[projects."<main>"] trust_level = "trusted"`) and each hook reviewed (`[hooks.state."<main>/
 *   .codex/hooks.json:<event>:<group>:<hook>"] trusted_hash = …`, written by Codex's /hooks
 *   review), or with `codex exec --dangerously-bypass-hook-trust`.
 * - GitHub Copilot CLI: repository hooks run only in a trusted folder (`trustedFolders` in
 *   `$COPILOT_HOME/config.json`; the main checkout covers its worktrees), see copilotTrustChecks.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { hostEnv } from '../core/settings.js';

/** One finding, in `intent doctor`'s shape. */
export interface TrustCheck {
  subject: string;
  ok: boolean;
  message: string;
}

const MARK = 'intent/bin/agent';

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

function within(parent: string, child: string): boolean {
  const r = relative(real(parent), real(child));
  return r === '' || (!r.startsWith('..') && !isAbsolute(r));
}

function readJson(file: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(readFileSync(file, 'utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

/** Gemini CLI's verdict for `dir` under `rules` (its isPathTrusted): true, false (DO_NOT_TRUST), undefined (no rule). */
export function geminiTrusts(rules: Record<string, unknown>, dir: string): boolean | undefined {
  let best = -1;
  let level: unknown;
  for (const [rule, l] of Object.entries(rules)) {
    const effective = l === 'TRUST_PARENT' ? dirname(rule) : rule;
    if (within(effective, dir) && rule.length > best) {
      best = rule.length;
      level = l;
    }
  }
  if (level === 'DO_NOT_TRUST') return false;
  return level === 'TRUST_FOLDER' || level === 'TRUST_PARENT' ? true : undefined;
}

/** Gemini CLI: is each folder trusted (so that its project hooks run)? `folders` are intent worktrees and the folder new ones go to. */
export function geminiTrustChecks(mainRoot: string, folders: string[], env: NodeJS.ProcessEnv = hostEnv()): TrustCheck[] {
  const settings = join(mainRoot, '.gemini', 'settings.json');
  if (!existsSync(settings) || !readFileSync(settings, 'utf8').includes(MARK)) return [];
  const home = env.HOME || homedir();
  const user = readJson(join(home, '.gemini', 'settings.json'));
  const security = user?.security as { folderTrust?: { enabled?: unknown } } | undefined;
  if (security?.folderTrust?.enabled === false) {
    return [{ subject: 'gemini trust', ok: true, message: 'folder trust is off in ~/.gemini/settings.json: Gemini CLI runs the project hooks everywhere' }];
  }
  const file = env.GEMINI_CLI_TRUSTED_FOLDERS_PATH || join(home, '.gemini', 'trustedFolders.json');
  const rules = readJson(file) ?? {};
  const untrusted = folders.filter((f) => geminiTrusts(rules, f) !== true);
  if (!untrusted.length) return [{ subject: 'gemini trust', ok: true, message: `${folders.join(', ')} trusted in ${file}: Gemini CLI runs the hooks there` }];
  const parent = folders[folders.length - 1];
  return [{
    subject: 'gemini trust',
    ok: false,
    message: `Gemini CLI runs this project's hooks only in trusted folders, and ${untrusted.join(', ')} ${untrusted.length === 1 ? 'is' : 'are'} not trusted in ${file}: a Gemini session there writes and commits ungoverned, silently. ` +
      `Trust the folder of the intent worktrees once (it covers every worktree): add "${parent}": "TRUST_FOLDER" to ${file}, or answer Gemini's trust prompt there; headless runs can set GEMINI_CLI_TRUST_WORKSPACE=true. (\`gemini --skip-trust\` runs no project hook.)`,
  }];
}

/** The `[table]` headers of a TOML file with the `key = value` lines under each (enough for the two tables read here). */
function tomlTables(text: string): Map<string, Map<string, string>> {
  const tables = new Map<string, Map<string, string>>();
  let current = new Map<string, string>();
  tables.set('', current);
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const header = /^\[([^\][]+)\]\s*(?:#.*)?$/.exec(line);
    if (header) {
      const name = header[1].trim().replace(/\s*\.\s*/g, '.');
      current = tables.get(name) ?? new Map();
      tables.set(name, current);
      continue;
    }
    const kv = /^([A-Za-z0-9_-]+)\s*=\s*(.+?)\s*(?:#.*)?$/.exec(line);
    if (kv) current.set(kv[1], kv[2].replace(/^"(.*)"$/, '$1'));
  }
  return tables;
}

/** Codex CLI: is the main checkout trusted as a project, and are intent's hooks in it reviewed? */
export function codexTrustChecks(mainRoot: string, env: NodeJS.ProcessEnv = hostEnv()): TrustCheck[] {
  const hooksFile = join(mainRoot, '.codex', 'hooks.json');
  const hooks = existsSync(hooksFile) ? readJson(hooksFile) : null;
  if (!hooks || !JSON.stringify(hooks).includes(MARK)) return [];
  const home = env.CODEX_HOME || join(env.HOME || homedir(), '.codex');
  const configFile = join(home, 'config.toml');
  const tables = existsSync(configFile) ? tomlTables(readFileSync(configFile, 'utf8')) : new Map<string, Map<string, string>>();
  const checks: TrustCheck[] = [];
  const project = tables.get(`projects.${JSON.stringify(mainRoot)}`) ?? tables.get(`projects.'${mainRoot}'`);
  const trusted = project?.get('trust_level') === 'trusted';
  checks.push({
    subject: 'codex trust',
    ok: trusted,
    message: trusted
      ? `${mainRoot} is a trusted Codex project (its intent worktrees are too)`
      : `Codex runs project hooks only in a trusted project, and ${mainRoot} is not trusted in ${configFile}: a Codex session in an intent worktree writes and commits ungoverned. ` +
        `Start codex once in ${mainRoot} and trust it (this covers its worktrees), or add [projects.${JSON.stringify(mainRoot)}] trust_level = "trusted".`,
  });
  // Codex's key of each of our hooks: <file>:<event in snake case>:<group index>:<hook index>.
  const keys: string[] = [];
  const table = (hooks.hooks ?? {}) as Record<string, unknown>;
  for (const [event, groups] of Object.entries(table)) {
    if (!Array.isArray(groups)) continue;
    const snake = event.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();
    groups.forEach((g, gi) => {
      const list = (g as { hooks?: unknown[] })?.hooks;
      if (Array.isArray(list)) list.forEach((h, hi) => { if (JSON.stringify(h).includes(MARK)) keys.push(`${hooksFile}:${snake}:${gi}:${hi}`); });
    });
  }
  const unreviewed = keys.filter((k) => !tables.get(`hooks.state.${JSON.stringify(k)}`)?.get('trusted_hash'));
  checks.push({
    subject: 'codex hook trust',
    ok: unreviewed.length === 0,
    message: unreviewed.length === 0
      ? `intent's Codex hooks are reviewed in ${configFile} (a changed hooks.json needs a new review)`
      : `Codex runs a project hook only after it was reviewed, and ${unreviewed.length} of intent's hooks are not (${unreviewed.join(', ')}): without them Codex sessions are ungoverned, silently. ` +
        'Review them in codex (/hooks) in the main checkout; automation runs `codex exec --dangerously-bypass-hook-trust`.',
  });
  return checks;
}

/** GitHub Copilot CLI's config.json: JSON with `//` comment lines at the top (Copilot writes them). */
function readCopilotConfig(file: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(readFileSync(file, 'utf8').replace(/^\s*\/\/.*$/gm, ''));
    return v && typeof v === 'object' && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

/**
 * GitHub Copilot CLI 1.0.102: repository hooks (`.github/hooks/*.json`, `.claude/settings.json`)
 * run only in a trusted folder: `"trustedFolders"` in `$COPILOT_HOME/config.json` (a folder covers
 * the folders in it; the main checkout covers its linked worktrees, a worktree only itself), or
 * per run `--trust-folder` / `COPILOT_ALLOW_ALL=true`. Untrusted: no hook runs, silently.
 */
export function copilotTrustChecks(mainRoot: string, env: NodeJS.ProcessEnv = hostEnv()): TrustCheck[] {
  const hooks = join(mainRoot, '.github', 'hooks', 'intent.json');
  if (!existsSync(hooks) || !readFileSync(hooks, 'utf8').includes(MARK)) return [];
  const home = env.COPILOT_HOME || join(env.HOME || homedir(), '.copilot');
  const file = join(home, 'config.json');
  const folders = readCopilotConfig(file)?.trustedFolders;
  const trusted = Array.isArray(folders) && folders.some((f) => typeof f === 'string' && isAbsolute(f) && within(f, mainRoot));
  if (trusted) return [{ subject: 'copilot trust', ok: true, message: `${mainRoot} is a trusted folder in ${file}: GitHub Copilot CLI runs the hooks there and in its intent worktrees` }];
  return [{
    subject: 'copilot trust',
    ok: false,
    message: `GitHub Copilot CLI runs repository hooks only in a trusted folder, and ${mainRoot} is not trusted in ${file}: a Copilot session in an intent worktree writes and commits ungoverned, silently. ` +
      `Trust the main checkout once (it covers its worktrees): answer Copilot's trust prompt in ${mainRoot}, or add "trustedFolders": ["${mainRoot}"] to ${file}; automation can pass --trust-folder or set COPILOT_ALLOW_ALL=true.`,
  }];
}

/**
 * Qwen Code: folder trust is off unless `security.folderTrust.enabled` in ~/.qwen/settings.json
 * (`$QWEN_HOME`); then project hooks run only in folders trusted in ~/.qwen/trustedFolders.json
 * (`$QWEN_CODE_TRUSTED_FOLDERS_PATH`; Gemini CLI's rules: the deepest matching rule wins), and in
 * the others Qwen runs with none, silently.
 */
export function qwenTrustChecks(mainRoot: string, folders: string[], env: NodeJS.ProcessEnv = hostEnv()): TrustCheck[] {
  const settings = join(mainRoot, '.qwen', 'settings.json');
  if (!existsSync(settings) || !readFileSync(settings, 'utf8').includes(MARK)) return [];
  const dir = env.QWEN_HOME || join(env.HOME || homedir(), '.qwen');
  const security = readJson(join(dir, 'settings.json'))?.security as { folderTrust?: { enabled?: unknown } } | undefined;
  if (security?.folderTrust?.enabled !== true) {
    return [{ subject: 'qwen trust', ok: true, message: `folder trust is off in ${join(dir, 'settings.json')} (Qwen Code's default): it runs the project hooks everywhere` }];
  }
  const file = env.QWEN_CODE_TRUSTED_FOLDERS_PATH || join(dir, 'trustedFolders.json');
  const rules = readJson(file) ?? {};
  const untrusted = folders.filter((f) => geminiTrusts(rules, f) !== true);
  if (!untrusted.length) return [{ subject: 'qwen trust', ok: true, message: `${folders.join(', ')} trusted in ${file}: Qwen Code runs the hooks there` }];
  const parent = folders[folders.length - 1];
  return [{
    subject: 'qwen trust',
    ok: false,
    message: `Folder trust is on for Qwen Code, which then runs this project's hooks only in trusted folders, and ${untrusted.join(', ')} ${untrusted.length === 1 ? 'is' : 'are'} not trusted in ${file}: a Qwen session there writes and commits ungoverned, silently. ` +
      `Trust the folder of the intent worktrees once (it covers every worktree): add "${parent}": "TRUST_FOLDER" to ${file}, or answer Qwen's trust prompt there.`,
  }];
}
