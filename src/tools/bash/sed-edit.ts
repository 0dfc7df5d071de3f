import { parseSedScript, runSedProgram, type SedProgram } from './sed-script.ts';

/** A `sed -i` command efferent can simulate: one file, one supported script. */
export interface SedEditCommand {
  /** The file operand as written (relative to the command's cwd). */
  file: string;
  program: SedProgram;
}

/**
 * Recognises `sed -i [-E|-r] [-n] [-e SCRIPT]... [SCRIPT] FILE` from its argv (quotes already
 * removed). Backup suffixes (`-i.bak`, `-iE`), other options, several files or no file give undefined.
 */
export function parseSedEditArgv(argv: readonly string[]): SedEditCommand | undefined {
  if (argv[0] !== 'sed') return undefined;
  let inPlace = false;
  let extended = false;
  let quiet = false;
  const scripts: string[] = [];
  const operands: string[] = [];
  let index = 1;
  let optionsDone = false;
  while (index < argv.length) {
    const arg = argv[index++] as string;
    if (optionsDone || !arg.startsWith('-') || arg === '-') {
      operands.push(arg);
      continue;
    }
    if (arg === '--') {
      optionsDone = true;
    } else if (arg === '--in-place') {
      inPlace = true;
    } else if (arg === '--regexp-extended') {
      extended = true;
    } else if (arg === '--quiet' || arg === '--silent') {
      quiet = true;
    } else if (arg === '--expression') {
      const script = argv[index++];
      if (script === undefined) return undefined;
      scripts.push(script);
    } else if (arg.startsWith('--expression=')) {
      scripts.push(arg.slice('--expression='.length));
    } else if (arg.startsWith('--')) {
      return undefined;
    } else {
      // A cluster of short options: -nE, -Ei, -ne SCRIPT, -es/a/b/.
      const letters = arg.slice(1);
      for (let position = 0; position < letters.length; position += 1) {
        const letter = letters[position];
        if (letter === 'i') {
          // Anything after `i` is a backup suffix (`-i.bak`, and `-iE` means suffix "E").
          if (position !== letters.length - 1) return undefined;
          inPlace = true;
        } else if (letter === 'E' || letter === 'r') {
          extended = true;
        } else if (letter === 'n') {
          quiet = true;
        } else if (letter === 's') {
          // --separate is implied by -i anyway.
        } else if (letter === 'e') {
          const rest = letters.slice(position + 1);
          const script = rest !== '' ? rest : argv[index++];
          if (script === undefined) return undefined;
          scripts.push(script);
          break;
        } else {
          return undefined;
        }
      }
    }
  }
  if (!inPlace) return undefined;
  if (scripts.length === 0) {
    const script = operands.shift();
    if (script === undefined) return undefined;
    scripts.push(script);
  }
  if (operands.length !== 1) return undefined;
  const file = operands[0] as string;
  if (file === '-' || file === '') return undefined;
  const program = parseSedScript(scripts.join('\n'), { extended, quiet });
  return program ? { file, program } : undefined;
}

/** The file content `sed -i` would leave, computed without touching the file. */
export function simulateSedEdit(content: string, command: SedEditCommand): string {
  return runSedProgram(content, command.program);
}
