// A flag's id (`id` in GET /api/flags; `toolscope fixtures --flag ID`, GET /api/fixtures?flag=ID): the same flag
// gets the same id on every read, whatever the window, since it is made of what the flag is about (kind, tool,
// version, scope, input or cycle) and never of its times or counts.
import { createHash } from 'node:crypto';
import type { Flag } from './flag.js';

type Identified = Pick<
  Flag,
  'kind' | 'tool' | 'version' | 'traceId' | 'conversationId' | 'evidence'
>;

/** First 16 hex of SHA-256 over the flag's identity. */
export function flagIdOf(f: Identified): string {
  const identity = [
    f.kind,
    f.tool,
    f.version ?? null,
    f.traceId ?? null,
    f.conversationId ?? null,
    f.evidence.inputHash ?? null,
    f.evidence.cycle ?? null,
  ];
  return createHash('sha256').update(JSON.stringify(identity)).digest('hex').slice(0, 16);
}
