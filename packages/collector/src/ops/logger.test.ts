// Process warnings become JSON log lines with their code (a WAL checkpoint failure, a library's deprecation),
// never Node's bare `Warning:` line; passwords in any logged message are `***`.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { expect, it } from 'vitest';
import { causeOf, logProcessWarnings } from './logger.js';

it('logs a process warning as one JSON line with its code, and gives the default printer back after', async () => {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const before = process.listeners('warning');
  const undo = logProcessWarnings(pino({}, sink));
  const seen = new Promise((resolve) => process.once('warning', resolve));
  process.emitWarning(
    'toolscope: WAL checkpoint failed (retrying): SQLITE_IOERR_WRITE: disk I/O error',
  );
  await seen;
  undo();
  expect(process.listeners('warning')).toEqual(before);
  expect(lines).toEqual([
    expect.objectContaining({
      level: 40,
      msg: 'WAL checkpoint failed (retrying): SQLITE_IOERR_WRITE: disk I/O error',
      cause: expect.objectContaining({ code: 'SQLITE_IOERR_WRITE' }),
    }),
  ]);
});

it('hides the password of a URL in a logged cause', () => {
  expect(causeOf(new Error('cannot reach postgres://app:s3cr3t@db:5432/x')).message).toBe(
    'cannot reach postgres://app:***@db:5432/x',
  );
  const refused = new AggregateError([new Error('connect ECONNREFUSED 127.0.0.1:1')], '');
  expect(causeOf(refused).message).toBe('connect ECONNREFUSED 127.0.0.1:1');
});
