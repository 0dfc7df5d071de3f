/**
 * Deferred tools: tools the model first sees by name only, and loads through ToolSearch. This file
 * holds the mode (`ENABLE_TOOL_SEARCH`), the choice of which tools defer, the per-session state of
 * what was loaded, and the append-only announcement of deferred names.
 */
import type { SessionResource, SessionResourceKey } from './session-resources.ts';
import { toolInputJsonSchema } from './json-schema.ts';
import type { AnyTool } from './tool.ts';

/** How tools are deferred: automatically past a share of the context window, always, or never. */
export type ToolSearchMode = { kind: 'auto'; percent: number } | { kind: 'always' } | { kind: 'never' };

/** The context window assumed when the model's is not known. */
export const defaultContextWindowTokens = 200_000;
/** Characters per token when estimating how much of the window tool descriptions take. */
export const charsPerToken = 2.5;
/** Auto mode defers once MCP tool descriptions exceed this percentage of the context window. */
export const defaultAutoPercent = 10;

/**
 * Reads `ENABLE_TOOL_SEARCH`: `auto` (default), `auto:N` (N% of the context window), `true` or
 * `false` (also `1`/`0`, `on`/`off`). Anything else is an error that says what is accepted.
 */
export function parseToolSearchMode(value: string | boolean | undefined): ToolSearchMode {
  if (value === undefined || value === '') return { kind: 'auto', percent: defaultAutoPercent };
  if (value === true) return { kind: 'always' };
  if (value === false) return { kind: 'never' };
  const text = value.trim().toLowerCase();
  if (text === 'auto') return { kind: 'auto', percent: defaultAutoPercent };
  if (['true', '1', 'on', 'yes'].includes(text)) return { kind: 'always' };
  if (['false', '0', 'off', 'no'].includes(text)) return { kind: 'never' };
  const auto = /^auto:(\d+(?:\.\d+)?)$/.exec(text);
  const percent = auto ? Number(auto[1]) : Number.NaN;
  if (auto && percent >= 0 && percent <= 100) return { kind: 'auto', percent };
  throw new TypeError(
    `ENABLE_TOOL_SEARCH="${value}" is not a mode; use auto, auto:N (N from 0 to 100, a percentage of the context window), true or false.`,
  );
}

/**
 * Whether a tool may be deferred at all: tools that ask for it (`shouldDefer`) and every MCP tool,
 * unless it is `alwaysLoad` (ToolSearch itself is, so it is never deferred).
 */
export function isDeferrable(tool: AnyTool): boolean {
  return !tool.alwaysLoad && (tool.shouldDefer || tool.mcpInfo !== undefined);
}

/** Characters a tool's definition costs in a request: name, description and JSON schema. */
export async function toolDefinitionChars(tool: AnyTool, pool: readonly AnyTool[]): Promise<number> {
  const description = await tool.prompt({ tools: pool, isNonInteractive: true });
  return tool.name.length + description.length + JSON.stringify(toolInputJsonSchema(tool)).length;
}

/** What {@link chooseDeferredTools} needs besides the pool. */
export interface DeferralOptions {
  mode: ToolSearchMode;
  /** The model's context window in tokens; default {@link defaultContextWindowTokens}. */
  contextWindowTokens?: number;
}

/**
 * The names of the tools to defer. `always`: every deferrable tool. `never`: none. `auto`: every
 * deferrable tool once the MCP tools' definitions exceed the mode's share of the context window
 * (estimated at {@link charsPerToken} characters per token), none before.
 */
export async function chooseDeferredTools(
  pool: readonly AnyTool[],
  options: DeferralOptions,
): Promise<Set<string>> {
  const deferrable = pool.filter(isDeferrable);
  const all = new Set(deferrable.map((tool) => tool.name));
  if (options.mode.kind === 'never') return new Set();
  if (options.mode.kind === 'always') return all;
  const window = options.contextWindowTokens ?? defaultContextWindowTokens;
  let chars = 0;
  for (const tool of deferrable) if (tool.mcpInfo) chars += await toolDefinitionChars(tool, pool);
  return chars / charsPerToken > (window * options.mode.percent) / 100 ? all : new Set();
}

/** The deferral a request carries: which tools are deferred, and which of them were loaded (in order). */
export interface RequestDeferral {
  deferred: ReadonlySet<string>;
  loaded: readonly string[];
}

/**
 * The tools a provider without native deferral gets: every tool that is not deferred, in pool order,
 * then the loaded deferred tools in the order they were loaded. Loading more only appends, so the
 * list's prefix (and a provider's prompt cache) stays as it was.
 */
export function loadedSubset<T extends { name: string }>(
  tools: readonly T[],
  deferral?: RequestDeferral,
): T[] {
  if (!deferral || deferral.deferred.size === 0) return [...tools];
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const loaded = deferral.loaded.flatMap((name) => {
    const tool = byName.get(name);
    return tool && deferral.deferred.has(name) ? [tool] : [];
  });
  return [...tools.filter((tool) => !deferral.deferred.has(tool.name)), ...loaded];
}

/**
 * One session's deferral: which tools are deferred, which the model loaded (through ToolSearch), and
 * which names the model has been told about. Lives in the session's resources so ToolSearch, the
 * pipeline and the agent loop share it.
 */
export class DeferredTools implements SessionResource {
  #deferred = new Set<string>();
  readonly #loaded: string[] = [];
  readonly #announced = new Set<string>();

  /** Replaces the deferred set (the pool changed); loaded names stay loaded. */
  setDeferred(names: Iterable<string>): void {
    this.#deferred = new Set(names);
  }

  /** True when the tool is sent by name only until it is loaded. */
  isDeferred(name: string): boolean {
    return this.#deferred.has(name);
  }

  /** True when the model loaded the tool's schema (or it is not deferred). */
  isLoaded(name: string): boolean {
    return !this.#deferred.has(name) || this.#loaded.includes(name);
  }

  /** Marks deferred tools as loaded; returns the ones that were not loaded before. */
  load(names: Iterable<string>): string[] {
    const added: string[] = [];
    for (const name of names) {
      if (this.#deferred.has(name) && !this.#loaded.includes(name)) {
        this.#loaded.push(name);
        added.push(name);
      }
    }
    return added;
  }

  /** The deferred names. */
  get deferred(): ReadonlySet<string> {
    return this.#deferred;
  }

  /** What a model request carries. */
  requestDeferral(): RequestDeferral {
    return { deferred: new Set(this.#deferred), loaded: [...this.#loaded] };
  }

  /**
   * The system-reminder text for deferred names the model has not been told about yet, and for
   * announced ones that are gone; undefined when nothing changed. Each call marks what it reports, so
   * announcements are only ever appended to the conversation, never rewritten.
   */
  takeAnnouncement(): string | undefined {
    const added = [...this.#deferred].filter((name) => !this.#announced.has(name)).sort();
    const removed = [...this.#announced].filter((name) => !this.#deferred.has(name)).sort();
    if (added.length === 0 && removed.length === 0) return undefined;
    for (const name of added) this.#announced.add(name);
    for (const name of removed) this.#announced.delete(name);
    const parts: string[] = [];
    if (added.length > 0) {
      parts.push(
        `The following deferred tools are now available. Only their names are loaded: before calling one, call ToolSearch with query "select:<name>" (or search by keywords) to load its schema.\n<available-deferred-tools>\n${added.join('\n')}\n</available-deferred-tools>`,
      );
    }
    if (removed.length > 0) {
      parts.push(
        `These deferred tools are no longer available; do not call them.\n<removed-deferred-tools>\n${removed.join('\n')}\n</removed-deferred-tools>`,
      );
    }
    return parts.join('\n\n');
  }

  dispose(): void {}
}

/** The session resource key under which a session keeps its {@link DeferredTools}. */
export const deferredToolsKey: SessionResourceKey<DeferredTools> = {
  name: 'deferred-tools',
  create: () => new DeferredTools(),
};
