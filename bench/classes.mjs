// Item 8: one commit of each mutation class through the hooks: an evolution, a refactor by
// comment, a formatting change, a consistent rename and a move between files. Every class but
// the evolution survives the token filter and reaches the syntax comparison (lib/ast.ts), which
// loads the TypeScript compiler.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPS, check, git, intent, run, stats, writeFiles } from './util.mjs';
import { runHook } from './hooks.mjs';

/** The TypeScript modules a class commit changes (3 per commit, in src/app/). */
const MODULES = ['session', 'billing', 'search'];

/**
 * A realistic module: imports, an interface, a class with methods, functions. `v` picks the
 * variant: `comment` adds doc comments, `style` changes quotes/commas/line breaks, `rename` renames
 * a local function and a private member consistently, `value` changes a literal (behaviour).
 * `moved` leaves `formatTotal` out (it lives in the sibling file then).
 */
export function moduleText(name, v = {}) {
  const q = v.style ? '"' : "'";
  const helper = v.rename ? 'normaliseKey' : 'cleanKey';
  const member = v.rename ? 'entries' : 'items';
  const c = (text) => (v.comment ? `${text}\n` : '');
  const lines = [
    `import { readFileSync } from ${q}node:fs${q};`,
    `import { join } from ${q}node:path${q};`,
    '',
    c(`/** One ${name} record as stored on disk. */`) + `export interface ${cap(name)}Record {`,
    '  id: string;',
    '  total: number;',
    `  tags: string[]${v.style ? ';' : ''}`,
    '}',
    '',
    c('// Keys are compared case-insensitively, without surrounding spaces.') + `function ${helper}(key: string): string {`,
    '  return key.trim().toLowerCase();',
    '}',
    '',
    c(`/** An in-memory ${name} store, loaded from a JSON file. */`) + `export class ${cap(name)}Store {`,
    `  private ${member} = new Map<string, ${cap(name)}Record>();`,
    '',
    '  constructor(private readonly dir: string) {}',
    '',
    v.style
      ? `  load(file: string): number {\n    const raw = JSON.parse(\n      readFileSync(join(this.dir, file), "utf8"),\n    ) as ${cap(name)}Record[];`
      : `  load(file: string): number {\n    const raw = JSON.parse(readFileSync(join(this.dir, file), 'utf8')) as ${cap(name)}Record[];`,
    `    for (const r of raw) this.${member}.set(${helper}(r.id), r);`,
    `    return this.${member}.size;`,
    '  }',
    '',
    c('  // Undefined when the key is unknown.') + `  get(key: string): ${cap(name)}Record | undefined {`,
    `    return this.${member}.get(${helper}(key));`,
    '  }',
    '',
    v.style ? `  tagged(tag: string): ${cap(name)}Record[] {\n    return [...this.${member}.values()].filter(\n      (r) => r.tags.includes(tag),\n    );\n  }` : `  tagged(tag: string): ${cap(name)}Record[] {\n    return [...this.${member}.values()].filter((r) => r.tags.includes(tag));\n  }`,
    '}',
    '',
    `export const LIMIT = ${v.value ?? 100};`,
    '',
    ...(v.moved ? [] : [
      c('/** The total as money text. */') + 'export function formatTotal(total: number): string {',
      `  return (total / 100).toFixed(2) + ${q} EUR${q};`,
      '}',
      '',
    ]),
    `export function over(records: ${cap(name)}Record[], limit = LIMIT): ${cap(name)}Record[] {`,
    v.style ? `  return records.filter(
    (r) => r.total > limit,
  );` : '  return records.filter((r) => r.total > limit);',
    '}',
    '',
  ];
  return lines.join('\n');
}

function cap(s) {
  return s[0].toUpperCase() + s.slice(1);
}

/** The sibling file that receives `formatTotal` in a move. */
function movedText(present, q = "'") {
  return `// Money helpers.\nexport const CURRENCY = ${q}EUR${q};\n` + (present ? `\n/** The total as money text. */\nexport function formatTotal(total: number): string {\n  return (total / 100).toFixed(2) + ${q} EUR${q};\n}\n` : '');
}

/**
 * The commit classes: each toggles between two states (so every repetition is a fresh commit of
 * that class) and names the class every changed file must get.
 */
export const CLASSES = [
  { name: 'evolution', expect: 'INTENT_EVOLUTION', files: (k) => Object.fromEntries(MODULES.map((m) => [`src/app/${m}.ts`, moduleText(m, { value: k % 2 === 1 ? 101 : 100 })])) },
  { name: 'refactor by comment', expect: 'AST_REFACTOR', files: (k) => Object.fromEntries(MODULES.map((m) => [`src/app/${m}.ts`, moduleText(m, { comment: k % 2 === 1 })])) },
  { name: 'formatting', expect: 'AST_REFACTOR', files: (k) => Object.fromEntries(MODULES.map((m) => [`src/app/${m}.ts`, moduleText(m, { style: k % 2 === 1 })])) },
  { name: 'consistent rename', expect: 'AST_REFACTOR', files: (k) => Object.fromEntries(MODULES.map((m) => [`src/app/${m}.ts`, moduleText(m, { rename: k % 2 === 1 })])) },
  {
    name: 'move between files',
    expect: 'AST_REFACTOR',
    files: (k) => ({ 'src/app/session.ts': moduleText('session', { moved: k % 2 === 1 }), 'src/app/money.ts': movedText(k % 2 === 1) }),
  },
];

/** The files every class starts from (state 0 of each), committed before the measurements. */
export function classBaseFiles() {
  return { ...Object.fromEntries(MODULES.map((m) => [`src/app/${m}.ts`, moduleText(m)])), 'src/app/money.ts': movedText(false) };
}

/** The class of each file in HEAD's note. */
function noteClasses(wt) {
  const note = git(wt, ['notes', '--ref=intents', 'show', 'HEAD']).stdout.split('\n');
  const meta = JSON.parse(note[1]).metadata['dev.intent'];
  return Object.fromEntries(Object.entries(meta.files).map(([p, f]) => [p, f.mutation_class]));
}

/**
 * A reader of post-commit's trace file: each call returns the lines written since the last one
 * (post-commit writes one, two when it waited; the `waiting` line is left out).
 */
function traceReader(traceFile) {
  let seen = 0;
  return () => {
    const lines = existsSync(traceFile) ? readFileSync(traceFile, 'utf8').split('\n').filter(Boolean) : [];
    const fresh = lines.slice(seen).map((l) => JSON.parse(l)).filter((t) => t.outcome !== 'waiting');
    seen = lines.length;
    return fresh;
  };
}

/**
 * Item 8 in the intent worktree `wt` (hook context `ctx`): for each class, `reps` timed rounds
 * (plus a warm-up) of: node -e 0 · stage the class's change · pre-commit hook file · commit with
 * hooks disabled · post-commit hook file (checked: every file got the class's mutation class) ·
 * stage the change back · a real commit with every hook (end to end, against a hooks-disabled
 * commit of the same change). Rounds alternate between the classes so drift hits all alike.
 *
 * post-commit's trace (INTENT_CLASSIFY_TRACE) is read after every commit: how the classes were
 * decided (by the hook file in its own node: `computed`; served: in the read-ahead, `syntax`).
 */
export function classCommits(wt, ctx, reps = REPS) {
  writeFiles(wt, classBaseFiles());
  git(wt, ['add', 'src/app']);
  git(wt, ['commit', '-q', '-m', 'class benchmark: base files']);
  const traceFile = join(ctx.gitDir, 'BENCH_CLASSIFY_TRACE');
  const env = { ...ctx.env, INTENT_CLASSIFY_TRACE: traceFile };
  const tctx = { ...ctx, env };
  const traced = traceReader(traceFile);
  const series = ['node0', 'pre', 'post', 'base', 'hooked', 'added'];
  const out = Object.fromEntries(CLASSES.map((c) => [c.name, {
    ...Object.fromEntries(series.map((x) => [x, []])), cpu: Object.fromEntries(series.map((x) => [x, []])),
    outcomes: {}, classes: null,
  }]));
  let k = 0;
  for (let r = -1; r < reps; r++) {
    for (const cls of CLASSES) {
      const s = out[cls.name];
      const node0 = run(process.execPath, ['-e', '0'], { cwd: wt });
      writeFiles(wt, cls.files(++k));
      git(wt, ['add', 'src/app']);
      const pre = runHook(tctx, wt, 'pre-commit');
      const base = git(wt, ['-c', 'core.hooksPath=/dev/null', 'commit', '-q', '-m', `${cls.name} ${k}`]);
      const post = runHook(tctx, wt, 'post-commit');
      const postTrace = traced();
      const classes = noteClasses(wt);
      check(Object.values(classes).every((c) => c === cls.expect), `${cls.name}: the note's classes are ${JSON.stringify(classes)}, expected ${cls.expect}`);
      s.classes = classes;
      // End to end: the change back (the same class), once with every hook, once without.
      writeFiles(wt, cls.files(++k));
      git(wt, ['add', 'src/app']);
      const hooked = git(wt, ['commit', '-q', '-m', `${cls.name} ${k} (hooks)`], { env, servers: true });
      const hookedTrace = traced();
      check(Object.values(noteClasses(wt)).every((c) => c === cls.expect), `${cls.name} (end to end): wrong class`);
      if (r < 0) continue;
      const sample = { node0, pre, post, base, hooked };
      for (const x of series.slice(0, 5)) {
        s[x].push(sample[x].ms);
        s.cpu[x].push(sample[x].cpu);
      }
      s.added.push(hooked.ms - base.ms);
      s.cpu.added.push(hooked.cpu === null || base.cpu === null ? null : hooked.cpu - base.cpu);
      for (const t of [...postTrace, ...hookedTrace]) s.outcomes[t.outcome] = (s.outcomes[t.outcome] ?? 0) + 1;
    }
  }
  return Object.fromEntries(Object.entries(out).map(([name, s]) => {
    const st = Object.fromEntries(series.map((x) => [x, stats(s[x])]));
    const cpu = s.cpu.node0.some((x) => x === null) ? null : Object.fromEntries(series.map((x) => [x, stats(s.cpu[x])]));
    return [name, {
      ...st, classes: s.classes, preRatio: st.pre.median / st.node0.median, postRatio: st.post.median / st.node0.median, addedRatio: st.added.median / st.node0.median,
      cpu: cpu && { ...cpu, preRatio: cpu.pre.median / cpu.node0.median, postRatio: cpu.post.median / cpu.node0.median, addedRatio: cpu.added.median / cpu.node0.median },
      outcomes: s.outcomes,
    }];
  }));
}

/**
 * For information: the consistent rename with no hook server, as the first commit after the
 * server's idle exit finds it (its hooks run in their own node, post-commit loads the TypeScript
 * compiler): the server is stopped before each repetition. Each repetition: node -e 0; the change
 * committed with every hook; the change back with hooks disabled.
 */
export function coldRefactor(wt, ctx, reps = Math.max(3, Math.ceil(REPS / 2))) {
  const cls = CLASSES.find((c) => c.name === 'consistent rename');
  const traceFile = join(ctx.gitDir, 'BENCH_CLASSIFY_TRACE_COLD');
  const coldEnv = { ...ctx.env, INTENT_CLASSIFY_TRACE: traceFile };
  const traced = traceReader(traceFile);
  // Start from the version the worktree does not have, so that every commit changes something.
  const [path] = Object.keys(cls.files(0));
  let k = cls.files(0)[path] === readFileSync(join(wt, path), 'utf8') ? 0 : -1;
  const s = { node0: [], added: [], outcomes: {} };
  for (let r = 0; r < reps; r++) {
    for (const pid of residentPids(wt)) {
      try { process.kill(pid, 'SIGTERM'); } catch { /* gone */ }
    }
    while (residentPids(wt).length) run('sleep', ['0.05']);
    s.node0.push(run(process.execPath, ['-e', '0'], { cwd: wt }).ms);
    writeFiles(wt, cls.files(++k));
    git(wt, ['add', 'src/app']);
    const hooked = git(wt, ['commit', '-q', '-m', `cold rename ${k}`], { env: coldEnv, servers: true });
    check(Object.values(noteClasses(wt)).every((c) => c === cls.expect), 'cold rename: wrong class');
    for (const t of traced()) s.outcomes[t.outcome] = (s.outcomes[t.outcome] ?? 0) + 1;
    writeFiles(wt, cls.files(++k));
    git(wt, ['add', 'src/app']);
    const base = git(wt, ['-c', 'core.hooksPath=/dev/null', 'commit', '-q', '-m', `cold rename ${k} back`]);
    s.added.push(hooked.ms - base.ms);
  }
  const node0 = stats(s.node0);
  const added = stats(s.added);
  return { node0, added, addedRatio: added.median / node0.median, outcomes: s.outcomes };
}

/** The live hook server of the repository at `wt` (Linux /proc; none found elsewhere). */
function residentPids(wt) {
  const state = join(git(wt, ['rev-parse', '--path-format=absolute', '--git-common-dir']).stdout.trim(), 'intent');
  if (!existsSync('/proc')) return [];
  return readdirSync('/proc').filter((d) => /^\d+$/.test(d)).filter((d) => {
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0');
      return cmd.includes('serve-hooks') && cmd.includes(join(state, 'server')) && readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
    } catch {
      return false;
    }
  }).map(Number);
}
