#!/usr/bin/env node
// The `intent` command line: declares the commands; each action loads one module and calls one function.
import { Command, CommanderError } from 'commander';
import { EXIT, fail } from './output.js';
import { TOOL_VERSION } from '../lib/version.js';

const program = new Command('intent')
  .description('Git-native governance for AI coding agents: scoped intents, enforcing hooks, Agent Trace notes.')
  .version(TOOL_VERSION)
  .exitOverride()
  .showHelpAfterError('(run with --help for usage)')
  .addHelpText(
    'after',
    '\nExamples:\n  intent init                      # once per repository\n  cd "$(intent checkout INT-001)"  # work on an intent in its own worktree\n' +
      '  git commit -am "..."             # hooks enforce the scope and record the note\n  git log --notes=intents          # the audit trail\n  intent demo                      # the whole flow in a throw-away repository',
  );

program
  .command('init')
  .description('set up this repository: .orchestration/, hooks, notes config (safe to re-run)')
  .option('--json', 'print the result as JSON')
  .addHelpText('after', '\nExamples:\n  intent init\n  intent init --json')
  .action(async (opts: { json?: boolean }) => (await import('./init.js')).run({ cwd: process.cwd(), json: !!opts.json }));

program
  .command('checkout')
  .description("open the intent's worktree on branch intent/<id> and mark it IN_PROGRESS")
  .argument('<id>', 'intent id from .orchestration/active_intents.yaml, e.g. INT-001')
  .option('--base <rev>', 'start a new intent branch from this revision (default: HEAD)')
  .option('--path <dir>', 'where to create the worktree (default: <repo>.worktrees/<id> beside the repository)')
  .option('--json', 'print {"intent","path","branch","created"} as JSON')
  .addHelpText('after', '\nExamples:\n  intent checkout INT-001\n  cd "$(intent checkout INT-001)"\n  intent checkout INT-002 --base main --json')
  .action(async (id: string, opts: { base?: string; path?: string; json?: boolean }) =>
    (await import('./checkout.js')).run({ cwd: process.cwd(), id, base: opts.base, path: opts.path, json: !!opts.json }));

program
  .command('demo')
  .description('build a throw-away repository with two intents and show the whole governed flow')
  .option('--dir <dir>', 'build the demo repository here instead of a temporary directory')
  .option('--keep', 'keep the temporary repository afterwards')
  .addHelpText('after', '\nExamples:\n  intent demo\n  intent demo --keep')
  .action(async (opts: { dir?: string; keep?: boolean }) => (await import('./demo.js')).run({ cwd: process.cwd(), dir: opts.dir, keep: !!opts.keep }));

async function main(): Promise<number> {
  try {
    await program.parseAsync(process.argv);
    return Number(process.exitCode ?? EXIT.OK);
  } catch (e) {
    if (e instanceof CommanderError) {
      return e.exitCode === 0 || e.code === 'commander.helpDisplayed' || e.code === 'commander.version' ? EXIT.OK : EXIT.USAGE;
    }
    return fail(process.argv.includes('--json'), e);
  }
}

process.exit(await main());
