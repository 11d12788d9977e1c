// The traceparent written into a tools/call line: the message means what it meant plus the proxy's traceparent,
// and every byte outside the one member written stays as the client sent it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withTraceparent } from './trace-meta.js';

const TP = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

function rewritten(text: string): string | undefined {
  return withTraceparent(Buffer.from(text), TP)?.toString();
}

describe('withTraceparent', () => {
  it('inserts _meta first into params, keeping the rest byte for byte', () => {
    const line =
      '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{ "name":"é\\"x","arguments":{"a":[1,{"b":"}"}]} }}';
    expect(rewritten(line)).toBe(
      `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"traceparent":"${TP}"}, "name":"é\\"x","arguments":{"a":[1,{"b":"}"}]} }}`,
    );
  });

  it('adds traceparent to an existing _meta, and replaces only the value of an existing one', () => {
    expect(rewritten('{"params":{"_meta":{"k":1},"name":"t"}}')).toBe(
      `{"params":{"_meta":{"traceparent":"${TP}","k":1},"name":"t"}}`,
    );
    expect(rewritten('{"params":{"_meta":{},"name":"t"}}')).toBe(
      `{"params":{"_meta":{"traceparent":"${TP}"},"name":"t"}}`,
    );
    expect(
      rewritten(
        '{"params":{"name":"t","_meta":{"traceparent" : "00-aaaa-bbbb-01", "tracestate":"x=1"}}}',
      ),
    ).toBe(`{"params":{"name":"t","_meta":{"traceparent" : "${TP}", "tracestate":"x=1"}}}`);
  });

  it('leaves lines it cannot follow alone', () => {
    for (const line of [
      '[1,2]',
      '{"params":[1]}',
      '{"params":{"_meta":"x"}}',
      '{"params":{"a":',
      'not json',
      '{"id":1}',
    ])
      expect(rewritten(line)).toBeUndefined();
  });

  it('means the same message plus the traceparent, for any arguments and _meta', () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.option(fc.dictionary(fc.string(), fc.jsonValue())),
        (args, meta) => {
          const params: Record<string, unknown> = { name: 'tool', arguments: args };
          if (meta) params._meta = meta;
          const message = { jsonrpc: '2.0', id: 1, method: 'tools/call', params };
          const out = rewritten(JSON.stringify(message));
          const expected = structuredClone(message) as typeof message & {
            params: { _meta?: Record<string, unknown> };
          };
          expected.params._meta = { ...(meta ?? {}), traceparent: TP };
          // Through JSON both ways, as the upstream reads it (-0 is written 0).
          expect(JSON.parse(out ?? 'null')).toEqual(JSON.parse(JSON.stringify(expected)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('passes the session’s conversation on beside the traceparent, in each shape of _meta', () => {
    const conv = '"toolscope.dev/conversation-id":"c-1"';
    const with1 = (text: string) => withTraceparent(Buffer.from(text), TP, 'c-1')?.toString();
    expect(with1('{"params":{"name":"t"}}')).toBe(
      `{"params":{"_meta":{"traceparent":"${TP}",${conv}},"name":"t"}}`,
    );
    expect(with1('{"params":{"_meta":{},"name":"t"}}')).toBe(
      `{"params":{"_meta":{"traceparent":"${TP}",${conv}},"name":"t"}}`,
    );
    expect(with1('{"params":{"_meta":{"k":1}}}')).toBe(
      `{"params":{"_meta":{"traceparent":"${TP}",${conv},"k":1}}}`,
    );
    // A traceparent the proxy could not read (so the call has no parent) is replaced, and the conversation added.
    expect(with1('{"params":{"_meta":{"k":1,"traceparent":"junk"}}}')).toBe(
      `{"params":{"_meta":{${conv},"k":1,"traceparent":"${TP}"}}}`,
    );
    expect(with1('{"params":{}}')).toBe(`{"params":{"_meta":{"traceparent":"${TP}",${conv}}}}`);
  });
});
