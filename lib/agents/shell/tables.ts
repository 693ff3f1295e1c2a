/*
 * The policy tables, as data to review: which programs only read, which are refused or must be
 * approved (and why), which environment variables and git subcommands are governed, and the options
 * that make a read-only program write or run code. The rules that read them are in the other modules.
 */

// Programs

/** Programs that are never acceptable from an agent. */
export const DENY_COMMANDS = new Map([
  ['mkfs', 'formats a disk'],
  ['mkswap', 'formats a disk as swap'],
  ['fdisk', 'edits disk partitions'],
  ['sfdisk', 'edits disk partitions'],
  ['parted', 'edits disk partitions'],
  ['wipefs', 'wipes disk signatures'],
  ['shutdown', 'stops the machine'],
  ['reboot', 'restarts the machine'],
  ['halt', 'stops the machine'],
  ['poweroff', 'stops the machine'],
]);

/** Programs a human must approve, with what they do. */
export const ASK_COMMANDS = new Map([
  ['docker', 'controls containers'],
  ['podman', 'controls containers'],
  ['kubectl', 'controls a cluster'],
  ['ssh', 'opens a remote shell'],
  ['scp', 'copies files over the network'],
  ['sftp', 'copies files over the network'],
  ['kill', 'stops processes'],
  ['pkill', 'stops processes'],
  ['killall', 'stops processes'],
  ['apt', 'installs system packages'],
  ['apt-get', 'installs system packages'],
  ['brew', 'installs system packages'],
  ['yum', 'installs system packages'],
  ['dnf', 'installs system packages'],
  ['apk', 'installs system packages'],
  ['pip', 'installs Python packages'],
  ['pip3', 'installs Python packages'],
  ['gem', 'installs Ruby packages'],
  ['gh', 'acts on GitHub'],
  ['su', 'switches to another user'],
  ['systemctl', 'controls system services'],
  ['crontab', 'schedules commands'],
  ['case', 'statements are not reviewed'],
  ['function', 'defines a shell function that hides what will run'],
  ['coproc', 'starts a background process'],
  ['trap', 'registers commands to run later'],
  ['alias', 'defines an alias that hides what will run'],
]);

/** Programs that only read and print, unless one of the options in the tables below is used. */
export const READ_ONLY = new Set([
  'ls', 'cat', 'head', 'tail', 'less', 'more', 'wc', 'grep', 'egrep', 'fgrep', 'rg', 'ag', 'ack', 'pwd', 'echo', 'printf', 'which',
  'whereis', 'type', 'file', 'stat', 'du', 'df', 'tree', 'diff', 'cmp', 'comm', 'sort', 'uniq', 'cut', 'tr', 'jq', 'basename',
  'dirname', 'realpath', 'readlink', 'nl', 'od', 'xxd', 'hexdump', 'strings', 'md5sum', 'sha1sum', 'sha256sum', 'sha512sum',
  'shasum', 'cksum', 'base64', 'column', 'fold', 'fmt', 'paste', 'join', 'expand', 'unexpand', 'rev', 'tac', 'seq', 'date',
  'whoami', 'id', 'uname', 'printenv', 'locale', 'nproc', 'uptime', 'ps', 'true', 'false', ':', 'test', '[', '[[', 'sleep',
  'wait', 'read', 'cd', 'pushd', 'popd', 'dirs', 'for', 'select', 'set', 'shopt', 'exit', 'return', 'man', 'help',
]);

/** Shells: `sh -c 'literal'` is classified as that line; a script or unknown input is asked about. */
export const SHELLS = ['sh', 'bash', 'zsh', 'dash', 'ksh', 'ash', 'mksh', 'fish', 'csh', 'tcsh'];

/** Interpreters: the code they run cannot be reviewed, so a human approves it (perl -i and ruby -i edit files). */
export const INTERPRETERS = [
  'python', 'python2', 'python3', 'node', 'nodejs', 'deno', 'perl', 'ruby', 'php', 'lua', 'tsx', 'ts-node', 'osascript', 'pwsh',
];

/** Programs that download: what they pipe into a shell is refused (curl | sh). */
export const DOWNLOADERS = new Set(['curl', 'wget', 'fetch', 'aria2c', 'http', 'xh']);

// Options of read-only programs that write or run code

/** Options that take a value, where a misread value would shift the operands we look at. */
export const VALUE_OPTIONS: Record<string, string[]> = {
  sort: ['-k', '-t', '-S', '-T', '--key', '--field-separator', '--buffer-size', '--temporary-directory'],
  uniq: ['-f', '-s', '-w', '--skip-fields', '--skip-chars', '--check-chars'],
  xxd: ['-c', '-g', '-l', '-s', '-o', '-n'],
  tree: ['-L', '-P', '-I', '-H', '-T', '--filelimit'],
  base64: ['-w', '--wrap'],
};

/** Options whose value is a file the program writes. */
export const OUTPUT_OPTIONS: Record<string, string[]> = {
  sort: ['-o', '--output'],
  tree: ['-o'],
  less: ['-o', '-O', '--log-file', '--LOG-FILE'],
  base64: ['-o', '--output'],
};

/** The operand (0-based) that is a file the program writes. */
export const OUTPUT_OPERAND: Record<string, number> = { uniq: 1, xxd: 1 };

/** Options that run another program or change the system. */
export const RISKY_OPTIONS: Record<string, string[]> = {
  rg: ['--pre'],
  ag: ['--pager'],
  ack: ['--pager'],
  file: ['-C', '--compile'],
  date: ['-s', '--set'],
  sort: ['--compress-program'],
  man: ['-P', '--pager', '-H', '--html'],
};

/** tar options that run another program. */
export const TAR_RUNS = ['--to-command', '-I', '--use-compress-program', '--checkpoint-action', '-F', '--info-script', '--new-volume-script', '--rsh-command', '--rmt-command'];

// Environment variables

/** Variables that switch off, redirect or impersonate the governance. */
export const DENY_ENV = new Set([
  'GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_COMMON_DIR', 'GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_NAMESPACE', 'GIT_EXEC_PATH', 'GIT_TEMPLATE_DIR', 'HUSKY', 'SKIP', 'SKIP_HOOKS', 'NO_VERIFY', 'PRE_COMMIT',
  'PRE_COMMIT_ALLOW_NO_CONFIG', 'LEFTHOOK', 'LEFTHOOK_EXCLUDE', 'OVERCOMMIT_DISABLE',
]);

/** Prefixes of variables refused like DENY_ENV. */
export const DENY_ENV_PREFIXES = ['INTENT_', 'GIT_CONFIG', 'GIT_NOTES_', 'HUSKY_'];

/** Variables that change which programs or code run. */
export const ASK_ENV = new Set([
  'PATH', 'HOME', 'BASH_ENV', 'ENV', 'IFS', 'SHELLOPTS', 'BASHOPTS', 'PROMPT_COMMAND', 'NODE_OPTIONS', 'NODE_PATH', 'PYTHONPATH',
  'PYTHONSTARTUP', 'PYTHONHOME', 'RUBYOPT', 'RUBYLIB', 'PERL5OPT', 'PERL5LIB', 'GIT_SSH', 'GIT_SSH_COMMAND', 'GIT_EXTERNAL_DIFF',
  'GIT_ASKPASS', 'SSH_ASKPASS', 'GIT_EDITOR', 'GIT_SEQUENCE_EDITOR', 'EDITOR', 'VISUAL', 'GIT_PAGER', 'PAGER', 'MANPAGER',
  'LESSOPEN', 'LESSCLOSE', 'GIT_PROXY_COMMAND',
]);

/** Prefixes of variables asked about like ASK_ENV. */
export const ASK_ENV_PREFIXES = ['LD_', 'DYLD_', 'npm_config_', 'NPM_CONFIG_'];

/** Pager variables, allowed when set to one of SAFE_PAGERS. */
export const PAGER_ENV = new Set(['GIT_PAGER', 'PAGER', 'MANPAGER']);

/** Pagers that run nothing else. */
export const SAFE_PAGERS = new Set(['', 'cat', 'less', 'more', 'less -R', 'less -FRX']);

// Package managers

/** Package-manager commands that run the project's tests. */
export const TEST_SCRIPTS = new Set(['test', 't', 'tst']);

/** Package scripts that only check (run test, lint, typecheck, ...). */
export const SAFE_SCRIPT = /^(test|tests|lint|typecheck|type-check|check|types)(:[\w:.-]+)?$/;

/** Package-manager commands that only read. */
export const NPM_READ = new Set([
  'ls', 'list', 'll', 'la', 'view', 'v', 'info', 'show', 'outdated', 'explain', 'why', 'search', 'help', 'root', 'prefix', 'bin',
  'whoami', 'fund', 'query', 'doctor', 'ping',
]);

/** Package-manager commands that change the installed packages: a human approves them. */
export const INSTALLS = new Set([
  'install', 'i', 'in', 'ins', 'isntall', 'add', 'ci', 'clean-install', 'install-test', 'it', 'uninstall', 'remove', 'rm', 'un',
  'update', 'up', 'upgrade', 'publish', 'link', 'ln', 'unlink', 'prune', 'dedupe', 'rebuild', 'init', 'create',
]);

// git

/** git subcommands that only read. */
export const GIT_READ = new Set([
  'status', 'log', 'diff', 'show', 'blame', 'annotate', 'rev-parse', 'rev-list', 'ls-files', 'ls-tree', 'ls-remote', 'grep',
  'describe', 'shortlog', 'cat-file', 'show-ref', 'for-each-ref', 'name-rev', 'merge-base', 'whatchanged', 'count-objects',
  'check-ignore', 'check-attr', 'check-ref-format', 'cherry', 'range-diff', 'var', 'help', 'version', 'verify-commit',
  'verify-tag', 'show-branch', 'diff-tree', 'diff-files', 'diff-index',
]);

/** git subcommands that are never acceptable from an agent, with why. */
export const GIT_DENY = new Map([
  ['filter-branch', 'rewrites every commit and strands the Agent Trace notes'],
  ['filter-repo', 'rewrites every commit and strands the Agent Trace notes'],
  ['replace', 'makes git show other commits than the ones the audit trail records'],
  ['update-ref', 'writes refs directly, around the governance hooks'],
]);

/** git subcommands a human must approve, with what they do. */
export const GIT_ASK = new Map([
  ['merge', 'brings other work into this branch'],
  ['pull', 'brings remote work into this branch'],
  ['cherry-pick', 'copies commits without the pre-commit hook'],
  ['revert', 'makes commits without the pre-commit hook'],
  ['am', 'applies patches as commits'],
  ['apply', 'patches files we cannot see'],
  ['clone', 'downloads a repository'],
  ['init', 'creates a repository'],
  ['submodule', 'changes submodules'],
  ['gc', 'prunes objects'],
  ['prune', 'deletes unreachable objects'],
  ['bisect', 'checks out other commits'],
  ['format-patch', 'writes patch files'],
  ['archive', 'writes an archive'],
  ['sparse-checkout', 'changes which files are checked out'],
  ['hook', 'runs hooks by hand'],
  ['commit-tree', 'makes commits without the hooks'],
  ['update-index', 'edits the index directly'],
  ['read-tree', 'replaces the index'],
]);

/** Refs that hold the Agent Trace notes: an agent may not push, fetch into or rewrite them. */
export const NOTES_REF_RE = /refs\/(notes|intents)/;

/** git settings that switch off or redirect the hooks or the notes. */
export const GOVERNED_CONFIG = /hook|^notes(\.|$)|^include|^core\.(worktree|bare)$/i;

/** git -c settings that change only how output looks or who the author is. */
export const SAFE_GIT_OVERRIDES = /^(color\.|advice\.|user\.(name|email)$|core\.quotepath$|init\.defaultbranch$|log\.|column\.)/i;

/** git update-index options that hide changes from the hooks. */
export const HIDDEN_INDEX = ['--cacheinfo', '--index-info', '--assume-unchanged', '--skip-worktree', '--no-skip-worktree', '--no-assume-unchanged'];
