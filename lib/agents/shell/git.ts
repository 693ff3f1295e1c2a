/*
 * git: reads pass; what rewrites history, moves refs or the notes, switches off hooks or
 * rewrites files outside the scope is asked about or refused (see the tables in tables.ts).
 */
import { firstOperand, has, parseArgs, values } from './args.js';
import { copyOrMove, intoDir } from './files.js';
import { DANGEROUS_BASE, deleteCheck, dirAfter, locate, placeOf, writeCheck } from './placement.js';
import { type State } from './state.js';
import { GIT_ASK, GIT_DENY, GIT_READ, GOVERNED_CONFIG, HIDDEN_INDEX, NOTES_REF_RE, SAFE_GIT_OVERRIDES } from './tables.js';
import { type Word, isLiteral, newWord, slice } from './tokenizer.js';
import { ALLOW, type Verdict, add, ask, clip, deny, worst } from './verdict.js';

const GIT_GLOBAL_FLAGS = new Set([
  '--no-pager', '-p', '--paginate', '-P', '--no-replace-objects', '--literal-pathspecs', '--glob-pathspecs', '--noglob-pathspecs',
  '--icase-pathspecs', '--no-optional-locks', '--no-advice',
]);

const GIT_INFO_FLAGS = new Set(['--version', '--help', '-h', '--exec-path', '--html-path', '--man-path', '--info-path']);

const ABORTABLE = new Set(['merge', 'rebase', 'cherry-pick', 'revert', 'am']);

/** Options whose value may be built at run time, e.g. -m "$(cat <<'EOF' ... EOF)". */
const GIT_VALUE_OPTIONS = new Set([
  '-m', '--message', '-F', '--file', '--author', '--date', '--format', '--pretty', '--grep', '-S', '-G', '-t', '--template',
  '--trailer', '-b', '-B', '--orphan', '-s', '--source', '--onto', '--since', '--until', '--after', '--before', '-L', '-n',
  '--max-count', '--skip', '-C', '-c',
]);

export function git(_name: string, args: Word[], st: State): Verdict {
  const out = worst();
  let cwd = st.cwd;
  let cDir: Word | undefined;
  let i = 0;
  for (; i < args.length && args[i].text.startsWith('-'); i++) {
    const t = args[i].text;
    if (!isLiteral(args[i])) return worst(out, ask('git gets an option only known at run time: use literal options'));
    if (t === '-C') {
      const dir = args[++i];
      cDir = dir;
      cwd = dir ? dirAfter(cwd, dir) : cwd;
    } else if (t === '-c') add(out, gitConfigOverride(args[++i]?.text ?? ''));
    else if (t.startsWith('-c') && !t.startsWith('--')) add(out, gitConfigOverride(t.slice(2)));
    else if (t.startsWith('--config-env')) add(out, gitConfigOverride(t.slice(t.indexOf('=') + 1)));
    else if (/^--(git-dir|work-tree|namespace|super-prefix)\b|^--exec-path=/.test(t)) {
      return deny(`git ${clip(t)} points git at another repository or work tree, around the governance hooks: run git in the worktree`);
    } else if (GIT_INFO_FLAGS.has(t)) return out;
    else if (!GIT_GLOBAL_FLAGS.has(t)) return worst(out, ask(`git ${clip(t)} is a git option we do not know: a human must approve it`));
  }
  if (i === args.length) return out;
  const sub = args[i];
  if (!isLiteral(sub)) return worst(out, ask('the git subcommand is only known at run time: name it directly'));
  if (cwd !== st.cwd && !GIT_READ.has(sub.text)) {
    const loc = cwd === null && cDir ? locate(cDir, st) : null;
    const place = loc ? (DANGEROUS_BASE.has(loc.place) || DANGEROUS_BASE.has(loc.base) ? 'outside' : 'unknown') : cwd === null ? 'unknown' : placeOf(cwd, st).place;
    if (place === 'unknown') add(out, ask(`git -C ${clip(cwd ?? '?')} ${sub.text} works in a directory we cannot tell: a human must approve it`));
    else if (!['root', 'scope', 'repo'].includes(place)) {
      add(out, deny(`git -C ${clip(cwd ?? cDir?.text ?? '?')} ${sub.text} works on another repository, outside this worktree's governance: run git in the worktree`));
    }
  }
  add(out, gitSubcommand(sub.text, args.slice(i + 1), { ...st, cwd }));
  return out;
}

function gitConfigOverride(setting: string): Verdict {
  const key = setting.split('=')[0];
  if (/^alias\./i.test(key)) return deny(`git -c ${clip(key)} defines a git alias for this run, which hides what runs: run the git command directly`);
  if (GOVERNED_CONFIG.test(key)) return deny(`git -c ${clip(key)} changes the governance hooks or notes for this run: run git without -c`);
  if (SAFE_GIT_OVERRIDES.test(key)) return ALLOW;
  return ask(`git -c ${clip(key)} changes git's configuration for this run: a human must approve it`);
}

function isNoVerify(t: string): boolean {
  return t.startsWith('--no-v') && '--no-verify'.startsWith(t);
}

/** The first argument built at run time that is not the value of an option like -m. */
function dynamicArgument(args: Word[]): Word | null {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (!a.expands && !a.opaque) continue;
    if (GIT_VALUE_OPTIONS.has(args[i - 1]?.text ?? '')) continue;
    const eq = a.text.indexOf('=');
    if (a.text.startsWith('--') && eq > 0 && GIT_VALUE_OPTIONS.has(a.text.slice(0, eq))) continue;
    if (/^-[A-Za-z]./.test(a.text) && GIT_VALUE_OPTIONS.has(a.text.slice(0, 2))) continue;
    return a;
  }
  return null;
}

function gitSubcommand(sub: string, args: Word[], st: State): Verdict {
  const label = `git ${sub}`;
  const noVerify = args.find((a) => isNoVerify(a.text));
  if (noVerify) {
    return deny(`${label} ${noVerify.text} skips the governance hooks: ${sub === 'commit' ? 'commit' : 'run it'} without --no-verify`);
  }
  const denied = GIT_DENY.get(sub);
  if (denied) return deny(`${label} ${denied}: leave it to a human`);
  const dynamic = dynamicArgument(args);
  if (dynamic) return ask(`${label} gets the argument ${clip(dynamic.text)}, only known at run time: use literal arguments`);
  if (!GIT_READ.has(sub) && !['push', 'fetch', 'notes'].includes(sub) && args.some((a) => NOTES_REF_RE.test(a.text))) {
    return deny(`${label} touches refs/notes/intents, the Agent Trace audit trail: leave the notes to the intent tools`);
  }
  if (ABORTABLE.has(sub) && args.some((a) => a.text === '--abort' || a.text === '--quit')) return ALLOW;
  if (GIT_READ.has(sub)) return gitRead(sub, args, st);
  const rule = GIT_RULES.get(sub);
  if (rule) return rule(args, st);
  const why = GIT_ASK.get(sub);
  if (why) return ask(`${label} ${why}: a human must approve it`);
  return ask(`${label} is not a git command we know to be safe (it may be an alias): a human must approve it`);
}

function gitRead(sub: string, args: Word[], st: State): Verdict {
  const out = worst();
  for (let i = 0; i < args.length; i++) {
    const t = args[i].text;
    if (t === '--output' && args[i + 1]) add(out, writeCheck(args[i + 1], `git ${sub} --output`, st));
    else if (t.startsWith('--output=')) add(out, writeCheck(slice(args[i], 9), `git ${sub} --output`, st));
    else if (sub === 'grep' && (t.startsWith('-O') || t.startsWith('--open-files-in-pager'))) {
      add(out, ask(`git grep ${t} runs another program: a human must approve it`));
    }
  }
  return out;
}

function splitAtDashDash(args: Word[]): { before: Word[]; after: Word[] } {
  const k = args.findIndex((a) => a.text === '--');
  return k < 0 ? { before: args, after: [] } : { before: args.slice(0, k), after: args.slice(k + 1) };
}

/** A pathspec that covers every file: ., :/, *, or the worktree root itself. */
function everything(w: Word, st: State): boolean {
  if (/^(\.\/?|\*|:\/?\*?|:\(top\)\.?\/?\*?)$/.test(w.text)) return true;
  const place = locate(w, st).place;
  return place === 'root' || place === 'ancestor';
}

function gitCommit(args: Word[]): Verdict {
  const p = parseArgs(args, [
    '-m', '--message', '-F', '--file', '-C', '--reuse-message', '-c', '--reedit-message', '-t', '--template', '--author', '--date',
    '--cleanup', '--fixup', '--squash', '--trailer', '--pathspec-from-file',
  ]);
  if (has(p, '-n')) return deny('git commit -n skips the governance hooks (it means --no-verify): commit without -n');
  if (has(p, '--amend')) return ask('git commit --amend rewrites the last commit: make a new commit instead, or ask a human');
  return ALLOW;
}

function gitPush(args: Word[]): Verdict {
  const p = parseArgs(args, ['--repo', '-o', '--push-option', '--receive-pack', '--exec']);
  const force = p.opts.find((o) => ['-f', '--force', '--force-with-lease', '--force-if-includes', '--mirror'].includes(o.name));
  if (force) return deny(`git push ${force.name} can overwrite commits on the remote: push without it, or ask a human`);
  const plus = p.pos.find((w) => w.text.startsWith('+'));
  if (plus) return deny(`git push ${clip(plus.text)} force-pushes: drop the +, or ask a human`);
  const deletes = has(p, '-d', '--delete', '--prune') || p.pos.some((w) => w.text.startsWith(':'));
  if (deletes && p.pos.some((w) => NOTES_REF_RE.test(w.text))) {
    return deny('git push deleting refs/notes/intents destroys the shared audit trail: leave the notes alone');
  }
  if (deletes) return ask('git push --delete deletes branches on the remote: a human must approve it');
  return ask('git push publishes commits to the remote: a human must approve it');
}

function gitFetch(args: Word[]): Verdict {
  const p = parseArgs(args, ['--depth', '--deepen', '--shallow-since', '--shallow-exclude', '-j', '--jobs', '--upload-pack', '-o']);
  if (has(p, '--upload-pack')) return ask('git fetch --upload-pack runs another program: a human must approve it');
  if (!p.pos.some((w) => NOTES_REF_RE.test(w.text))) return ALLOW;
  if (has(p, '-f', '--force') || p.pos.some((w) => w.text.startsWith('+'))) {
    return deny('git fetch forcing refs/notes/intents overwrites the local audit trail: fetch without + or --force');
  }
  return ask('git fetch into refs/notes/intents changes the audit trail: a human must approve it');
}

function gitReset(args: Word[]): Verdict {
  const p = parseArgs(splitAtDashDash(args).before, ['--pathspec-from-file']);
  if (has(p, '--hard')) return deny('git reset --hard discards uncommitted work: commit or stash it first, or ask a human');
  const risky = p.opts.find((o) => ['--soft', '--merge', '--keep', '-p', '--patch', '--pathspec-from-file'].includes(o.name));
  if (risky) return ask(`git reset ${risky.name} moves the branch or edits the index by hand: a human must approve it`);
  if (p.pos.length === 0 || (p.pos.length === 1 && p.pos[0].text === 'HEAD')) return ALLOW;
  return ask(`git reset ${clip(p.pos[0].text)} can move the branch: unstage with git restore --staged <file>, or ask a human`);
}

function gitClean(args: Word[]): Verdict {
  const p = parseArgs(args, ['-e', '--exclude']);
  if (has(p, '-n', '--dry-run')) return ALLOW;
  if (has(p, '-f', '--force')) return deny('git clean -f deletes untracked files for good: list them with git clean -n and ask a human');
  return ask('git clean deletes untracked files: list them with git clean -n and ask a human');
}

/** A ref under refs/heads/intent/: the branches `intent checkout` and `intent done` own. */
function intentBranch(w: Word | undefined): boolean {
  return !!w && /^(refs\/heads\/)?intent\//.test(w.text);
}

/** Files a git command rewrites in the worktree: each must be in the scope. */
function pathspecWrites(label: string, paths: Word[], st: State): Verdict {
  return worst(...paths.map((w) => (/^:/.test(w.text) ? ask(`${label} ${clip(w.text)} uses pathspec magic we cannot follow: name the files`) : writeCheck(w, label, st))));
}

function gitCheckout(args: Word[], st: State): Verdict {
  const { before, after } = splitAtDashDash(args);
  const p = parseArgs(before, ['-b', '-B', '--orphan', '--conflict', '--pathspec-from-file']);
  if (has(p, '-f', '--force')) return deny('git checkout -f discards uncommitted work: commit or stash it first');
  const all = [...p.pos, ...after].find((w) => everything(w, st));
  if (all) return deny(`git checkout ${clip(all.text)} discards uncommitted changes in every file: restore the files you mean by name`);
  const created = values(p, '-b', '-B', '--orphan')[0];
  if (intentBranch(created)) return deny(`git checkout -b ${clip(created.text)} makes an intent branch by hand: intent checkout makes them`);
  const risky = p.opts.find((o) => ['-B', '--orphan', '-p', '--patch', '--pathspec-from-file'].includes(o.name));
  if (risky) return ask(`git checkout ${risky.name} resets a branch or edits files by hand: a human must approve it`);
  // `git checkout [<rev>] -- <paths>` and `git checkout <rev> <paths>` rewrite those files.
  const hasDashDash = before.length !== args.length;
  const paths = hasDashDash ? after : p.pos.length >= 2 ? p.pos.slice(1) : [];
  if (paths.length) return pathspecWrites('git checkout', paths, st);
  if (created || p.pos.length === 1) {
    const what = created ? `-b ${clip(created.text)}` : clip(p.pos[0].text);
    return ask(`git checkout ${what} switches this worktree to another branch (or restores a file): switching belongs to intent checkout, so a human must approve it; restore a file with git restore -- <file>`);
  }
  return ALLOW;
}

function gitRestore(args: Word[], st: State): Verdict {
  const p = parseArgs(args, ['-s', '--source', '--pathspec-from-file', '--conflict']);
  const worktree = has(p, '-W', '--worktree') || !has(p, '-S', '--staged');
  const all = p.pos.find((w) => everything(w, st));
  if (worktree && all) {
    return deny(`git restore ${clip(all.text)} discards uncommitted changes in every file: restore the files you mean by name`);
  }
  if (has(p, '--pathspec-from-file', '-p', '--patch')) return ask('git restore --patch edits files by hand: a human must approve it');
  return worktree ? pathspecWrites(has(p, '-s', '--source') ? 'git restore --source' : 'git restore', p.pos, st) : ALLOW;
}

function gitSwitch(args: Word[]): Verdict {
  const p = parseArgs(args, ['-c', '-C', '--create', '--force-create', '--orphan', '--conflict']);
  if (has(p, '-f', '--force', '--discard-changes')) {
    return deny('git switch --discard-changes throws away uncommitted work: commit or stash first');
  }
  const created = values(p, '-c', '-C', '--create', '--force-create', '--orphan')[0];
  if (intentBranch(created) || (!created && intentBranch(p.pos[0]))) {
    return deny(`git switch ${clip((created ?? p.pos[0]).text)} moves this worktree onto an intent branch by hand: use intent checkout`);
  }
  if (has(p, '-C', '--force-create', '--orphan')) return ask('git switch -C resets an existing branch: use -c, or ask a human');
  if (!created && !p.pos.length) return ALLOW;
  return ask('git switch moves this worktree to another branch, which changes the intent it works on: a human must approve it');
}

function gitStash(args: Word[]): Verdict {
  const verb = firstOperand(args, ['-m', '--message']) ?? 'push';
  if (verb === 'clear') return deny('git stash clear deletes every stash for good: drop stashes one by one, or ask a human');
  if (verb === 'drop') return ask('git stash drop deletes a stash: a human must approve it');
  if (['pop', 'apply', 'branch'].includes(verb)) {
    return ask(`git stash ${verb} brings back stashed changes, which may touch files outside the scope: a human must approve it`);
  }
  return ALLOW;
}

const LIST_VALUES = ['--contains', '--no-contains', '--points-at', '--sort', '--format'];

function gitBranch(args: Word[]): Verdict {
  const p = parseArgs(args, ['-u', '--set-upstream-to', '--merged', '--no-merged', ...LIST_VALUES]);
  const listing = has(p, '-l', '--list', '-a', '--all', '-r', '--remotes', '--show-current', '-v', '-vv', '--merged', '--no-merged', ...LIST_VALUES);
  const intentRef = listing ? undefined : p.pos.find((w) => intentBranch(w));
  if (intentRef) {
    return deny(`git branch ${clip(intentRef.text)} creates, moves or deletes an intent branch by hand: intent checkout and intent done own them`);
  }
  const del = has(p, '-d', '--delete');
  if (has(p, '-D') || (del && has(p, '-f', '--force'))) {
    return deny('git branch -D deletes a branch even with unmerged commits: merge it first, or ask a human');
  }
  if (del) return ask('git branch -d deletes a branch: a human must approve it');
  const risky = p.opts.find((o) => ['-m', '-M', '--move', '-c', '-C', '--copy', '-f', '--force', '--edit-description'].includes(o.name));
  if (risky) return ask(`git branch ${risky.name} renames, copies or resets a branch: a human must approve it`);
  return ALLOW;
}

function gitTag(args: Word[]): Verdict {
  const p = parseArgs(args, ['-m', '--message', '-F', '--file', '-u', '--local-user', ...LIST_VALUES]);
  if (has(p, '-d', '--delete')) return ask('git tag -d deletes a tag: a human must approve it');
  const creates = has(p, '-a', '-s', '-f', '-m', '-F', '--annotate', '--sign', '--force', '--message', '--file');
  if (has(p, '-l', '--list') || (!p.pos.length && !creates)) return ALLOW;
  return ask('git tag creates or moves a tag: a human must approve it');
}

function gitConfig(args: Word[]): Verdict {
  const p = parseArgs(args, ['-f', '--file', '--blob', '--type', '--default', '--comment']);
  let pos = p.pos;
  let verb = '';
  if (pos[0] && ['get', 'list', 'set', 'unset', 'rename-section', 'remove-section', 'edit'].includes(pos[0].text)) {
    verb = pos[0].text;
    pos = pos.slice(1);
  }
  const writes = has(p, '--add', '--unset', '--unset-all', '--replace-all', '--rename-section', '--remove-section', '-e', '--edit');
  const reads = has(p, '--get', '--get-all', '--get-regexp', '--get-urlmatch', '--get-color', '--get-colorbool', '-l', '--list');
  if (verb === 'get' || verb === 'list' || reads || (!verb && !writes && pos.length <= 1)) return ALLOW;
  const key = pos[0]?.text ?? '';
  if (GOVERNED_CONFIG.test(key)) {
    return deny(`git config ${clip(key)} changes how the governance hooks or notes work: leave it as intent init set it`);
  }
  return ask(`git config ${clip(key || verb)} changes the repository configuration: a human must approve it`);
}

function gitNotes(args: Word[]): Verdict {
  const verb = firstOperand(args, ['--ref']) ?? 'list';
  if (verb === 'list' || verb === 'show' || verb === 'get-ref') return ALLOW;
  return deny(`git notes ${clip(verb)} changes the Agent Trace notes, the audit trail: leave the notes to the intent tools`);
}

function gitWorktree(args: Word[]): Verdict {
  const verb = firstOperand(args) ?? '';
  if (verb === 'list') return ALLOW;
  if (verb === 'remove' || verb === 'prune') {
    return deny(`git worktree ${verb} deletes a worktree and the uncommitted work in it: ask a human`);
  }
  if (verb === 'add') return ask('git worktree add creates a worktree outside the intent tools: use intent checkout, or ask a human');
  return ask(`git worktree ${clip(verb)} changes the worktrees: a human must approve it`);
}

function gitReflog(args: Word[]): Verdict {
  const verb = firstOperand(args, ['-n']) ?? 'show';
  if (verb === 'expire' || verb === 'delete') return deny(`git reflog ${verb} destroys the record of lost work: leave the reflog alone`);
  return ALLOW;
}

function gitRemote(args: Word[]): Verdict {
  const verb = firstOperand(args);
  if (verb === undefined || verb === 'show' || verb === 'get-url') return ALLOW;
  return ask(`git remote ${clip(verb)} changes the remotes: a human must approve it`);
}

function gitRm(args: Word[], st: State): Verdict {
  const p = parseArgs(args, ['--pathspec-from-file']);
  if (has(p, '--cached')) return ALLOW;
  const recursive = has(p, '-r');
  const out = worst(...p.pos.map((f) => deleteCheck(f, 'git rm', recursive, st)));
  for (const f of p.pos) {
    const loc = locate(f, st);
    if (loc.place === 'repo') add(out, deny(`git rm deletes ${clip(loc.shown)}, which is outside the intent's scope: delete only files in the scope, or ask to widen it`));
  }
  add(out, ask('git rm deletes files: a human must approve it'));
  return out;
}

function gitUpdateIndex(args: Word[]): Verdict {
  const hit = args.find((a) => HIDDEN_INDEX.includes(a.text));
  if (hit) return deny(`git update-index ${hit.text} writes or hides index entries around the scope check: stage files with git add`);
  return ask('git update-index edits the index directly: stage files with git add, or ask a human');
}

function gitArchive(args: Word[], st: State): Verdict {
  const p = parseArgs(args, ['-o', '--output', '--format', '--prefix', '--remote', '--exec', '--add-file', '--add-virtual-file']);
  if (has(p, '--remote', '--exec')) return ask('git archive --remote runs on another repository: a human must approve it');
  return worst(...values(p, '-o', '--output').map((w) => writeCheck(w, 'git archive -o', st)));
}

function gitBundle(args: Word[], st: State): Verdict {
  const p = parseArgs(args, ['--version']);
  const verb = p.pos[0]?.text;
  if (verb === 'verify' || verb === 'list-heads') return ALLOW;
  if (verb === 'create' && p.pos[1]) return p.pos[1].text === '-' ? ALLOW : writeCheck(p.pos[1], 'git bundle create', st);
  return ask(`git bundle ${clip(verb ?? '')} changes the repository: a human must approve it`);
}

function gitFormatPatch(args: Word[], st: State): Verdict {
  const p = parseArgs(args, ['-o', '--output-directory', '--output', '-v', '--reroll-count', '--subject-prefix', '--in-reply-to', '--to', '--cc', '--from', '--base', '--start-number', '--suffix']);
  if (has(p, '--stdout')) return ALLOW;
  const dirs = values(p, '-o', '--output-directory');
  const files = values(p, '--output');
  if (!dirs.length && !files.length) dirs.push(newWord('.'));
  return worst(...dirs.map((d) => intoDir(d, 'git format-patch', st)), ...files.map((f) => writeCheck(f, 'git format-patch --output', st)));
}

function gitRebase(args: Word[]): Verdict {
  if (args.some((a) => a.text === '-x' || a.text.startsWith('--exec'))) {
    return ask('git rebase --exec runs commands on every commit: ask a human');
  }
  return ask('git rebase rewrites history: a human must approve it');
}

function gitSymbolicRef(args: Word[]): Verdict {
  const p = parseArgs(args, ['-m']);
  if (p.pos.length >= 2 || has(p, '-d', '--delete')) return ask('git symbolic-ref changes where a ref points: a human must approve it');
  return ALLOW;
}

const GIT_RULES = new Map<string, (args: Word[], st: State) => Verdict>([
  ['add', () => ALLOW],
  ['commit', gitCommit],
  ['push', gitPush],
  ['fetch', gitFetch],
  ['reset', gitReset],
  ['clean', gitClean],
  ['checkout', gitCheckout],
  ['restore', gitRestore],
  ['switch', gitSwitch],
  ['stash', gitStash],
  ['branch', gitBranch],
  ['tag', gitTag],
  ['config', gitConfig],
  ['notes', gitNotes],
  ['worktree', gitWorktree],
  ['reflog', gitReflog],
  ['remote', gitRemote],
  ['rm', gitRm],
  ['mv', (args, st) => copyOrMove('git mv', args, st)],
  ['rebase', gitRebase],
  ['update-index', gitUpdateIndex],
  ['archive', gitArchive],
  ['bundle', gitBundle],
  ['format-patch', gitFormatPatch],
  ['symbolic-ref', gitSymbolicRef],
]);
