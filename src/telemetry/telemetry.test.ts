import {
  type Attributes,
  type Span,
  type SpanContext,
  type SpanOptions,
  type SpanStatus,
  type TimeInput,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  combineTelemetry,
  createCapturingTelemetry,
  createOtelTelemetry,
  type ToolCallEvent,
  toolSpanAttributes,
  toolSpanName,
} from './telemetry.ts';

/** What the in-memory tracer saw of one span. */
interface RecordedSpan {
  tracer: string;
  name: string;
  attributes: Attributes;
  startTime: TimeInput | undefined;
  endTime: TimeInput | undefined;
  status: SpanStatus | undefined;
}

/** A minimal in-memory TracerProvider written against the API's interfaces (no SDK package needed). */
function memoryProvider(): TracerProvider & { spans: RecordedSpan[] } {
  const spans: RecordedSpan[] = [];
  const spanContext: SpanContext = {
    traceId: '00000000000000000000000000000001',
    spanId: '0000000000000001',
    traceFlags: 1,
  };
  const makeTracer = (tracerName: string): Tracer => {
    const startSpan = (name: string, options: SpanOptions = {}): Span => {
      const record: RecordedSpan = {
        tracer: tracerName,
        name,
        attributes: { ...options.attributes },
        startTime: options.startTime,
        endTime: undefined,
        status: undefined,
      };
      spans.push(record);
      const span: Span = {
        spanContext: () => spanContext,
        setAttribute: (key, value) => {
          if (value !== undefined) record.attributes[key] = value;
          return span;
        },
        setAttributes: (attributes) => {
          Object.assign(record.attributes, attributes);
          return span;
        },
        addEvent: () => span,
        addLink: () => span,
        addLinks: () => span,
        setStatus: (status) => {
          record.status = status;
          return span;
        },
        updateName: (newName) => {
          record.name = newName;
          return span;
        },
        end: (endTime) => {
          record.endTime = endTime;
        },
        isRecording: () => true,
        recordException: () => {},
      };
      return span;
    };
    return {
      startSpan,
      startActiveSpan: ((name: string, ...rest: unknown[]) => {
        const callback = rest.at(-1) as (span: Span) => unknown;
        return callback(startSpan(name));
      }) as Tracer['startActiveSpan'],
    };
  };
  return { spans, getTracer: (name) => makeTracer(name) };
}

const event: ToolCallEvent = {
  toolName: 'Bash',
  toolUseId: 'toolu_1',
  outcome: 'tool_error',
  startTime: 1_700_000_000_000,
  durationMs: 42,
  errorClass: 'system:ENOENT',
  agentId: 'main',
};

describe('createOtelTelemetry', () => {
  it('emits one efferent.tool span per call through the global tracer provider', () => {
    const provider = memoryProvider();
    expect(trace.setGlobalTracerProvider(provider)).toBe(true);
    try {
      const telemetry = createOtelTelemetry();
      telemetry.recordToolCall(event);
      const { errorClass: _none, ...success } = event;
      telemetry.recordToolCall({ ...success, outcome: 'success', toolName: 'Read', durationMs: 3 });
      const [failed, succeeded] = provider.spans;
      expect(provider.spans).toHaveLength(2);
      expect(failed).toMatchObject({
        tracer: 'efferent',
        name: toolSpanName,
        startTime: event.startTime,
        endTime: event.startTime + 42,
        status: { code: 2, message: 'system:ENOENT' },
      });
      expect(failed?.attributes).toEqual({
        [toolSpanAttributes.toolName]: 'Bash',
        [toolSpanAttributes.outcome]: 'tool_error',
        [toolSpanAttributes.durationMs]: 42,
        [toolSpanAttributes.errorClass]: 'system:ENOENT',
        [toolSpanAttributes.toolUseId]: 'toolu_1',
        [toolSpanAttributes.agentId]: 'main',
      });
      expect(succeeded?.status).toBeUndefined();
      expect(succeeded?.attributes[toolSpanAttributes.errorClass]).toBeUndefined();
    } finally {
      trace.disable();
    }
  });

  it('is a silent no-op without an SDK', () => {
    expect(() => createOtelTelemetry().recordToolCall(event)).not.toThrow();
  });

  it('sends spans to a provider registered after earlier calls went unrecorded', () => {
    const telemetry = createOtelTelemetry();
    telemetry.recordToolCall(event);
    const provider = memoryProvider();
    expect(trace.setGlobalTracerProvider(provider)).toBe(true);
    try {
      telemetry.recordToolCall(event);
      expect(provider.spans).toHaveLength(1);
    } finally {
      trace.disable();
    }
  });

  it('does not load @opentelemetry/api when no provider is registered', () => {
    const module = fileURLToPath(new URL('./telemetry.ts', import.meta.url));
    const script = `
      import { createRequire } from 'node:module';
      const { createOtelTelemetry } = await import(${JSON.stringify(module)});
      createOtelTelemetry().recordToolCall(${JSON.stringify(event)});
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((path) => path.includes('@opentelemetry'));
      process.stdout.write(JSON.stringify(loaded));`;
    const output = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    expect(JSON.parse(output)).toEqual([]);
  });
});

describe('capturing and combined sinks', () => {
  it('captures events and isolates a failing sink', () => {
    const captured = createCapturingTelemetry();
    const broken = {
      recordToolCall: () => {
        throw new Error('exporter down');
      },
    };
    combineTelemetry(broken, captured).recordToolCall(event);
    expect(captured.events).toEqual([event]);
  });
});
