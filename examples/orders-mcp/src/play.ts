// How the scripted agent plays a scene: one agent span (one trace) per turn in the scene's conversation, each call
// through the MCP client of its deployment, and the scene's repair applied when a call comes back INVALID_INPUT.
// The agent process and the tests that play scenes in process both use it.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tracer } from '@opentelemetry/api';
import { MCP_META_IDEMPOTENCY_KEY } from '@toolscope/instrument';
import type { Fulfilment } from './fulfilment-client.js';
import type { Call, Scene } from './scenarios.js';
import type { Variant } from './tools.js';

/** What a failed call's structuredContent says (the envelope). */
export type Envelope = { ok?: boolean; code?: string; issues?: { path: string }[] };

export type Player = {
  clients: Record<Variant, Client>;
  /** The fulfilment deployment's client, for scenes that call it. */
  fulfilment?: Fulfilment;
  tracer: Tracer;
  /** The conversation the clients stamp on each call (their `conversationId` option reads it). */
  conversation: { id: string };
  /** Told of each scene as it starts and each call's outcome (`ok` or its code). */
  onScene?: (scene: Scene) => void;
  onCall?: (call: Call, outcome: string) => void;
};

const envelopeOf = (r: unknown): Envelope =>
  (typeof r === 'object' && r !== null && 'structuredContent' in r
    ? (r.structuredContent as Envelope)
    : {}) ?? {};

async function call(p: Player, c: Call): Promise<Envelope> {
  if (c.server === 'fulfilment') {
    if (!p.fulfilment) throw new Error(`${c.tool}: this player has no fulfilment client`);
    p.onCall?.(c, await p.fulfilment.call(c.tool, c.args, c.wait));
    return {};
  }
  const result = await p.clients[c.server].callTool({
    name: c.tool,
    arguments: c.args,
    ...(c.key ? { _meta: { [MCP_META_IDEMPOTENCY_KEY]: c.key } } : {}),
  });
  const env = envelopeOf(result);
  p.onCall?.(c, result.isError ? (env.code ?? 'ERROR') : 'ok');
  return env;
}

/** Plays a scene in a conversation of its own; returns that conversation and the traces of its turns. */
export async function playScene(
  scene: Scene,
  p: Player,
): Promise<{ conversationId: string; traceIds: string[] }> {
  p.onScene?.(scene);
  p.conversation.id = `conv-${scene.id}-${Date.now().toString(36)}`;
  const traceIds: string[] = [];
  for (const [i, turn] of scene.turns.entries()) {
    if (i > 0 && scene.pauseMs) await new Promise((r) => setTimeout(r, scene.pauseMs));
    // A scene of several clients: each turn is an agent of its own, in a conversation of its own.
    if (i > 0 && scene.clientPerTurn)
      p.conversation.id = `conv-${scene.id}-${i}-${Date.now().toString(36)}`;
    await p.tracer.startActiveSpan(`agent.turn ${scene.id}`, async (span) => {
      traceIds.push(span.spanContext().traceId);
      try {
        for (const c of turn) {
          const env = await call(p, c);
          if (scene.repair && env.code === 'INVALID_INPUT') {
            const paths = (env.issues ?? []).map((x) => x.path);
            await call(p, { ...c, args: scene.repair(c.args, paths) });
          }
        }
      } finally {
        span.end();
      }
    });
  }
  return { conversationId: p.conversation.id, traceIds };
}
