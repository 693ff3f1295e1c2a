import { gitBuffer, gitRaw } from '../git/process.js';
import { checkRegistry, yamlModule, type Intent } from '../intents/registry.js';
import { compileScope, globProblem, parseIgnoreFile, type Scope } from '../intents/scope.js';

/** Where the authority's own settings live on the protected base branch. */
export const AUTHORITY_FILE = '.orchestration/authority.yaml';
export const REGISTRY_FILE = '.orchestration/active_intents.yaml';
export const IGNORE_FILE = '.orchestration/.intentignore';

/** `authority.yaml`: which identities are agents, which intents each may push, what is protected. */
export interface AuthorityConfig {
  /** Branch names (without refs/heads/) that may not be deleted or rewritten. Default ["main"]. */
  protectedBranches: string[];
  /** Agent identity (as identityKey gives it) → the intent ids it may push (`*`: any). */
  agents: Map<string, string[]>;
  /**
   * How the host compares logins (`identity_case`): `insensitive` (the default: GitHub, GitLab and
   * most authenticating front ends take `Agent-1` and `agent-1` for one account, so a listed agent
   * cannot push as a human by changing the case of its name), or `sensitive`.
   */
  identityCase: 'insensitive' | 'sensitive';
  /** `max_blob_bytes`: the largest changed file the gate reads to check a record (default 64 MiB; a commit: twice that, both sides of its files). */
  maxBlobBytes: number | null;
  /** `time_limit_seconds`: how long the gate judges before it refuses the rest (default 600). */
  timeLimitSeconds: number;
  /** `humans`: the human identities (as identityKey gives them), or null when the file lists none. */
  humans: Set<string> | null;
  /**
   * `unlisted`: what an identity neither list names is: `refuse` (the default once the file lists
   * agents or humans: an agent nobody listed yet cannot push as a human) or `human` (the default
   * with no authority.yaml or an empty one, where nobody is an agent).
   */
  unlisted: 'human' | 'refuse';
  /** Whether `unlisted` was written in the file (else it is the default). */
  unlistedSetting: boolean;
}

/** The key an identity is listed and looked up by: case-folded (NFC, lower case) unless identity_case is sensitive. */
export function identityKey(config: Pick<AuthorityConfig, 'identityCase'>, name: string): string {
  return config.identityCase === 'sensitive' ? name : name.normalize('NFC').toLowerCase();
}

/** Everything the authority trusts, read from one commit of the protected base branch. */
export interface BasePolicy {
  /** The base commit, or null when the base ref does not exist yet (an empty server). */
  commit: string | null;
  intents: Map<string, Intent>;
  /** Problems of the base registry (the intents that parsed are still used). */
  registryProblems: string[];
  ignore: Scope | null;
  authority: AuthorityConfig;
  /** Why `authority.yaml` is unusable, or null. An unusable file refuses every push. */
  authorityProblem: string | null;
}

const SERVER_IDENTITY_VARS = ['REMOTE_USER', 'GL_USERNAME', 'GL_USER', 'GITEA_PUSHER_NAME', 'GOGS_AUTH_USER_NAME', 'GITHUB_ACTOR', 'GITLAB_USER_LOGIN', 'BITBUCKET_STEP_TRIGGERER_UUID'];

/**
 * The pusher's identity as the host authenticated it: the variables git servers and CI systems
 * give their hooks and jobs (`REMOTE_USER` for git http-backend behind an authenticating front
 * end, GitLab's `GL_USERNAME`, gitolite's `GL_USER`, Gitea's `GITEA_PUSHER_NAME`, Gogs, GitHub Actions' `GITHUB_ACTOR`,
 * GitLab CI's `GITLAB_USER_LOGIN`), or null.
 */
export function pusherFromEnv(env: NodeJS.ProcessEnv): { name: string; from: string } | null {
  for (const k of SERVER_IDENTITY_VARS) {
    const v = env[k]?.trim();
    if (v) return { name: v, from: k };
  }
  return null;
}

/** Reads the registry, `.intentignore` and `authority.yaml` of `baseRev` (one git process). */
export function readBasePolicy(cwd: string, baseRev: string): BasePolicy {
  const res = gitRaw(['rev-parse', '--verify', '--quiet', `${baseRev}^{commit}`], { cwd });
  const commit = res.status === 0 ? res.stdout.trim() : null;
  const files = commit ? readFiles(cwd, commit, [REGISTRY_FILE, IGNORE_FILE, AUTHORITY_FILE]) : new Map<string, string>();
  const intents = new Map<string, Intent>();
  const registryProblems: string[] = [];
  const registryText = files.get(REGISTRY_FILE);
  if (registryText !== undefined) {
    const checked = checkRegistry(registryText);
    for (const i of checked.intents) intents.set(i.id, i);
    for (const p of checked.problems) registryProblems.push(`${REGISTRY_FILE}:${p.line}:${p.column}: ${p.message}`);
  }
  const ignoreGlobs = parseIgnoreFile(files.get(IGNORE_FILE) ?? '').filter((g) => !g.startsWith('!') && globProblem(g) === null);
  const parsed = parseAuthority(files.get(AUTHORITY_FILE));
  return {
    commit,
    intents,
    registryProblems,
    ignore: ignoreGlobs.length ? compileScope(ignoreGlobs) : null,
    authority: parsed.config,
    authorityProblem: parsed.problem,
  };
}

/** Parses `authority.yaml` (absent: no agents, `main` protected). Pure. */
export function parseAuthority(text: string | undefined): { config: AuthorityConfig; problem: string | null } {
  const config: AuthorityConfig = { protectedBranches: ['main'], agents: new Map(), identityCase: 'insensitive', maxBlobBytes: null, timeLimitSeconds: 600, humans: null, unlisted: 'human', unlistedSetting: false };
  let unlistedSet = false;
  if (text === undefined || text.trim() === '') return { config, problem: null };
  let raw: unknown;
  try {
    raw = yamlModule().parse(text);
  } catch (e) {
    return { config, problem: `${AUTHORITY_FILE} is not valid YAML: ${(e as Error).message.split('\n')[0]}` };
  }
  if (raw === null || raw === undefined) return { config, problem: null };
  if (typeof raw !== 'object' || Array.isArray(raw)) return { config, problem: `${AUTHORITY_FILE} must be a mapping with "agents" and "protected_branches"` };
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    if (k === 'protected_branches') {
      if (!Array.isArray(v) || !v.every((b) => typeof b === 'string' && b.trim() !== '')) {
        return { config, problem: `${AUTHORITY_FILE}: protected_branches must be a list of branch names, e.g. ["main"]` };
      }
      config.protectedBranches = v.map((b: string) => b.replace(/^refs\/heads\//, ''));
    } else if (k === 'agents') {
      if (v === null) continue;
      if (typeof v !== 'object' || Array.isArray(v)) return { config, problem: `${AUTHORITY_FILE}: agents must map each agent identity to a list of intent ids` };
      for (const [who, ids] of Object.entries(v as Record<string, unknown>)) {
        const list = typeof ids === 'string' ? [ids] : ids;
        if (!Array.isArray(list) || !list.every((i) => typeof i === 'string' && i.trim() !== '')) {
          return { config, problem: `${AUTHORITY_FILE}: agents.${who} must be a list of intent ids (or "*")` };
        }
        config.agents.set(who, list.map((i: string) => i.trim()));
      }
    } else if (k === 'identity_case') {
      if (v !== 'insensitive' && v !== 'sensitive') return { config, problem: `${AUTHORITY_FILE}: identity_case must be "insensitive" (the default) or "sensitive", as the host compares logins` };
      config.identityCase = v;
    } else if (k === 'humans') {
      if (!Array.isArray(v) || !v.every((h) => typeof h === 'string' && h.trim() !== '')) return { config, problem: `${AUTHORITY_FILE}: humans must be a list of identities, e.g. ["alice", "bob"]` };
      config.humans = new Set(v.map((h: string) => h.trim()));
    } else if (k === 'unlisted') {
      if (v !== 'human' && v !== 'refuse') return { config, problem: `${AUTHORITY_FILE}: unlisted must be "refuse" (an identity in neither agents nor humans may not push) or "human"` };
      config.unlisted = v;
      config.unlistedSetting = true;
      unlistedSet = true;
    } else if (k === 'time_limit_seconds') {
      if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) return { config, problem: `${AUTHORITY_FILE}: time_limit_seconds must be a number of seconds above 0, e.g. 600` };
      config.timeLimitSeconds = v;
    } else if (k === 'max_blob_bytes') {
      if (!Number.isSafeInteger(v) || (v as number) < 1) return { config, problem: `${AUTHORITY_FILE}: max_blob_bytes must be a whole number of bytes, e.g. 134217728 (128 MiB)` };
      config.maxBlobBytes = v as number;
    } else {
      return { config, problem: `${AUTHORITY_FILE}: unknown key "${k}"; known keys are agents, humans, unlisted, protected_branches, identity_case, max_blob_bytes, time_limit_seconds` };
    }
  }
  // Listed by the key they are looked up by; two entries that the host takes for one login are refused.
  const keyed = new Map<string, string[]>();
  const named = new Map<string, string>();
  for (const [who, ids] of config.agents) {
    const key = identityKey(config, who);
    if (named.has(key)) return { config, problem: `${AUTHORITY_FILE}: agents lists "${named.get(key)}" and "${who}", one login for a host that ignores case (identity_case: ${config.identityCase}); list it once` };
    named.set(key, who);
    keyed.set(key, ids);
  }
  config.agents = keyed;
  if (config.humans) {
    const humans = new Set<string>();
    for (const h of config.humans) {
      const key = identityKey(config, h);
      if (named.has(key)) return { config, problem: `${AUTHORITY_FILE}: "${h}" is listed as an agent and as a human; list it once` };
      humans.add(key);
    }
    config.humans = humans;
  }
  // Secure by default: once the file names agents or humans, an identity it does not name may not push.
  if (!unlistedSet) config.unlisted = config.humans || config.agents.size ? 'refuse' : 'human';
  return { config, problem: null };
}

/** Files of one commit by path (absent ones left out), through one `cat-file --batch`. */
function readFiles(cwd: string, commit: string, paths: string[]): Map<string, string> {
  const out = new Map<string, string>();
  const buf = gitBuffer(['cat-file', '--batch'], { cwd, input: paths.map((p) => `${commit}:${p}`).join('\n') + '\n' });
  let pos = 0;
  for (const p of paths) {
    const nl = buf.indexOf(0x0a, pos);
    const header = buf.subarray(pos, nl).toString('utf8').split(' ');
    pos = nl + 1;
    if (header.length < 3) continue; // "<name> missing"
    const size = Number(header[2]);
    if (header[1] === 'blob') out.set(p, buf.subarray(pos, pos + size).toString('utf8'));
    pos += size + 1;
  }
  return out;
}
