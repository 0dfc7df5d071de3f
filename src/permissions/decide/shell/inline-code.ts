import { awkCheck, sedCheck } from './risky-arguments.ts';

/**
 * Code in another language given on the command line (`python3 -c`, `node -e`, `perl -e`, an awk
 * program, a sed script) can run programs whose names it computes (`os.system("r" + "m x")`,
 * `system(c)`, `s/.*\/cmd/e`), so a deny rule on a command cannot see them there. The engine reads the
 * code only far enough to tell whether it can start a program at all.
 */

/** Per interpreter: the options whose value (or attached rest) is the program text. */
const inlineCodeOptions: ReadonlyArray<readonly [program: RegExp, option: RegExp]> = [
  [/^python[0-9.]*$|^pypy[0-9.]*$/, /^-[A-Za-z]*c/],
  [/^(?:node|nodejs|bun)$/, /^-[A-Za-z]*[ep]|^--(?:eval|print)(?:=|$)/],
  [/^deno$/, /^eval$/],
  [/^perl[0-9.]*$/, /^-[A-Za-z]*[eE]/],
  [/^ruby$|^jruby$/, /^-[A-Za-z]*e/],
  [/^php[0-9.]*$/, /^-[A-Za-z]*[rBRFE]|^--(?:run|process-begin|process-code|process-end)(?:=|$)/],
  [/^lua[0-9.]*$|^luajit$/, /^-[A-Za-z]*e/],
  [/^gnuplot$/, /^-[A-Za-z]*e|^--(?:eval)(?:=|$)/],
  [/^R$|^Rscript$/, /^-[A-Za-z]*e$|^--(?:expr)(?:=|$)/],
  [/^julia$/, /^-[A-Za-z]*[eE]|^--(?:eval|print)(?:=|$)/],
  [/^expect$|^tclsh[0-9.]*$/, /^-[A-Za-z]*c/],
];

/**
 * Ways each of these languages starts a program or reaches code by a computed name (which can start
 * one): process primitives, shell-outs, and dynamic import or evaluation.
 */
const startsPrograms = new RegExp(
  [
    '\\bsystem\\b',
    '\\bpopen',
    '\\bexec[a-zA-Z_]*\\b',
    '\\bspawn',
    '\\bfork\\b',
    '\\bsubprocess\\b',
    '\\bPopen\\b',
    '\\bpty\\b',
    '\\bctypes\\b',
    '\\bchild_process\\b',
    '\\bprocess\\.binding\\b',
    '\\bshell_exec\\b',
    '\\bpassthru\\b',
    '\\bproc_open\\b',
    '\\bpcntl_',
    '\\bOpen3\\b',
    '\\bIO\\.popen\\b',
    '\\bKernel\\b',
    '\\bsyscall\\b',
    '\\breadpipe\\b',
    '\\bqx\\b',
    '%x',
    '`',
    '\\beval\\b',
    '\\bcompile\\b',
    '\\b__import__\\b',
    '\\bimportlib\\b',
    '\\bgetattr\\b',
    '\\bglobals\\b',
    '\\bvars\\b',
    '\\bbuiltins\\b',
    '\\brequire\\b',
    '\\bimport\\s*\\(',
    '\\bFunction\\b',
    '\\bDeno\\.(?:run|Command)\\b',
    '\\bBun\\.spawn',
    '\\bos\\.execute\\b',
    '\\bio\\.popen\\b',
    '\\bload(?:string|file)\\b',
    '\\bspawn\\b',
    '\\brun\\s*\\(',
    '\\bsystem2\\b',
    '\\bshell\\b',
    '\\bdofile\\b',
    '\\bsend\\b',
    '\\bopen\\s*\\(?[^;]*\\|',
  ].join('|'),
);

/** The program text a subcommand gives an interpreter on its command line, if any. */
function inlineCode(name: string, args: readonly string[]): string | undefined {
  const entry = inlineCodeOptions.find(([program]) => program.test(name));
  if (!entry) return undefined;
  const [, option] = entry;
  const texts: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const word = args[index] ?? '';
    if (word === '--') break;
    if (!option.test(word)) continue;
    const equals = word.indexOf('=');
    if (word.startsWith('--') && equals !== -1) texts.push(word.slice(equals + 1));
    else texts.push(args[index + 1] ?? '', word);
  }
  return texts.length === 0 ? undefined : texts.join('\n');
}

/**
 * Why the code a subcommand carries may start a program the engine cannot name, or undefined.
 * Only asked while a deny or ask rule is in force: with none, nothing such a program could match.
 */
export function programStartingCode(argv: readonly string[]): string | undefined {
  // The code may sit after a runner the analyser does not unwrap (`busybox awk`, `find -exec python3 -c`).
  for (let index = 0; index < argv.length; index++) {
    const reason = codeOfProgramAt(argv.slice(index));
    if (reason !== undefined) return reason;
  }
  return undefined;
}

function codeOfProgramAt(argv: readonly string[]): string | undefined {
  const [program = '', ...args] = argv;
  const name = program.slice(program.lastIndexOf('/') + 1);
  if (/^(?:g|m|n|busybox-)?awk$/.test(name)) {
    return awkCheck(args) ? 'the awk program can run commands it builds itself' : undefined;
  }
  if (name === 'sed' || name === 'gsed') {
    return sedCheck(args)
      ? 'the sed script can run commands it builds itself (e, s///e) or open files it names'
      : undefined;
  }
  const code = inlineCode(name, args);
  if (code === undefined || !startsPrograms.test(code)) return undefined;
  return `the ${name} code on the command line can start programs whose names it computes`;
}
