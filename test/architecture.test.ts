import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Imports point one way (docs/architecture.md). Each layer lists the layers it may import; a file may
 * always import from its own layer. Tools are stricter: a tool folder sees core, shell, tools/shared
 * and itself, never another tool.
 */
const allowed: Record<string, readonly string[]> = {
  core: [],
  shell: ['core'],
  sandbox: ['core'],
  hooks: ['core', 'sandbox'],
  budget: ['core'],
  telemetry: ['core'],
  providers: ['core'],
  permissions: ['core', 'shell'],
  tools: ['core', 'shell', 'sandbox'],
  registry: ['core', 'tools'],
  pipeline: ['core', 'registry', 'permissions', 'shell', 'hooks', 'budget', 'telemetry'],
  executor: ['core', 'pipeline', 'registry', 'telemetry'],
  // Adapters see the tool contract and the budget; sessions reach them structurally typed.
  adapters: ['core', 'budget'],
  agent: [
    'core',
    'adapters',
    'executor',
    'pipeline',
    'providers',
    'registry',
    'permissions',
    'shell',
    'hooks',
    'budget',
    'telemetry',
    'sandbox',
  ],
  // MCP sees only the tool contract; the CLI hands it sessions (structurally typed), so the agent
  // never depends on MCP and MCP never depends on the agent.
  mcp: ['core', 'sandbox'],
  testing: ['core', 'providers'],
  cli: ['*'],
  '.': ['*'],
};

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [
    ...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s*['"]([^'"]+)['"]/g),
    ...text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((match) => match[1] ?? '');
  return specifiers.filter((specifier) => specifier.startsWith('.'));
}

/** `tools/read/read.ts` → ['tools', 'read']; `index.ts` → ['.']. */
function layerOf(path: string): [string, string | undefined] {
  const parts = relative(root, path).split(/[\\/]/);
  if (parts.length === 1) return ['.', undefined];
  return [parts[0] ?? '.', parts.length > 2 ? parts[1] : undefined];
}

/**
 * Inside permissions, imports point one way too: the building blocks (rules, paths, settings,
 * git-config, classifier) know nothing of deciding or asking; `decide/` (the pure decision) never
 * imports `approve/` (hooks, classifier, parent, user, saved rules); `approve/` builds on `decide/`.
 */
const permissionTiers: Readonly<Record<string, number>> = {
  rules: 0,
  paths: 0,
  settings: 0,
  'git-config': 0,
  classifier: 0,
  decide: 1,
  approve: 2,
};

function permissionsViolation(file: string, target: string): string | undefined {
  const [, fromSub] = layerOf(file);
  const [, toSub] = layerOf(target);
  const fromTier = fromSub === undefined ? 3 : permissionTiers[fromSub];
  const toTier = toSub === undefined ? 3 : permissionTiers[toSub];
  if (fromTier === undefined || toTier === undefined)
    return `${relative(root, file)} or ${relative(root, target)} is in a permissions folder without a tier; add it to docs/architecture.md and this test`;
  if (toTier <= fromTier) return undefined;
  return `${relative(root, file)} (permissions/${fromSub ?? '.'}) imports ${relative(root, target)} (permissions/${toSub ?? '.'}); deciding never depends on asking`;
}

function violation(file: string, target: string): string | undefined {
  const [fromLayer, fromSub] = layerOf(file);
  const [toLayer, toSub] = layerOf(target);
  if (!relative(root, target).split(/[\\/]/)[0] || relative(root, target).startsWith('..')) {
    return `${relative(root, file)} imports ${target} outside src/`;
  }
  if (toLayer === 'cli' && fromLayer !== 'cli') return `${relative(root, file)} imports the CLI`;
  if (fromLayer === toLayer) {
    if (fromLayer === 'tools' && fromSub !== toSub && toSub !== 'shared') {
      return `tool ${fromSub} imports another tool (${toSub}); share code through tools/shared`;
    }
    if (fromLayer === 'permissions') return permissionsViolation(file, target);
    return undefined;
  }
  const permitted = allowed[fromLayer];
  if (!permitted)
    return `${relative(root, file)} is in an unknown layer "${fromLayer}"; add it to docs/architecture.md and this test`;
  if (permitted.includes('*') || permitted.includes(toLayer)) return undefined;
  return `${relative(root, file)} (${fromLayer}) imports ${relative(root, target)} (${toLayer})`;
}

describe('architecture', () => {
  it('keeps imports pointing one way', () => {
    const problems: string[] = [];
    for (const file of sourceFiles(root)) {
      for (const specifier of importsOf(file)) {
        const problem = violation(file, resolve(dirname(file), specifier));
        if (problem) problems.push(problem);
      }
    }
    expect(problems).toEqual([]);
  });

  it('catches a wrong-way import (the check itself works)', () => {
    expect(violation(join(root, 'core', 'tool.ts'), join(root, 'pipeline', 'index.ts'))).toMatch(/core/);
    expect(violation(join(root, 'tools', 'read', 'read.ts'), join(root, 'tools', 'edit', 'edit.ts'))).toMatch(
      /another tool/,
    );
    expect(violation(join(root, 'shell', 'x.ts'), join(root, 'cli', 'program.ts'))).toMatch(/CLI/);
    expect(
      violation(join(root, 'tools', 'read', 'read.ts'), join(root, 'tools', 'shared', 'paths.ts')),
    ).toBeUndefined();
    expect(violation(join(root, 'pipeline', 'x.ts'), join(root, 'permissions', 'index.ts'))).toBeUndefined();
    expect(violation(join(root, 'mcp', 'serve.ts'), join(root, 'agent', 'index.ts'))).toMatch(/\(mcp\)/);
    expect(violation(join(root, 'agent', 'session.ts'), join(root, 'mcp', 'index.ts'))).toMatch(/\(agent\)/);
    expect(violation(join(root, 'cli', 'commands', 'mcp.ts'), join(root, 'mcp', 'index.ts'))).toBeUndefined();
    const permissions = join(root, 'permissions');
    expect(
      violation(join(permissions, 'decide', 'x.ts'), join(permissions, 'approve', 'create-resolver.ts')),
    ).toMatch(/deciding never depends on asking/);
    expect(
      violation(join(permissions, 'decide', 'shell', 'x.ts'), join(permissions, 'approve', 'y.ts')),
    ).toMatch(/deciding never depends on asking/);
    expect(violation(join(permissions, 'rules', 'x.ts'), join(permissions, 'decide', 'y.ts'))).toMatch(
      /permissions\/rules/,
    );
    expect(
      violation(join(permissions, 'approve', 'x.ts'), join(permissions, 'decide', 'evaluate-permission.ts')),
    ).toBeUndefined();
    expect(violation(join(permissions, 'index.ts'), join(permissions, 'approve', 'x.ts'))).toBeUndefined();
  });
});
