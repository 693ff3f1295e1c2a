/*
 * The classifier: a command line is tokenized and parsed into simple commands; each (with its
 * redirections, substitutions and assignments) gets a verdict from the program's handler or tables,
 * and the strictest verdict wins. Pure: it reads no files and runs nothing. This is a security
 * boundary: when unsure, answer 'ask'.
 */
import { checkAssignment, isAssignment } from './environment.js';
import { awk, copyOrMove, create, dd, download, find, install, link, patch, permissions, readOnly, remove, rsync, sed, tar, tee, unzip, zip } from './files.js';
import { git } from './git.js';
import { JS_TOOLS, packageManager, packageRunner } from './packages.js';
import { KEYWORDS, type Simple, baseName, commandName, parse, programStart } from './parser.js';
import { dirAfter, writeCheck } from './placement.js';
import { type Classifier, NO_STDIN, type State, type Stdin } from './state.js';
import { ASK_COMMANDS, DENY_COMMANDS, DOWNLOADERS, INTERPRETERS, READ_ONLY, SHELLS } from './tables.js';
import { Lexer, ParseError, type Redir, type Word, isLiteral, newWord } from './tokenizer.js';
import { ALLOW, type CommandContext, type CommandDecision, type Verdict, add, ask, clip, deny, worst } from './verdict.js';
import { WRAPPERS, env, evalCommand, interpreter, shell, source, sudo, variables, wrapper, xargs } from './wrappers.js';

const MAX_LENGTH = 200_000;
const MAX_DEPTH = 12;

/**
 * Classifies one command line: allow (read-only, or writes only inside the scope), ask (a human
 * must approve it) or deny (dangerous, or tampers with the governance). Never throws.
 */
export function classifyCommand(command: string, ctx: CommandContext): CommandDecision {
  if (typeof command !== 'string' || command.trim() === '') {
    return { decision: 'ask', reason: 'could not parse an empty command: send the command to run', writes: [] };
  }
  if (command.length > MAX_LENGTH) {
    const reason = `could not parse a command of ${command.length} characters: it is too long to review, so a human must approve it`;
    return { decision: 'ask', reason, writes: [] };
  }
  try {
    const v = classifyLine(command, { ctx, cwd: ctx.cwd, depth: 0, stdin: NO_STDIN, classify: CLASSIFIER });
    return { decision: v.decision, reason: v.decision === 'allow' ? '' : v.reason, writes: [...new Set(v.writes)] };
  } catch (err) {
    const why = err instanceof ParseError ? err.message : 'it nests too deeply or could not be read';
    return { decision: 'ask', reason: `could not parse the command (${why}): a human must approve it`, writes: [] };
  }
}

const CLASSIFIER: Classifier = { line: classifyLine, words: classifyWords };

function classifyLine(text: string, st: State): Verdict {
  if (st.depth > MAX_DEPTH) return ask('the command nests shells or substitutions too deeply to review: a human must approve it');
  const entries = parse(new Lexer(text).run());
  const out = worst();
  const functions = new Set<string>();
  const saved: (string | null)[] = [];
  let cwd = st.cwd;
  let prevName = '';
  let download = false;
  let echoed: Word | null = null;
  for (const e of entries) {
    if (e.kind === 'open') saved.push(cwd);
    else if (e.kind === 'close') cwd = saved.length ? (saved.pop() as string | null) : cwd;
    else if (e.kind === 'func') {
      functions.add(e.name);
      add(out, ask(`defining the shell function ${clip(e.name)} hides what will run: run the commands directly`));
    } else {
      const piped = e.prevOp === '|' || e.prevOp === '|&';
      if (!piped) download = false;
      const name = commandName(e.words);
      if (piped && name !== '' && name === prevName && functions.has(name)) {
        add(out, deny(`the function ${clip(name)} pipes into itself (${clip(name)}|${clip(name)}), a fork bomb: do not run it`));
      }
      const stdin = piped && echoed ? { kind: 'text' as const, word: echoed } : stdinOf(e, piped, download);
      add(out, classifySimple(e, { ...st, cwd, stdin }));
      if (e.words.some((w) => DOWNLOADERS.has(baseName(w.text)))) download = true;
      echoed = echoText(e);
      prevName = name;
      const moved = cdEffect(e, cwd, piped);
      if (moved !== undefined) cwd = moved;
    }
  }
  return out;
}

/** The literal text `echo a b` prints (what a shell after `|` would run), or null. */
function echoText(e: Simple): Word | null {
  const start = programStart(e.words);
  if (e.words[start]?.text !== 'echo' || e.redirs.length || !['|', '|&'].includes(e.nextOp)) return null;
  const args = e.words.slice(start + 1).filter((w, k) => !(k === 0 && w.text === '-n'));
  if (args.some((w) => w.expands || w.opaque || w.glob || /^-[eE]+$/.test(w.text))) return null;
  return newWord(args.map((w) => w.text).join(' '));
}

function stdinOf(e: Simple, piped: boolean, download: boolean): Stdin {
  for (const r of e.redirs) {
    if (r.op === '<<' || r.op === '<<-') return { kind: 'text', word: r.body ?? null };
    if (r.op === '<<<') return { kind: 'text', word: r.target };
    if (r.op === '<' || r.op === '<>') return { kind: 'text', word: null };
  }
  return piped ? { kind: 'pipe', download } : NO_STDIN;
}

/** The directory after a `cd`: undefined when `e` is no cd, null when we cannot tell. */
function cdEffect(e: Simple, cwd: string | null, piped: boolean): string | null | undefined {
  const start = programStart(e.words);
  const name = e.words[start]?.text;
  if (name === 'popd') return null;
  if (name !== 'cd' && name !== 'pushd') return undefined;
  if (piped || ['|', '|&', '&', '||'].includes(e.nextOp)) return null;
  const target = e.words.slice(start + 1).find((w) => !/^-[LPe@]+$/.test(w.text));
  if (!target || target.text === '-' || target.text === '--') return null;
  return dirAfter(cwd, target);
}

function classifySimple(e: Simple, st: State): Verdict {
  const out = worst();
  const name = commandName(e.words);
  for (const w of e.words) add(out, classifySubs(w, st));
  for (const r of e.redirs) add(out, classifyRedir(r, name, st));
  add(out, classifyWords(e.words, st));
  return out;
}

/** Classifies the commands inside $(...), backticks and <(...) of a word. */
function classifySubs(w: Word, st: State): Verdict {
  const out = worst();
  if (w.opaque) add(out, ask(`${clip(w.text)} hides a command inside an expansion: write the command out directly`));
  for (const sub of w.subs) add(out, classifyLine(sub, { ...st, depth: st.depth + 1, stdin: NO_STDIN }));
  return out;
}

const WRITE_REDIRS = new Set(['>', '>>', '>|', '&>', '&>>', '<>']);

function classifyRedir(r: Redir, name: string, st: State): Verdict {
  const label = name ? `${name} ${r.op}` : r.op;
  const out = classifySubs(r.target, st);
  if (r.body) add(out, classifySubs(r.body, st));
  const dup = (r.op === '>&' || r.op === '<&') && /^(\d+|-)$/.test(r.target.text);
  if (WRITE_REDIRS.has(r.op) || (r.op === '>&' && !dup)) add(out, writeCheck(r.target, label, st));
  return out;
}

/** Classifies one simple command given as words: assignments first, then the program. */
function classifyWords(words: Word[], st: State): Verdict {
  if (st.depth > MAX_DEPTH) return ask('the command nests wrappers too deeply to review: a human must approve it');
  const out = worst();
  let i = 0;
  for (; i < words.length && isAssignment(words[i]); i++) add(out, checkAssignment(words[i]));
  while (i < words.length && KEYWORDS.has(words[i].text) && !words[i].quoted) i++;
  if (i < words.length) add(out, runProgram(words[i], words.slice(i + 1), st));
  return out;
}

function runProgram(first: Word, args: Word[], st: State): Verdict {
  if (!isLiteral(first)) return ask(`the program ${clip(first.text)} is only known at run time: name the program directly`);
  const name = programName(first.text);
  if (name === null) return ask(`${clip(first.text)} runs a program by its path, which we cannot review: a human must approve it`);
  const handler = HANDLERS.get(name);
  if (handler) return handler(name, args, st);
  if (READ_ONLY.has(name)) return readOnly(name, args, st);
  const denied = DENY_COMMANDS.get(name.startsWith('mkfs.') ? 'mkfs' : name);
  if (denied) return deny(`${name} ${denied}: agents may not run it`);
  const why = ASK_COMMANDS.get(name);
  if (why) return ask(`${name} ${why}: a human must approve it`);
  return ask(`${clip(name)} is not a command we know to be safe: a human must approve it`);
}

const SYSTEM_BIN_DIRS = new Set(['/bin', '/usr/bin', '/usr/local/bin', '/sbin', '/usr/sbin', '/usr/local/sbin', '/opt/homebrew/bin']);

/** `ls` or `/usr/bin/ls` → `ls`; a program elsewhere (./x, src/ls) → null. */
function programName(text: string): string | null {
  const slash = text.lastIndexOf('/');
  if (slash < 0) return text;
  return SYSTEM_BIN_DIRS.has(text.slice(0, slash)) ? text.slice(slash + 1) : null;
}

type Handler = (name: string, args: Word[], st: State) => Verdict;

/**
 * The `intent` CLI itself: decisions that belong to a human are refused, reads pass, and `intent
 * commit …` (git commit with the hooks on, what a refusal in a hooks-off shell tells the agent to
 * run) is judged as that git commit is, wherever it stands in the line (`git add -A && intent
 * commit -m "…"`).
 */
function intentCli(_name: string, args: Word[], st: State): Verdict {
  const at = args.findIndex((a) => !a.text.startsWith('-'));
  const sub = at < 0 ? '' : args[at].text;
  if (sub === 'commit' && isLiteral(args[at])) {
    const v = git('git', args.slice(at), st);
    return { ...v, reason: v.reason.replace(/\bgit commit\b/g, 'intent commit') };
  }
  if (['approve', 'reject', 'reset', 'done', 'abandon', 'init'].includes(sub)) {
    return deny(`intent ${sub} is a human's decision: ask a human to run it`);
  }
  if (['sync', 'repair', 'checkout', 'map'].includes(sub)) return ask(`intent ${sub} changes shared state: a human must approve it`);
  if (['context', 'verify', 'blame', 'status', 'requests', 'lesson', 'expand', '--help', 'help', '--version', ''].includes(sub)) return ALLOW;
  return ask(`intent ${clip(sub)} is not an intent command we know to be safe: a human must approve it`);
}

const HANDLERS = new Map<string, Handler>([
  ['git', git],
  ['intent', intentCli],
  ['rm', remove], ['rmdir', remove], ['unlink', remove], ['shred', remove],
  ['cp', copyOrMove], ['mv', copyOrMove], ['ln', link],
  ['tee', tee], ['touch', create], ['mkdir', create], ['truncate', create],
  ['sed', sed], ['awk', awk], ['gawk', awk], ['mawk', awk], ['nawk', awk],
  ['find', find], ['xargs', xargs], ['dd', dd],
  ['install', install], ['rsync', rsync], ['curl', download], ['wget', download],
  ['tar', tar], ['bsdtar', tar], ['gtar', tar], ['unzip', unzip], ['zip', zip], ['patch', patch],
  ['chmod', permissions], ['chown', permissions], ['chgrp', permissions],
  ['sudo', sudo], ['doas', sudo], ['env', env],
  ...['export', 'unset', 'declare', 'typeset', 'local', 'readonly'].map((n): [string, Handler] => [n, variables]),
  ['eval', evalCommand], ['source', source], ['.', source],
  ['npm', packageManager], ['pnpm', packageManager], ['yarn', packageManager], ['bun', packageManager],
  ['npx', packageRunner], ['pnpx', packageRunner], ['bunx', packageRunner],
  ...Object.keys(WRAPPERS).map((n): [string, Handler] => [n, wrapper]),
  ...SHELLS.map((n): [string, Handler] => [n, shell]),
  ...INTERPRETERS.map((n): [string, Handler] => [n, interpreter]),
  ...[...JS_TOOLS].map(([n, tool]): [string, Handler] => [n, (name, args) => tool(name, args)]),
]);
