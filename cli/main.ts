#!/usr/bin/env node
// The `intent` command line: declares the commands; each action loads one module and calls one function.
import { Command, CommanderError } from 'commander';
import { EXIT, fail } from './output.js';
import { TOOL_VERSION } from '../lib/core/index.js';

const JSON_OUTPUT = process.argv.includes('--json');

// A reader that stops early (`intent status | head`) closes the pipe: what is left to print is
// dropped, and the command still finishes what it was doing (nothing is left half-done).
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE' && e.code !== 'ERR_STREAM_DESTROYED') throw e;
  });
}

const program = new Command('intent')
  .description('Git-native governance for AI coding agents: scoped intents, enforcing hooks, Agent Trace notes.')
  .version(TOOL_VERSION)
  .exitOverride()
  // With --json a usage error is printed as JSON on stdout (main below), not as commander's text.
  .configureOutput({ outputError: (text, write) => { if (!JSON_OUTPUT) write(text); }, writeErr: (text) => { if (!JSON_OUTPUT) process.stderr.write(text); } })
  .showHelpAfterError('(run with --help for usage)')
  .addHelpText(
    'after',
    '\nExamples:\n  intent init                      # once per repository\n  intent new INT-001 --name "JWT auth" --scope "src/auth/**"   # then commit .orchestration/\n  wt=$(intent checkout INT-001) && cd "$wt"                  # work on an intent in its own worktree\n' +
      '  git commit -am "..."             # hooks enforce the scope and record the note\n  git log --notes=intents          # the audit trail\n  intent demo                      # the whole flow in a throw-away repository',
  );

program
  .command('init')
  .description('set up this repository: .orchestration/, hooks, notes config (safe to re-run)')
  .option('--agent <name...>', 'also register the agent hook adapters: claude-code, cursor, cline, gemini, codex, copilot, opencode, qwen, droid')
  .option('--json', 'print the result as JSON')
  .addHelpText('after', '\nExamples:\n  intent init\n  intent init --json\n  intent init --agent claude-code\n  intent init --agent cursor cline --json\n  intent init --agent claude-code copilot     # a team on both: Copilot runs .claude/settings.json hooks too')
  .action(async (opts: { agent?: string[]; json?: boolean }) =>
    (await import('./init.js')).run({ cwd: process.cwd(), json: !!opts.json, agents: opts.agent ?? [] }));

program
  .command('doctor')
  .description("check that intent's hooks, runners, notes config and agent configs are in place and current; --fix repairs")
  .option('--fix', "reinstall what is missing or outdated (hooks, runners, notes config, intent worktrees' hooks)")
  .option('--json', 'print {"root","ok","checks":[{"subject","ok","message"}],"fixed"?} as JSON')
  .addHelpText('after', '\nExit 0 when everything is in place, 1 otherwise.\nExamples:\n  intent doctor\n  intent doctor --fix\n  intent doctor --json')
  .action(async (opts: { fix?: boolean; json?: boolean }) => (await import('./doctor.js')).run({ cwd: process.cwd(), fix: !!opts.fix, json: !!opts.json }));

program
  .command('uninstall')
  .description('remove intent from this clone: every hook back byte for byte, its config and runners; notes and ledger kept')
  .option('--remove-data', "also delete the notes (refs/notes/intents and fetched copies), the ledger and intent's state")
  .option('--json', 'print {"root","hooks","worktrees","config","removed","yours","data"} as JSON')
  .addHelpText('after', '\nFiles `intent init` created in the work tree (.orchestration/, agent configs) are listed, not removed.\nExamples:\n  intent uninstall\n  intent uninstall --json\n  intent uninstall --remove-data')
  .action(async (opts: { removeData?: boolean; json?: boolean }) =>
    (await import('./uninstall.js')).run({ cwd: process.cwd(), removeData: !!opts.removeData, json: !!opts.json }));

program
  .command('new')
  .description('add a PENDING intent to the registry (.orchestration/active_intents.yaml), changing nothing else in the file')
  .argument('<id>', 'the new intent id: letters, digits, - and _, e.g. INT-001 (becomes branch intent/<id>)')
  .requiredOption('--name <text>', 'what the intent is for, one line')
  .requiredOption('--scope <glob...>', 'path globs the intent may edit, relative to the repository root ("!glob" takes paths back out)')
  .option('--constraint <text...>', 'rules the agent is told (intent context)')
  .option('--acceptance-check <command...>', 'shell commands `intent done` runs in the worktree; all must pass')
  .option('--json', 'print {"intent","registry","next"} as JSON')
  .addHelpText(
    'after',
    '\nThen commit the registry before `intent checkout`: intent verify and the server check every commit against the registry in the history.\n' +
      'Examples:\n  intent new INT-001 --name "JWT authentication" --scope "src/auth/**" "test/auth/**" --acceptance-check "npm test"\n' +
      '  git add .orchestration && git commit -m "Register INT-001"\n' +
      '  intent new INT-002 --name "Invoice rounding" --scope "src/billing/**" "!src/billing/legacy/**" --constraint "No new dependencies" --json',
  )
  .action(async (id: string, opts: { name: string; scope: string[]; constraint?: string[]; acceptanceCheck?: string[]; json?: boolean }) =>
    (await import('./new.js')).run({ cwd: process.cwd(), id, name: opts.name, scope: opts.scope, constraint: opts.constraint ?? [], acceptanceCheck: opts.acceptanceCheck ?? [], json: !!opts.json }));

program
  .command('checkout')
  .description("open the intent's worktree on branch intent/<id> and mark it IN_PROGRESS")
  .argument('<id>', 'intent id from .orchestration/active_intents.yaml, e.g. INT-001')
  .option('--base <rev>', 'start a new intent branch from this revision (default: HEAD)')
  .option('--path <dir>', 'where to create the worktree (default: <repo>.worktrees/<id> beside the repository)')
  .option('--strict', "refuse (nothing changed) when the scope overlaps another IN_PROGRESS intent's (default: warn)")
  .option('--allow-uncommitted', "go on when the intent (or its scope) is not in the registry committed on the base (default: refuse, REGISTRY_UNCOMMITTED)")
  .option('--no-setup', 'leave a new worktree as git makes it: no worktreeSetup, no dependency install')
  .option('--json', 'print {"intent","path","branch","created"} (and "overlaps", "setup" when any) as JSON')
  .addHelpText(
    'after',
    '\nPrints the worktree path alone on stdout, nothing when it fails: `wt=$(intent checkout X) && cd "$wt"` stops there.\n' +
      'A new worktree is made ready to run the project: the worktreeSetup setting ({"copy": [".env"], "run": "npm ci"}), or by default\n' +
      'the lockfile\'s install (npm ci, pnpm, yarn, bun) when there is a package.json; its output goes to stderr.\n' +
      'Examples:\n  wt=$(intent checkout INT-001) && cd "$wt"\n  intent checkout INT-002 --base main --json\n  intent checkout INT-003 --strict\n  intent checkout INT-004 --no-setup',
  )
  .action(async (id: string, opts: { base?: string; path?: string; strict?: boolean; allowUncommitted?: boolean; setup?: boolean; json?: boolean }) =>
    (await import('./checkout.js')).run({ cwd: process.cwd(), id, base: opts.base, path: opts.path, strict: !!opts.strict, allowUncommitted: !!opts.allowUncommitted, setup: opts.setup !== false, json: !!opts.json }));

program
  .command('context')
  .description("print the intent's <intent_context> block for an agent: scope, constraints, lessons, history, rules")
  .argument('<id>', 'intent id from .orchestration/active_intents.yaml, e.g. INT-001')
  .option('--max-bytes <n>', 'cap the block at this many UTF-8 bytes, at least 512 (default: 4096)')
  .option('--json', 'print {"intent","context","bytes"} as JSON')
  .addHelpText('after', '\nExamples:\n  intent context INT-001\n  intent context INT-001 --max-bytes 2048\n  intent context INT-001 --json')
  .action(async (id: string, opts: { maxBytes?: string; json?: boolean }) =>
    (await import('./context.js')).run({ cwd: process.cwd(), id, maxBytes: opts.maxBytes, json: !!opts.json }));

program
  .command('lesson')
  .description("append a lesson learned to the main worktree's .orchestration/AGENT.md (the shared brain)")
  .argument('<text>', 'the lesson: what happened, what to do instead; the first line or sentence becomes its title')
  .option('--intent <id>', "tag it with this intent (default: the intent worktree's own intent; elsewhere: general)")
  .option('--json', 'print {"appended","lesson","path"} as JSON')
  .addHelpText(
    'after',
    '\nExamples:\n  intent lesson "Use jose, not jsonwebtoken: it has no ESM build."\n' +
      '  intent lesson "Run the migrations before the auth tests." --intent INT-001\n  intent lesson "Lockfiles are exempt from scope checks." --intent general --json',
  )
  .action(async (text: string, opts: { intent?: string; json?: boolean }) =>
    (await import('./lesson.js')).run({ cwd: process.cwd(), text, intent: opts.intent, json: !!opts.json }));

program
  .command('expand')
  .description("ask a human to widen an intent's scope: files a scope-expansion request")
  .argument('<id>', 'intent id from .orchestration/active_intents.yaml, e.g. INT-001')
  .argument('<glob...>', 'repository-relative path globs the intent needs, e.g. "src/billing/**"')
  .requiredOption('--reason <text>', 'why the intent needs these paths (for the human who decides)')
  .option('--json', 'print the filed request as JSON')
  .addHelpText('after', '\nExamples:\n  intent expand INT-001 "src/billing/**" --reason "JWT claims carry the billing plan"\n  intent expand INT-001 src/a.ts src/b/ --reason "..." --json')
  .action(async (id: string, globs: string[], opts: { reason: string; json?: boolean }) =>
    (await import('./expand.js')).run({ cwd: process.cwd(), id, globs, reason: opts.reason, json: !!opts.json }));

program
  .command('mcp')
  .description('run an MCP server over stdio with the intent tools (for Claude Code, Cline, Cursor, ...)')
  .option('--cwd <dir>', 'the repository or worktree the server works in (default: the current directory)')
  .addHelpText('after', '\nExamples:\n  intent mcp\n  intent mcp --cwd ../repo.worktrees/INT-001\n  claude mcp add intent -- intent mcp')
  .action(async (opts: { cwd?: string }) => (await import('./mcp.js')).run({ cwd: opts.cwd ?? process.cwd() }));

program
  .command('verify')
  .description('re-check governed commits from the history alone: notes, ranges, hashes, scope, registry history, ledger chain')
  .argument('[range...]', 'git revision range(s), e.g. origin/main..HEAD (default: HEAD and every intent/* branch)')
  .option('--all', 'every commit reachable from any ref')
  .option('--no-ledger', "skip the local ledger's hash-chain check")
  .option('--notes <rev>', 'read the notes from this notes ref or commit (default: refs/notes/intents)')
  .option('--intent <id>', "treat every commit of the range as governed by this intent (a push to intent/<id>)")
  .option('--json', 'print {"ok","commits","governed","findings":[{"commit","intent","code","message","path"}]} as JSON')
  .addHelpText(
    'after',
    '\nExit codes: 0 clean, 1 findings, 2 usage.\nExamples:\n  intent verify\n  intent verify origin/main..HEAD\n  intent verify --all --json\n' +
      '  intent verify --no-ledger -- "$new" --not --all     # a server hook: what a push adds',
  )
  .action(async (range: string[], opts: { all?: boolean; ledger: boolean; notes?: string; intent?: string; json?: boolean }) =>
    (await import('./verify.js')).run({
      cwd: process.cwd(), range: opts.all ? ['--all', ...range] : range, json: !!opts.json, ledger: opts.ledger, notes: opts.notes, intent: opts.intent,
    }));

program
  .command('gate')
  .description('the authority check of a push or a pull request: identity from the host, policy only from the protected base ref')
  .option('--pre-receive', "a server's pre-receive hook: read <old> <new> <ref> lines from stdin; each ref's new commits are those its old tip and the protected branches do not reach")
  .option('--base <rev>', 'the protected base whose registry, .intentignore and authority.yaml decide (pre-receive default: refs/heads/main)')
  .option('--ref <refname>', 'CI: the ref being judged, e.g. refs/heads/intent/INT-001')
  .option('--old <rev>', 'CI: what the ref had before (default: --base)')
  .option('--new <rev>', 'CI: what the ref gets (default: HEAD)')
  .option('--pusher <name>', 'the pusher identity (default: REMOTE_USER, GL_USERNAME, GITEA_PUSHER_NAME, GITHUB_ACTOR, GITLAB_USER_LOGIN); empty or blank: no identity')
  .option('--notes <rev>', 'CI: read notes from this notes ref or commit (default: refs/notes/intents)')
  .option('--settled <rev...>', 'with --pre-receive: the history judged before (default: the protected branches as they are); the notes audit passes main as of its last run')
  .option('--identity-unknown', "with --pre-receive: nobody knows who pushed (the notes audit): leave out the identity rules, judge everything else")
  .option('--json', 'print {"ok","base","pusher","role","commits","governed","findings":[{"commit","ref","intent","code","message","next"}]} as JSON')
  .addHelpText(
    'after',
    '\nExit codes: 0 accepted, 1 refused (findings), 2 usage.\nExamples:\n  intent gate --pre-receive                 # templates/server/pre-receive\n' +
      '  intent gate --base origin/main --ref refs/heads/intent/INT-001 --new HEAD --pusher agent-1   # CI on a pull request\n' +
      '  intent gate --base "$BEFORE" --ref refs/heads/main --new "$AFTER" --json                    # CI on a push to main',
  )
  .action(async (opts: { preReceive?: boolean; base?: string; ref?: string; old?: string; new?: string; pusher?: string; notes?: string; settled?: string[]; identityUnknown?: boolean; json?: boolean }) =>
    (await import('./gate.js')).run({ cwd: process.cwd(), ...opts, preReceive: !!opts.preReceive, json: !!opts.json }));

program
  .command('carry')
  .description("give commits a host made (squash, rebase, merge commit) records derived from the commits they replace, by content")
  .argument('<commit...>', 'the new commits, e.g. main (a squash commit), main~2 main~1 main (a rebase), a merge commit')
  .option('--from <rev...>', 'the replaced commits: a range (old-base..branch-tip), commits, or the ids of commits already gone (their notes remain)')
  .option('--pr-head <rev>', "instead of --from: the pull request's head; the one commit given is what the merge button made (merge_commit_sha), and carry finds the shape (squash, rebase, merge commit, squash in a merge commit)")
  .option('--source-notes <ref...>', "also read the sources' records from these notes refs (e.g. refs/notes/intent/INT-001, where a merged pull request's records are) where refs/notes/intents has none")
  .option('--dry-run', 'say what would be carried; write nothing')
  .option('--json', 'print {"commits":[{"commit","shape","status","intent","lines":{"added","explained","ai","unexplained"}}],"sources":[...]} as JSON')
  .addHelpText(
    'after',
    '\nLines found in a source\'s model range keep that model; every other line is human. Refused when a new commit\n' +
      'changes a path no source changed, or adds no line any source recorded. A commit with a note is left as it is.\n' +
      'Exit codes: 0 done, 1 refused, 2 usage.\nExamples:\n  intent carry main --from "$BASE..$PR_HEAD"                 # a squash merge\n' +
      '  intent carry main~2 main~1 main --from "$BASE..$PR_HEAD"   # a rebase merge\n' +
      '  intent carry 3f2a9c1 --from 9b1e... 77c0...             # sources gone (branch deleted, gc): their ids\n' +
      '  intent carry main --from "$BASE..$PR_HEAD" --dry-run --json\n' +
      '  intent carry "$MERGE_COMMIT_SHA" --pr-head "$PR_HEAD_SHA"      # CI after the merge button (templates/ci/intent-carry.yml)',
  )
  .action(async (targets: string[], opts: { from?: string[]; prHead?: string; sourceNotes?: string[]; dryRun?: boolean; json?: boolean }) =>
    (await import('./carry.js')).run({ cwd: process.cwd(), targets, from: opts.from ?? [], prHead: opts.prHead, sourceNotes: opts.sourceNotes, dryRun: !!opts.dryRun, json: !!opts.json }));

program
  .command('push')
  .description("push the current branch (an intent's, or main after intent done --merge) with its notes in one atomic push (fetch, merge, retry with jitter)")
  .argument('[remote]', 'the remote (default: the branch\'s upstream remote, else origin)')
  .option('--notes <mode>', "on an intent's branch: intent (its notes ref refs/notes/intent/<ID>, which the server copies into refs/notes/intents; the default) or shared (refs/notes/intents itself, for a server whose gate predates per-intent refs; agents may not); default: git config intent.pushNotes, else intent")
  .option('--retries <n>', 'how many more times to try when the notes ref moved meanwhile (default 8)')
  .option('--json', 'print {"remote","intent","branch","mode","notesRef","attempts","notes","commit"} as JSON')
  .addHelpText('after', '\nExit codes: 0 pushed, 1 refused or failed, 2 usage.\nExamples:\n  intent push                             # in an intent worktree: intent/<ID> with refs/notes/intent/<ID>; after an amend or rebase, with a lease\n  intent push                             # in the main worktree after intent done --merge: main and the records it brings\n  intent push origin --json\n  intent push --notes shared              # an old server whose gate has no per-intent refs')
  .action(async (remote: string | undefined, opts: { notes?: string; retries?: string; json?: boolean }) =>
    (await import('./push.js')).run({ cwd: process.cwd(), remote, notes: opts.notes, retries: opts.retries, json: !!opts.json }));

program
  .command('notes')
  .description('notes maintenance on a server or in CI')
  .addHelpText('after', '\nExamples:\n  intent notes fold                  # fold every refs/notes/intent/* into refs/notes/intents\n  intent notes fold --help')
  .command('fold')
  .description('fold the per-intent notes refs (refs/notes/intent/<ID>) into refs/notes/intents: a record of intent/<ID>\'s own commits added where the commit has no note, nothing else')
  .argument('[ref...]', 'the refs to fold (default: every refs/notes/intent/*)')
  .option('--tip <rev>', "fold one ref's notes of the commits <rev> reaches (a merged pull request's head, its branch deleted) instead of those intent/<ID> reaches")
  .option('--json', 'print {"tip","added","skipped":[{"ref","commit","why"}],"refs","attempts"} as JSON')
  .addHelpText('after', '\nExamples:\n  intent notes fold                                # in the server repository (templates/server/post-receive)\n  intent notes fold refs/notes/intent/INT-001 --json\n  intent notes fold refs/notes/intent/INT-001 --tip "$HEAD_SHA"   # CI, after the pull request was checked (templates/ci/intent-carry.yml)')
  .action(async (refs: string[], opts: { tip?: string; json?: boolean }) => (await import('./notes.js')).run({ cwd: process.cwd(), refs, tip: opts.tip, json: !!opts.json }));

const attest = program
  .command('attest')
  .description('signed attestations of what the authority checked (in-toto statements in DSSE envelopes, SSH keys): written by the server, verified offline by anyone')
  .addHelpText('after', '\nExamples:\n  intent attest verify origin/main\n  intent attest sign "$old..$new" --key /etc/intent/attest_key --signer intent-server   # the server\'s post-receive');
attest
  .command('sign')
  .description("attest each commit of the range: what intent checked (intent, registry digest, scope, the note's digest, verify's findings, line credit), signed with an SSH key, on refs/notes/intent-attestations")
  .argument('<range...>', 'the commits accepted, e.g. "$old..$new" of the protected branch')
  .option('--key <file>', 'the SSH private key to sign with (ssh-keygen -Y sign)')
  .option('--signer <principal>', 'the principal the key is listed as in .orchestration/allowed_signers (default: intent-server)')
  .option('--pusher <name>', 'who pushed (default: from the host: REMOTE_USER, GL_USER, …)')
  .option('--ref <ref>', 'the protected branch the commits were accepted onto')
  .option('--force', 'sign again a commit that has an attestation')
  .option('--json', 'print {"ref","signed","kept","signer"} as JSON')
  .addHelpText('after', '\nExamples:\n  intent attest sign "$old..$new" --key /srv/keys/attest --signer intent-server --ref refs/heads/main')
  .action(async (range: string[], opts: { key?: string; signer?: string; pusher?: string; ref?: string; force?: boolean; json?: boolean }) =>
    (await import('./attest.js')).runSign({ cwd: process.cwd(), range, ...opts, force: !!opts.force, json: !!opts.json }));
attest
  .command('verify')
  .description('offline: every commit of the range has an attestation from an allowed signer whose predicate is what intent verify finds now; exit 1 otherwise')
  .argument('[range...]', 'git revision range(s) (default: HEAD)')
  .option('--allowed-signers <file>', 'an allowed-signers file (default: .orchestration/allowed_signers on main, else origin/main)')
  .option('--base <rev>', 'the protected branch whose .orchestration/allowed_signers to use')
  .option('--json', 'print {"ok","range","allowedSigners","commits","attested","signers","findings"} as JSON')
  .addHelpText('after', '\nCodes: ATTESTATION_MISSING, ATTESTATION_INVALID, ATTESTATION_SIGNER_UNKNOWN, ATTESTATION_SIGNATURE_INVALID,\nATTESTATION_SUBJECT_MISMATCH, ATTESTATION_NOTE_MISMATCH, ATTESTATION_PREDICATE_MISMATCH, ALLOWED_SIGNERS_MISSING.\n' +
    'Examples:\n  git fetch origin refs/notes/intent-attestations:refs/notes/intent-attestations\n  intent attest verify v1.0..origin/main\n  intent attest verify --json')
  .action(async (range: string[], opts: { allowedSigners?: string; base?: string; json?: boolean }) => {
    process.exitCode = (await import('./attest.js')).runVerify({ cwd: process.cwd(), range, allowedSigners: opts.allowedSigners, base: opts.base, json: !!opts.json });
  });

program
  .command('repair')
  .description('after a crash: record missing notes of governed commits, append missing ledger lines, cut a torn last ledger line')
  .argument('[range...]', 'git revision range(s) to repair (default: every local branch)')
  .option('--json', 'print {"recorded","unknown","ledgerAppended","tornBytes"} as JSON')
  .addHelpText('after', '\nExamples:\n  intent verify --all || intent repair\n  intent repair intent/INT-001 --json')
  .action(async (range: string[], opts: { json?: boolean }) => (await import('./repair.js')).run({ cwd: process.cwd(), range, json: !!opts.json }));

program
  .command('blame')
  .description('per line of a file: the commit, intent and contributor (model or human) that wrote it, found by content hash')
  .argument('<file>', 'a file in this worktree')
  .option('--json', 'print {"path","lines":[{"line","text","commit","intent","contributor","model_id","url","source","imported"}]} as JSON')
  .addHelpText('after', '\n"#" marks lines found by content hash (moved blocks keep their author), "~" lines credited by a record intent import made (another tool\'s notes, not checked by the gate); others come from git blame.\nExamples:\n  intent blame src/auth/jwt.ts\n  intent blame src/auth/jwt.ts --json')
  .action(async (file: string, opts: { json?: boolean }) => (await import('./blame.js')).run({ cwd: process.cwd(), file, json: !!opts.json }));

program
  .command('report')
  .description('write the audit as one self-contained HTML page: intents, commits, files, who wrote the lines (AI by model, human), verify findings')
  .argument('[range...]', 'git revision range(s) whose governed commits to show, e.g. origin/main..HEAD (default: HEAD and every local branch)')
  .option('--all', 'every commit reachable from any ref')
  .option('--out <file>', "where to write the page (default: report.html in intent's folder of the git dir, outside the work tree)")
  .option('--at <rev>', 'the revision whose files "lines now" describes (default: HEAD)')
  .option('--json', 'also print the report\'s data as JSON (with "path" and "bytes") instead of the path')
  .addHelpText(
    'after',
    '\nThe page needs no network (open it from disk); its tables sort and filter. Prints the path on stdout.\n' +
      'Examples:\n  intent report                                   # prints e.g. .git/intent/report.html\n  xdg-open "$(intent report)"\n  intent report --out audit.html\n' +
      '  intent report --at intent/INT-001               # lines now on an intent branch not merged yet\n  intent report origin/main..HEAD --at origin/main\n  intent report --all --json',
  )
  .action(async (range: string[], opts: { all?: boolean; out?: string; at?: string; json?: boolean }) =>
    (await import('./report.js')).run({ cwd: process.cwd(), range: opts.all ? ['--all', ...range] : range, out: opts.out, at: opts.at, json: !!opts.json }));

program
  .command('export')
  .description("write the records of the range's commits in another tool's format: git-ai's authorship logs on refs/notes/ai (Git AI Standard v3.0.0)")
  .argument('[range...]', 'git revision range(s) whose commits to export (default: HEAD)')
  .requiredOption('--format <format>', 'git-ai')
  .option('--force', 'replace a note the commit has on refs/notes/ai already (default: keep it)')
  .option('--json', 'print {"ref","written","kept","skipped","leftOut","warnings"} as JSON')
  .addHelpText(
    'after',
    "\nA model's lines go under its session (s_…::t_…), a human's under the committer (h_…); the intent is in custom_attributes.\n" +
      'Lines recorded as mixed or unknown have no key in the standard: they are left out and counted. Push refs/notes/ai yourself (git push origin refs/notes/ai).\n' +
      'Examples:\n  intent export --format git-ai\n  intent export --format git-ai origin/main..HEAD --json\n  git notes --ref=ai show HEAD',
  )
  .action(async (range: string[], opts: { format?: string; force?: boolean; json?: boolean }) =>
    (await import('./interop.js')).runExport({ cwd: process.cwd(), range, format: opts.format, force: !!opts.force, json: !!opts.json }));

program
  .command('import')
  .description("turn another tool's notes into records credited as imported (never as checked by the gate): git-ai's refs/notes/ai into refs/notes/intents-imported")
  .argument('[range...]', 'git revision range(s) whose commits to import (default: HEAD)')
  .requiredOption('--format <format>', 'git-ai')
  .option('--intent <id>', "the intent of logs that name none (default: IMPORTED); a log intent export wrote names its own")
  .option('--force', 'replace a record the commit has on refs/notes/intents-imported already (default: keep it)')
  .option('--json', 'print {"ref","written","kept","skipped","leftOut","warnings"} as JSON')
  .addHelpText(
    'after',
    "\nEach range's content hash is computed from the commit's file, so the lines are credited by content as recorded ones are.\n" +
      'Examples:\n  git fetch origin refs/notes/ai:refs/notes/ai\n  intent import --format git-ai main\n  intent import --format git-ai v1.0..main --intent LEGACY --json',
  )
  .action(async (range: string[], opts: { format?: string; intent?: string; force?: boolean; json?: boolean }) =>
    (await import('./interop.js')).runImport({ cwd: process.cwd(), range, format: opts.format, intent: opts.intent, force: !!opts.force, json: !!opts.json }));

program
  .command('stats')
  .description("added lines of the range's governed commits by who wrote them (AI per model and per agent, human), per intent, and the scope result: the report's numbers")
  .argument('[range...]', 'git revision range(s), e.g. origin/main..HEAD for a pull request (default: HEAD and every local branch, as intent report)')
  .option('--all', 'every commit reachable from any ref')
  .option('--notes <ref>', "the notes ref to read (default: refs/notes/intents; a pull request's records before the merge: refs/notes/intent/<ID>)")
  .option('--markdown', 'print the markdown a job summary or a pull request comment shows')
  .option('--json', 'print {"range","notes","commits","lines","by_model","by_agent","by_intent","scope"} as JSON')
  .addHelpText(
    'after',
    '\nExamples:\n  intent stats origin/main..HEAD\n  intent stats origin/main..HEAD --markdown >> "$GITHUB_STEP_SUMMARY"\n' +
      '  intent stats main..intent/INT-001 --notes refs/notes/intent/INT-001 --json',
  )
  .action(async (range: string[], opts: { all?: boolean; notes?: string; markdown?: boolean; json?: boolean }) =>
    (await import('./stats.js')).run({ cwd: process.cwd(), range: opts.all ? ['--all', ...range] : range, notes: opts.notes, markdown: !!opts.markdown, json: !!opts.json }));

program
  .command('map')
  .description('regenerate .orchestration/intent_map.md from the notes: per intent its files, ranges, hashes and the functions/classes touched')
  .option('--stdout', 'print the map instead of writing the file')
  .option('--json', 'print the map as JSON')
  .addHelpText('after', '\nExamples:\n  intent map\n  intent map --stdout\n  intent map --json')
  .action(async (opts: { stdout?: boolean; json?: boolean }) => (await import('./map.js')).run({ cwd: process.cwd(), json: !!opts.json, stdout: !!opts.stdout }));

program
  .command('commit')
  .description("git commit with intent's hooks on, for an agent whose shell turns git's hooks off (Gemini CLI)")
  .argument('[git-args...]', 'the arguments of git commit (-m, -a, paths, …); --no-verify and -n are refused')
  .option('--json', 'print the result as JSON (git commit prints its own output first)')
  .allowUnknownOption()
  .addHelpText(
    'after',
    '\nGemini CLI runs git with core.hooksPath blanked, so a plain git commit there gets no scope check and no note.\n' +
      'Examples:\n  intent commit -m "Add the parser"\n  intent commit -a -m "Fix the tests" --json',
  )
  .action(async (args: string[], opts: { json?: boolean }) =>
    (await import('./commit.js')).run({ cwd: process.cwd(), args: args.filter((a) => a !== '--json'), json: !!opts.json || args.includes('--json') }));

program
  .command('agent')
  .description("answer an agent's hook call (JSON on stdin): deny out-of-scope or stale writes, stage writes with credit")
  .argument('<agent>', 'claude-code | cursor | cline | gemini | codex | copilot | opencode | qwen | droid')
  .argument('<event>', 'claude-code, copilot, qwen: pre-tool-use | post-tool-use | post-tool-use-failure; codex, cline, droid: pre-tool-use | post-tool-use; gemini: before-tool | after-tool; ' +
    'opencode: tool-execute-before | tool-execute-after; cursor: pre-tool-use | before-shell-execution | before-read-file | before-mcp-execution | after-file-edit')
  .addHelpText(
    'after',
    '\nInstalled by `intent init --agent <agent>`; run by hand to see what an agent would get:\n' +
      '  echo \'{"session_id":"s","cwd":"\'"$PWD"\'","tool_name":"Write","tool_input":{"file_path":"docs/x.md","content":"x"}}\' | intent agent claude-code pre-tool-use',
  )
  .action(async (agent: string, event: string) => (await import('./agent.js')).run({ agent, event }));

program
  .command('requests')
  .description('list scope-expansion requests, pending first')
  .option('--json', 'print {"requests":[…]} as JSON')
  .addHelpText('after', '\nExamples:\n  intent requests\n  intent requests --json')
  .action(async (opts: { json?: boolean }) => (await import('./requests.js')).run({ cwd: process.cwd(), json: !!opts.json }));

program
  .command('approve')
  .description("(human, main worktree) approve a scope-expansion request: widen the intent's owned_scope in the registry")
  .argument('<request-id>', 'the request id printed by `intent expand` (see `intent requests`)')
  .option('--json', 'print {"request","intent","added","already","scope","registry"} as JSON')
  .addHelpText('after', '\nRefused from an intent worktree and from agent processes.\nExamples:\n  intent approve REQ-20261123-091500-ab12\n  intent approve REQ-20261123-091500-ab12 --json')
  .action(async (id: string, opts: { json?: boolean }) => (await import('./approve.js')).run({ cwd: process.cwd(), id, json: !!opts.json }));

program
  .command('reject')
  .description('(human, main worktree) reject a scope-expansion request; records a lesson for the intent')
  .argument('<request-id>', 'the request id printed by `intent expand` (see `intent requests`)')
  .option('--reason <text>', 'why (recorded on the request and in the lesson)')
  .option('--json', 'print {"request","intent","lesson"} as JSON')
  .addHelpText('after', '\nRefused from an intent worktree and from agent processes.\nExamples:\n  intent reject REQ-20261123-091500-ab12 --reason "billing is frozen until March"')
  .action(async (id: string, opts: { reason?: string; json?: boolean }) =>
    (await import('./reject.js')).run({ cwd: process.cwd(), id, reason: opts.reason, json: !!opts.json }));

program
  .command('done')
  .description("run the intent's acceptance checks in its worktree and mark it COMPLETED; --merge lands its branch")
  .argument('<id>', 'intent id from .orchestration/active_intents.yaml, e.g. INT-001')
  .option('--merge', "merge intent/<id> into the main worktree's branch (git merge --no-ff) after the checks pass")
  .option('--delete-branch', 'delete intent/<id> (git branch -d) once merged and its worktree removed')
  .option('--timeout <seconds>', 'how long one check may run (default: 600)')
  .option('--json', 'print the checks, merge, worktree and branch outcome as JSON')
  .addHelpText(
    'after',
    '\nThe checks are the intent\'s acceptance_checks in the registry (shell commands, e.g. acceptance_checks: ["npm test"], or\n' +
      '`intent new … --acceptance-check "npm test"`); acceptance_criteria are prose for the agent and are not run.\n' +
      'Run from the main worktree. The worktree is removed only when it is clean and its branch is merged.\n' +
      'Examples:\n  intent done INT-001\n  intent done INT-001 --merge\n  intent done INT-001 --merge --delete-branch --timeout 1200 --json',
  )
  .action(async (id: string, opts: { merge?: boolean; deleteBranch?: boolean; timeout?: string; json?: boolean }) =>
    (await import('./done.js')).run({ cwd: process.cwd(), id, merge: !!opts.merge, deleteBranch: !!opts.deleteBranch, timeout: opts.timeout, json: !!opts.json }));

program
  .command('abandon')
  .description('mark the intent ABANDONED; remove its worktree if clean; always keep its branch')
  .argument('<id>', 'intent id from .orchestration/active_intents.yaml, e.g. INT-001')
  .option('--json', 'print the status, worktree and branch outcome as JSON')
  .addHelpText('after', '\nExamples:\n  intent abandon INT-002\n  intent abandon INT-002 --json')
  .action(async (id: string, opts: { json?: boolean }) => (await import('./abandon.js')).run({ cwd: process.cwd(), id, json: !!opts.json }));

program
  .command('sync')
  .description('exchange the notes (refs/notes/intents) with a remote: fetch, merge, push without force')
  .argument('[remote]', "the remote (default: the current branch's upstream remote, else origin)")
  .option('--retries <n>', 'fetch, merge and push again up to n times when the remote moved meanwhile (default: 5)')
  .option('--json', 'print {"remote","fetched","merged","pushed","attempts","attestations"} as JSON')
  .addHelpText(
    'after',
    '\nNotes merge with git\'s "cat_sort_uniq" strategy: two different notes of one commit keep both records, one line each.\n' +
      'Examples:\n  intent sync\n  intent sync upstream\n  intent sync origin --retries 10 --json',
  )
  .action(async (remote: string | undefined, opts: { retries?: string; json?: boolean }) =>
    (await import('./sync.js')).run({ cwd: process.cwd(), remote, retries: opts.retries, json: !!opts.json }));

program
  .command('status')
  .description('every intent with its branch, worktree (clean/dirty), commits and changed lines, budget left, breaker and scope overlaps')
  .option('--json', 'print {"registry","intents":[…]} as JSON')
  .addHelpText('after', '\nExamples:\n  intent status\n  intent status --json')
  .action(async (opts: { json?: boolean }) => (await import('./status.js')).run({ cwd: process.cwd(), json: !!opts.json }));

program
  .command('reset')
  .description("(human) close an intent's circuit breaker so its commits are allowed again")
  .argument('<id>', 'intent id whose breaker opened, e.g. INT-001')
  .option('--yes', 'allow running without a terminal on stdin (scripts); never honoured in an agent process')
  .option('--json', 'print {"intent","was_open","reason","cleared_rejections"} as JSON')
  .addHelpText(
    'after',
    '\nRefused (exit 1, nothing changed) inside an intent worktree; when CLAUDE_PROJECT_DIR, CLAUDECODE=1,\n' +
      'CURSOR_TRACE_ID, any CLINE_* or INTENT_AGENT (not 0) is set; and when stdin is not a terminal unless --yes.\n' +
      'Examples:\n  intent reset INT-001\n  intent reset INT-001 --yes --json',
  )
  .action(async (id: string, opts: { yes?: boolean; json?: boolean }) =>
    (await import('./reset.js')).run({ cwd: process.cwd(), id, yes: !!opts.yes, json: !!opts.json }));

program
  .command('demo')
  .description('build a throw-away repository with two intents and show the whole governed flow')
  .option('--dir <dir>', 'build the demo repository here instead of a temporary directory')
  .option('--keep', 'keep the temporary repository afterwards')
  .option('--json', 'print {"ok","repo","report","governedCommits","rejected","hashesVerified","ledgerLines","chainIntact"} as JSON (the narration goes to stderr)')
  .addHelpText('after', '\nExamples:\n  intent demo\n  intent demo --keep\n  intent demo --json')
  .action(async (opts: { dir?: string; keep?: boolean; json?: boolean }) => (await import('./demo.js')).run({ cwd: process.cwd(), dir: opts.dir, keep: !!opts.keep, json: !!opts.json }));

// Every command but those that report on the hooks themselves (and mcp, agent: protocols on stdio;
// demo; gate: a server or CI has no local hooks) warns, in one line, when the main worktree's hooks
// are no longer intent's (a few stats, see lib/hooks/health.ts).
const QUIET = new Set(['init', 'doctor', 'uninstall', 'status', 'mcp', 'agent', 'demo', 'gate']);
program.hook('preAction', async (_program, command) => {
  if (!QUIET.has(command.name())) process.stderr.write((await import('./hooks-warning.js')).warning(process.cwd()));
});

async function main(): Promise<number> {
  try {
    await program.parseAsync(process.argv);
    return Number(process.exitCode ?? EXIT.OK);
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.exitCode === 0 || e.code === 'commander.helpDisplayed' || e.code === 'commander.version') return EXIT.OK;
      if (JSON_OUTPUT) {
        const message = `${e.message.replace(/^error: /, '')} (run with --help for usage)`;
        process.stdout.write(JSON.stringify({ error: { code: 'USAGE', message, data: { reason: e.code } } }, null, 2) + '\n');
      }
      return EXIT.USAGE;
    }
    return fail(process.argv.includes('--json'), e);
  }
}

// Not process.exit(): that ends the process before a pipe has taken all of stdout (a reader slower
// than the output, e.g. `intent blame big.ts --json | jq`, got the first 64 KiB). Setting the exit
// code lets Node drain stdout first.
process.exitCode = await main();
