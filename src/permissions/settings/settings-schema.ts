import { z } from 'zod';
import { type PermissionMode, permissionModes } from '../../core/index.ts';

/**
 * The settings file format, compatible with Claude Code's `settings.json`: unknown top-level keys
 * are kept (other tools share the file), but every key efferent reads is validated.
 */

const ruleList = z.array(z.string());

/** One hook handler; fields beyond `type` belong to the hooks layer and are kept as written. */
const hookHandlerSchema = z.looseObject({
  type: z.enum(['command', 'http', 'mcp_tool', 'prompt', 'agent']),
  if: z.string().optional(),
  timeout: z.number().positive().optional(),
  command: z.string().optional(),
  args: z.array(z.string()).optional(),
  url: z.string().optional(),
});

/** `hooks.<Event>`: matcher groups, each with its handlers. */
export const hooksConfigSchema = z.record(
  z.string(),
  z.array(z.looseObject({ matcher: z.string().optional(), hooks: z.array(hookHandlerSchema) })),
);

/** The validated `hooks` object, kept raw for the hooks layer. */
export type HooksConfig = z.infer<typeof hooksConfigSchema>;

const modeSchema = z
  .enum(['manual', ...permissionModes])
  .transform((mode): PermissionMode => (mode === 'manual' ? 'default' : mode));

/** The `permissions` object. */
export const permissionsSettingsSchema = z.looseObject({
  allow: ruleList.optional(),
  deny: ruleList.optional(),
  ask: ruleList.optional(),
  defaultMode: modeSchema.optional(),
  additionalDirectories: z.array(z.string()).optional(),
  disableBypassPermissionsMode: z.literal('disable').optional(),
  disableAutoMode: z.literal('disable').optional(),
  allowManagedPermissionRulesOnly: z.boolean().optional(),
});

/** The `sandbox` object (Claude Code's keys that efferent enforces, plus `hooks`). */
export const sandboxSettingsSchema = z.looseObject({
  network: z
    .looseObject({
      allowedDomains: z.array(z.string()).optional(),
      deniedDomains: z.array(z.string()).optional(),
      /** Also allow the domains of `WebFetch(domain:…)` allow rules. */
      allowWebFetchDomains: z.boolean().optional(),
    })
    .optional(),
  filesystem: z.looseObject({ denyRead: z.array(z.string()).optional() }).optional(),
  /** Run command hooks in the sandbox, optionally with their own allowlist. */
  hooks: z
    .union([
      z.boolean(),
      z.looseObject({ enabled: z.boolean().optional(), allowedDomains: z.array(z.string()).optional() }),
    ])
    .optional(),
});

/** A parsed `sandbox` object. */
export type SandboxSettingsFile = z.infer<typeof sandboxSettingsSchema>;

/** A whole settings file. */
export const settingsFileSchema = z.looseObject({
  permissions: permissionsSettingsSchema.optional(),
  hooks: hooksConfigSchema.optional(),
  env: z.record(z.string(), z.string()).optional(),
  disableAllHooks: z.boolean().optional(),
  /** Managed policy only: hooks from any other file are not run. */
  allowManagedHooksOnly: z.boolean().optional(),
  /** URL patterns (`*` wildcards) `http` hooks may post to. */
  allowedHttpHookUrls: z.array(z.string()).optional(),
  /** Managed policy only: permission rules from any other file are not applied (also under `permissions`). */
  allowManagedPermissionRulesOnly: z.boolean().optional(),
  /** Also read Claude Code's `.claude/` settings files. */
  claudeCompat: z.boolean().optional(),
  /** MCP servers (user settings); each entry is checked by the MCP layer, which skips bad ones. */
  mcpServers: z.record(z.string(), z.unknown()).optional(),
  /** Approval of the project's `.mcp.json` servers. */
  enableAllProjectMcpServers: z.boolean().optional(),
  enabledMcpjsonServers: z.array(z.string()).optional(),
  disabledMcpjsonServers: z.array(z.string()).optional(),
  sandbox: sandboxSettingsSchema.optional(),
});

/** A parsed settings file. */
export type SettingsFile = z.infer<typeof settingsFileSchema>;
