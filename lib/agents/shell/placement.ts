/*
 * Placement: where a path a command names lies (in the scope, elsewhere in the worktree, in the
 * governance state, a device, a temporary folder, outside) and the verdict on writing or deleting it.
 */
import { tmpdir } from 'node:os';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { type State } from './state.js';
import { type Word, isLiteral } from './tokenizer.js';
import { ALLOW, type Verdict, allow, ask, clip, deny } from './verdict.js';

type Place =
  | 'sink' | 'device' | 'governance' | 'root' | 'ancestor' | 'scope' | 'repo' | 'temp' | 'outside' | 'home' | 'unknown' | 'dynamic';

interface Location {
  place: Place;
  shown: string;
  /** Repository-relative POSIX path, or '' outside the worktree. */
  rel: string;
  /** For a path only known at run time: where its literal directory part points. */
  base?: Place;
}

const SINKS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty']);

const GOVERNED = new Set(['.git', '.orchestration']);

const TEMP_DIRS = ['/tmp', '/var/tmp', '/private/tmp', '/private/var/tmp', ...systemTemp()];

export const DANGEROUS_BASE = new Set<Place | undefined>(['governance', 'device', 'ancestor', 'outside', 'home']);

function systemTemp(): string[] {
  const t = resolve(tmpdir());
  return /te?mp/i.test(t) || t.startsWith('/var/folders/') ? [t] : [];
}

export function locate(word: Word, st: State): Location {
  const text = word.text;
  if (word.tilde || /^\$(HOME\b|\{HOME\})/.test(text)) return { place: 'home', shown: text, rel: '' };
  if (!isLiteral(word)) {
    const cut = text.search(/[$`*?[{]/);
    const prefix = cut < 0 ? text : text.slice(0, cut);
    const dir = prefix.slice(0, prefix.lastIndexOf('/') + 1);
    const unknownStart = cut === 0 && (text[0] === '$' || text[0] === '`');
    const base = dir ? placeOf(dir, st).place : unknownStart ? undefined : placeOf('.', st).place;
    return { place: 'dynamic', shown: text, rel: '', base };
  }
  return placeOf(text, st);
}

export function placeOf(text: string, st: State): Location {
  if (SINKS.has(text) || /^\/dev\/fd\/\d+$/.test(text)) return { place: 'sink', shown: text, rel: '' };
  if (!isAbsolute(text) && st.cwd === null) return { place: 'unknown', shown: text, rel: '' };
  const abs = resolve(st.cwd ?? '/', text);
  const root = resolve(st.ctx.root);
  const rel = relative(root, abs);
  if (rel === '') return { place: 'root', shown: text, rel: '' };
  if (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel)) {
    const posix = rel.split(sep).join('/');
    if (posix.split('/').some((s) => GOVERNED.has(s))) return { place: 'governance', shown: posix, rel: posix };
    return { place: st.ctx.inScope(posix) ? 'scope' : 'repo', shown: posix, rel: posix };
  }
  if (SINKS.has(abs)) return { place: 'sink', shown: abs, rel: '' };
  if (abs === '/dev' || abs.startsWith('/dev/')) return { place: 'device', shown: abs, rel: '' };
  if (abs.split(sep).some((s) => GOVERNED.has(s))) return { place: 'governance', shown: abs, rel: '' };
  if (root.startsWith(abs.endsWith(sep) ? abs : abs + sep)) return { place: 'ancestor', shown: abs, rel: '' };
  if (TEMP_DIRS.some((d) => abs.startsWith(d + sep))) return { place: 'temp', shown: abs, rel: '' };
  return { place: 'outside', shown: abs, rel: '' };
}

function relWrites(loc: Location): string[] {
  return loc.rel ? [loc.rel] : [];
}

/** A command writes (or, with verb 'moves', moves away) the file named by `word`. */
export function writeCheck(word: Word, label: string, st: State, verb = 'writes'): Verdict {
  const loc = locate(word, st);
  const what = `${label} ${verb} ${clip(loc.shown)}`;
  switch (loc.place) {
    case 'sink':
    case 'temp':
      return ALLOW;
    case 'scope':
      return allow(relWrites(loc));
    case 'repo':
      return deny(`${what}, which is outside the intent's scope: change only files in the scope, or ask to widen it`, relWrites(loc));
    case 'governance':
      return deny(`${what}, the governance state (.git/, .orchestration/): use git and the intent commands instead`, relWrites(loc));
    case 'device':
      return deny(`${what}, a device: write to a file in the scope instead`);
    case 'root':
    case 'ancestor':
      return deny(`${what}, which holds the whole worktree: name a file in the scope instead`);
    case 'outside':
    case 'home':
      return deny(`${what}, outside the worktree: write in the scope or under /tmp instead`);
    case 'unknown':
      return ask(`${what} after a cd we cannot follow: use a path from the worktree root`);
    case 'dynamic':
      if (DANGEROUS_BASE.has(loc.base)) return deny(`${what}, which points outside the scope: use a literal path in the scope`);
      return ask(`${what}, a path only known at run time: use a literal path`);
  }
}

/** A command deletes the file or directory named by `word`. */
export function deleteCheck(word: Word, label: string, recursive: boolean, st: State): Verdict {
  const loc = locate(word, st);
  const what = `${label} deletes ${clip(loc.shown)}`;
  switch (loc.place) {
    case 'sink':
    case 'device':
      return deny(`${what}, a device: delete only files in the worktree`);
    case 'governance':
      return deny(`${what}, which holds the governance state (.git/, .orchestration/): leave it to git and the intent commands`);
    case 'root':
    case 'ancestor':
      return deny(`${what}, which holds the whole worktree: delete named files instead`);
    case 'outside':
    case 'home':
      return deny(`${what}, outside the worktree: delete only files in the worktree`);
    case 'temp':
    case 'scope':
    case 'repo':
      return ask(`${what}: a human must approve it`, relWrites(loc));
    case 'unknown':
      return ask(`${what} after a cd we cannot follow: use a path from the worktree root`);
    case 'dynamic':
      if (DANGEROUS_BASE.has(loc.base)) return deny(`${what}, which points outside the worktree: delete named files instead`);
      if (recursive && loc.base === 'root') return deny(`${what}, everything at the top of the worktree: delete named files instead`);
      return ask(`${what}, a path only known at run time: a human must approve it`);
  }
}

/** `dir/basename(src)`: where cp or mv puts `src` when `dir` is a directory. */
export function childOf(dir: Word, src: Word): Word {
  const name = src.text.replace(/\/+$/, '');
  return {
    ...dir,
    text: `${dir.text.replace(/\/+$/, '')}/${name.slice(name.lastIndexOf('/') + 1)}`,
    expands: dir.expands || src.expands,
    glob: dir.glob || src.glob,
    opaque: dir.opaque || src.opaque,
  };
}

export function dirAfter(cwd: string | null, dir: Word): string | null {
  if (!isLiteral(dir)) return null;
  if (isAbsolute(dir.text)) return resolve(dir.text);
  return cwd === null ? null : resolve(cwd, dir.text);
}
