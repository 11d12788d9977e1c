// What the proxy makes of each kind of line: the message kinds, and the lines it leaves unread.
import { describe, expect, it } from 'vitest';
import { parseLine } from './jsonrpc.js';

const read = (line: string) => parseLine(line)?.map((m) => m.kind) ?? 'unread';

describe('parseLine', () => {
  it('reads requests, notifications, results and errors', () => {
    expect(
      parseLine('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}'),
    ).toEqual([{ kind: 'request', id: 1, method: 'tools/call', params: { name: 'a' } }]);
    expect(parseLine('{"jsonrpc":"2.0","method":"notifications/x"}')).toEqual([
      { kind: 'notification', method: 'notifications/x', params: undefined },
    ]);
    expect(parseLine('{"jsonrpc":"2.0","id":"a","result":{"ok":1}}')).toEqual([
      { kind: 'result', id: 'a', result: { ok: 1 } },
    ]);
    expect(parseLine('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}}')).toEqual([
      { kind: 'error', id: null, code: -32700, message: 'm' },
    ]);
    expect(parseLine('{"id":2,"error":{"code":1}}')).toEqual([
      { kind: 'error', id: 2, code: 1, message: '' },
    ]);
    expect(parseLine('{"id":3}')).toEqual([{ kind: 'result', id: 3, result: undefined }]);
  });

  it('reads a request with an id that is neither a string nor a number as a notification', () => {
    expect(read('{"id":null,"method":"m"}')).toEqual(['notification']);
    expect(read('{"id":true,"method":"m"}')).toEqual(['notification']);
    expect(read('{"id":1e999,"method":"m"}')).toEqual(['notification']);
    // A request's error member is not read.
    expect(read('{"id":1,"method":"m","error":"x"}')).toEqual(['request']);
  });

  it('leaves alone what is not JSON-RPC it reads', () => {
    for (const line of [
      'not json',
      '"text"',
      '[]',
      '{"method":1}',
      '{"method":null}',
      '{"id":1,"method":"m","params":[1]}',
      '{"id":1,"method":"m","params":null}',
      '{"result":1}',
      '{"id":null,"result":1}',
      '{"id":true,"result":1}',
      '{"id":1e999,"result":1}',
      '{"id":1,"error":{"code":"x"}}',
      '{"id":1,"error":{"code":1,"message":2}}',
      '{"id":1,"error":null}',
      '{"id":1,"error":[1]}',
    ])
      expect(read(line), line).toBe('unread');
  });

  it('reads the messages of a batch it can read', () => {
    expect(read('[{"id":1,"method":"a"},7,{"method":"b"},{"id":2,"result":{}}]')).toEqual([
      'request',
      'notification',
      'result',
    ]);
  });
});
