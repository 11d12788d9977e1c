// The cause of a failed call (docs/contracts.md): what a thrown error leaves on the tool's span. The type always; the
// message redacted by the payload rules and capped, since messages quote inputs (e-mails, tokens) more often
// than authors expect; the stack only with content capture, since it names files and lines of the server.
import type { Attributes } from '@opentelemetry/api';
import { redactString } from './redact.js';
import * as sc from './semconv.js';

/** The error's class name (`TypeError`), a `name` field of a thrown object, or the JS type of a thrown value. */
export function errorName(error: unknown): string {
  if (error instanceof Error) return error.name;
  if (typeof error === 'object' && error !== null) {
    const name: unknown = Reflect.get(error, 'name');
    if (typeof name === 'string' && name !== '') return name;
  }
  return typeof error;
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  if (typeof error === 'object' && error !== null) {
    const message: unknown = Reflect.get(error, 'message');
    if (typeof message === 'string') return message;
  }
  return '';
}

/** Attributes of the `exception` event for `error`. Never throws. */
export function exceptionAttributes(error: unknown, captureStack: boolean): Attributes {
  const attributes: Attributes = {};
  try {
    attributes[sc.ATTR_EXCEPTION_TYPE] = errorName(error).slice(0, 128);
    attributes[sc.ATTR_EXCEPTION_MESSAGE] = redactString(
      messageOf(error),
      sc.MAX_EXCEPTION_MESSAGE_CHARS,
    );
    if (captureStack && error instanceof Error && typeof error.stack === 'string') {
      attributes[sc.ATTR_EXCEPTION_STACKTRACE] = redactString(
        error.stack,
        sc.MAX_EXCEPTION_STACK_CHARS,
      );
    }
  } catch {
    // A getter that throws on a hostile error object: the type alone still says something.
    attributes[sc.ATTR_EXCEPTION_TYPE] = 'unknown';
  }
  return attributes;
}
