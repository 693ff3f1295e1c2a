/*
 * Arguments: options and operands of a program's command line, and the download checks.
 */
import { type Word, slice } from './tokenizer.js';
import { type Verdict, deny } from './verdict.js';

const DOWNLOAD_RE = /\b(curl|wget)\b/;

interface Parsed {
  opts: { name: string; value?: Word }[];
  pos: Word[];
}

/** Splits options from operands; `withValue` lists the options that take the next word. */
export function parseArgs(args: Word[], withValue: readonly string[] = []): Parsed {
  const opts: Parsed['opts'] = [];
  const pos: Word[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const t = a.text;
    if (t === '--') {
      pos.push(...args.slice(i + 1));
      break;
    }
    if (t.startsWith('--')) {
      const eq = t.indexOf('=');
      if (eq > 0) opts.push({ name: t.slice(0, eq), value: slice(a, eq + 1) });
      else if (withValue.includes(t) && i + 1 < args.length) opts.push({ name: t, value: args[++i] });
      else opts.push({ name: t });
    } else if (t.startsWith('-') && t.length > 1) {
      for (let j = 1; j < t.length; j++) {
        const name = `-${t[j]}`;
        if (!withValue.includes(name)) {
          opts.push({ name });
          continue;
        }
        if (j + 1 < t.length) opts.push({ name, value: slice(a, j + 1) });
        else if (i + 1 < args.length) opts.push({ name, value: args[++i] });
        else opts.push({ name });
        break;
      }
    } else pos.push(a);
  }
  return { opts, pos };
}

export function has(p: Parsed, ...names: string[]): boolean {
  return p.opts.some((o) => names.includes(o.name));
}

export function values(p: Parsed, ...names: string[]): Word[] {
  return p.opts.filter((o) => names.includes(o.name) && o.value).map((o) => o.value as Word);
}

export function firstOperand(args: Word[], withValue: readonly string[] = []): string | undefined {
  return parseArgs(args, withValue).pos[0]?.text;
}

export function fetches(w: Word): boolean {
  return w.subs.some((s) => DOWNLOAD_RE.test(s));
}

export function downloadDenied(name: string): Verdict {
  return deny(`${name} would run a downloaded script unreviewed (curl | sh): download it, read it, and ask a human to run it`);
}
