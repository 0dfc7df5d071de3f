import type { SyntaxNode } from './syntax-node.ts';
import { type ConstructHost, constructTypes, walkConstruct } from './constructs.ts';
import { checkCoverage } from './coverage.ts';
import { type CwdState, changeDirectory, mergeCwd, resolveChdir } from './cwd.ts';
import { type HeredocSpan, planHeredocs, verifyHeredocs } from './heredoc.ts';
import { parseBashSyntax } from './parser.ts';
import { listedDirectory, pipedDirectory } from './path-listers.ts';
import { checkCommandSemantics, type StdinBody, shellBody } from './semantics.ts';
import { checkPlainTestCommand } from './test-expression.ts';
import { screenCommandText } from './text-checks.ts';
import type { ArgKind, CommandOrigin, EnvVar, Redirect, SimpleCommand } from './types.ts';
import { TooComplexError, tooComplex } from './walk-errors.ts';
import { checkExpansions, type ResolvedWord, resolveWord } from './word-resolver.ts';
import { type UnwrapDetails, unwrapCommandDetailed } from './wrappers.ts';

/** Longest source the walker parses at all; longer input is treated as adversarial. */
const maxSourceLength = 100_000;
/** Most syntax nodes analysed per command line (all nested bodies together). */
const maxNodes = 50_000;
/** Deepest nesting of substitutions, `bash -c` and `eval` bodies. */
const maxNesting = 12;

/** A simple command as the walker found it, with everything analysis needs. */
export interface WalkedCommand extends SimpleCommand {
  argKinds: ArgKind[];
  origin: CommandOrigin;
  /** The working directory it runs in; null when a `cd` made it unknown. */
  cwd: string | null;
  unwrapped: UnwrapDetails;
  /** Where its standard input comes from; absent when it reads the tool's own (empty) input. */
  stdin?: StdinSource;
}

/**
 * What a command's standard input carries, as far as the walker can tell: `listed` when a pipe
 * brings the output of a path lister (`find . -name '*.ts' | xargs grep x`: names of paths below
 * `directory`, relative to `cwd`), `unknown` for any other pipe, a file, a heredoc or a here-string.
 */
export type StdinSource = { kind: 'listed'; directory: string; cwd: string | null } | { kind: 'unknown' };

/** Redirect operators that feed a command's standard input (or open a file for reading on it). */
const inputOperators = new Set(['<', '<>', '<<', '<<-', '<<<', '<&']);

/** What {@link walkCommandLine} returns. */
export type WalkResult =
  | { kind: 'simple'; commands: WalkedCommand[]; cdCount: number }
  | { kind: 'too-complex'; reason: string; nodeType?: string }
  | { kind: 'parse-unavailable' };

/** Options for {@link walkCommandLine}. */
export interface WalkOptions {
  /** Start directory for `cd` tracking; absent = unknown. */
  cwd?: string;
  /** Home directory for `cd ~`; absent = unknown. */
  home?: string;
}

/** Redirects gathered for one command, plus what its stdin carries when that is a heredoc or here-string. */
interface Collector {
  redirects: Redirect[];
  stdin?: StdinBody;
  /** Statements tree-sitter nested inside a heredoc node (the rest of the line). */
  trailing: SyntaxNode[];
}

function collector(redirects: Redirect[] = []): Collector {
  return { redirects, trailing: [] };
}

interface Frame {
  origin: CommandOrigin;
  /** Redirects of an enclosing `{ …; } > file` that apply to every command inside. */
  redirects: Redirect[];
  /**
   * Redirects tree-sitter attached to a whole list or pipeline (`a && b > f`); bash applies them to
   * the last simple command only, so they travel down the right-most branch.
   */
  tail?: Collector;
  nesting: number;
  /** Standard input of the commands in this frame, when it is not the tool's (see {@link StdinSource}). */
  stdin?: StdinSource;
}

/** A frame for code nested in a command (a substitution, a shell body): it reads the same input. */
function nestedFrame(origin: CommandOrigin, nesting: number, stdin: StdinSource | undefined): Frame {
  return stdin ? { origin, redirects: [], nesting, stdin } : { origin, redirects: [], nesting };
}

const separatorTokens = new Set([';', '&', '(', ')', '{', '}', '\n']);
const shellRedirectTypes = new Set(['file_redirect', 'heredoc_redirect', 'herestring_redirect']);

class Walker implements ConstructHost<Frame> {
  readonly commands: WalkedCommand[] = [];
  cdCount = 0;
  private nodes = 0;
  private readonly trackedVariables = new Set<string>();
  private currentCwd: string | null;
  private currentFrame: Frame = { origin: 'top', redirects: [], nesting: 0 };
  /** Heredocs of the source being walked, by the index of their `<<` (bash's view, see heredoc.ts). */
  private heredocs = new Map<number, HeredocSpan>();
  /** The unmasked text of the source being walked, when its heredoc bodies were masked. */
  private unmasked: string | undefined;

  constructor(private readonly options: WalkOptions) {
    this.currentCwd = options.cwd ?? null;
  }

  // What the compound-command walker (constructs.ts) calls back into: the walker itself is the host,
  // so no callback objects are made per command line.
  walkStatement(node: SyntaxNode, frame: Frame, cwd: string | null): CwdState {
    return this.statement(node, frame, cwd);
  }

  partFrame(frame: Frame): Frame {
    return groupFrame(frame);
  }

  emitWords(words: ResolvedWord[], frame: Frame, cwd: string | null, node: SyntaxNode): CwdState {
    this.currentCwd = cwd;
    this.currentFrame = frame;
    const own = frame.tail ?? collector();
    return this.emit(words, [], own, node.text, withoutTail(frame), cwd, node);
  }

  assignVariable(name: string): void {
    this.trackedVariables.add(name);
  }

  directoryChanges(): number {
    return this.cdCount;
  }

  tick(node: SyntaxNode): void {
    this.nodes++;
    if (this.nodes > maxNodes) tooComplex('the command is too large to analyse', node.type);
  }

  isTracked(name: string): boolean {
    return this.trackedVariables.has(name);
  }

  substitution(node: SyntaxNode): string | undefined {
    const open = node.children[0]?.type ?? '';
    if (open === '`' && node.text.includes('\\')) {
      tooComplex('backslashes inside backticks are read differently by bash; use $( ) instead', node.type);
    }
    const frame = nestedFrame('substitution', this.currentFrame.nesting + 1, this.currentFrame.stdin);
    if (frame.nesting > maxNesting) tooComplex('substitutions are nested too deeply', node.type);
    const saved = { frame: this.currentFrame, cwd: this.currentCwd };
    const before = this.commands.length;
    this.sequence(node, frame, this.currentCwd);
    this.currentFrame = saved.frame;
    this.currentCwd = saved.cwd;
    return listedBy(node, this.commands.slice(before));
  }

  /** Analyses the code of a `$(…)` or backtick found in a heredoc body (see heredoc.ts). */
  private substitutionText(text: string): void {
    const frame = nestedFrame('substitution', this.currentFrame.nesting + 1, this.currentFrame.stdin);
    if (frame.nesting > maxNesting) tooComplex('substitutions are nested too deeply');
    const saved = { frame: this.currentFrame, cwd: this.currentCwd };
    this.source(text, frame, this.currentCwd);
    this.currentFrame = saved.frame;
    this.currentCwd = saved.cwd;
  }

  /** Parses and walks one source text (the whole line, or a `bash -c` / `eval` body). */
  source(text: string, frame: Frame, cwd: string | null): CwdState {
    if (text.length > maxSourceLength) tooComplex('the command is too long to analyse');
    const problem = screenCommandText(text);
    if (problem) tooComplex(problem);
    // Heredoc bodies are read as bash reads them and blanked before tree-sitter sees the text.
    const plan = planHeredocs(text);
    const parsed = plan?.masked ?? text;
    const root = parsedRoot(parsed, this.nodes);
    const saved = { heredocs: this.heredocs, unmasked: this.unmasked };
    this.unmasked = plan ? text : undefined;
    try {
      checkCoverage(root, parsed);
      this.heredocs = parsed.includes('<') ? verifyHeredocs(root, plan) : new Map();
      return this.sequence(root, frame, cwd);
    } finally {
      this.heredocs = saved.heredocs;
      this.unmasked = saved.unmasked;
    }
  }

  private statement(node: SyntaxNode, frame: Frame, cwd: string | null): CwdState {
    this.tick(node);
    switch (node.type) {
      case 'program':
        return this.sequence(node, frame, cwd);
      case 'compound_statement':
        return this.sequence(node, groupFrame(frame), cwd);
      case 'subshell':
        this.sequence(node, groupFrame(frame), cwd);
        return { success: cwd, any: cwd };
      case 'list':
        return this.list(node, frame, cwd);
      case 'pipeline':
        return this.pipeline(node, frame, cwd);
      case 'negated_command': {
        const inner = node.namedChildren.filter((child) => child.type !== 'comment');
        if (inner.length !== 1 || !inner[0]) tooComplex('unexpected negation', node.type);
        const result = this.statement(inner[0], frame, cwd);
        return { success: result.any, any: result.any };
      }
      case 'redirected_statement':
        return this.redirected(node, frame, cwd);
      case 'command':
        return this.command(node, frame, cwd);
      case 'variable_assignment':
      case 'variable_assignments':
      case 'declaration_command':
      case 'unset_command':
        return this.shellStateCommand(node, frame, cwd);
      case 'comment':
        return { success: cwd, any: cwd };
      default:
        if (constructTypes.has(node.type)) return walkConstruct(this, node, frame, cwd);
        return tooComplex(
          `${node.type.replaceAll('_', ' ')} is not analysed; run simpler commands`,
          node.type,
        );
    }
  }

  /** Statements separated by `;`, `&` or newlines, in program, subshell, group or substitution bodies. */
  private sequence(node: SyntaxNode, frame: Frame, cwd: string | null): CwdState {
    let state: CwdState = { success: cwd, any: cwd };
    const children = node.children;
    for (let index = 0; index < children.length; index++) {
      const child = children[index];
      if (!child) continue;
      if (!child.isNamed) {
        if (
          separatorTokens.has(child.type) ||
          child.type === '$(' ||
          child.type === '`' ||
          child.type === '<(' ||
          child.type === '>('
        ) {
          continue;
        }
        tooComplex(`unexpected token ${child.type}`, child.type);
      }
      if (shellRedirectTypes.has(child.type)) {
        // `$(< file)`: a redirect with no command.
        state = this.emptyCommand(child, frame, state.any);
        continue;
      }
      const background = children[index + 1]?.type === '&';
      const result = this.statement(child, frame, state.any);
      state = background ? { success: state.any, any: state.any } : result;
    }
    return state;
  }

  private list(node: SyntaxNode, frame: Frame, cwd: string | null): CwdState {
    const [left, operator, right, ...rest] = node.children;
    if (!left || !operator || !right || rest.length > 0) tooComplex('unexpected list shape', node.type);
    const first = this.statement(left, withoutTail(frame), cwd);
    if (operator.type === '&&') {
      const second = this.statement(right, frame, first.success);
      return { success: second.success, any: mergeCwd(first.any, second.any) };
    }
    if (operator.type === '||') {
      const second = this.statement(right, frame, first.any);
      return { success: mergeCwd(first.success, second.success), any: mergeCwd(first.any, second.any) };
    }
    return tooComplex(`unexpected operator ${operator.type}`, operator.type);
  }

  private pipeline(node: SyntaxNode, frame: Frame, cwd: string | null): CwdState {
    let last: CwdState = { success: cwd, any: cwd };
    const parts = node.children.filter((child) => child.isNamed);
    // Every part after the first reads what the part before it printed.
    let piped: StdinSource | undefined;
    for (const child of node.children) {
      if (!child.isNamed) {
        // `|&` sends errors down the pipe too: what they say is not a list of paths.
        if (child.type === '|&') piped = { kind: 'unknown' };
        if (child.type === '|' || child.type === '|&') continue;
        tooComplex(`unexpected token ${child.type} in a pipeline`, child.type);
      }
      const partFrame = child === parts[parts.length - 1] ? frame : withoutTail(frame);
      const before = this.commands.length;
      last = this.statement(child, piped ? { ...partFrame, stdin: piped } : partFrame, cwd);
      piped = pipedListing(child, this.commands.slice(before)) ?? { kind: 'unknown' };
    }
    // bash runs every part in a subshell, but zsh runs the last part in the current shell.
    const after = mergeCwd(cwd, last.any);
    return { success: after, any: after };
  }

  private redirected(node: SyntaxNode, frame: Frame, cwd: string | null): CwdState {
    const gathered = collector();
    let body: SyntaxNode | undefined;
    for (const child of node.children) {
      if (shellRedirectTypes.has(child.type)) {
        if (body) checkDescriptorPlacement(body, child);
        this.redirect(child, gathered);
      } else if (child.type === 'comment') continue;
      else if (body === undefined && child.isNamed) body = child;
      else tooComplex(`unexpected ${child.type} around a redirection`, child.type);
    }
    const trailing = gathered.trailing;
    const own = mergeCollectors(gathered, frame.tail);
    const inner: Frame = { ...withoutTail(frame), tail: own };
    let state: CwdState;
    if (!body) {
      state = this.emit([], [], own, node.text, withoutTail(frame), cwd, node);
    } else if (
      [
        'list',
        'pipeline',
        'negated_command',
        'compound_statement',
        'subshell',
        'redirected_statement',
      ].includes(body.type) ||
      constructTypes.has(body.type)
    ) {
      state = this.statement(body, inner, cwd);
    } else if (body.type === 'command') {
      state = this.command(body, inner, cwd);
    } else if (
      ['variable_assignment', 'variable_assignments', 'declaration_command', 'unset_command'].includes(
        body.type,
      )
    ) {
      state = this.shellStateCommand(body, inner, cwd);
    } else {
      return tooComplex(`${body.type.replaceAll('_', ' ')} is not analysed; run simpler commands`, body.type);
    }
    return this.trailing(trailing, withoutTail(frame), state);
  }

  /** tree-sitter nests the rest of a line after a heredoc start inside the heredoc node. */
  private trailing(nodes: SyntaxNode[], frame: Frame, state: CwdState): CwdState {
    if (nodes.length === 0) return state;
    let current = state;
    for (const node of nodes) {
      if (!node.isNamed) {
        if (['|', '|&', '&&', '||', ';', '&'].includes(node.type)) continue;
        tooComplex(`unexpected token ${node.type} after a heredoc`, node.type);
      }
      if (node.type === 'pipeline' && node.children[0]?.type === '|') {
        this.pipeline(node, frame, current.any);
        continue;
      }
      current = this.statement(node, frame, current.any);
    }
    // Which parts run conditionally is not modelled here, so any directory change makes the cwd unknown.
    const after = mergeCwd(state.any, current.any);
    return { success: after, any: after };
  }

  private redirect(node: SyntaxNode, into: Collector): void {
    this.tick(node);
    switch (node.type) {
      case 'file_redirect': {
        const redirect = this.fileRedirect(node);
        into.redirects.push(redirect);
        // `cmd <<EOF <file` reads the file, not the heredoc.
        if (redirect.operator === '<' && (redirect.fd ?? 0) === 0) delete into.stdin;
        return;
      }
      case 'herestring_redirect': {
        const value = node.namedChildren[0];
        if (!value || node.namedChildCount !== 1) tooComplex('unexpected here-string', node.type);
        const resolved = resolveWord(value, this);
        into.redirects.push({ operator: '<<<', target: '<herestring>' });
        into.stdin = { text: resolved.text, literal: resolved.kind === 'literal' };
        return;
      }
      case 'heredoc_redirect':
        this.heredoc(node, into);
        return;
      default:
        tooComplex(`${node.type} is not supported`, node.type);
    }
  }

  private heredoc(node: SyntaxNode, into: Collector): void {
    let span: HeredocSpan | undefined;
    for (const child of node.children) {
      this.tick(child);
      switch (child.type) {
        case '<<':
        case '<<-':
          span = this.heredocs.get(child.startIndex);
          break;
        case 'heredoc_start':
        case 'heredoc_body':
        case 'heredoc_end':
          break;
        case 'file_redirect':
        case 'herestring_redirect':
          this.redirect(child, into);
          break;
        default:
          into.trailing.push(child);
      }
    }
    if (!span) tooComplex('a heredoc the analyser did not locate', node.type);
    // An unquoted body is expanded like a double-quoted string: its substitutions are commands.
    for (const code of span.substitutions) this.substitutionText(code);
    into.redirects.push({ operator: span.operator, target: '<heredoc>' });
    into.stdin = { text: span.body, literal: span.literal };
  }

  private fileRedirect(node: SyntaxNode): Redirect {
    let fd: number | undefined;
    let operator = '';
    const destinations: SyntaxNode[] = [];
    for (const child of node.children) {
      this.tick(child);
      if (child.type === 'file_descriptor') {
        if (!/^\d{1,2}$/.test(child.text))
          tooComplex(`unsupported file descriptor ${child.text}`, child.type);
        fd = Number(child.text);
      } else if (!child.isNamed) operator = child.type;
      else destinations.push(child);
    }
    if (operator === '>&-' || operator === '<&-') {
      if (destinations.length > 0) tooComplex('unexpected word after a descriptor close', node.type);
      return withFd({ operator, target: '-' }, fd);
    }
    const [destination, ...extra] = destinations;
    if (!destination || extra.length > 0) tooComplex('a redirection needs exactly one target', node.type);
    const resolved = resolveWord(destination, this);
    if (resolved.kind !== 'literal') {
      tooComplex(
        `the redirection target ${destination.text.slice(0, 40)} is not a fixed file name`,
        node.type,
      );
    }
    checkExpansions(resolved, destination);
    return withFd({ operator, target: resolved.text }, fd);
  }

  private resolveArguments(nodes: SyntaxNode[]): ResolvedWord[] {
    return nodes.map((node) => {
      const resolved = resolveWord(node, this);
      checkExpansions(resolved, node);
      return resolved;
    });
  }

  /** `prefixOfRead`: the assignment is a prefix of `read`, where `IFS=…` only splits what read reads. */
  private assignment(node: SyntaxNode, prefixOfRead = false): EnvVar {
    const name = node.childForFieldName('name');
    if (name?.type !== 'variable_name')
      tooComplex(`unsupported assignment ${node.text.slice(0, 40)}`, node.type);
    const operator = node.children[1]?.type;
    if (operator !== '=') tooComplex(`the assignment operator ${operator ?? ''} is not analysed`, node.type);
    const valueNode = node.childForFieldName('value');
    if (node.children.length > 3) tooComplex('unsupported assignment value', node.type);
    if (valueNode?.type === 'array') tooComplex('array assignments are not analysed', 'array');
    const value = valueNode
      ? resolveWord(valueNode, this)
      : { text: '', kind: 'literal' as const, unquoted: '' };
    if (name.text === 'IFS' && !(prefixOfRead && value.kind === 'literal'))
      tooComplex('assigning IFS changes how later words split', node.type);
    return { name: name.text, value: value.text, literal: value.kind === 'literal' };
  }

  private command(node: SyntaxNode, frame: Frame, cwd: string | null): CwdState {
    const outer = frame.tail;
    this.currentCwd = cwd;
    this.currentFrame = frame;
    const envVars: EnvVar[] = [];
    const words: SyntaxNode[] = [];
    const gathered = collector();
    for (const child of node.children) {
      this.tick(child);
      if (child.type === 'variable_assignment') envVars.push(this.assignment(child, runsRead(node)));
      else if (child.type === 'command_name') {
        const name = child.namedChildren[0];
        if (!name || child.namedChildCount !== 1) tooComplex('unexpected command name', child.type);
        words.push(name);
      } else if (shellRedirectTypes.has(child.type)) this.redirect(child, gathered);
      else if (child.type === 'comment') continue;
      else if (child.isNamed) words.push(child);
      else tooComplex(`unexpected token ${child.type} in a command`, child.type);
    }
    if (gathered.trailing.length > 0)
      tooComplex('unexpected commands inside a heredoc redirection', node.type);
    const resolved = this.resolveArguments(words);
    checkPlainTestCommand(words, resolved);
    // Redirections written after the command (outer) are applied after those inside it.
    const outerRedirects = outer?.redirects ?? [];
    const merged: Collector = {
      redirects: outerRedirects.length > 0 ? gathered.redirects.concat(outerRedirects) : gathered.redirects,
      trailing: [],
    };
    const stdin = outer?.stdin ?? gathered.stdin;
    if (stdin) merged.stdin = stdin;
    return this.emit(resolved, envVars, merged, node.text, frame, cwd, node);
  }

  /** Bare assignments and `export`/`declare`/`local`/`unset`: shell-state commands. */
  private shellStateCommand(node: SyntaxNode, frame: Frame, cwd: string | null): CwdState {
    const redirects = frame.tail ?? collector();
    if (redirects.stdin) tooComplex('a heredoc feeding an assignment is not analysed', node.type);
    this.currentCwd = cwd;
    this.currentFrame = frame;
    if (node.type === 'variable_assignment' || node.type === 'variable_assignments') {
      const assignments = node.type === 'variable_assignment' ? [node] : node.namedChildren;
      const envVars = assignments.map((child) => {
        if (child.type !== 'variable_assignment') tooComplex('unexpected assignment list', child.type);
        return this.assignment(child);
      });
      for (const variable of envVars) this.trackedVariables.add(variable.name);
      return this.emit([], envVars, redirects, node.text, frame, cwd, node);
    }
    const words: ResolvedWord[] = [];
    const keyword = node.children[0];
    if (!keyword || keyword.isNamed) tooComplex('unexpected declaration', node.type);
    words.push({ text: keyword.type, kind: 'literal', unquoted: keyword.type });
    for (const child of node.children.slice(1)) {
      this.tick(child);
      if (child.type === 'variable_assignment') {
        const variable = this.assignment(child);
        this.trackedVariables.add(variable.name);
        words.push({
          text: `${variable.name}=${variable.value}`,
          kind: variable.literal ? 'literal' : 'dynamic',
          unquoted: '',
        });
      } else if (child.type === 'variable_name') {
        if (child.text === 'IFS') tooComplex('changing IFS changes how later words split', child.type);
        words.push({ text: child.text, kind: 'literal', unquoted: child.text });
      } else if (shellRedirectTypes.has(child.type)) {
        tooComplex('redirections on declarations are not analysed', child.type);
      } else if (child.isNamed) {
        const resolved = resolveWord(child, this);
        checkExpansions(resolved, child);
        words.push(resolved);
      } else tooComplex(`unexpected token ${child.type}`, child.type);
    }
    return this.emit(words, [], redirects, node.text, frame, cwd, node);
  }

  private emptyCommand(node: SyntaxNode, frame: Frame, cwd: string | null): CwdState {
    const gathered = collector();
    this.redirect(node, gathered);
    if (gathered.trailing.length > 0)
      tooComplex('unexpected commands inside a heredoc redirection', node.type);
    return this.emit([], [], gathered, node.text, frame, cwd, node);
  }

  private emit(
    words: ResolvedWord[],
    envVars: EnvVar[],
    own: Collector,
    text: string,
    frame: Frame,
    cwd: string | null,
    node: SyntaxNode,
  ): CwdState {
    const redirects = frame.redirects.length > 0 ? own.redirects.concat(frame.redirects) : own.redirects;
    const stdin = own.stdin;
    const input: StdinSource | undefined =
      stdin || readsStandardInput(redirects) ? { kind: 'unknown' } : frame.stdin;
    const argv: string[] = [];
    const argKinds: ArgKind[] = [];
    for (const word of words) {
      argv.push(word.text);
      argKinds.push(word.kind);
    }
    const raw: SimpleCommand = {
      argv,
      envVars,
      redirects,
      text: this.unmasked?.slice(node.startIndex, node.endIndex) ?? text,
      argKinds,
      origin: frame.origin,
    };
    const unwrapped = unwrapCommandDetailed(raw);
    if (unwrapped.tooComplex !== undefined) tooComplex(unwrapped.tooComplex, node.type);
    checkCommandSemantics(raw, unwrapped, node);
    const commandCwd =
      unwrapped.chdir === undefined ? cwd : resolveChdir(cwd, unwrapped.chdir, this.options.home);
    // Written out rather than spread: this runs once per command and spreading is the slow path.
    const walked: WalkedCommand = {
      argv,
      envVars,
      redirects,
      text: raw.text,
      argKinds,
      origin: frame.origin,
      cwd: commandCwd,
      unwrapped,
    };
    if (input) walked.stdin = input;
    this.commands.push(walked);
    const inner = unwrapped.command;
    const body = shellBody(inner, unwrapped, stdin, node, input !== undefined);
    if (body) {
      const nested = nestedFrame(body.origin, frame.nesting + 1, input);
      if (nested.nesting > maxNesting) tooComplex('shell bodies are nested too deeply', node.type);
      const saved = { frame: this.currentFrame, cwd: this.currentCwd };
      const result = this.source(body.text, nested, commandCwd);
      this.currentFrame = saved.frame;
      this.currentCwd = saved.cwd;
      // `eval` runs in the current shell; `bash -c` in a child process.
      if (body.origin === 'eval') return result;
    }
    const found = changeDirectory(inner, cwd, this.options.home);
    if (!found) return { success: cwd, any: cwd };
    // With CDPATH set by the command itself, `cd name` may go to any directory CDPATH lists.
    const cdpath =
      this.trackedVariables.has('CDPATH') || envVars.some((variable) => variable.name === 'CDPATH');
    const change = cdpath ? { target: null } : found;
    this.cdCount++;
    if (!unwrapped.wrappers.every((name) => name === 'command' || name === 'builtin')) {
      // `timeout 5 cd x` runs an external cd (or fails): the shell's directory does not change.
      return { success: cwd, any: cwd };
    }
    return { success: change.target, any: mergeCwd(cwd, change.target) };
  }
}

/**
 * The parsed tree as plain objects (syntax-node.ts), after the checks that need only tree-sitter's
 * root: syntax errors, and the node budget (`walked` nodes analysed so far).
 */
function parsedRoot(parsed: string, walked: number): SyntaxNode {
  const outcome = parseBashSyntax(parsed, maxNodes - walked);
  switch (outcome.kind) {
    case 'root':
      return outcome.root;
    case 'unavailable':
      throw new ParserUnavailable();
    case 'timeout':
      return tooComplex('parsing took too long; the command may be adversarial');
    case 'syntax-error':
      return tooComplex('bash syntax error or construct the parser does not understand', 'ERROR');
    case 'too-large':
      return tooComplex('the command is too large to analyse');
  }
}

/** Whether a command node runs the `read` builtin, named by a plain word. */
function runsRead(node: SyntaxNode): boolean {
  const name = node.childForFieldName('name');
  return name?.namedChildCount === 1 && name.namedChildren[0]?.type === 'word' && name.text === 'read';
}

/** The directory a `$( … )` of exactly one path-listing command lists (path-listers.ts). */
function listedBy(node: SyntaxNode, commands: readonly WalkedCommand[]): string | undefined {
  const [only, ...rest] = commands;
  const body = node.namedChildren;
  if (!only || rest.length > 0 || node.children[0]?.type !== '$(') return undefined;
  if (body.length !== 1 || body[0]?.type !== 'command') return undefined;
  if (only.unwrapped.wrappers.length > 0) return undefined;
  return listedDirectory(only);
}

/** The input a pipeline part hands to the next: names below a directory when it is one path lister. */
function pipedListing(node: SyntaxNode, commands: readonly WalkedCommand[]): StdinSource | undefined {
  const [only, ...rest] = commands;
  const simple =
    node.type === 'command' ||
    (node.type === 'redirected_statement' && node.namedChildren[0]?.type === 'command');
  if (!only || rest.length > 0 || !simple) return undefined;
  if (only.unwrapped.wrappers.length > 0 || only.stdin !== undefined) return undefined;
  const directory = pipedDirectory(only);
  return directory === undefined ? undefined : { kind: 'listed', directory, cwd: only.cwd };
}

/**
 * The grammar reads `cmd 0< file` as an argument `0` followed by `< file`; bash reads one redirection
 * of descriptor 0 (the digits touch the operator). The two readings give the program different
 * words, so a digit argument that touches a redirection makes the line too complex to check.
 */
function checkDescriptorPlacement(body: SyntaxNode, redirect: SyntaxNode): void {
  if (redirect.children.some((child) => child.type === 'file_descriptor')) return;
  const words = body.type === 'command' ? body.namedChildren : [];
  const last = words[words.length - 1];
  if (last?.type === 'number' && last.endIndex === redirect.startIndex)
    tooComplex(`the descriptor ${last.text} written against a redirection is not analysed`, redirect.type);
}

/** Whether a redirection feeds standard input (descriptor 0). */
function readsStandardInput(redirects: readonly Redirect[]): boolean {
  for (const redirect of redirects)
    if (inputOperators.has(redirect.operator) && (redirect.fd ?? 0) === 0) return true;
  return false;
}

/** The frame for a part that is not in tail position. */
function withoutTail(frame: Frame): Frame {
  if (!frame.tail) return frame;
  const { tail: _tail, ...rest } = frame;
  return rest;
}

/** Inside `{ …; }` or `( … )` a redirect of the group applies to every command. */
function groupFrame(frame: Frame): Frame {
  if (!frame.tail) return frame;
  if (frame.tail.stdin) tooComplex('a heredoc feeding a command group is not analysed');
  return { ...withoutTail(frame), redirects: frame.redirects.concat(frame.tail.redirects) };
}

function mergeCollectors(inner: Collector, outer: Collector | undefined): Collector {
  if (!outer)
    return { redirects: inner.redirects, trailing: [], ...(inner.stdin ? { stdin: inner.stdin } : {}) };
  const merged: Collector = { redirects: inner.redirects.concat(outer.redirects), trailing: [] };
  const stdin = outer.stdin ?? inner.stdin;
  if (stdin) merged.stdin = stdin;
  return merged;
}

function withFd(redirect: Redirect, fd: number | undefined): Redirect {
  if (fd !== undefined) redirect.fd = fd;
  return redirect;
}

class ParserUnavailable extends Error {}

/** Walks a whole command line; every failure mode becomes a result, never an exception. */
export function walkCommandLine(source: string, options: WalkOptions = {}): WalkResult {
  const walker = new Walker(options);
  try {
    walker.source(source, { origin: 'top', redirects: [], nesting: 0 }, options.cwd ?? null);
    return { kind: 'simple', commands: walker.commands, cdCount: walker.cdCount };
  } catch (error) {
    if (error instanceof ParserUnavailable) return { kind: 'parse-unavailable' };
    if (error instanceof TooComplexError) {
      return error.nodeType === undefined
        ? { kind: 'too-complex', reason: error.message }
        : { kind: 'too-complex', reason: error.message, nodeType: error.nodeType };
    }
    if (error instanceof RangeError)
      return { kind: 'too-complex', reason: 'the command is nested too deeply' };
    throw error;
  }
}
