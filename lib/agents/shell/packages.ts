/*
 * Package managers (npm, pnpm, yarn, bun), package runners (npx, ...) and the JavaScript tools
 * known to be safe when they do not rewrite files.
 */
import { firstOperand, has, parseArgs } from './args.js';
import { writeCheck } from './placement.js';
import { type State } from './state.js';
import { INSTALLS, NPM_READ, SAFE_SCRIPT, TEST_SCRIPTS } from './tables.js';
import { type Word, isLiteral, newWord } from './tokenizer.js';
import { ALLOW, type Verdict, ask, clip } from './verdict.js';

const NPM_VALUES = ['-C', '--dir', '--prefix', '--filter', '-F', '-w', '--workspace', '--cwd'];

export function packageManager(name: string, args: Word[], st: State): Verdict {
  let i = 0;
  while (i < args.length && args[i].text.startsWith('-')) i += NPM_VALUES.includes(args[i].text) ? 2 : 1;
  if (i >= args.length) {
    return name === 'yarn' ? ask('yarn with no command installs the dependencies: a human must approve it') : ALLOW;
  }
  const sub = args[i].text;
  const rest = args.slice(i + 1);
  if (!isLiteral(args[i])) return ask(`${name} ${clip(sub)} is only known at run time: name the command directly`);
  if (TEST_SCRIPTS.has(sub)) return ALLOW;
  if (sub === 'run' || sub === 'run-script') {
    const script = rest.find((a) => !a.text.startsWith('-'));
    if (!script || SAFE_SCRIPT.test(script.text)) return ALLOW;
    return ask(`${name} run ${clip(script.text)} runs a project script we cannot review: a human must approve it`);
  }
  if (sub === 'exec' || sub === 'x' || sub === 'dlx') return packageRunner(`${name} ${sub}`, rest, st);
  const verb = firstOperand(rest);
  if (sub === 'pkg') {
    if (verb === 'get' || verb === undefined) return ALLOW;
    if (i > 0) return ask(`${name} pkg ${clip(verb)} with a directory option changes a package.json we cannot locate: a human must approve it`);
    return writeCheck(newWord('package.json'), `${name} pkg ${clip(verb)}`, st);
  }
  if (sub === 'audit' && verb === 'fix') return ask(`${name} audit fix changes the installed packages: a human must approve it`);
  if ((sub === 'config' || sub === 'c') && !['get', 'list', 'ls', undefined].includes(verb)) {
    return ask(`${name} config ${clip(verb ?? '')} changes the configuration: a human must approve it`);
  }
  if (sub === 'version' && verb !== undefined) return ask(`${name} version bumps the version and tags a commit: a human must approve it`);
  if (['audit', 'config', 'c', 'version'].includes(sub)) return ALLOW;
  if (NPM_READ.has(sub)) return ALLOW;
  if (name !== 'npm' && SAFE_SCRIPT.test(sub)) return ALLOW;
  const tool = JS_TOOLS.get(sub);
  if (name !== 'npm' && tool) return tool(sub, rest);
  if (INSTALLS.has(sub)) return ask(`${name} ${sub} changes the installed packages: a human must approve it`);
  return ask(`${name} ${clip(sub)} may run project scripts or change packages: a human must approve it`);
}

/** npx, pnpm exec, ...: only the known tools below, and never a download (-y, -p). */
export function packageRunner(label: string, args: Word[], _st?: State): Verdict {
  let i = 0;
  for (; i < args.length && args[i].text.startsWith('-'); i++) {
    const t = args[i].text;
    if (['-y', '--yes', '-p', '--package', '-c', '--call'].includes(t) || /^--(package|call)=/.test(t)) {
      return ask(`${label} ${t} may download or run code we cannot review: add the tool as a dependency, or ask a human`);
    }
  }
  const tool = args[i];
  if (!tool) return ask(`${label} has no command: name the tool to run`);
  const handler = isLiteral(tool) ? JS_TOOLS.get(tool.text) : undefined;
  if (handler) return handler(tool.text, args.slice(i + 1));
  return ask(`${label} ${clip(tool.text)} runs a package we do not know to be safe: a human must approve it`);
}

function flagged(options: string[], why: string): (name: string, args: Word[]) => Verdict {
  return (name, args) => {
    const hit = parseArgs(args).opts.find((o) => options.some((x) => o.name === x || o.name.startsWith(`${x}.`)));
    return hit ? ask(`${name} ${hit.name} ${why}: run it without ${hit.name}, or ask a human`) : ALLOW;
  };
}

function tsc(name: string, args: Word[]): Verdict {
  const p = parseArgs(args, ['-p', '--project']);
  const noEmit = args.some((a, k) => a.text === '--noEmit' && args[k + 1]?.text !== 'false');
  const info = has(p, '-v', '--version', '-h', '--help', '--showConfig', '--listFilesOnly', '--all');
  if ((noEmit || info) && !has(p, '-b', '--build')) return ALLOW;
  return ask(`${name} without --noEmit writes compiled files: add --noEmit, or ask a human`);
}

export const JS_TOOLS = new Map<string, (name: string, args: Word[]) => Verdict>([
  ['vitest', flagged(['-u', '--update', '--outputFile'], 'rewrites snapshots or writes files')],
  ['jest', flagged(['-u', '--updateSnapshot', '--outputFile'], 'rewrites snapshots or writes files')],
  ['mocha', () => ALLOW],
  ['tsc', tsc],
  ['eslint', flagged(['--fix', '--fix-type', '-o', '--output-file'], 'rewrites or writes files')],
  ['prettier', flagged(['-w', '--write'], 'rewrites files')],
  ['biome', flagged(['--write', '--apply', '--apply-unsafe', '--fix', '--unsafe'], 'rewrites files')],
]);
