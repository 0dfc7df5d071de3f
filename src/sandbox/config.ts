import type { SessionResource, SessionResourceKey, ToolUseContext } from '../core/index.ts';
import type { HostResolver, SandboxProxy } from './network/proxy.ts';
import type { NetworkPolicy } from './network/network-policy.ts';

/**
 * What the session's settings say about the sandbox, for the tools that build sandbox policies:
 * the network allowlist (commands reach the network only through efferent's proxies when it is
 * set) and the paths `sandbox.filesystem.denyRead` hides. The session fills it from settings;
 * embedders and tests may set it directly.
 */
export interface SandboxConfiguration {
  network?: NetworkPolicy;
  /** Resolver for the proxy (tests: names for loopback servers); default the system resolver. */
  resolve?: HostResolver;
  /** Absolute paths sandboxed processes may not read, besides what Read deny rules hide. */
  denyRead?: readonly string[];
}

/** The session's sandbox configuration holder. */
export class SandboxConfigurationHolder implements SessionResource {
  configuration: SandboxConfiguration = {};

  dispose(): void {
    this.configuration = {};
  }
}

/** The session's sandbox configuration. */
export const sandboxConfigurationKey: SessionResourceKey<SandboxConfigurationHolder> = {
  name: 'sandbox-configuration',
  create: () => new SandboxConfigurationHolder(),
};

/**
 * Starts the proxy a sandboxed call needs, or returns undefined when commands get no network at all
 * (no `sandbox.network` settings): `override` (a tool's own option) wins over the session's. On
 * macOS the proxy also listens on a loopback port ({@link SandboxProxy.listenLoopback}).
 */
export async function startCallProxy(
  context: Pick<ToolUseContext, 'run'>,
  override?: SandboxConfiguration,
  platform: NodeJS.Platform = process.platform,
): Promise<SandboxProxy | undefined> {
  const configured = override?.network
    ? override
    : context.run.resources?.peek(sandboxConfigurationKey)?.configuration;
  if (!configured?.network) return undefined;
  // Loaded with the first call that needs it: the proxy and its DNS and address checks are not part
  // of importing efferent.
  const { SandboxProxy } = await import('./network/proxy.ts');
  const proxy = await SandboxProxy.start(
    configured.network,
    configured.resolve ? { resolve: configured.resolve } : {},
  );
  // Seatbelt has no network namespace to put a relay in: commands reach a loopback port instead.
  if (platform === 'darwin') await proxy.listenLoopback();
  return proxy;
}
