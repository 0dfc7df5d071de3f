import { deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseMessage } from './stdio-transport.ts';

const messages = [
  {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'x', arguments: {}, _meta: { progressToken: 't' } },
  },
  { jsonrpc: '2.0', id: 'a', method: 'ping' },
  { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: 1 } },
  { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'hi' }], structuredContent: { a: 1 } } },
  { jsonrpc: '2.0', id: 7, error: { code: -32_601, message: 'Method not found' } },
];

describe('parseMessage', () => {
  it('returns every kind of JSON-RPC message as the SDK reads it', () => {
    for (const message of messages) {
      const line = JSON.stringify(message);
      expect(parseMessage(line)).toEqual(deserializeMessage(line));
    }
  });

  it('refuses lines that are not JSON-RPC, saying why', () => {
    expect(() => parseMessage('this is not JSON-RPC')).toThrow(SyntaxError);
    expect(() => parseMessage('[1, 2]')).toThrow(/JSON object was expected/);
    expect(() => parseMessage('null')).toThrow(/JSON object was expected/);
    expect(() => parseMessage('{"also": "not a message"}')).toThrow(/"jsonrpc": "2.0"/);
    expect(() => parseMessage('{"jsonrpc": "1.0", "id": 1, "result": {}}')).toThrow(/"jsonrpc": "2.0"/);
    expect(() => parseMessage('{"jsonrpc": "2.0", "id": 1}')).toThrow(/neither a method nor a result/);
  });

  it('accepts whatever the SDK would accept, unchanged', () => {
    const envelope = fc.record(
      {
        jsonrpc: fc.constantFrom('2.0', '1.0'),
        id: fc.oneof(fc.integer(), fc.string()),
        method: fc.constantFrom('ping', 'notifications/cancelled', 'tools/list'),
        params: fc.dictionary(fc.string(), fc.jsonValue()),
        result: fc.dictionary(fc.string(), fc.jsonValue()),
        error: fc.record({ code: fc.integer(), message: fc.string() }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(envelope, fc.jsonValue()), (value) => {
        const line = JSON.stringify(value) ?? 'null';
        let expected: unknown;
        try {
          expected = deserializeMessage(line);
        } catch {
          return;
        }
        expect(parseMessage(line)).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });
});
