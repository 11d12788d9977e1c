// The stdio proxy: the server runs as a child; the client's lines go to its stdin (a `tools/call` with the
// proxy's traceparent), its stdout comes back byte for byte, its stderr passes straight through. Forward first,
// look after: the upstream's bytes are written before the observer reads its copy of them, and a client's
// request before its span is made (only what its rewritten bytes depend on is decided first). When the client
// closes stdin, calls in flight may still finish (within the drain timeout) before the server is stopped.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { LineSplitter } from './line-splitter.js';
import { causeOf, type Logger } from './log.js';
import type { McpObserver } from './observer.js';

export type StdioProxyOptions = {
  command: string;
  args: string[];
  observer: McpObserver;
  log: Logger;
  /** `--enforce-output`: upstream lines are read before they are forwarded, so a broken result can be replaced. */
  enforceOutput: boolean;
  /** What is left to do once the child is gone (flush spans); its time is bounded by the caller. */
  finish: () => Promise<void>;
  stdin?: Readable;
  stdout?: Writable;
  /** After the client's EOF and its last call answered, how long the child may take to exit before SIGTERM. */
  exitGraceMs?: number;
  /** After the client's EOF, how long calls in flight may take before the child is stopped all the same. */
  drainTimeoutMs?: number;
};

// A line held in memory at most while it is framed; a longer one is forwarded in pieces and not observed.
const MAX_LINE_BYTES = 64 * 1024 * 1024;

/** Runs the proxy until the child has exited and the spans are flushed; resolves with the child's exit code. */
export function runStdioProxy(o: StdioProxyOptions): Promise<number> {
  const stdin = o.stdin ?? process.stdin;
  const stdout = o.stdout ?? process.stdout;
  const grace = o.exitGraceMs ?? 2000;
  const drainTimeout = o.drainTimeoutMs ?? 30_000;
  const child = spawn(o.command, o.args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const childIn = child.stdin;
  const childOut = child.stdout;

  return new Promise<number>((resolve) => {
    let exitCode: number | undefined;
    let signals = 0;
    // After the client's EOF: the timer that stops the child once its calls are answered, or cut.
    let draining = false;
    let stopTimer: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;
    const stopChild = (afterMs: number) => {
      clearTimeout(drainTimer);
      if (stopTimer) return;
      // The MCP stdio shutdown: stdin closed, then SIGTERM, then SIGKILL for a child that stays.
      stopTimer = setTimeout(() => {
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), grace).unref();
      }, afterMs);
      stopTimer.unref();
    };
    const drain = () => {
      draining = true;
      if (o.observer.inFlight === 0) return stopChild(grace);
      drainTimer = setTimeout(() => {
        const cut = o.observer.callsInFlight();
        o.log.log('warn', 'calls still in flight at the drain timeout; stopping the upstream', {
          drainTimeoutMs: drainTimeout,
          callsCut: cut.length,
          calls: cut.slice(0, 20),
        });
        stopChild(0);
      }, drainTimeout);
      drainTimer.unref();
    };
    const settle = () => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      resolve(exitCode ?? 1);
    };
    const finish = (code: number) => {
      if (exitCode !== undefined) return;
      exitCode = code;
      clearTimeout(drainTimer);
      clearTimeout(stopTimer);
      stdin.off('data', onClientData);
      stdin.pause();
      const ended = o.observer.endAll();
      o.log.log('info', 'upstream exited', { exitCode: code, callsLeftInFlight: ended });
      o.finish().then(settle, settle);
    };

    // What one chunk from the client becomes, written in one write (a writev of many pieces costs more).
    let pieces: Buffer[] = [];
    const toChild = new LineSplitter((bytes, whole) => {
      if (!whole) {
        pieces.push(bytes);
        return;
      }
      // The observer reads the line with its newline (whitespace to JSON, kept after the object by the
      // traceparent rewrite), so a rewritten line comes back whole and is not copied again to add it.
      pieces.push(o.observer.fromClient(bytes));
    }, MAX_LINE_BYTES);
    const flushPieces = () => {
      if (pieces.length === 1) childIn.write(pieces[0] as Buffer);
      else if (pieces.length > 1) childIn.write(Buffer.concat(pieces));
      pieces = [];
    };
    const onClientData = (chunk: Buffer) => {
      toChild.push(chunk);
      flushPieces();
      o.observer.afterForward();
      if (childIn.writableNeedDrain) {
        stdin.pause();
        childIn.once('drain', () => stdin.resume());
      }
    };
    stdin.on('data', onClientData);
    stdin.on('end', () => {
      toChild.flush();
      flushPieces();
      o.observer.afterForward();
      childIn.end();
      drain();
    });
    childIn.on('error', (error) => o.log.log('debug', 'upstream stdin closed', causeOf(error)));

    const fromChild = new LineSplitter((bytes, whole, newline) => {
      const line = newline ? bytes.subarray(0, bytes.length - 1) : bytes;
      if (!o.enforceOutput) {
        if (whole) o.observer.fromUpstream(line);
      } else {
        const replacement = whole ? o.observer.fromUpstream(line) : undefined;
        stdout.write(replacement ?? bytes);
      }
      // The client is gone and its last call is answered: the child gets its grace to exit.
      if (draining && !stopTimer && o.observer.inFlight === 0) stopChild(grace);
    }, MAX_LINE_BYTES);
    childOut.on('data', (chunk: Buffer) => {
      if (!o.enforceOutput) stdout.write(chunk);
      fromChild.push(chunk);
      if (stdout.writableNeedDrain) {
        childOut.pause();
        stdout.once('drain', () => childOut.resume());
      }
    });
    childOut.on('end', () => fromChild.flush());
    stdout.on('error', (error) => {
      o.log.log('warn', 'client output closed; stopping the upstream', causeOf(error));
      child.kill('SIGTERM');
    });

    const onSignal = (signal: NodeJS.Signals) => {
      signals++;
      if (exitCode !== undefined) {
        // A client that stops its server after closing stdin (the SDK's own, 2 s later) sends one signal; the
        // flush goes on (it is bounded) and only a second signal stops it.
        if (signals < 2) {
          o.log.log('info', 'flushing spans before exiting; a second signal stops the wait', {
            signal,
          });
          return;
        }
        o.log.log('warn', 'stopped before the spans were flushed', { signal });
        settle();
        return;
      }
      o.log.log('info', 'stopping', { signal });
      child.kill(signal);
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);

    child.on('error', (error) => {
      o.log.log('error', 'could not start the upstream', { command: o.command, ...causeOf(error) });
      // 127: the shell's "command not found"; the child never ran.
      finish(127);
    });
    child.on('close', (code, signal) => {
      finish(code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1));
    });
  });
}
