// What a plain MCP tool's span says about the tool itself (version, schema hash, effect, deprecation), read from
// the McpServer's registry once per registry record and kept until the record changes (the SDK's `update()`
// replaces its fields), so a call pays a lookup and a few identity checks instead of reading it all again.
import type { Attributes } from '@opentelemetry/api';
import { deprecationAttributes, deprecationOfMcpTool } from '../deprecation.js';
import { inputJsonSchemaOf, outputJsonSchemaOf, schemaHashOf } from '../schema-hash.js';
import * as sc from '../semconv.js';
import { setDeclaration } from '../span-contract.js';
import type { CallTemplate } from './call-attributes.js';
import {
  isRecord,
  type RegisteredTool,
  registeredTool,
  toolHandlerKey,
  toolRecord,
} from './sdk-access.js';
import type { ServerState } from './server-state.js';
import { keepThrown } from './thrown.js';

const UNVERSIONED = 'unversioned';
const hashes = new WeakMap<object, { output: unknown; hash: string }>();

/** Schema hash of a registered tool's Zod schemas, cached per schema object. */
export function schemaHashOfRegistered(input: unknown, output: unknown): string | undefined {
  const key = typeof input === 'object' && input !== null ? input : hashes;
  const cached = hashes.get(key);
  if (cached && cached.output === output) return cached.hash;
  try {
    const inputJson =
      typeof input === 'object' && input !== null ? inputJsonSchemaOf(input as never) : {};
    const outputJson =
      typeof output === 'object' && output !== null ? outputJsonSchemaOf(output as never) : {};
    const hash = schemaHashOf(inputJson, outputJson);
    hashes.set(key, { output, hash });
    return hash;
  } catch {
    return undefined;
  }
}

/** A plain tool's version: the `toolVersions` option, else `_meta["toolscope.dev/version"]`, else unversioned. */
export function plainToolVersion(state: ServerState, name: string, meta: unknown): string {
  const metaVersion = isRecord(meta) ? meta['toolscope.dev/version'] : undefined;
  return (
    state.options.toolVersions?.[name] ??
    (typeof metaVersion === 'string' ? metaVersion : UNVERSIONED)
  );
}

/** A registered tool as its calls' spans need it. */
export type ToolProfile = {
  /** The registry's view of the tool, as read when this profile was made. */
  registered: RegisteredTool;
  /** The function the SDK calls (`executor` in v2, `handler` in v1) when it was last made to keep its throws. */
  handler: unknown;
  /** Attributes every call of this tool carries, in span-contract order. */
  attributes: Attributes;
  /** The span's name, `tools/call {name}`. */
  spanName: string;
  /** The registered input and output schemas, as the outcome of a failed call reads them. */
  schemas: { input: unknown; output: unknown };
  /** This tool's start attributes for the current session (call-attributes.ts), made on its first call. */
  template: CallTemplate | undefined;
};

const profiles = new WeakMap<object, ToolProfile>();

function sameRecord(profile: ToolProfile, record: Record<string, unknown>): boolean {
  const r = profile.registered;
  return (
    r.inputSchema === record.inputSchema &&
    r.outputSchema === record.outputSchema &&
    r.annotations === record.annotations &&
    r.meta === record._meta &&
    r.description === record.description &&
    r.enabled === (record.enabled !== false)
  );
}

function profileOf(state: ServerState, name: string, registered: RegisteredTool): ToolProfile {
  const readOnly = isRecord(registered.annotations) && registered.annotations.readOnlyHint === true;
  const d = deprecationOfMcpTool(registered.annotations, registered.meta, registered.description);
  const attributes = setDeclaration(
    {},
    {
      version: plainToolVersion(state, name, registered.meta),
      schemaHash: schemaHashOfRegistered(registered.inputSchema, registered.outputSchema),
      effect: readOnly ? 'read' : 'write',
      deprecation: d ? deprecationAttributes(d) : undefined,
    },
  );
  return {
    registered,
    handler: undefined,
    attributes,
    spanName: `${sc.SPAN_NAME_MCP_TOOLS_CALL_PREFIX} ${name}`,
    schemas: { input: registered.inputSchema, output: registered.outputSchema },
    template: undefined,
  };
}

/**
 * The profile of tool `name` on this server: `undefined` for a tool the registry does not hold, `null` when the
 * registry cannot be read (not an McpServer). Also makes sure the tool's handler keeps what it throws.
 */
export function toolProfile(state: ServerState, name: string): ToolProfile | undefined | null {
  const record = toolRecord(state.high, name);
  if (!record) return record;
  let profile = profiles.get(record);
  if (!profile || !sameRecord(profile, record)) {
    const registered = registeredTool(state.high, name);
    if (!registered) return undefined;
    profile = profileOf(state, name, registered);
    profiles.set(record, profile);
  }
  const handler = record[toolHandlerKey(record)];
  if (profile.registered.enabled && handler !== profile.handler) {
    keepThrown(state.high, name);
    // The wrapped handler now: a handler set again later (the SDK's `update()`) is wrapped in turn.
    profile.handler = record[toolHandlerKey(record)];
  }
  return profile;
}
