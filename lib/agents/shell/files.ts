/*
 * Programs that read files (with their writing or program-running options) and programs that
 * write, move, delete, copy, link, archive or patch files: each named file is placed and checked.
 */
import { has, parseArgs, values } from './args.js';
import { childOf, deleteCheck, locate, writeCheck } from './placement.js';
import { NO_STDIN, type State } from './state.js';
import { OUTPUT_OPERAND, OUTPUT_OPTIONS, RISKY_OPTIONS, TAR_RUNS, VALUE_OPTIONS } from './tables.js';
import { type Word, newWord, slice } from './tokenizer.js';
import { ALLOW, type Verdict, add, allow, ask, clip, deny, worst } from './verdict.js';

const MAX_SCRIPT = 10_000;

export function sensitive(name: string): boolean {
  return name in OUTPUT_OPTIONS || name in OUTPUT_OPERAND || name in RISKY_OPTIONS;
}

export function readOnly(name: string, args: Word[], st: State): Verdict {
  if (!sensitive(name)) return ALLOW;
  if (args.some((a) => a.expands || a.opaque)) {
    return ask(`${name} gets an argument only known at run time, which could be an option that writes or runs code: use literal arguments`);
  }
  const outputs = OUTPUT_OPTIONS[name] ?? [];
  const p = parseArgs(args, [...(VALUE_OPTIONS[name] ?? []), ...outputs, ...(RISKY_OPTIONS[name] ?? [])]);
  const risky = p.opts.find((o) => RISKY_OPTIONS[name]?.includes(o.name));
  if (risky) return ask(`${name} ${risky.name} runs another program or changes the system: a human must approve it`);
  const out = worst();
  for (const o of p.opts) if (o.value && outputs.includes(o.name)) add(out, writeCheck(o.value, `${name} ${o.name}`, st));
  const k = OUTPUT_OPERAND[name];
  if (k !== undefined && p.pos[k]) add(out, writeCheck(p.pos[k], name, st));
  return out;
}

const SED_SUBST = /s([^\\\n\w\s])((?:\\.|(?!\1)[^\\\n])*)\1((?:\\.|(?!\1)[^\\\n])*)\1([a-zA-Z0-9]*)/g;

/** True when a sed script may write files (w, W, s///w) or run commands (e, s///e). */
function sedScriptIsRisky(script: string): boolean {
  if (script.length > MAX_SCRIPT) return true;
  let risky = false;
  const rest = script.replace(SED_SUBST, (_m, _d, _a, _b, flags: string) => {
    if (/[we]/.test(flags)) risky = true;
    return ';';
  });
  return risky || /(^|[;{}\n!\s\d$/])[wWe](\s|$|;|})/.test(rest);
}

export function sed(_name: string, args: Word[], st: State): Verdict {
  if (args.some((a) => a.expands || a.opaque)) return ask('sed gets a script or file only known at run time: use literal arguments');
  // BSD sed: `-i ''` or `-i .bak` gives the backup suffix as its own word.
  const cleaned = args.filter((a, k) => !(args[k - 1]?.text === '-i' && /^(\.[\w.-]*)?$/.test(a.text)));
  const p = parseArgs(cleaned, ['-e', '--expression', '-f', '--file', '-l', '--line-length']);
  if (has(p, '-f', '--file')) return ask('sed -f runs a script file we cannot review: put the script on the command line');
  const scripts = values(p, '-e', '--expression');
  const files = [...p.pos];
  if (!scripts.length) {
    const script = files.shift();
    if (script) scripts.push(script);
  }
  if (scripts.some((s) => sedScriptIsRisky(s.text))) {
    return ask('the sed script uses w or e, which write files or run commands: a human must approve it');
  }
  if (!has(p, '-i', '--in-place')) return ALLOW;
  if (!files.length) return ask('sed -i has no file to edit: name the file');
  return worst(...files.map((f) => writeCheck(f, 'sed -i', st)));
}

const AWK_RISKY = /\bsystem\s*\(|\bprintf?\b[^;{}]*[>|]|\|\s*&?\s*getline|@(load|include)/;

export function awk(name: string, args: Word[]): Verdict {
  const programFiles = ['-f', '--file', '-i', '--include', '-l', '--load', '-E', '--exec'];
  const p = parseArgs(args, ['-F', '-v', '--field-separator', '--assign', ...programFiles]);
  if (has(p, ...programFiles)) {
    return ask(`${name} -f runs a program file we cannot review: put the program on the command line`);
  }
  if (args.some((a) => a.expands || a.opaque)) return ask(`${name} gets a program or file only known at run time: use literal arguments`);
  const program = p.pos[0]?.text ?? '';
  if (program.length > MAX_SCRIPT || AWK_RISKY.test(program)) {
    return ask(`the ${name} program uses system(), pipes or redirection, which run commands or write files: a human must approve it`);
  }
  return ALLOW;
}

const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);

const FIND_OUTPUT = new Set(['-fprint', '-fprint0', '-fprintf', '-fls']);

export function find(_name: string, args: Word[], st: State): Verdict {
  if (args.some((a) => a.expands || a.opaque)) {
    return ask('find gets an argument only known at run time, which could add -delete or -exec: use literal arguments');
  }
  const out = worst();
  let i = 0;
  while (i < args.length && /^-([HLP]|O\d*|D)$/.test(args[i].text)) i += args[i].text === '-D' ? 2 : 1;
  const starts: Word[] = [];
  while (i < args.length && !/^[-(!),]/.test(args[i].text)) starts.push(args[i++]);
  let deletes = false;
  for (; i < args.length; i++) {
    const t = args[i].text;
    if (t === '-delete') deletes = true;
    else if (FIND_EXEC.has(t)) {
      let j = i + 1;
      while (j < args.length && args[j].text !== ';' && args[j].text !== '+') j++;
      const inner = args.slice(i + 1, j).map((w) => (w.text.includes('{}') ? { ...w, glob: true } : w));
      const cwd = t === '-execdir' || t === '-okdir' ? null : st.cwd;
      add(out, st.classify.words(inner, { ...st, cwd, depth: st.depth + 1, stdin: NO_STDIN }));
      i = j;
    } else if (FIND_OUTPUT.has(t) && args[i + 1]) {
      add(out, writeCheck(args[i + 1], `find ${t}`, st));
      i++;
    }
  }
  if (deletes) {
    for (const start of starts.length ? starts : [newWord('.')]) {
      const loc = locate(start, st);
      if (['governance', 'device', 'ancestor', 'outside', 'home'].includes(loc.place)) {
        const why = 'deletes files outside the worktree or in the governance state: delete named files instead';
        add(out, deny(`find ${clip(start.text)} -delete ${why}`));
      }
    }
    add(out, ask('find -delete deletes files: a human must approve it'));
  }
  return out;
}

export function tee(name: string, args: Word[], st: State): Verdict {
  return worst(...parseArgs(args).pos.map((f) => writeCheck(f, name, st)));
}

const CREATE_VALUES: Record<string, string[]> = {
  touch: ['-d', '-r', '-t', '--date', '--reference'],
  mkdir: ['-m', '--mode'],
  truncate: ['-s', '--size', '-r', '--reference'],
};

/** touch, mkdir, truncate: every operand is written. */
export function create(name: string, args: Word[], st: State): Verdict {
  return worst(...parseArgs(args, CREATE_VALUES[name]).pos.map((f) => {
    const v = writeCheck(f, name, st);
    if (name !== 'mkdir' || v.decision !== 'deny') return v;
    // A directory the scope lies in (mkdir -p src/auth for src/auth/**) is the scope's own.
    const loc = locate(f, st);
    return loc.place === 'repo' && st.ctx.inScope(`${loc.rel}/_`) ? allow([]) : v;
  }));
}

export function remove(name: string, args: Word[], st: State): Verdict {
  const p = parseArgs(args, ['-n', '--iterations', '-s', '--size']);
  if (has(p, '--no-preserve-root')) return deny(`${name} --no-preserve-root can delete the whole system: delete named files instead`);
  const recursive = has(p, '-r', '-R', '--recursive');
  const out = worst(...p.pos.map((f) => deleteCheck(f, name, recursive, st)));
  add(out, ask(`${name} deletes files: a human must approve it`));
  return out;
}

/** cp and mv (also git mv): the destination is written; mv also moves its sources away. */
export function copyOrMove(name: string, args: Word[], st: State): Verdict {
  const p = parseArgs(args, ['-t', '--target-directory', '-S', '--suffix']);
  const dir = values(p, '-t', '--target-directory')[0];
  const moves = name.endsWith('mv');
  const out = worst();
  if (moves) for (const s of dir ? p.pos : p.pos.slice(0, -1)) add(out, writeCheck(s, name, st, 'moves'));
  add(out, destinationCheck(name, p.pos, dir, has(p, '-T', '--no-target-directory'), st));
  if (moves) add(out, ask(`${name} moves files: a human must approve it`));
  return out;
}

function destinationCheck(name: string, files: Word[], dir: Word | undefined, noTargetDir: boolean, st: State): Verdict {
  if (dir) return worst(...files.map((f) => writeCheck(childOf(dir, f), name, st)));
  if (files.length < 2) return ask(`${name} needs a source and a destination: name both`);
  const dest = files[files.length - 1];
  const sources = files.slice(0, -1);
  if (noTargetDir) return writeCheck(dest, name, st);
  if (sources.length > 1 || dest.text.endsWith('/')) return worst(...sources.map((s) => writeCheck(childOf(dest, s), name, st)));
  const asFile = writeCheck(dest, name, st);
  const asDir = writeCheck(childOf(dest, sources[0]), name, st);
  if (asFile.decision === asDir.decision) return asFile;
  if (asFile.decision !== 'allow' && asDir.decision !== 'allow') return worst(asFile, asDir);
  const either = `${clip(dest.text)} or ${clip(childOf(dest, sources[0]).text)}`;
  return ask(`${name} writes ${either}, and only one is in the scope: end a directory with /, or use -T for a file`);
}

export function link(name: string, args: Word[], st: State): Verdict {
  const p = parseArgs(args, ['-t', '--target-directory', '-S', '--suffix']);
  const dir = values(p, '-t', '--target-directory')[0];
  const out = worst();
  if (!dir && p.pos.length === 1) add(out, writeCheck(childOf(newWord('.'), p.pos[0]), name, st));
  else add(out, destinationCheck(name, p.pos, dir, has(p, '-T', '--no-target-directory'), st));
  add(out, ask(`${name} creates links, which can send later writes outside the scope: a human must approve it`));
  return out;
}

/** A chmod mode that lets anyone write: 777, o+w, a+rwx, ... */
function worldWritable(mode: string): boolean {
  if (/^[0-7]{3,4}$/.test(mode)) return (Number(mode[mode.length - 1]) & 2) !== 0;
  return mode.split(',').some((c) => /^[ugoa]*[+=][rwxXst]*w/.test(c) && !/^[ug]+[+=]/.test(c));
}

export function permissions(name: string, args: Word[], st: State): Verdict {
  const modes = name === 'chmod' ? args.filter((a) => /^-[rwxXst]+$/.test(a.text)) : [];
  const p = parseArgs(args.filter((a) => !modes.includes(a)), ['--reference']);
  const recursive = has(p, '-R', '--recursive');
  const operands = [...p.pos];
  const mode = modes.length || has(p, '--reference') ? '' : (operands.shift()?.text ?? '');
  const out = worst();
  if (name === 'chmod' && recursive && worldWritable(mode)) {
    add(out, deny(`chmod -R ${mode} makes every file writable by anyone: set narrower permissions on named files`));
  }
  for (const f of operands) {
    const loc = locate(f, st);
    if (loc.place === 'governance') {
      add(out, deny(`${name} ${clip(loc.shown)} changes the governance state: leave .git/ and .orchestration/ alone`));
    } else if (['root', 'ancestor', 'outside', 'home', 'repo', 'device'].includes(loc.place)) {
      add(out, deny(`${name} ${clip(loc.shown)} changes files outside the intent's scope: name files in the scope instead`));
    } else if (loc.place !== 'scope' && loc.place !== 'temp') {
      add(out, ask(`${name} ${clip(loc.shown)} changes a path only known at run time: use a literal path in the scope`));
    }
  }
  if (name !== 'chmod' || !operands.length || !mode || has(p, '--reference')) {
    add(out, ask(`${name} changes file permissions or owners: a human must approve it`));
  } else if (worldWritable(mode)) add(out, ask(`chmod ${clip(mode)} lets anyone write the file: a human must approve it`));
  return out;
}

export function dd(name: string, args: Word[], st: State): Verdict {
  const out = worst();
  for (const a of args) if (a.text.startsWith('of=')) add(out, writeCheck(slice(a, 3), `${name} of=`, st));
  add(out, ask(`${name} copies raw data: a human must approve it`));
  return out;
}

/** Writes files we cannot name into `dir` (an archive's contents, downloads): `dir/*` must be in the scope. */
export function intoDir(dir: Word, label: string, st: State): Verdict {
  return { ...writeCheck(childOf(dir, newWord('*')), label, st), writes: [] };
}

/** install: copies like cp (-d creates directories). */
export function install(name: string, args: Word[], st: State): Verdict {
  const p = parseArgs(args, ['-m', '--mode', '-o', '--owner', '-g', '--group', '-t', '--target-directory', '-S', '--suffix']);
  if (has(p, '-d', '--directory')) return worst(...p.pos.map((f) => writeCheck(f, `${name} -d`, st)));
  return destinationCheck(name, p.pos, values(p, '-t', '--target-directory')[0], has(p, '-T', '--no-target-directory'), st);
}

/** An rsync or scp operand on another machine: host:path, user@host:path, rsync://. */
function remote(w: Word): boolean {
  return /^[^/]*:/.test(w.text) || w.text.startsWith('rsync://');
}

const RSYNC_VALUES = [
  '-e', '--rsh', '--rsync-path', '-f', '--filter', '--exclude', '--include', '--exclude-from', '--include-from', '--files-from',
  '--log-file', '--partial-dir', '-T', '--temp-dir', '--backup-dir', '--chmod', '--chown', '-M', '--remote-option', '--suffix',
  '--compare-dest', '--copy-dest', '--link-dest', '-B', '--block-size', '--timeout', '--bwlimit', '--port', '--password-file',
];

export function rsync(name: string, args: Word[], st: State): Verdict {
  const p = parseArgs(args, RSYNC_VALUES);
  const out = worst(...values(p, '--log-file').map((w) => writeCheck(w, `${name} --log-file`, st)));
  if (has(p, '-e', '--rsh', '--rsync-path', '-M', '--remote-option')) add(out, ask(`${name} -e runs another program: a human must approve it`));
  if (p.pos.some(remote)) return worst(out, ask(`${name} copies files over the network: a human must approve it`));
  add(out, destinationCheck(name, p.pos, undefined, false, st));
  if (p.opts.some((o) => o.name.startsWith('--delete') || o.name === '--remove-source-files')) {
    add(out, ask(`${name} --delete deletes files: a human must approve it`));
  }
  return out;
}

/** Options of downloaders whose value is a file they write. */
const DOWNLOAD_OUTPUTS: Record<string, string[]> = {
  curl: ['-o', '--output', '-D', '--dump-header', '-c', '--cookie-jar', '--trace', '--trace-ascii', '--stderr', '--libcurl', '--etag-save', '--hsts', '--alt-svc'],
  wget: ['-O', '--output-document', '-o', '--output-file', '-a', '--append-output', '--save-cookies', '--warc-file'],
};

const DOWNLOAD_DIRS: Record<string, string[]> = { curl: ['--output-dir'], wget: ['-P', '--directory-prefix'] };

const DOWNLOAD_VALUES: Record<string, string[]> = {
  curl: ['-H', '--header', '-d', '--data', '--data-raw', '--data-binary', '-X', '--request', '-u', '--user', '-A', '--user-agent', '-e', '--referer', '-F', '--form', '-m', '--max-time', '-b', '--cookie', '-w', '--write-out', '-x', '--proxy', '-K', '--config', '-r', '--range', '-T', '--upload-file', '--retry', '--connect-timeout'],
  wget: ['-t', '--tries', '-T', '--timeout', '-U', '--user-agent', '--header', '-e', '--execute', '-i', '--input-file', '-w', '--wait', '-Q', '--quota', '-l', '--level'],
};

/** curl, wget: a download a human approves, refused when it writes outside the scope. */
export function download(name: string, args: Word[], st: State): Verdict {
  const outputs = DOWNLOAD_OUTPUTS[name];
  const dirs = DOWNLOAD_DIRS[name];
  const p = parseArgs(args, [...outputs, ...dirs, ...DOWNLOAD_VALUES[name]]);
  const out = worst();
  for (const o of p.opts) {
    if (!o.value || o.value.text === '-') continue;
    if (outputs.includes(o.name)) add(out, writeCheck(o.value, `${name} ${o.name}`, st));
    else if (dirs.includes(o.name)) add(out, intoDir(o.value, `${name} ${o.name}`, st));
  }
  add(out, ask(`${name} downloads from the network: a human must approve it`));
  return out;
}

const TAR_VALUES = ['-f', '--file', '-C', '--directory', '-T', '--files-from', '-X', '--exclude-from', '--exclude', '-b', '--blocking-factor', '-H', '--format', '-V', '--label', '-N', '--newer', '--owner', '--group', '--mode', '--strip-components', '--transform', '--xform'];

/** tar: creating writes the archive; extracting writes into -C (or here), files we cannot see. */
export function tar(name: string, args: Word[], st: State): Verdict {
  // `tar xzf a.tgz`: the first word may be bundled letters without a dash.
  const first = args[0];
  const norm = first && /^[A-Za-z]+$/.test(first.text) ? [{ ...first, text: `-${first.text}` }, ...args.slice(1)] : args;
  const p = parseArgs(norm, [...TAR_VALUES, ...TAR_RUNS]);
  const run = p.opts.find((o) => TAR_RUNS.includes(o.name) || o.name.startsWith('--to-command') || o.name.startsWith('--checkpoint-action'));
  if (run) return ask(`${name} ${run.name} runs another program: a human must approve it`);
  const archive = values(p, '-f', '--file')[0];
  if (has(p, '-t', '--list', '-d', '--diff', '--compare')) return ALLOW;
  if (has(p, '-x', '--extract', '--get')) {
    if (has(p, '-O', '--to-stdout')) return ALLOW;
    const dir = values(p, '-C', '--directory')[0] ?? newWord('.');
    return worst(intoDir(dir, `${name} -x`, st),
      ask(`${name} -x writes the files the archive holds, which we cannot see: a human must approve it`));
  }
  if (has(p, '-c', '--create', '-r', '--append', '-u', '--update', '-A', '--catenate', '--concatenate', '--delete')) {
    return !archive || archive.text === '-' ? ALLOW : writeCheck(archive, `${name} -f`, st);
  }
  return ask(`${name} without -c, -x or -t does something we cannot tell: a human must approve it`);
}

export function unzip(name: string, args: Word[], st: State): Verdict {
  const p = parseArgs(args, ['-d', '-x', '-P']);
  if (has(p, '-l', '-v', '-t', '-p', '-Z', '-z')) return ALLOW;
  const dir = values(p, '-d')[0] ?? newWord('.');
  return worst(intoDir(dir, `${name} -d`, st),
    ask(`${name} writes the files the archive holds, which we cannot see: a human must approve it`));
}

export function zip(name: string, args: Word[], st: State): Verdict {
  const p = parseArgs(args, ['-b', '-n', '-t', '-tt', '-x', '-i', '-P', '-Z', '-O', '--out']);
  const target = values(p, '-O', '--out')[0] ?? p.pos[0];
  if (!target) return ask(`${name} names no archive: name it`);
  const out = writeCheck(target, name, st);
  if (has(p, '-m', '--move', '-d', '--delete')) add(out, ask(`${name} -m deletes the files it archives: a human must approve it`));
  return out;
}

/** patch: with a named file or -o, that file is written; otherwise the files its diff names. */
export function patch(name: string, args: Word[], st: State): Verdict {
  const p = parseArgs(args, ['-p', '--strip', '-i', '--input', '-o', '--output', '-d', '--directory', '-r', '--reject-file', '-B', '--prefix', '-D', '--ifdef', '-F', '--fuzz', '-z', '--suffix', '-V', '--version-control']);
  if (has(p, '--dry-run', '-C', '--check')) return ALLOW;
  const out = worst(...values(p, '-o', '--output', '-r', '--reject-file').filter((w) => w.text !== '-').map((w) => writeCheck(w, `${name} -o`, st)));
  const dir = values(p, '-d', '--directory')[0];
  if (dir) add(out, intoDir(dir, `${name} -d`, st));
  if (p.pos[0] && !has(p, '-o', '--output')) add(out, writeCheck(p.pos[0], name, st));
  else if (!p.pos[0]) add(out, ask(`${name} edits the files its diff names, which we cannot see: name the file to patch, or ask a human`));
  return out;
}

/** perl -i / ruby -i edit files in place: those files must be in the scope; the code is a human's call. */
export function inPlace(name: string, args: Word[], st: State): Verdict | null {
  let script = false;
  let inplace = false;
  let i = 0;
  for (; i < args.length; i++) {
    const t = args[i].text;
    if (t === '--') {
      i++;
      break;
    }
    if (!t.startsWith('-') || t === '-') break;
    for (let k = 1; k < t.length; k++) {
      if (t[k] === 'i') {
        inplace = true; // the rest of the word is the backup suffix
        break;
      }
      if (t[k] === 'e' || t[k] === 'E') {
        script = true;
        if (k === t.length - 1) i++; // the code is the next word
        break;
      }
    }
  }
  if (!inplace) return null;
  const files = args.slice(script ? i : i + 1);
  return worst(...files.map((f) => writeCheck(f, `${name} -i`, st)), ask(`${name} runs code we cannot review: a human must approve it`));
}
