import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Every type a user can meet through the public API must be importable by name: walking the
 * signatures of each export (parameters, return types, properties, heritage) must only reach types
 * the entry point itself exports. New exports are checked automatically.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const entries = ['src/index.ts', 'src/testing/index.ts'];

let program: ts.Program | undefined;

/** One program for both entry points: building it is most of this test's time. */
function loadProgram(): ts.Program {
  if (program) return program;
  const config = ts.readConfigFile(resolve(root, 'tsconfig.json'), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  program = ts.createProgram(
    entries.map((entry) => resolve(root, entry)),
    parsed.options,
  );
  return program;
}

function unalias(checker: ts.TypeChecker, symbol: ts.Symbol): ts.Symbol {
  return symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
}

const isOwnDeclaration = (node: ts.Node) =>
  !relative(resolve(root, 'src'), node.getSourceFile().fileName).startsWith('..');

/** The parts of a declaration a user sees: signatures, not bodies or private members. */
function surfaceOf(node: ts.Node): ts.Node[] {
  if (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isConstructorDeclaration(node))
    return [...(node.typeParameters ?? []), ...node.parameters, ...(node.type ? [node.type] : [])];
  if (ts.isVariableDeclaration(node)) return node.type ? [node.type] : [];
  if (ts.isClassDeclaration(node)) {
    const members = node.members.filter((member) => {
      if (member.name && ts.isPrivateIdentifier(member.name)) return false;
      const modifiers = ts.canHaveModifiers(member) ? (ts.getModifiers(member) ?? []) : [];
      return !modifiers.some(
        (modifier) =>
          modifier.kind === ts.SyntaxKind.PrivateKeyword || modifier.kind === ts.SyntaxKind.ProtectedKeyword,
      );
    });
    return [
      ...(node.typeParameters ?? []),
      ...(node.heritageClauses ?? []),
      ...members.flatMap((member) =>
        ts.isPropertyDeclaration(member) ? (member.type ? [member.type] : []) : surfaceOf(member),
      ),
    ];
  }
  if (ts.isGetAccessorDeclaration(node)) return node.type ? [node.type] : [];
  return [node];
}

function reachableUnexported(entry: string): string[] {
  const current = loadProgram();
  const checker = current.getTypeChecker();
  const source = current.getSourceFile(resolve(root, entry));
  if (!source) throw new Error(`${entry} is not in the program`);
  const moduleSymbol = checker.getSymbolAtLocation(source);
  if (!moduleSymbol) throw new Error(`${entry} has no module symbol`);
  // `efferent/testing` may use types the main entry point exports.
  const exported = new Set(
    [entry, 'src/index.ts'].flatMap((file) => {
      const fileSymbol = checker.getSymbolAtLocation(
        current.getSourceFile(resolve(root, file)) as ts.SourceFile,
      );
      return fileSymbol
        ? checker.getExportsOfModule(fileSymbol).map((symbol) => unalias(checker, symbol))
        : [];
    }),
  );
  const missing = new Map<string, string>();
  const seen = new Set<ts.Symbol>();
  const exportedNames = new Set([...exported].map((symbol) => symbol.name));
  const own = checker.getExportsOfModule(moduleSymbol).map((symbol) => unalias(checker, symbol));
  const queue: Array<{ symbol: ts.Symbol; via: string }> = own.map((symbol) => ({
    symbol,
    via: symbol.name,
  }));
  while (queue.length > 0) {
    const next = queue.shift();
    if (!next || seen.has(next.symbol)) continue;
    seen.add(next.symbol);
    for (const declaration of next.symbol.declarations ?? []) {
      if (!isOwnDeclaration(declaration)) continue;
      const visit = (node: ts.Node): void => {
        const name = ts.isTypeReferenceNode(node)
          ? node.typeName
          : ts.isExpressionWithTypeArguments(node)
            ? node.expression
            : ts.isTypeQueryNode(node)
              ? node.exprName
              : undefined;
        if (name) {
          const found = checker.getSymbolAtLocation(name);
          const target = found && unalias(checker, found);
          const own = target?.declarations?.find(isOwnDeclaration);
          const isType =
            own &&
            (ts.isInterfaceDeclaration(own) ||
              ts.isTypeAliasDeclaration(own) ||
              ts.isClassDeclaration(own) ||
              ts.isEnumDeclaration(own));
          if (target && own && isType && !ts.isTypeParameterDeclaration(own)) {
            // A mirrored declaration (same name, e.g. a layer's copy of a contract) is public too.
            if (!exported.has(target) && !exportedNames.has(target.name) && !missing.has(target.name))
              missing.set(target.name, `${target.name} (reached from ${next.via})`);
            queue.push({ symbol: target, via: target.name });
          }
        }
        ts.forEachChild(node, visit);
      };
      for (const part of surfaceOf(declaration)) visit(part);
    }
  }
  return [...missing.values()].sort();
}

describe('public types', () => {
  for (const entry of entries) {
    it(`${entry}: every type reachable from an exported signature is exported too`, () => {
      expect(reachableUnexported(entry)).toEqual([]);
    }, 120_000);
  }

  it('the main entry point lists its exports by name (no export *)', () => {
    const text = readFileSync(resolve(root, 'src/index.ts'), 'utf8');
    expect(text).not.toMatch(/export\s+(type\s+)?\*/);
  });
});
