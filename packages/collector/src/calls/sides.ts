// Which side of a call a span records. A CLIENT span is the caller's view of a call; any other kind is the
// executor's (server) view. Statistics count a call once: every server row, and the client rows whose server
// row is not known (pairing.ts says which belong together).

export const CALL_SIDES = ['any', 'server', 'client'] as const;
export type CallSide = (typeof CALL_SIDES)[number];

/** OTLP span kind CLIENT. */
export const KIND_CLIENT = 3;

export const sideOfKind = (kind: number): 'server' | 'client' =>
  kind === KIND_CLIENT ? 'client' : 'server';
