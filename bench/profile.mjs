// "Where the time goes" in a hook: node start-up, module loading, each git process, the rest.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { REPS, check, getEnv, median, run } from './util.mjs';

const PROBE = fileURLToPath(new URL('./probe/spawn-probe.mjs', import.meta.url));
const IMPORT_TIME = fileURLToPath(new URL('./probe/import-time.mjs', import.meta.url));

/**
 * Profiles the pre-commit and post-commit hooks inside item 1's timing loop. Next to each timed
 * run of a hook file (what git runs: shell wrapper → runner → node), the loop calls `extra`, which
 * runs the same hook on the same staged index (pre-commit) or the same commit (post-commit,
 * which then records that commit again: same work, the note is replaced) two more ways:
 *   - `node dist/bin/hook.cjs <hook>` directly (what the runner starts, without the shell wrappers),
 *   - the same with bench/probe/spawn-probe.mjs preloaded, which reports when user code started,
 *     every child process with its duration, and when the work ended.
 * The probed run splits its own wall time into node start-up, module loading and set-up before the
 * first git process, the git processes, the hook's own JavaScript, and process exit; the hook file
 * minus the direct run (paired within a repetition) gives the shell wrappers.
 */
export function hookProfiler(pkgDir, probeOut) {
  const entry = join(pkgDir, 'dist', 'bin', 'hook.cjs');
  const data = {};
  const of = (hook) => (data[hook] ??= { rows: { file: [], direct: [], wrappers: [], probed: [], started: [], firstGit: [], end: [], git: [], gitCount: [] }, perCmd: new Map() });
  return {
    /** Records the timed hook-file run and runs the two other ways (order alternating with `r`). */
    extra(hook, wt, env, fileMs, r, args = []) {
      const { rows, perCmd } = of(hook);
      rows.file.push(fileMs);
      const variants = {
        direct: () => run(process.execPath, [entry, hook, ...args], { cwd: wt, env }),
        probed: () => run(process.execPath, ['--import', pathToFileURL(PROBE).href, entry, hook, ...args], { cwd: wt, env: { ...env, BENCH_PROBE_OUT: probeOut } }),
      };
      for (const v of r % 2 ? ['probed', 'direct'] : ['direct', 'probed']) {
        const res = variants[v]();
        check(res.status === 0 && !/WARNING|internal error/.test(res.stderr), `${hook} (${v}) failed: ${res.stderr}`);
        rows[v].push(res.ms);
        if (v === 'direct') rows.wrappers.push(fileMs - res.ms);
        if (v !== 'probed') continue;
        const p = JSON.parse(readFileSync(probeOut, 'utf8'));
        rows.started.push(p.started);
        rows.firstGit.push(p.spawns.length ? p.spawns[0].start : p.end);
        rows.end.push(p.end);
        rows.git.push(p.spawns.reduce((n, s) => n + s.ms, 0));
        rows.gitCount.push(p.spawns.length);
        const seen = new Map();
        for (const s of p.spawns) seen.set(s.cmd, [...(seen.get(s.cmd) ?? []), s.ms]);
        for (const [cmd, xs] of seen) {
          if (!perCmd.has(cmd)) perCmd.set(cmd, { count: [], ms: [] });
          perCmd.get(cmd).count.push(xs.length);
          perCmd.get(cmd).ms.push(xs.reduce((a, b) => a + b, 0));
        }
      }
    },
    result() {
      const out = {};
      for (const [hook, { rows, perCmd }] of Object.entries(data)) {
        const m = Object.fromEntries(Object.entries(rows).map(([k, xs]) => [k, median(xs)]));
        out[hook] = {
          ...m,
          n: rows.probed.length,
          gitProcesses: [...perCmd].map(([cmd, v]) => ({ cmd, count: median(v.count), ms: median(v.ms) })),
          parts: {
            startup: m.started, // node start-up until user code runs
            loading: m.firstGit - m.started, // module loading and set-up before the first git process
            git: m.git,
            js: m.end - m.firstGit - m.git, // the hook's own JavaScript between and after git processes
            exit: m.probed - m.end, // process exit and the parent's spawn/wait
            wrappers: m.wrappers, // the shell wrapper hook, the runner script, the chained hook (paired differences)
          },
        };
      }
      return out;
    },
  };
}

/**
 * The static import graph from `file` (dynamic `import()` and createRequire are lazy and left
 * out): its own modules and the bare specifiers (packages) it imports.
 */
export function staticGraph(file) {
  const seen = new Set();
  const specs = new Set();
  const walk = (f) => {
    if (seen.has(f) || !existsSync(f)) return;
    seen.add(f);
    const src = readFileSync(f, 'utf8');
    for (const m of src.matchAll(/^\s*(?:import|export)\s+(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm)) {
      const spec = m[1];
      if (spec.startsWith('.')) walk(resolve(dirname(f), spec));
      else if (!spec.startsWith('node:')) specs.add(spec);
    }
  };
  walk(file);
  return { modules: [...seen], specs: [...specs] };
}

const pkgName = (spec) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);

/** The module each hook loads with its dynamic `import()` in dist/lib/hooks/dispatch.js. */
export function hookModules(pkgDir) {
  const src = readFileSync(join(pkgDir, 'dist', 'lib', 'hooks', 'dispatch.js'), 'utf8');
  const out = {};
  for (const m of src.matchAll(/case '([a-z-]+)':[\s\S]*?import\('\.\/([\w.-]+\.js)'\)/g)) out[m[1]] ??= m[2];
  return out;
}

/** The bundle file each hook loads with its dynamic `import()` in the bundled entry dist/bin/hook.js. */
export function bundledHookChunks(pkgDir) {
  const src = readFileSync(join(pkgDir, 'dist', 'bin', 'hook.js'), 'utf8');
  const out = {};
  for (const m of src.matchAll(/case "([a-z-]+)":[\s\S]*?import\("\.\/([\w.-]+\.js)"\)/g)) out[m[1]] ??= m[2];
  return out;
}

/**
 * Module loading of each hook, attributed (on the unbundled tsc output in dist/lib, to show what
 * each piece costs; `bundled` is what the installed hook loads: its chunk of dist/bin/): in a fresh process, import one after the other the
 * ESM loader itself (a one-line data: module), the hook entry's static graph (dist/lib/hooks/dispatch.js),
 * each package the hook's module loads statically, then the hook's own modules; a step costs only
 * what earlier steps had not loaded. Lazily loaded packages (createRequire: cosmiconfig,
 * typescript, ajv) are not in these figures; they load only when a hook needs them.
 */
export function importSteps(pkgDir, hooks = ['pre-commit', 'post-commit'], reps = REPS) {
  const lib = (m) => join(pkgDir, 'dist', 'lib', 'hooks', m);
  const url = (f) => pathToFileURL(f).href;
  const entryGraph = staticGraph(join(pkgDir, 'dist', 'cli', 'hook.js'));
  const modules = hookModules(pkgDir);
  const out = { entryModules: entryGraph.modules.length, entrySpecs: entryGraph.specs, hooks: {} };
  for (const hook of hooks) {
    const mod = modules[hook];
    // Without per-hook dynamic imports, the whole entry graph is what every hook loads.
    const root = mod ? lib(mod) : join(pkgDir, 'dist', 'cli', 'hook.js');
    const g = mod ? staticGraph(root) : entryGraph;
    const steps = [
      ['ESM loader warm-up', 'data:text/javascript,export default 0'],
      ...(mod ? [[`hook entry (dist/lib/hooks/dispatch.js, ${entryGraph.modules.length - 1} modules)`, url(lib('dispatch.js'))]] : []),
      ...g.specs.map((sp) => [`package ${pkgName(sp)}${sp === pkgName(sp) ? '' : ` (${sp})`}`, sp]),
      [`own modules of ${hook} (${mod ? `dist/lib/hooks/${mod}` : 'dist/lib/hooks/dispatch.js'} and ${g.modules.length - 1} more)`, mod ? url(root) : url(lib('dispatch.js'))],
    ];
    const samples = steps.map(() => []);
    const started = [];
    for (let r = -1; r < reps; r++) {
      const res = run(process.execPath, [IMPORT_TIME, ...steps.map((st) => st[1])], { cwd: pkgDir });
      const j = JSON.parse(res.stdout);
      if (r < 0) continue;
      started.push(j.started);
      j.steps.forEach((st, i) => samples[i].push(st.ms));
    }
    const medians = steps.map(([label], i) => ({ label, ms: median(samples[i]) }));
    const chunk = bundledHookChunks(pkgDir)[hook];
    check(chunk, `no chunk for ${hook} in dist/bin/hook.js`);
    const chunkFile = join(pkgDir, 'dist', 'bin', chunk);
    const bundled = [];
    for (let r = -1; r < reps; r++) {
      const res = run(process.execPath, [IMPORT_TIME, 'data:text/javascript,export default 0', url(chunkFile)], { cwd: pkgDir });
      if (r >= 0) bundled.push(JSON.parse(res.stdout).steps[1].ms);
    }
    out.hooks[hook] = {
      module: mod ?? null, modules: g.modules.length, steps: medians, total: medians.reduce((n, st) => n + st.ms, 0), started: median(started),
      bundled: { chunk, chunks: staticGraph(chunkFile).modules.length, ms: median(bundled) },
    };
  }
  return out;
}

/** One CLI command through the spawn probe: its child processes and timings. */
export function probeCommand(cwd, cliArgs, cli, probeOut) {
  const res = run(process.execPath, ['--import', pathToFileURL(PROBE).href, cli, ...cliArgs], { cwd, env: { ...getEnv(), BENCH_PROBE_OUT: probeOut }, allowFail: true });
  const p = JSON.parse(readFileSync(probeOut, 'utf8'));
  return { status: res.status, wall: res.ms, started: p.started, end: p.end, spawns: p.spawns };
}

/**
 * One hook run (`node dist/bin/hook.cjs <hook>`, git's hook environment) through the spawn probe;
 * with `cpuProfDir`, also under `node --cpu-prof` (its JavaScript time by module: cpuProfile()).
 */
export function probeHook(pkgDir, wt, env, hook, probeOut, cpuProfDir = null) {
  const flags = cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', cpuProfDir, '--cpu-prof-interval', '500'] : [];
  const res = run(process.execPath, [...flags, '--import', pathToFileURL(PROBE).href, join(pkgDir, 'dist', 'bin', 'hook.cjs'), hook], { cwd: wt, env: { ...env, BENCH_PROBE_OUT: probeOut }, allowFail: true });
  check(res.status === 0, `${hook} (probed) failed: ${res.stderr}`);
  const p = JSON.parse(readFileSync(probeOut, 'utf8'));
  const prof = cpuProfDir ? cpuProfile(cpuProfDir) : null;
  return { wall: res.ms, started: p.started, end: p.end, spawns: p.spawns, prof };
}

/**
 * The JavaScript time of a `--cpu-prof` profile (the newest in `dir`) by where it was spent: each
 * package under node_modules, each module of dist/, node's internals, GC, idle (waiting for child
 * processes) and the rest. Self time of the sampled functions, in ms.
 */
export function cpuProfile(dir) {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).map((f) => join(dir, f)).sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  if (!files.length) return null;
  const prof = JSON.parse(readFileSync(files[0], 'utf8'));
  const where = new Map(prof.nodes.map((n) => [n.id, n.callFrame]));
  const self = new Map();
  prof.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0) / 1000));
  const by = new Map();
  for (const [id, ms] of self) {
    const cf = where.get(id);
    const url = cf?.url ?? '';
    let key;
    if (cf?.functionName === '(idle)') key = '(idle: waiting, e.g. for a child process)';
    else if (cf?.functionName === '(garbage collector)') key = '(garbage collector)';
    else if (cf?.functionName === '(program)') key = '(program: V8 compiling and running outside JavaScript)';
    else if (/node_modules\//.test(url)) key = `package ${url.split('node_modules/').pop().split('/').slice(0, url.split('node_modules/').pop().startsWith('@') ? 2 : 1).join('/')}`;
    else if (url.includes('/dist/')) key = url.slice(url.indexOf('/dist/') + 1);
    else if (url.startsWith('node:') || (!url && cf?.functionName)) key = '(node internals and native code)';
    else if (url.includes('/bench/')) key = url.slice(url.indexOf('/bench/') + 1); // the probe; never a path of this machine
    else key = url ? '(other code)' : '(other)';
    by.set(key, (by.get(key) ?? 0) + ms);
  }
  const fns = new Map();
  for (const [id, ms] of self) {
    const cf = where.get(id);
    if (!cf?.url || !cf.url.includes('/dist/') || cf.url.includes('node_modules/')) continue;
    const key = `${cf.functionName || '(anonymous)'} (${cf.url.slice(cf.url.indexOf('/dist/') + 1)}:${cf.lineNumber + 1})`;
    fns.set(key, (fns.get(key) ?? 0) + ms);
  }
  const modules = [...by].map(([k, ms]) => ({ where: k, ms })).sort((a, b) => b.ms - a.ms);
  modules.functions = [...fns].map(([k, ms]) => ({ where: k, ms })).sort((a, b) => b.ms - a.ms).slice(0, 10);
  return modules;
}

/** A probe report summed up: child processes grouped by command, and the time outside them. */
export function summarizeProbe(p) {
  const groups = new Map();
  for (const s of p.spawns) {
    const g = groups.get(s.cmd) ?? { cmd: s.cmd, count: 0, ms: 0 };
    g.count++;
    g.ms += s.ms;
    groups.set(s.cmd, g);
  }
  const git = p.spawns.reduce((n, s) => n + s.ms, 0);
  const first = p.spawns.length ? p.spawns[0].start : p.end;
  return {
    wall: p.wall, startup: p.started, loading: first - p.started, git, js: p.end - first - git, exit: p.wall - p.end,
    processes: [...groups.values()].sort((a, b) => b.ms - a.ms),
    prof: p.prof ?? null,
    profFunctions: p.prof?.functions ?? null,
  };
}
