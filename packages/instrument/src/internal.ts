// Package-internal access from adapters (the MCP wrapper) to a tool's call pipeline; never exported publicly.
import type { SpanOverride, ToolInternals } from './call-runner.js';
import type { ToolResult } from './contract.js';

export const TOOL_INTERNALS: unique symbol = Symbol('toolscope.tool.internals');

export type InternalAccess = {
  internals: ToolInternals;
  run(rawInput: unknown, options: unknown, override: SpanOverride): Promise<ToolResult<unknown>>;
};

/** The internals of a tool made by `defineTool`, or `undefined` for anything else. */
export function internalsOf(value: unknown): InternalAccess | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const access: unknown = Reflect.get(value, TOOL_INTERNALS);
  return typeof access === 'object' && access !== null ? (access as InternalAccess) : undefined;
}
