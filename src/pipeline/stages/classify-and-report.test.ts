import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildTool, EfferentError, ErrorCodes } from '../../core/index.ts';
import { createCapturingTelemetry } from '../../telemetry/index.ts';
import { echoTool } from '../../../test/pipeline/fixtures.ts';
import { classifyAndReport, telemetryToolName } from './classify-and-report.ts';

const mcp = buildTool({
  name: 'mcp__acme_secret_project__deploy',
  inputSchema: z.object({}),
  prompt: 'd',
  mcpInfo: { serverName: 'acme_secret_project', toolName: 'deploy' },
  call: async () => ({ data: '' }),
});

describe('classifyAndReport (step 14)', () => {
  it('reports a telemetry-safe class and never the message', () => {
    const telemetry = createCapturingTelemetry();
    const error = Object.assign(new Error('/home/alice/secret.txt: no such file'), { code: 'ENOENT' });
    const errorClass = classifyAndReport({
      telemetry,
      tool: echoTool(),
      toolUseId: 't',
      agentId: 'main',
      outcome: 'tool_error',
      error,
      startTime: 1,
      durationMs: 2,
    });
    expect(errorClass).toBe('system:ENOENT');
    expect(telemetry.events).toEqual([
      {
        toolName: 'Echo',
        toolUseId: 't',
        outcome: 'tool_error',
        startTime: 1,
        durationMs: 2,
        agentId: 'main',
        errorClass: 'system:ENOENT',
      },
    ]);
    expect(JSON.stringify(telemetry.events)).not.toContain('alice');
  });

  it('hides MCP and unknown tool names and omits the class on success', () => {
    expect(telemetryToolName(mcp)).toBe('mcp');
    expect(telemetryToolName(undefined)).toBe('unknown');
    const telemetry = createCapturingTelemetry();
    expect(
      classifyAndReport({
        telemetry,
        tool: mcp,
        toolUseId: 't',
        agentId: 'a',
        outcome: 'success',
        startTime: 0,
        durationMs: 0,
      }),
    ).toBeUndefined();
    expect(telemetry.events[0]).not.toHaveProperty('errorClass');
    const denied = classifyAndReport({
      telemetry,
      tool: mcp,
      toolUseId: 't',
      agentId: 'a',
      outcome: 'permission_denied',
      error: new EfferentError(ErrorCodes.permissionDenied, 'x'),
      startTime: 0,
      durationMs: 0,
    });
    expect(denied).toBe('efferent:permission_denied');
  });

  it('survives a throwing sink', () => {
    const telemetry = {
      recordToolCall: () => {
        throw new Error('exporter down');
      },
    };
    expect(
      classifyAndReport({
        telemetry,
        tool: undefined,
        toolUseId: 't',
        agentId: 'a',
        outcome: 'not_found',
        error: new TypeError('x'),
        startTime: 0,
        durationMs: 0,
      }),
    ).toBe('TypeError');
  });
});
