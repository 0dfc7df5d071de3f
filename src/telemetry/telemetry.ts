import { createRequire } from 'node:module';
import type { Attributes, Tracer } from '@opentelemetry/api';

/** `SpanStatusCode.ERROR`, without loading the API at import time. */
const spanStatusError = 2;

/**
 * The API is loaded on the first recorded call, not when efferent is imported: it is a few hundred
 * milliseconds of module loading that a process making no tool call never needs.
 */
function defaultTracer(): Tracer {
  const api = createRequire(import.meta.url)('@opentelemetry/api') as typeof import('@opentelemetry/api');
  return api.trace.getTracer(tracerName);
}

/**
 * Whether an OpenTelemetry SDK registered a tracer provider: the API (any copy of major version 1)
 * keeps it on a global under this key. Without one every span is a no-op, so the API is not loaded
 * (about as long to load as the rest of a short command); a provider registered later is still seen.
 */
function tracerProviderRegistered(): boolean {
  const registry = (globalThis as Record<symbol, { trace?: unknown } | undefined>)[
    Symbol.for('opentelemetry.js.api.1')
  ];
  return registry?.trace !== undefined;
}

/** How one tool call ended, as telemetry records it. */
export type ToolCallOutcome =
  | 'success'
  | 'tool_error'
  | 'not_found'
  | 'aborted'
  | 'invalid_input'
  | 'validation_failed'
  | 'hook_blocked'
  | 'permission_denied'
  | 'deferred'
  | 'internal_error';

/**
 * One finished tool call. Every field is telemetry-safe: no inputs, no outputs, no messages, no paths.
 * MCP tools are reported as `mcp` and unknown names as `unknown`, since those names come from outside.
 */
export interface ToolCallEvent {
  toolName: string;
  toolUseId: string;
  outcome: ToolCallOutcome;
  /** Wall-clock start, ms since the epoch. */
  startTime: number;
  durationMs: number;
  /** From `classifyToolError`, only when the call failed. */
  errorClass?: string;
  /** The agent that made the call (`main` or a subagent id). */
  agentId: string;
}

/** Where the pipeline reports tool calls. */
export interface Telemetry {
  recordToolCall(event: ToolCallEvent): void;
}

/** The span name of one tool call. */
export const toolSpanName = 'efferent.tool';

/** The tracer name efferent uses. */
export const tracerName = 'efferent';

/** Span attribute keys, one place so dashboards and tests agree. */
export const toolSpanAttributes = {
  toolName: 'efferent.tool.name',
  outcome: 'efferent.tool.outcome',
  durationMs: 'efferent.tool.duration_ms',
  errorClass: 'efferent.tool.error_class',
  toolUseId: 'efferent.tool.use_id',
  agentId: 'efferent.agent.id',
} as const;

/**
 * Telemetry through `@opentelemetry/api`: one `efferent.tool` span per call, back-dated to the call's
 * start. Without an installed OpenTelemetry SDK the API's tracer is a no-op, so this costs nothing.
 */
export function createOtelTelemetry(given?: Tracer): Telemetry {
  let tracer = given;
  return {
    recordToolCall(event) {
      if (!tracer) {
        if (!tracerProviderRegistered()) return;
        tracer = defaultTracer();
      }
      const attributes: Attributes = {
        [toolSpanAttributes.toolName]: event.toolName,
        [toolSpanAttributes.outcome]: event.outcome,
        [toolSpanAttributes.durationMs]: event.durationMs,
        [toolSpanAttributes.toolUseId]: event.toolUseId,
        [toolSpanAttributes.agentId]: event.agentId,
      };
      if (event.errorClass !== undefined) attributes[toolSpanAttributes.errorClass] = event.errorClass;
      const span = tracer.startSpan(toolSpanName, { startTime: event.startTime, attributes });
      if (event.outcome !== 'success') {
        span.setStatus({ code: spanStatusError, message: event.errorClass ?? event.outcome });
      }
      span.end(event.startTime + event.durationMs);
    },
  };
}

/** A telemetry sink that keeps every event, for tests and for embedders that want the raw events. */
export interface CapturingTelemetry extends Telemetry {
  readonly events: ToolCallEvent[];
}

/** Records events in memory; optionally forwards them to another sink too. */
export function createCapturingTelemetry(forward?: Telemetry): CapturingTelemetry {
  const events: ToolCallEvent[] = [];
  return {
    events,
    recordToolCall(event) {
      events.push(event);
      forward?.recordToolCall(event);
    },
  };
}

/** Sends each event to every sink; one sink failing never affects the others or the call. */
export function combineTelemetry(...sinks: readonly Telemetry[]): Telemetry {
  return {
    recordToolCall(event) {
      for (const sink of sinks) {
        try {
          sink.recordToolCall(event);
        } catch {
          // Telemetry must never change the outcome of a tool call.
        }
      }
    },
  };
}
