// What an instrumented MCP server remembers: its options, hasher, redactor, the negotiated protocol version,
// and which of its tools are `defineTool` tools (those make their own span).
import type { Attributes } from '@opentelemetry/api';
import { readEnvConfig } from '../config.js';
import { createHasher, type Hasher } from '../hashing.js';
import { createRedactor, type Redactor } from '../redact.js';
import * as sc from '../semconv.js';
import { setClient, setMcpCall, setRequestIds } from '../span-contract.js';
import type { ResolvedMcpServerOptions } from './options.js';
import { skipper } from './options.js';
import { type DecodedExtra, requestClientInfo, requestProtocolVersion } from './request-context.js';
import { infoString, networkTransportOf, transportOf } from './sdk-access.js';

export type ServerState = {
  low: object;
  high: object | undefined;
  options: ResolvedMcpServerOptions;
  skip: (name: string) => boolean;
  hasher: Hasher;
  capture: boolean;
  redactor: Redactor;
  negotiatedVersion: string | undefined;
};

const states = new WeakMap<object, ServerState>();
const definedTools = new WeakMap<object, Map<string, unknown>>();
// One hasher per key for the process: SDK v2's serving entries make a server per connection, or per request in
// 2026-07-28 over HTTP, and preparing a key's pads costs more than hashing a call's input (hmac-sha256.ts).
const hashers = new Map<string | undefined, Hasher>();
const MAX_HASHERS = 16;

function hasherFor(key: string | undefined): Hasher {
  let hasher = hashers.get(key);
  if (!hasher) {
    hasher = createHasher(key);
    if (hashers.size < MAX_HASHERS) hashers.set(key, hasher);
  }
  return hasher;
}

export function createServerState(
  low: object,
  high: object | undefined,
  options: ResolvedMcpServerOptions,
): ServerState {
  const env = readEnvConfig();
  const capture = options.captureContent ?? env.captureContent;
  const state: ServerState = {
    low,
    high,
    options,
    skip: skipper(options.skipTools),
    hasher: hasherFor(options.hashKey ?? env.hashKey),
    capture: capture !== false,
    redactor: createRedactor(typeof capture === 'object' ? capture : {}, undefined),
    negotiatedVersion: undefined,
  };
  states.set(low, state);
  return state;
}

export function serverStateOf(low: object): ServerState | undefined {
  return states.get(low);
}

/** Names of the `defineTool` tools registered on a server. */
export function definedToolsOf(low: object): Map<string, unknown> {
  let map = definedTools.get(low);
  if (!map) {
    map = new Map();
    definedTools.set(low, map);
  }
  return map;
}

const MAX_ID = 256;

/** A usable id from `_meta`: a non-empty string of at most 256 characters. */
export function metaString(
  meta: Record<string, unknown> | undefined,
  key: string,
): string | undefined {
  const value = meta?.[key];
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_ID
    ? value
    : undefined;
}

/** Conversation id of a request: a usable answer of the `conversationId` option, else the `_meta` key. */
export function conversationIdOf(
  state: ServerState | undefined,
  toolName: string,
  extra: DecodedExtra,
): string | undefined {
  const fromOption = state?.options.conversationId;
  if (fromOption) {
    try {
      const value = fromOption({ toolName, meta: extra.meta, sessionId: extra.sessionId });
      if (typeof value === 'string' && value.length > 0 && value.length <= MAX_ID) return value;
    } catch {
      // A throwing callback falls back to the `_meta` key, as an unusable answer does.
    }
  }
  return metaString(extra.meta, sc.MCP_META_CONVERSATION_ID);
}

/** Conversation and call ids of a request: the option callback first, then the client adapter's `_meta` keys. */
export function callIds(
  state: ServerState | undefined,
  toolName: string,
  extra: DecodedExtra,
): {
  conversationId: string | undefined;
  callId: string | undefined;
  idempotencyKey: string | undefined;
} {
  return {
    conversationId: conversationIdOf(state, toolName, extra),
    callId: metaString(extra.meta, sc.MCP_META_CALL_ID),
    idempotencyKey: metaString(extra.meta, sc.MCP_META_IDEMPOTENCY_KEY),
  };
}

/** The MCP semconv attributes of a server-side `tools/call` span (span-contract.ts). */
export function mcpServerAttributes(
  state: ServerState | undefined,
  low: object,
  toolName: string,
  extra: DecodedExtra,
): Attributes {
  const version = requestProtocolVersion(extra, state?.negotiatedVersion);
  const attributes = setMcpCall({}, toolName, version, networkTransportOf(transportOf(low)));
  setRequestIds(attributes, extra.requestId, extra.sessionId, undefined, undefined);
  const client = requestClientInfo(low, extra);
  return setClient(attributes, infoString(client, 'name'), infoString(client, 'version'));
}

/**
 * `mcpServerAttributes` plus the conversation and call ids, written straight into the attributes: the plain-tool
 * path needs no other use of them, and skipping the ids object saves an allocation on every call.
 */
export function mcpServerCallAttributes(
  state: ServerState,
  toolName: string,
  extra: DecodedExtra,
): Attributes {
  const attributes = mcpServerAttributes(state, state.low, toolName, extra);
  const conversationId = conversationIdOf(state, toolName, extra);
  const callId = metaString(extra.meta, sc.MCP_META_CALL_ID);
  return setRequestIds(attributes, undefined, undefined, conversationId, callId);
}
