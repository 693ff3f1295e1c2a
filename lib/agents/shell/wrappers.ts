/*
 * Wrappers, shells and builtins: programs that run another command (nice, timeout, sudo, env,
 * xargs, eval, sh -c) are classified by that command; scripts and interpreters we cannot read are asked about.
 */
import { downloadDenied, fetches } from './args.js';
import { checkEnv } from './environment.js';
import { inPlace, sensitive } from './files.js';
import { commandName } from './parser.js';
import { dirAfter, writeCheck } from './placement.js';
import { NO_STDIN, type State } from './state.js';
import { READ_ONLY } from './tables.js';
import { type Word, isLiteral } from './tokenizer.js';
import { ALLOW, type Verdict, add, ask, clip, worst } from './verdict.js';

export const WRAPPERS: Record<string, { values: string[]; skip?: number; outputs?: string[] }> = {
  nice: { values: ['-n', '--adjustment'] },
  nohup: { values: [] },
  time: { values: ['-o', '--output', '-f', '--format'], outputs: ['-o', '--output'] },
  timeout: { values: ['-s', '--signal', '-k', '--kill-after'], skip: 1 },
  stdbuf: { values: ['-i', '-o', '-e', '--input', '--output', '--error'] },
  ionice: { values: ['-c', '-n', '-p', '-P', '-u', '--class', '--classdata'] },
  command: { values: [] },
  builtin: { values: [] },
  exec: { values: ['-a'] },
};

/** nice, nohup, time, timeout, ...: classify the command they run. */
export function wrapper(name: string, args: Word[], st: State): Verdict {
  if (name === 'command' && args.some((a) => a.text === '-v' || a.text === '-V')) return ALLOW;
  const spec = WRAPPERS[name];
  const out = worst();
  let i = 0;
  while (i < args.length) {
    const t = args[i].text;
    if (t === '--') {
      i++;
      break;
    }
    if (!t.startsWith('-') || t === '-') break;
    if (!spec.values.includes(t)) {
      i++;
      continue;
    }
    if (spec.outputs?.includes(t) && args[i + 1]) add(out, writeCheck(args[i + 1], `${name} ${t}`, st));
    i += 2;
  }
  i += spec.skip ?? 0;
  if (i < args.length) add(out, st.classify.words(args.slice(i), { ...st, depth: st.depth + 1 }));
  return out;
}

const SUDO_VALUES = ['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-U', '-T', '--user', '--group', '--chdir', '--host', '--prompt'];

/**
 * Where a wrapper's (sudo, xargs) own options end and the command it runs begins: after `--` or at
 * the first word that is not an option. Options in `valued` take the next word; `special` may claim
 * an option itself and say how many words it used.
 */
function commandStart(args: Word[], valued: readonly string[], special?: (t: string, i: number) => number | null): number {
  let i = 0;
  while (i < args.length) {
    const t = args[i].text;
    if (t === '--') return i + 1;
    if (!t.startsWith('-')) break;
    i += special?.(t, i) ?? (valued.includes(t) ? 2 : 1);
  }
  return i;
}

export function sudo(name: string, args: Word[], st: State): Verdict {
  const i = commandStart(args, SUDO_VALUES);
  const rest = args.slice(i);
  const out = worst();
  if (rest.length) add(out, st.classify.words(rest, { ...st, depth: st.depth + 1 }));
  add(out, ask(`${name} runs ${rest.length ? clip(commandName(rest)) : 'a shell'} as another user: a human must approve it`));
  return out;
}

const ENV_FLAGS = new Set(['-', '-i', '--ignore-environment', '-0', '--null', '-v', '--debug']);

export function env(_name: string, args: Word[], st: State): Verdict {
  const out = worst();
  let cwd = st.cwd;
  let i = 0;
  for (; i < args.length; i++) {
    const t = args[i].text;
    if (t === '--') {
      i++;
      break;
    }
    if (t === '-u' || t === '--unset' || t.startsWith('--unset=')) {
      const v = t.startsWith('--unset=') ? t.slice(8) : (args[++i]?.text ?? '');
      add(out, checkEnv(v, '', `env -u ${v}`));
    } else if (t === '-C' || t === '--chdir') {
      const dir = args[++i];
      cwd = dir ? dirAfter(cwd, dir) : cwd;
    } else if (t.startsWith('-S') || t.startsWith('--split-string')) {
      return worst(out, ask('env -S splits a string into a command we cannot review: run the command directly'));
    } else if (t.startsWith('-') && !ENV_FLAGS.has(t)) {
      return worst(out, ask(`env ${clip(t)} is an option we do not know: a human must approve it`));
    } else if (!ENV_FLAGS.has(t)) break;
  }
  add(out, st.classify.words(args.slice(i), { ...st, cwd, depth: st.depth + 1 }));
  return out;
}

const XARGS_VALUES = [
  '-L', '-n', '-P', '-s', '-d', '-E', '-a', '--arg-file', '--delimiter', '--max-args', '--max-procs', '--max-chars', '--eof',
];

export function xargs(_name: string, args: Word[], st: State): Verdict {
  let replace: string | null = null;
  const i = commandStart(args, XARGS_VALUES, (t, at) => {
    if (t === '-I') {
      replace = args[at + 1]?.text ?? '{}';
      return 2;
    }
    if (t.startsWith('-I') || t.startsWith('-i') || t.startsWith('--replace')) {
      const eq = t.indexOf('=');
      replace = t.startsWith('--') ? (eq > 0 ? t.slice(eq + 1) : '{}') : t.slice(2) || '{}';
      return 1;
    }
    return null;
  });
  const marker = replace;
  const inner = args.slice(i).map((w) => (marker && w.text.includes(marker) ? { ...w, glob: true } : w));
  if (!inner.length) return ALLOW;
  const v = st.classify.words(inner, { ...st, depth: st.depth + 1, stdin: NO_STDIN });
  const name = commandName(inner);
  if (v.decision === 'allow' && READ_ONLY.has(name) && !sensitive(name)) return v;
  return worst(v, ask(`xargs ${clip(name)} runs with arguments read from its input, which we cannot review: a human must approve it`));
}

/** export, unset, declare, ...: check each variable they set or clear. */
export function variables(name: string, args: Word[]): Verdict {
  const out = worst();
  for (const a of args) {
    if (a.text.startsWith('-')) continue;
    const eq = a.text.indexOf('=');
    const v = eq < 0 ? a.text : a.text.slice(0, eq).replace(/\+$/, '');
    add(out, checkEnv(v, eq < 0 ? '' : a.text.slice(eq + 1), `${name} ${v}`));
  }
  return out;
}

export function evalCommand(name: string, args: Word[], st: State): Verdict {
  if (!args.length) return ALLOW;
  if (args.every((a) => !a.expands && !a.opaque)) {
    return st.classify.line(args.map((a) => a.text).join(' '), { ...st, depth: st.depth + 1, stdin: NO_STDIN });
  }
  if (args.some(fetches)) return downloadDenied(name);
  return ask(`${name} runs a command built at run time: run the command directly`);
}

export function source(name: string, args: Word[]): Verdict {
  if (args.some(fetches)) return downloadDenied(name);
  return ask(`${name} runs the script ${clip(args[0]?.text ?? '')} in this shell, which we cannot review: a human must approve it`);
}

const VERSION_FLAGS = new Set(['--version', '-v', '-V', '--help', '-h']);

/** sh -c 'literal' is classified as that line; a script file or unknown input is asked about. */
export function shell(name: string, args: Word[], st: State): Verdict {
  let i = 0;
  let command = false;
  for (; i < args.length; i++) {
    const t = args[i].text;
    if (t === '--version' || t === '--help') return ALLOW;
    if (t === '--') {
      i++;
      break;
    }
    if (!/^[-+]/.test(t)) break;
    if (['-o', '+o', '-O', '+O'].includes(t)) i++;
    else if (t === '--rcfile' || t === '--init-file') return ask(`${name} ${t} runs a start-up file we cannot review: ask a human`);
    else if (/^-[a-zA-Z]*c/.test(t)) {
      command = true;
      i++;
      break;
    }
  }
  const next = args[i];
  const sub = { ...st, depth: st.depth + 1, stdin: NO_STDIN };
  if (command) {
    if (!next) return ask(`${name} -c has no command: pass the command to run`);
    if (isLiteral(next) || (!next.expands && !next.opaque)) return st.classify.line(next.text, sub);
    if (fetches(next)) return downloadDenied(`${name} -c`);
    return ask(`${name} -c runs a command built at run time: run the command directly`);
  }
  if (next) {
    if (fetches(next)) return downloadDenied(name);
    return ask(`${name} ${clip(next.text)} runs a script we cannot review: a human must approve it`);
  }
  if (st.stdin.kind === 'pipe' && st.stdin.download) return downloadDenied(name);
  if (st.stdin.kind === 'text' && st.stdin.word && !st.stdin.word.expands && !st.stdin.word.opaque) {
    return st.classify.line(st.stdin.word.text, sub);
  }
  return ask(`${name} reads commands from its input, which we cannot review: a human must approve it`);
}

export function interpreter(name: string, args: Word[], st: State): Verdict {
  if (args.length && args.every((a) => VERSION_FLAGS.has(a.text))) return ALLOW;
  if ((st.stdin.kind === 'pipe' && st.stdin.download) || args.some(fetches)) return downloadDenied(name);
  const edits = name === 'perl' || name === 'ruby' ? inPlace(name, args, st) : null;
  if (edits) return edits;
  return ask(`${name} runs code we cannot review: a human must approve it`);
}
