import type { ArgKind } from '../types.ts';
import { flagTable, parseArgs } from './flags.ts';

/**
 * Read-only sed: no in-place editing, no script files, and a script that parses completely under
 * a strict grammar with no `w`/`W` (write), `e` (execute) or `s///w`, `s///e` flags. Reading with
 * `r`/`R` is allowed (it only reads). Anything the parser does not recognise is not read-only.
 */

const sedFlags = flagTable(
  'nErsuz',
  [
    '--quiet',
    '--silent',
    '--regexp-extended',
    '--separate',
    '--unbuffered',
    '--null-data',
    '--posix',
    '--debug',
    '--sandbox',
  ],
  'el',
  ['--expression', '--line-length'],
);

/** Commands that take no argument. */
const plainCommands = new Set(['=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F']);

class SedScanner {
  position = 0;
  depth = 0;
  /** File names the script's `r`/`R` commands read, as written. */
  readonly files: string[] = [];

  constructor(private readonly script: string) {}

  private peek(): string | undefined {
    return this.script[this.position];
  }

  private skipBlanks(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.position++;
  }

  /** Index of the closing delimiter, honouring backslash escapes; brackets optionally (BSD sed). */
  private findClose(start: number, delimiter: string, bracketAware: boolean): number {
    for (let index = start; index < this.script.length; index++) {
      const char = this.script[index];
      if (char === '\\') {
        index++;
        continue;
      }
      if (char === '\n' && delimiter !== '\n') return -1;
      if (bracketAware && char === '[') {
        const close = this.script.indexOf(']', index + 2);
        if (close === -1) return -1;
        index = close;
        continue;
      }
      if (char === delimiter) return index;
    }
    return -1;
  }

  /** Skips one delimited part; GNU and BSD sed must agree where it ends. */
  private delimited(delimiter: string): boolean {
    const start = this.position;
    const gnu = this.findClose(start, delimiter, false);
    if (gnu === -1) return false;
    if (this.script.slice(start, gnu).includes('[')) {
      const bsd = this.findClose(start, delimiter, true);
      if (bsd !== gnu) return false;
    }
    this.position = gnu + 1;
    return true;
  }

  private address(): boolean {
    const char = this.peek();
    if (char === undefined) return true;
    if (/\d/.test(char)) {
      while (/\d/.test(this.peek() ?? '')) this.position++;
      if (this.peek() === '~') {
        this.position++;
        while (/\d/.test(this.peek() ?? '')) this.position++;
      }
      return true;
    }
    if (char === '$') {
      this.position++;
      return true;
    }
    if (char === '/' || char === '\\') {
      let delimiter = '/';
      if (char === '\\') {
        this.position++;
        delimiter = this.peek() ?? '';
        if (delimiter === '' || delimiter === '\n' || delimiter === '\\') return false;
      }
      this.position++;
      if (!this.delimited(delimiter)) return false;
      while (this.peek() === 'I' || this.peek() === 'M') this.position++;
    }
    return true;
  }

  private addressRange(): boolean {
    if (!this.address()) return false;
    this.skipBlanks();
    if (this.peek() !== ',') return true;
    this.position++;
    this.skipBlanks();
    if (this.peek() === '+' || this.peek() === '~') {
      this.position++;
      if (!/\d/.test(this.peek() ?? '')) return false;
      while (/\d/.test(this.peek() ?? '')) this.position++;
      return true;
    }
    return this.address();
  }

  private restOfLine(): void {
    const newline = this.script.indexOf('\n', this.position);
    this.position = newline === -1 ? this.script.length : newline;
  }

  /** `a`, `i`, `c` text: one line, continued while it ends in an odd number of backslashes. */
  private text(): void {
    for (;;) {
      const newline = this.script.indexOf('\n', this.position);
      const end = newline === -1 ? this.script.length : newline;
      const trailing = /\\+$/.exec(this.script.slice(this.position, end))?.[0].length ?? 0;
      this.position = end;
      if (newline === -1 || trailing % 2 === 0) return;
      this.position++;
    }
  }

  private label(): boolean {
    this.skipBlanks();
    while (/[A-Za-z0-9_.-]/.test(this.peek() ?? '')) this.position++;
    return this.commandEnd();
  }

  private commandEnd(): boolean {
    this.skipBlanks();
    const char = this.peek();
    return char === undefined || char === ';' || char === '\n' || char === '}' || char === '#';
  }

  private substitute(parts: number): boolean {
    const delimiter = this.peek();
    if (delimiter === undefined || delimiter === '\n' || delimiter === '\\') return false;
    this.position++;
    for (let part = 0; part < parts; part++) if (!this.delimited(delimiter)) return false;
    if (parts === 3) return this.commandEnd();
    for (;;) {
      const flag = this.peek();
      if (flag !== undefined && /[gpiImM0-9]/.test(flag)) {
        this.position++;
        continue;
      }
      return this.commandEnd();
    }
  }

  private command(): boolean {
    const char = this.peek();
    if (char === undefined) return false;
    this.position++;
    if (char === '{') {
      this.depth++;
      return true;
    }
    if (char === '}') {
      this.depth--;
      return this.depth >= 0 && this.commandEnd();
    }
    if (plainCommands.has(char)) return this.commandEnd();
    switch (char) {
      case 'q':
      case 'Q':
      case 'l':
        this.skipBlanks();
        while (/\d/.test(this.peek() ?? '')) this.position++;
        return this.commandEnd();
      case ':':
      case 'b':
      case 't':
      case 'T':
        return this.label();
      case 's':
        return this.substitute(2);
      case 'y': {
        const delimiter = this.peek();
        if (delimiter === undefined || delimiter === '\n' || delimiter === '\\') return false;
        this.position++;
        return this.delimited(delimiter) && this.delimited(delimiter) && this.commandEnd();
      }
      case 'a':
      case 'i':
      case 'c':
        this.text();
        return true;
      case 'r':
      case 'R': {
        this.skipBlanks();
        const start = this.position;
        this.restOfLine();
        const file = this.script.slice(start, this.position);
        if (file !== '') this.files.push(file);
        return true;
      }
      default:
        // w, W, e and everything unknown.
        return false;
    }
  }

  parse(): boolean {
    for (;;) {
      while (/[\s;]/.test(this.peek() ?? '')) this.position++;
      const char = this.peek();
      if (char === undefined) return this.depth === 0;
      if (char === '#') {
        this.restOfLine();
        continue;
      }
      if (!this.addressRange()) return false;
      this.skipBlanks();
      while (this.peek() === '!') {
        this.position++;
        this.skipBlanks();
      }
      if (!this.command()) return false;
    }
  }
}

/** True when a sed script only prints, substitutes to stdout, deletes from output or reads files. */
export function isReadOnlySedScript(script: string): boolean {
  return new SedScanner(script).parse();
}

/**
 * Where a sed command line keeps its scripts and which files those scripts read with `r`/`R`:
 * `scriptIndexes` are positions in `args` holding script text (the first operand, or each `-e`
 * value), `files` the file names read. `files` is undefined when a script does not parse, so its
 * reads are unknown.
 */
export function sedScriptReads(args: readonly string[]): {
  scriptIndexes: number[];
  files: string[] | undefined;
} {
  const scriptIndexes: number[] = [];
  const scripts: string[] = [];
  let scriptFile = false;
  let firstOperand: number | undefined;
  const takeScript = (index: number, text: string) => {
    scriptIndexes.push(index);
    scripts.push(text);
  };
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] ?? '';
    if (arg === '--') {
      if (firstOperand === undefined && index + 1 < args.length) firstOperand = index + 1;
      break;
    }
    if (arg.startsWith('--')) {
      const [name = '', value] = arg.split(/=(.*)/s);
      if (name === '--expression' || name === '--file' || name === '--line-length') {
        if (value === undefined) index++;
        if (name === '--file') scriptFile = true;
        else if (name === '--expression') takeScript(index, value ?? args[index] ?? '');
      }
      continue;
    }
    if (arg.startsWith('-') && arg !== '-') {
      for (let position = 1; position < arg.length; position++) {
        const flag = arg[position] ?? '';
        if (flag === 'i') break;
        if (flag === 'e' || flag === 'f' || flag === 'l') {
          const attached = arg.slice(position + 1);
          if (attached === '') index++;
          if (flag === 'f') scriptFile = true;
          if (flag === 'e') takeScript(index, attached === '' ? (args[index] ?? '') : attached);
          break;
        }
      }
      continue;
    }
    firstOperand ??= index;
  }
  if (scripts.length === 0 && !scriptFile && firstOperand !== undefined)
    takeScript(firstOperand, args[firstOperand] ?? '');
  if (scriptFile) return { scriptIndexes, files: undefined };
  const files: string[] = [];
  for (const script of scripts) {
    const scanner = new SedScanner(script);
    if (!scanner.parse()) return { scriptIndexes, files: undefined };
    files.push(...scanner.files);
  }
  return { scriptIndexes, files };
}

/** Read-only check for `sed …` (argv without the leading `sed`). */
export function isReadOnlySed(args: readonly string[], kinds: readonly ArgKind[]): boolean {
  const parsed = parseArgs(args, kinds, { flags: sedFlags });
  if (!parsed) return false;
  const scripts = parsed.flags
    .filter((entry) => entry.flag === '-e' || entry.flag === '--expression')
    .map((entry) => entry.value ?? '');
  if (scripts.length === 0) {
    const script = parsed.operands[0];
    if (script === undefined) return false;
    scripts.push(script);
  }
  return scripts.every(isReadOnlySedScript);
}
