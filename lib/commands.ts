/**
 * Classifies the shell commands an agent wants to run (Claude Code `Bash`, Cursor
 * `beforeShellExecution`, Cline `execute_command`): read-only commands pass, writes inside the
 * intent's scope pass, anything destructive, unknown or unparsable goes to a human ("ask"), and
 * anything that bypasses or tampers with governance is denied.
 */
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { tmpdir } from 'node:os';

export type CommandVerdict = 'allow' | 'ask' | 'deny';

export interface CommandContext {
  /** Absolute directory the command runs in. */
  cwd: string;
  /** Absolute root of the worktree. */
  root: string;
  /** True when a repository-relative POSIX path (e.g. "src/a.ts") is inside the intent's owned scope. */
  inScope(path: string): boolean;
}

export interface CommandDecision {
  decision: CommandVerdict;
  /** One sentence an agent can act on; empty for allow. */
  reason: string;
  /** Repository-relative paths the command writes (redirections, tee, cp/mv targets, in-place edits). */
  writes: string[];
}

const MAX_LENGTH = 100_000;
const RANK: Record<CommandVerdict, number> = { allow: 0, ask: 1, deny: 2 };

/** Commands that only read. */
const READ_ONLY = new Set([
  'ls', 'cat', 'head', 'tail', 'less', 'more', 'wc', 'grep', 'egrep', 'fgrep', 'rg', 'ag', 'pwd', 'echo', 'printf', 'which', 'type',
  'file', 'stat', 'du', 'df', 'tree', 'diff', 'cmp', 'sort', 'uniq', 'cut', 'tr', 'awk', 'jq', 'yq', 'basename', 'dirname', 'realpath',
  'readlink', 'date', 'whoami', 'id', 'uname', 'env', 'printenv', 'true', 'false', 'test', '[', 'seq', 'nl', 'column', 'fold', 'od',
  'xxd', 'hexdump', 'sha256sum', 'sha1sum', 'md5sum', 'shasum', 'base64', 'comm', 'paste', 'join', 'expand', 'rev', 'tac', 'strings',
  'ps', 'top', 'free', 'uptime', 'hostname', 'tsc', 'eslint', 'prettier', 'node', 'python', 'python3', 'cd', 'exit',
]);

/** git subcommands that only read, or write only what the hooks govern (the index, commits, branches). */
const GIT_SAFE = new Set([
  'status', 'log', 'diff', 'show', 'blame', 'rev-parse', 'ls-files', 'ls-tree', 'grep', 'shortlog', 'describe', 'cat-file', 'fetch',
  'remote', 'tag', 'branch', 'add', 'commit', 'restore', 'switch', 'checkout', 'stash', 'mv', 'rm', 'merge-base', 'whatchanged',
  'reflog', 'for-each-ref', 'show-ref', 'name-rev', 'version', 'help', 'config', 'notes', 'worktree', 'pull', 'merge',
]);

/** Commands that need a human: they delete, change permissions, install, reach the network or other machines. */
const ASK = new Map<string, string>([
  ['rm', 'deletes files'], ['rmdir', 'deletes folders'], ['shred', 'destroys files'], ['unlink', 'deletes a file'],
  ['chmod', 'changes permissions'], ['chown', 'changes ownership'], ['chgrp', 'changes ownership'], ['kill', 'stops processes'],
  ['pkill', 'stops processes'], ['killall', 'stops processes'], ['curl', 'reaches the network'], ['wget', 'reaches the network'],
  ['ssh', 'runs commands on another machine'], ['scp', 'copies to or from another machine'], ['rsync', 'copies and may delete files'],
  ['docker', 'runs containers'], ['sudo', 'runs as another user'], ['su', 'runs as another user'], ['pip', 'installs packages'],
  ['pip3', 'installs packages'], ['apt', 'installs system packages'], ['apt-get', 'installs system packages'], ['brew', 'installs packages'],
  ['yarn', 'installs or runs package scripts'], ['pnpm', 'installs or runs package scripts'], ['make', 'runs build scripts'],
  ['crontab', 'schedules commands'], ['systemctl', 'controls services'], ['reboot', 'restarts the machine'], ['shutdown', 'stops the machine'],
]);

/** Always refused. */
const DENY = new Map<string, string>([
  ['mkfs', 'formats a disk'], ['fdisk', 'partitions a disk'], ['parted', 'partitions a disk'], ['dd', 'writes raw devices'],
]);

/** Wrappers whose first argument is the command that really runs. */
const WRAPPERS = new Set(['time', 'nice', 'nohup', 'command', 'builtin', 'exec', 'timeout', 'stdbuf']);

/** Environment assignments that switch governance off or pick the intent: an agent may not. */
const DENY_ENV = /^(INTENT_[A-Z_]*|HUSKY|GIT_DIR|GIT_WORK_TREE|GIT_INDEX_FILE|GIT_COMMON_DIR|GIT_CONFIG[A-Z_]*|GIT_EXEC_PATH|GIT_NOTES_REF|SKIP|LEFTHOOK)=/;

interface Simple {
  words: string[];
  redirects: string[];
}

/** Classifies a whole command line; never throws. */
export function classifyCommand(command: string, ctx: CommandContext): CommandDecision {
  try {
    if (typeof command !== 'string') return ask('the command is not a string: a human must run it');
    if (command.length > MAX_LENGTH) return ask(`the command is ${command.length} characters long: a human must review it`);
    return classifyLine(command, ctx, 0);
  } catch (e) {
    return ask(`could not parse the command (${(e as Error).message}): a human must run it`);
  }
}

function ask(reason: string): CommandDecision {
  return { decision: 'ask', reason, writes: [] };
}

function deny(reason: string): CommandDecision {
  return { decision: 'deny', reason, writes: [] };
}

function allow(writes: string[] = []): CommandDecision {
  return { decision: 'allow', reason: '', writes };
}

function strictest(a: CommandDecision, b: CommandDecision): CommandDecision {
  const writes = [...new Set([...a.writes, ...b.writes])];
  const w = RANK[b.decision] > RANK[a.decision] ? b : a;
  return { ...w, writes };
}

function classifyLine(line: string, ctx: CommandContext, depth: number): CommandDecision {
  if (depth > 4) return ask('the command nests shells too deeply: a human must run it');
  if (/:\s*\(\s*\)\s*\{[^}]*:\s*\|\s*:/.test(line)) return deny('a fork bomb: never');
  const parsed = parse(line);
  if (typeof parsed === 'string') return ask(`could not parse the command (${parsed}): a human must run it`);
  let result = allow();
  for (const pipeline of parsed.pipelines) {
    for (let i = 0; i < pipeline.length; i++) {
      const d = classifySimple(pipeline[i], ctx, depth);
      result = strictest(result, d);
      const prog = base(pipeline[i].words.find((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) ?? '');
      if (i > 0 && ['sh', 'bash', 'zsh', 'dash', 'ksh', 'python', 'python3', 'node', 'perl', 'ruby'].includes(prog)) {
        const feeds = pipeline.slice(0, i).some((s) => ['curl', 'wget'].includes(base(s.words[0] ?? '')));
        result = strictest(result, feeds ? deny(`piping a download into ${prog} runs unreviewed code: download, read, then run it`) : ask(`piping into ${prog} runs code a human has not seen`));
      }
    }
  }
  for (const inner of parsed.substitutions) result = strictest(result, classifyLine(inner, ctx, depth + 1));
  return result;
}

function base(word: string): string {
  const i = word.lastIndexOf('/');
  return i === -1 ? word : word.slice(i + 1);
}

function classifySimple(cmd: Simple, ctx: CommandContext, depth: number): CommandDecision {
  let words = [...cmd.words];
  let result = allow();
  for (const r of cmd.redirects) result = strictest(result, checkWrite(r, ctx, 'a redirection'));
  while (words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0])) {
    const w = words.shift()!;
    if (DENY_ENV.test(w)) return deny(`${w.split('=')[0]}=… changes how commits are governed: run the command without it`);
  }
  while (words.length && WRAPPERS.has(base(words[0]))) {
    words.shift();
    while (words.length && (words[0].startsWith('-') || /^\d+[smhd]?$/.test(words[0]))) words.shift();
  }
  if (!words.length) return result;
  const prog = base(words[0]);
  const args = words.slice(1);
  if (prog === 'env') {
    const rest = args.filter((a) => !a.startsWith('-'));
    const assigns = rest.filter((a) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(a));
    const bad = assigns.find((a) => DENY_ENV.test(a));
    if (bad) return deny(`${bad.split('=')[0]}=… changes how commits are governed: run the command without it`);
    const cmdIndex = rest.findIndex((a) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(a));
    if (cmdIndex === -1) return result;
    return strictest(result, classifySimple({ words: rest.slice(cmdIndex), redirects: [] }, ctx, depth));
  }
  if (['sh', 'bash', 'zsh', 'dash', 'ksh'].includes(prog)) {
    const c = args.indexOf('-c');
    if (c !== -1 && args[c + 1] !== undefined) return strictest(result, classifyLine(args[c + 1], ctx, depth + 1));
    return strictest(result, ask(`${prog} runs a script a human has not reviewed`));
  }
  if (prog === 'eval') return strictest(result, classifyLine(args.join(' '), ctx, depth + 1));
  if (prog === 'xargs') {
    const inner = args.filter((a, i) => !(a.startsWith('-') || (i > 0 && /^-[InLPsd]$/.test(args[i - 1]))));
    if (!inner.length) return result;
    const d = classifySimple({ words: inner, redirects: [] }, ctx, depth);
    return strictest(result, d.decision === 'allow' && !READ_ONLY.has(base(inner[0])) ? ask(`xargs ${base(inner[0])} runs on inputs a human has not seen`) : d);
  }
  if (prog === 'sudo' || prog === 'doas') {
    const inner = args.filter((a, i) => !a.startsWith('-') && !(i > 0 && ['-u', '-g'].includes(args[i - 1])));
    const d = inner.length ? classifySimple({ words: inner, redirects: [] }, ctx, depth) : allow();
    return strictest(strictest(result, ask(`${prog} runs as another user: a human must approve it`)), d);
  }
  const denied = DENY.get(prog) ?? (prog.startsWith('mkfs.') ? 'formats a disk' : undefined);
  if (denied) return deny(`${prog} ${denied}: never from an agent`);
  if (prog === 'git') return strictest(result, classifyGit(args, ctx));
  if (prog === 'rm') return strictest(result, classifyRm(args, ctx));
  if (prog === 'chmod' && args.includes('-R') && args.some((a) => /^0?777$/.test(a))) return deny('chmod -R 777 opens every file to everyone: never');
  if (prog === 'sed' || prog === 'perl') {
    const inPlace = args.some((a) => /^-[a-zA-Z]*i/.test(a) || a.startsWith('--in-place'));
    if (!inPlace) return result;
    const files = args.filter((a, i) => !a.startsWith('-') && !(i > 0 && ['-e', '-f'].includes(args[i - 1]))).slice(args.some((a) => a === '-e' || a === '-f') ? 0 : 1);
    for (const f of files) result = strictest(result, checkWrite(f, ctx, `${prog} -i`));
    return result;
  }
  if (prog === 'tee') {
    for (const f of args.filter((a) => !a.startsWith('-'))) result = strictest(result, checkWrite(f, ctx, 'tee'));
    return result;
  }
  if (prog === 'touch' || prog === 'mkdir' || prog === 'truncate') {
    for (const f of args.filter((a) => !a.startsWith('-'))) result = strictest(result, checkWrite(f, ctx, prog));
    return result;
  }
  if (prog === 'cp' || prog === 'mv' || prog === 'ln' || prog === 'install') {
    const paths = args.filter((a) => !a.startsWith('-'));
    if (paths.length < 2) return strictest(result, ask(`${prog} with fewer than two paths: a human must check it`));
    result = strictest(result, checkWrite(paths[paths.length - 1], ctx, prog));
    if (prog === 'mv') for (const src of paths.slice(0, -1)) result = strictest(result, checkWrite(src, ctx, 'mv (source)'));
    return result;
  }
  if (prog === 'find') {
    if (args.includes('-delete')) return strictest(result, ask('find -delete deletes files: a human must approve it'));
    const exec = args.findIndex((a) => a === '-exec' || a === '-execdir' || a === '-ok');
    if (exec !== -1) {
      const end = args.findIndex((a, i) => i > exec && (a === ';' || a === '+'));
      const inner = args.slice(exec + 1, end === -1 ? undefined : end).filter((a) => a !== '{}');
      return strictest(result, inner.length ? classifySimple({ words: inner, redirects: [] }, ctx, depth) : result);
    }
    if (args.some((a) => a.startsWith('-fprint') || a === '-fls')) return strictest(result, ask('find -fprint writes files: a human must approve it'));
    return result;
  }
  if (prog === 'npm' || prog === 'npx') return strictest(result, classifyNpm(prog, args));
  if (ASK.has(prog)) return strictest(result, ask(`${prog} ${ASK.get(prog)}: a human must approve it`));
  if (READ_ONLY.has(prog)) {
    if ((prog === 'node' || prog.startsWith('python')) && args.length) return strictest(result, ask(`${prog} runs a program a human has not reviewed`));
    return result;
  }
  return strictest(result, ask(`${prog} is not a command intent knows to be safe: a human must approve it`));
}

function classifyNpm(prog: string, args: string[]): CommandDecision {
  const sub = args.find((a) => !a.startsWith('-'));
  if (prog === 'npm') {
    if (sub === 'test' || sub === 't' || (sub === 'run' && ['test', 'lint', 'build', 'typecheck'].includes(args[args.indexOf('run') + 1] ?? ''))) return allow();
    if (['ls', 'list', 'view', 'outdated', 'audit', 'explain', 'why', 'config', 'help', 'version', '--version'].includes(sub ?? '')) return allow();
    if (sub === 'publish' || sub === 'unpublish' || sub === 'deprecate') return deny(`npm ${sub} publishes to a registry: only a human does that`);
    return ask(`npm ${sub ?? ''} installs or runs scripts: a human must approve it`.replace('  ', ' '));
  }
  if (sub === 'vitest' || sub === 'jest' || (sub === 'tsc' && args.includes('--noEmit')) || sub === 'eslint' || sub === 'prettier' && args.includes('--check')) return allow();
  return ask(`npx ${sub ?? ''} may download and run code: a human must approve it`);
}

function classifyGit(args: string[], ctx: CommandContext): CommandDecision {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '-c' && /hookspath|hooks|notes|core\.editor|sequence\.editor/i.test(args[i + 1] ?? '')) {
      return deny(`git -c ${args[i + 1]} bypasses the governance hooks or notes: run git without it`);
    }
    if (args[i] === '--git-dir' || args[i].startsWith('--git-dir=') || args[i] === '--work-tree' || args[i].startsWith('--work-tree=')) {
      return deny('git --git-dir/--work-tree points git at another repository than this worktree: run it without that option');
    }
  }
  const rest = stripGitGlobals(args);
  const sub = rest[0] ?? '';
  const opts = rest.slice(1);
  const has = (...f: string[]) => opts.some((o) => f.includes(o) || f.some((x) => x.startsWith('--') && o.startsWith(x + '=')));
  switch (sub) {
    case 'commit':
    case 'merge':
    case 'am':
    case 'revert':
    case 'cherry-pick':
      if (has('--no-verify') || (sub === 'commit' && opts.some((o) => /^-[a-zA-Z]*n/.test(o) && !o.startsWith('--')))) {
        return deny(`git ${sub} --no-verify skips the governance hooks: run it without --no-verify`);
      }
      return sub === 'commit' ? allow() : ask(`git ${sub} changes history: a human must approve it`);
    case 'push': {
      if (has('--force', '-f', '--force-with-lease', '--mirror', '--delete', '-d') || opts.some((o) => /^\+/.test(o) || /^:/.test(o))) {
        return deny('git push --force/--delete/+refspec rewrites or deletes shared history: never from an agent');
      }
      if (has('--no-verify')) return deny('git push --no-verify skips the pre-push verification: push without it');
      return ask('git push publishes commits: a human must approve it');
    }
    case 'reset':
      return has('--hard', '--merge', '--keep') ? deny('git reset --hard destroys uncommitted work: a human must do it') : allow();
    case 'clean':
      return opts.some((o) => /^-[a-zA-Z]*f/.test(o) || o === '--force') ? deny('git clean -f deletes untracked files: a human must do it') : allow();
    case 'checkout':
    case 'restore':
      if (opts.includes('.') || opts.includes(':/') || opts.includes('--') && opts[opts.indexOf('--') + 1] === '.') {
        return ask(`git ${sub} of everything discards all uncommitted changes: a human must approve it`);
      }
      return allow();
    case 'branch':
      return has('-D', '--delete', '-d', '-m', '-M', '--move', '-f', '--force') ? ask('git branch -D/-m changes branches: a human must approve it') : allow();
    case 'stash':
      return ['drop', 'clear'].includes(opts[0] ?? '') ? ask(`git stash ${opts[0]} deletes stashed work: a human must approve it`) : allow();
    case 'notes':
      return opts.some((o) => ['add', 'append', 'copy', 'edit', 'merge', 'prune', 'remove'].includes(o))
        ? deny('git notes changes the audit trail (refs/notes/intents is written by the hooks only): never from an agent')
        : allow();
    case 'config':
      if (opts.some((o) => /hooks|notes\.|rewriteRef|worktreeconfig|extensions/i.test(o))) return deny('git config of hooks or notes switches governance off: never from an agent');
      return opts.some((o) => ['--get', '--get-all', '--list', '-l', '--get-regexp'].includes(o)) || opts.length <= 1 ? allow() : ask('git config changes repository settings: a human must approve it');
    case 'worktree':
      return ['list'].includes(opts[0] ?? '') || !opts.length ? allow() : ask(`git worktree ${opts[0]} changes worktrees: a human must approve it`);
    case 'update-ref':
    case 'filter-branch':
    case 'filter-repo':
    case 'replace':
    case 'symbolic-ref':
    case 'update-index':
    case 'hash-object':
    case 'gc':
    case 'prune':
    case 'reflog':
      if (sub === 'reflog' && (!opts.length || opts[0] === 'show')) return allow();
      return deny(`git ${sub} edits refs or objects directly and can hide history: a human must do it`);
    case 'rebase':
      return ask('git rebase rewrites history: a human must approve it');
    case 'rm':
      return ask('git rm deletes files: a human must approve it');
    case 'tag':
      return opts.length && !has('-l', '--list') ? ask('git tag creates or deletes tags: a human must approve it') : allow();
    case 'pull':
      return ask('git pull merges others\' work: a human must approve it');
    case 'mv': {
      const paths = opts.filter((o) => !o.startsWith('-'));
      let d = allow();
      for (const p of paths) d = strictest(d, checkWrite(p, ctx, 'git mv'));
      return d;
    }
    case 'remote':
      return !opts.length || opts.every((o) => o === '-v' || o === '--verbose' || o === 'show' || o === 'get-url') || opts[0] === 'show' ? allow() : ask('git remote changes remotes: a human must approve it');
    default:
      return GIT_SAFE.has(sub) ? allow() : ask(`git ${sub} is not a git command intent knows to be safe: a human must approve it`);
  }
}

function stripGitGlobals(args: string[]): string[] {
  const out = [...args];
  while (out.length && out[0].startsWith('-')) {
    const a = out.shift()!;
    if (['-C', '-c', '--namespace'].includes(a)) out.shift();
  }
  return out;
}

function classifyRm(args: string[], ctx: CommandContext): CommandDecision {
  const recursive = args.some((a) => /^-[a-zA-Z]*[rR]/.test(a) || a === '--recursive');
  const paths = args.filter((a) => !a.startsWith('-'));
  for (const p of paths) {
    const abs = resolve(ctx.cwd, expandHome(p));
    if (abs === '/' || p === '~' || p === '~/' || p === '/*' || (recursive && (abs === ctx.root || p === '*' || p === '.' || p === './*'))) {
      return deny(`rm ${recursive ? '-r ' : ''}${p} would delete ${abs === '/' ? 'the whole machine' : 'the whole worktree or home'}: never`);
    }
    const w = checkWrite(p, ctx, 'rm');
    if (w.decision === 'deny') return w;
  }
  return ask('rm deletes files: a human must approve it');
}

function expandHome(p: string): string {
  return p === '~' || p.startsWith('~/') ? (process.env.HOME ?? '/root') + p.slice(1) : p;
}

/** A write target: fine in scope, in the temp dir or /dev/null; denied elsewhere. */
function checkWrite(target: string, ctx: CommandContext, how: string): CommandDecision {
  if (target === '') return ask(`${how} with an empty target: a human must check it`);
  if (/^\d*$/.test(target) || target.startsWith('&')) return allow();
  if (/[$`*?[\]{}]/.test(target)) return ask(`${how} writes to "${target}", a path only the shell can expand: a human must check it`);
  if (['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty'].includes(target)) return allow();
  const abs = resolve(ctx.cwd, expandHome(target));
  const tmp = resolve(tmpdir());
  if (abs === tmp || abs.startsWith(tmp + sep) || abs.startsWith('/tmp/')) return allow();
  const rel = relative(ctx.root, abs);
  if (rel === '' || rel === '..' || rel.startsWith('..' + sep) || isAbsolute(rel)) {
    return deny(`${how} writes ${abs}, outside the worktree: write only inside the intent's scope`);
  }
  const posix = rel.split(sep).join('/');
  if (posix === '.git' || posix.startsWith('.git/') || posix.includes('/.git/')) return deny(`${how} writes into git's own directory (${posix}): never`);
  if (posix === '.orchestration' || posix.startsWith('.orchestration/')) return deny(`${how} writes ${posix}: .orchestration/ is governed from the main worktree only`);
  if (!ctx.inScope(posix)) return deny(`${how} writes ${posix}, outside the intent's scope: write only inside it, or ask for more scope (intent expand)`);
  return allow([posix]);
}

// --- a small POSIX-shell tokenizer --------------------------------------------------------------

/** Splits a command line into pipelines of simple commands, with redirection targets and $(…) bodies. */
function parse(line: string): { pipelines: Simple[][]; substitutions: string[] } | string {
  const pipelines: Simple[][] = [[]];
  const substitutions: string[] = [];
  let cur: Simple = { words: [], redirects: [] };
  let word = '';
  let inWord = false;
  let pendingRedirect = false;
  let skipNextWord = false;
  const endWord = () => {
    if (!inWord) return;
    if (pendingRedirect) {
      cur.redirects.push(word);
      pendingRedirect = false;
    } else cur.words.push(word);
    word = '';
    inWord = false;
  };
  const endCommand = (newPipeline: boolean) => {
    endWord();
    if (pendingRedirect) throw new Error('a redirection without a target');
    if (cur.words.length || cur.redirects.length) pipelines[pipelines.length - 1].push(cur);
    cur = { words: [], redirects: [] };
    if (newPipeline && pipelines[pipelines.length - 1].length) pipelines.push([]);
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '\\') {
      if (i + 1 < line.length) {
        if (line[i + 1] !== '\n') { word += line[i + 1]; inWord = true; }
        i++;
      }
      continue;
    }
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end === -1) return 'an unbalanced single quote';
      word += line.slice(i + 1, end);
      inWord = true;
      i = end;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === '\\' && j + 1 < line.length) { word += line[++j]; continue; }
        if (line[j] === '`' || (line[j] === '$' && line[j + 1] === '(')) {
          const sub = takeSubstitution(line, j);
          if (typeof sub === 'string') return sub;
          substitutions.push(sub.body);
          word += '$(…)';
          j = sub.end;
          continue;
        }
        word += line[j];
      }
      if (j >= line.length) return 'an unbalanced double quote';
      inWord = true;
      i = j;
      continue;
    }
    if (c === '`' || (c === '$' && line[i + 1] === '(')) {
      const sub = takeSubstitution(line, i);
      if (typeof sub === 'string') return sub;
      substitutions.push(sub.body);
      word += '$(…)';
      inWord = true;
      i = sub.end;
      continue;
    }
    if (c === '#' && !inWord) {
      const nl = line.indexOf('\n', i);
      if (nl === -1) break;
      i = nl - 1;
      continue;
    }
    if (c === ' ' || c === '\t') { endWord(); continue; }
    if (c === '\n' || c === ';') { endCommand(true); continue; }
    if (c === '&') {
      if (line[i + 1] === '&') i++;
      else if (line[i + 1] === '>') { endWord(); pendingRedirect = true; i++; if (line[i + 1] === '>') i++; continue; }
      endCommand(true);
      continue;
    }
    if (c === '|') {
      if (line[i + 1] === '|') { i++; endCommand(true); continue; }
      endCommand(false);
      continue;
    }
    if (c === '>' || c === '<') {
      // `2>&1`, `>&2`: a descriptor, not a file
      const fd = inWord && /^\d+$/.test(word) ? word : null;
      if (fd !== null) { word = ''; inWord = false; }
      else endWord();
      let j = i + 1;
      if (line[j] === '>' || line[j] === '|') j++;
      if (line[j] === '&') {
        j++;
        while (j < line.length && /[\d-]/.test(line[j])) j++;
        i = j - 1;
        continue;
      }
      if (c === '<') {
        // input: not a write; skip its target word
        if (line[j] === '<') return 'a here-document';
        i = j - 1;
        pendingRedirect = false;
        skipNextWord = true;
        continue;
      }
      pendingRedirect = true;
      i = j - 1;
      continue;
    }
    if ((c === '(' || c === ')' || c === '{' || c === '}') && !inWord) { endCommand(true); continue; }
    if (skipNextWord && !inWord) {
      // consume the input redirection's target
      let j = i;
      while (j < line.length && !/[\s;&|<>]/.test(line[j])) j++;
      i = j - 1;
      skipNextWord = false;
      continue;
    }
    word += c;
    inWord = true;
  }
  endCommand(false);
  return { pipelines: pipelines.filter((p) => p.length), substitutions };
}

function takeSubstitution(line: string, i: number): { body: string; end: number } | string {
  if (line[i] === '`') {
    const end = line.indexOf('`', i + 1);
    if (end === -1) return 'an unbalanced backquote';
    return { body: line.slice(i + 1, end), end };
  }
  let depth = 0;
  for (let j = i + 1; j < line.length; j++) {
    if (line[j] === '(') depth++;
    else if (line[j] === ')') {
      depth--;
      if (depth === 0) return { body: line.slice(i + 2, j), end: j };
    }
  }
  return 'an unbalanced $(';
}
