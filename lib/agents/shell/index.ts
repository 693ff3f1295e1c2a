/**
 * The shell-command policy: classifies a command an agent wants to run (Claude Code `Bash`, Cursor
 * `beforeShellExecution`, Cline `execute_command`, Roo Code `execute_command`) as allow, ask or
 * deny. Pure: it reads no files and runs nothing. The only way into this folder; its modules, in
 * the order a command goes through them: tokenizer (the line to words, redirections, operators),
 * parser (simple commands), classify (each simple command's verdict, the strictest wins), the
 * program rules (files, wrappers, packages, git, environment, args), placement (where a named path
 * lies and whether it may be written), tables (the policy as data), verdict and state (shared types).
 */
export { classifyCommand } from './classify.js';
export type { CommandContext, CommandDecision, CommandVerdict } from './verdict.js';
