// Item 7: a registry of 10,000 intents (500 IN_PROGRESS with branches and notes, the rest
// completed, pending, blocked or abandoned), scopes overlapping the way real ones do: `intent
// status`, `intent checkout`, a governed commit and the overlap check, each next to the same
// operation with a 10-intent registry.
import { mkdtempSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';
import { runHook } from './hooks.mjs';
import {
  REPS, check, data, fastImport, genContent, genPath, git, hookContext, intent, log, registryYaml, removeTree, run, stats, syntheticRepo, writeFiles,
} from './util.mjs';

/** A small deterministic PRNG (mulberry32). */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Scopes as teams write them, over a tree of `files` generated files (src/g<k>/d<j>/f<i>.ts):
 * a folder, a few single files, a group minus one folder, a name pattern, a brace pair of
 * folders, folders that have no files yet, and now and then something broad (`src/g1/**`).
 */
function scopeFor(rand, files) {
  const groups = Math.max(1, Math.ceil(files / 1000));
  const g = Math.floor(rand() * groups);
  const d = Math.floor(rand() * 10);
  const file = () => genPath(Math.min(files - 1, g * 1000 + d * 100 + Math.floor(rand() * 100)));
  const k = rand();
  if (k < 0.35) return [`src/g${g}/d${d}/**`];
  if (k < 0.55) return [...new Set([file(), file(), file()])];
  if (k < 0.65) return [`src/g${g}/**`, `!src/g${g}/d${d}/**`];
  if (k < 0.75) return [`src/g${g}/d${d}/f${g * 1000 + d * 100 + Math.floor(rand() * 10)}*.ts`];
  if (k < 0.83) return [`src/g${g}/{d${d},d${(d + 1) % 10}}/**`];
  if (k < 0.93) return [`packages/p${Math.floor(rand() * 400)}/**`, `docs/p${Math.floor(rand() * 400)}.md`];
  if (k < 0.97) return [`src/g${g}/d${d}/**`, 'docs/**'];
  return [`src/g${g}/**`];
}

/**
 * `total` intents, `inProgress` of them IN_PROGRESS: BENCH (IN_PROGRESS, the committing intent),
 * CO (PENDING, the one the checkout benchmark opens), then generated ones.
 */
export function scaleIntents(total, inProgress, files, seed = 17) {
  const rand = prng(seed);
  const out = [{ id: 'BENCH', scope: ['src/g0/d0/**'], status: 'IN_PROGRESS' }, { id: 'CO', scope: ['src/g1/d2/**', 'docs/co.md'], status: 'PENDING' }];
  const statuses = ['COMPLETED', 'COMPLETED', 'COMPLETED', 'COMPLETED', 'COMPLETED', 'COMPLETED', 'ABANDONED', 'PENDING', 'PENDING', 'BLOCKED'];
  // IN_PROGRESS intents spread evenly through the file (registries grow at the end).
  const every = Math.max(1, Math.floor(total / inProgress));
  for (let i = 2; i < total; i++) {
    const status = i % every === 0 && out.filter((x) => x.status === 'IN_PROGRESS').length < inProgress ? 'IN_PROGRESS' : statuses[Math.floor(rand() * statuses.length)];
    out.push({ id: `INT-${String(i).padStart(5, '0')}`, scope: scopeFor(rand, files), status });
  }
  return out;
}

/** The tracked path of a scope an intent's commit edits (null: its scope has no tracked file). */
function editPath(scope, files, i) {
  for (const g of scope) {
    if (g.startsWith('!')) continue;
    const m = /^src\/g(\d+)\/(?:\{)?d(\d+)/.exec(g);
    if (m) {
      const idx = Number(m[1]) * 1000 + Number(m[2]) * 100 + (i % 100);
      if (idx < files) return genPath(idx);
    }
    if (/\.ts$/.test(g) && !g.includes('*')) return g;
  }
  return null;
}

/**
 * A repository with `files` generated files, `intent init`, the registry of `intents` (committed
 * on main), then one governed commit with a note for every COMPLETED intent (on main, so status
 * has their notes to count) and a branch `intent/<ID>` with `branchCommits` governed commits for
 * every IN_PROGRESS intent except BENCH; `worktrees` of them get a worktree through `intent
 * checkout`. BENCH's worktree is where the benchmark commits.
 */
export async function scaleRepo(dir, { files, intents, branchCommits = 2, worktrees = 0, pkg }) {
  const lib = (m) => import(pathToFileURL(join(pkg, 'dist', 'lib', m)).href);
  const [{ diffCommits }, { readBlobs }, { buildRecord, noteText }, { sha256Hex }] = await Promise.all(['git/diff.js', 'git/blobs.js', 'trace/record.js', 'trace/hashing.js'].map(lib));
  await syntheticRepo(dir, files, { checkout: false });
  intent(dir, ['init']);
  writeFiles(dir, { '.orchestration/active_intents.yaml': registryYaml(intents) });
  git(dir, ['add', '.orchestration']);
  git(dir, ['commit', '-q', '-m', `register ${intents.length} intents`]);
  const base = git(dir, ['rev-parse', 'main']).stdout.trim();
  const registryFile = join(dir, '.orchestration', 'active_intents.yaml');
  const registrySha = sha256Hex(readFileSync(registryFile));
  const t0 = Math.floor(Date.now() / 1000) - 80000;
  const marks = join(dir, '..', `${dir.split('/').pop()}-marks`);
  const made = []; // { mark, intent, parentMark | base }
  let mark = 0;
  const content = (i, tag) => {
    const lines = genContent(i).split('\n');
    lines[3] = `export const edited = ${JSON.stringify(tag)};`;
    return lines.join('\n');
  };
  const completed = intents.filter((x) => x.status === 'COMPLETED');
  const active = intents.filter((x) => x.status === 'IN_PROGRESS' && x.id !== 'BENCH');
  await fastImport(dir, async (w) => {
    // main: one commit per completed intent (those whose scope has no tracked file add one).
    let prev = null;
    for (const [k, x] of completed.entries()) {
      const m = ++mark;
      await w(`commit refs/heads/main\nmark :${m}\ncommitter Bench <bench@bench.invalid> ${t0 + k} +0000\n${data(`${x.id}: work`)}`);
      await w(prev ? `from :${prev}\n` : `from ${base}\n`);
      const p = editPath(x.scope, files, k);
      if (p) await w(`M 100644 inline ${p}\n${data(content(Number(/f(\d+)\.ts$/.exec(p)[1]), x.id))}`);
      else await w(`M 100644 inline ${x.scope[0].replace(/\*\*$/, 'index.ts').replace(/\*/g, 'x')}\n${data(`// ${x.id}\n`)}`);
      made.push({ mark: m, intent: x, parent: prev });
      prev = m;
    }
    const mainTip = prev;
    for (const [k, x] of active.entries()) {
      let parent = mainTip;
      for (let c = 0; c < branchCommits; c++) {
        const m = ++mark;
        await w(`commit refs/heads/intent/${x.id}\nmark :${m}\ncommitter Bench <bench@bench.invalid> ${t0 + completed.length + k * branchCommits + c} +0000\n${data(`${x.id}: step ${c + 1}`)}`);
        await w(parent ? `from :${parent}\n` : `from ${base}\n`);
        const p = editPath(x.scope, files, k + c);
        if (p) await w(`M 100644 inline ${p}\n${data(content(Number(/f(\d+)\.ts$/.exec(p)[1]), `${x.id}-${c}`))}`);
        else await w(`M 100644 inline ${x.scope[0].replace(/\*\*$/, `step${c}.ts`).replace(/\*/g, 'x')}\n${data(`// ${x.id} ${c}\n`)}`);
        made.push({ mark: m, intent: x, parent });
        parent = m;
      }
    }
  }, [`--export-marks=${marks}`]);
  const shas = new Map(readFileSync(marks, 'utf8').trim().split('\n').map((l) => {
    const [m, sha] = l.split(' ');
    return [Number(m.slice(1)), sha];
  }));
  const commits = made.map((c) => ({ sha: shas.get(c.mark), parent: c.parent ? shas.get(c.parent) : base, intent: c.intent }));
  const diffs = diffCommits(dir, commits);
  const blobs = readBlobs(dir, [...diffs.values()].flat().flatMap((c) => [c.oldOid, c.newOid]));
  const registry = { path: '.orchestration/active_intents.yaml', sha256: registrySha };
  const full = (x) => ({ id: x.id, name: `Benchmark intent ${x.id}`, status: x.status, owned_scope: x.scope, constraints: [], acceptance_criteria: [], related_specs: [] });
  await fastImport(dir, async (w) => {
    await w(`commit refs/notes/intents\ncommitter Bench <bench@bench.invalid> ${t0 + made.length + 1} +0000\n${data(`notes of ${made.length} governed commits`)}`);
    for (const c of commits) {
      const record = buildRecord({ sha: c.sha, parents: [c.parent], changes: diffs.get(c.sha), blobs, intent: full(c.intent), registry, scopeViolations: [] });
      await w(`N inline ${c.sha}\n${data(noteText(record))}`);
    }
  });
  git(dir, ['reset', '-q', 'main']);
  // BENCH's worktree (full checkout) and `worktrees` more.
  const wt = JSON.parse(intent(dir, ['checkout', 'BENCH', '--json']).stdout).path;
  for (const x of active.slice(0, worktrees)) intent(dir, ['checkout', x.id, '--json']);
  log(`  ${intents.length} intents (${active.length + 1} IN_PROGRESS), ${made.length} governed commits with notes, ${worktrees + 1} worktrees`);
  return { main: dir, wt, ctx: hookContext(wt), intents, worktrees: worktrees + 1 };
}

/** Stages a change of 3 files in BENCH's scope (src/g0/d0/) for round `seq`. */
function stageBench(wt, seq) {
  for (const i of [3, 40, 77]) writeFileSync(join(wt, genPath(i)), genContent(i) + `export const round = ${seq};\n`);
  git(wt, ['add', 'src']);
}

/**
 * Gives `small`'s main every file `big`'s main has and it lacks (same content; one commit): the
 * 10,000-intent history adds files (completed intents whose scope had none), and a checkout of
 * the 10-intent repository would otherwise write 16% fewer files than the same checkout in the big
 * one. Returns how many it added.
 */
export async function sameTree(small, big) {
  const list = (dir) => git(dir, ['ls-tree', '-r', '-z', '--name-only', 'main']).stdout.split('\0').filter(Boolean);
  const have = new Set(list(small));
  const missing = list(big).filter((p) => !have.has(p));
  if (!missing.length) return 0;
  const batch = spawnSync('git', ['cat-file', '--batch'], { cwd: big, input: missing.map((p) => `main:${p}\n`).join(''), maxBuffer: 1 << 30 });
  const out = batch.stdout;
  let pos = 0;
  const contents = missing.map(() => {
    const nl = out.indexOf(10, pos);
    const size = Number(out.subarray(pos, nl).toString().split(' ')[2]);
    const bytes = out.subarray(nl + 1, nl + 1 + size);
    pos = nl + 1 + size + 1;
    return bytes;
  });
  await fastImport(small, async (w) => {
    await w(`commit refs/heads/main\ncommitter Bench <bench@bench.invalid> ${Math.floor(Date.now() / 1000)} +0000\n${data('the big registry\'s tree')}from refs/heads/main^0\n`);
    for (const [i, p] of missing.entries()) {
      await w(`M 100644 inline ${p}\ndata ${contents[i].length}\n`);
      await w(contents[i]);
      await w('\n');
    }
  });
  git(small, ['reset', '-q', 'main']);
  return missing.length;
}

/**
 * Item 7. Each repetition, interleaved between the 10,000-intent repository (`big`) and the
 * 10-intent one (`small`), same tree: node -e 0 · `intent status --json` · a governed commit in
 * BENCH's worktree (pre-commit hook file, commit with hooks disabled, post-commit hook file, then a
 * real commit with every hook) · `intent checkout CO` (PENDING: new branch and worktree, registry
 * set to IN_PROGRESS), undone afterwards (worktree moved aside and pruned, branch removed, status
 * set back to PENDING with the package's own registry edit, which refreshes the registry cache as
 * checkout's does). Both repositories have the same tree (sameTree).
 * Then the overlap checks alone, in this process: every IN_PROGRESS intent's overlaps (what
 * status computes) and CO's (what checkout computes).
 */
export async function scaleOverhead(big, small, pkg, reps = REPS) {
  const lib = (m) => import(pathToFileURL(join(pkg, 'dist', 'lib', m)).href);
  const [{ setIntentStatus }, { loadRegistry, findIntent }, { overlapChecker, findOverlaps, trackedFiles }] = await Promise.all(
    ['intents/registry-edit.js', 'intents/registry.js', 'intents/overlap.js'].map(lib),
  );
  const sides = { big, small };
  const S = {};
  for (const k of Object.keys(sides)) S[k] = { node0: [], status: [], pre: [], post: [], base: [], hooked: [], added: [], checkout: [] };
  let seq = 0;
  let rows = null;
  const checkouts = [];
  for (let r = -1; r < reps; r++) {
    for (const [k, repo] of Object.entries(sides)) {
      const s = S[k];
      // The yardstick, three times (the median): at ~40 ms, one sample's noise is as large as the
      // growth this item judges.
      const node0 = stats([0, 1, 2].map(() => run(process.execPath, ['-e', '0'], { cwd: repo.main }).ms));
      const st = intent(repo.main, ['status', '--json']);
      const report = JSON.parse(st.stdout);
      check(report.intents.length === repo.intents.length, `status listed ${report.intents.length} intents, expected ${repo.intents.length}`);
      if (k === 'big') rows = report.intents;
      stageBench(repo.wt, ++seq);
      const pre = runHook(repo.ctx, repo.wt, 'pre-commit');
      const base = git(repo.wt, ['-c', 'core.hooksPath=/dev/null', 'commit', '-q', '-m', `scale ${seq}`]);
      const post = runHook(repo.ctx, repo.wt, 'post-commit');
      stageBench(repo.wt, ++seq);
      const hooked = git(repo.wt, ['commit', '-q', '-m', `scale ${seq} (hooks)`]);
      check(!/WARNING|NOT recorded|blocked/.test(hooked.stderr), `scale commit: ${hooked.stderr}`);
      // Each checkout writes its 2,300 files into a folder of its own made just before, directly
      // in the temporary directory, for both registries alike, kept until the item ends: ext4
      // gives a new file an inode by skipping, one lookup each, those deleted recently in the
      // same block group, and a worktree written beside the benchmark's repositories (thousands
      // of loose objects packed away, worktrees removed) took 5-10× longer in the kernel and
      // varied more than all that the registry's size changes.
      const coRoot = realpathSync(mkdtempSync(join(tmpdir(), 'intent-bench-checkout-')));
      checkouts.push(coRoot);
      const co = intent(repo.main, ['checkout', 'CO', '--json', '--path', join(coRoot, 'CO')]);
      const coPath = JSON.parse(co.stdout).path;
      check(JSON.parse(co.stdout).created, 'checkout CO did not create a worktree');
      // Its files stay until the item ends (see above); git forgets the worktree.
      renameSync(coPath, `${coPath}.undone`);
      git(repo.main, ['worktree', 'prune']);
      git(repo.main, ['branch', '-q', '-D', 'intent/CO']);
      setIntentStatus(join(repo.main, '.orchestration', 'active_intents.yaml'), 'CO', 'PENDING');
      if (r < 0) continue;
      s.node0.push(node0.median);
      s.status.push(st.ms);
      s.pre.push(pre.ms);
      s.post.push(post.ms);
      s.base.push(base.ms);
      s.hooked.push(hooked.ms);
      s.added.push(hooked.ms - base.ms);
      s.checkout.push(co.ms);
    }
  }
  // The overlap checks alone (the big registry).
  const registry = loadRegistry(join(big.main, '.orchestration', 'active_intents.yaml'));
  const files = trackedFiles(big.main);
  const active = registry.intents.filter((i) => i.status === 'IN_PROGRESS');
  const overlapAll = [];
  const overlapOne = [];
  let found = 0;
  for (let r = 0; r < Math.max(3, Math.min(reps, 5)); r++) {
    let t0 = performance.now();
    const checker = overlapChecker(registry.intents, files);
    found = active.reduce((n, i) => n + checker(i).length, 0);
    overlapAll.push(performance.now() - t0);
    t0 = performance.now();
    findOverlaps(findIntent(registry, 'CO'), registry.intents, files);
    overlapOne.push(performance.now() - t0);
  }
  for (const d of checkouts) removeTree(d);
  const withOverlaps = rows.filter((x) => x.overlaps.length).length;
  const out = {};
  for (const [k, s] of Object.entries(S)) out[k] = Object.fromEntries(Object.entries(s).map(([x, xs]) => [x, stats(xs)]));
  return {
    intents: big.intents.length, inProgress: active.length, files: files.length, worktrees: big.worktrees, smallIntents: small.intents.length,
    commits: rows.reduce((n, x) => n + x.commits, 0), withOverlaps, overlaps: found,
    ...out, overlapAll: stats(overlapAll), overlapOne: stats(overlapOne),
  };
}
