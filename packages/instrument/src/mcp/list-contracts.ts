// The contracts of an instrumented server's tools, reported from what `tools/list` answers (contract-report.ts):
// a `defineTool` tool reports its own Zod contract; a plain tool what the SDK lists for it, with the same
// version and schema hash its call spans carry.
import { diag } from '@opentelemetry/api';
import { reportContract } from '../contract-report.js';
import { deprecationOfMcpTool } from '../deprecation.js';
import { internalsOf } from '../internal.js';
import { schemaHashOf } from '../schema-hash.js';
import type { HandlerWrapper } from './handlers.js';
import { isRecord, type RawHandler, registeredTool } from './sdk-access.js';
import type { ServerState } from './server-state.js';
import { plainToolVersion, schemaHashOfRegistered } from './tool-profile.js';

/** A tools/list wrapper that reports each listed tool's contract (once per provider and hash). */
export function listContracts(state: ServerState, defined: Map<string, unknown>): HandlerWrapper {
  return (original: RawHandler): RawHandler =>
    async function toolsList(request: unknown, extra: unknown): Promise<unknown> {
      const result = await original(request, extra);
      try {
        reportListed(state, defined, result);
      } catch (error) {
        diag.error('@toolscope/instrument: could not report tool contracts', error);
      }
      return result;
    };
}

function reportListed(state: ServerState, defined: Map<string, unknown>, result: unknown): void {
  if (!isRecord(result) || !Array.isArray(result.tools)) return;
  const provider = state.options.tracerProvider;
  for (const entry of result.tools as unknown[]) {
    if (!isRecord(entry) || typeof entry.name !== 'string' || state.skip(entry.name)) continue;
    const own = internalsOf(defined.get(entry.name));
    if (own) {
      reportContract(provider ?? own.internals.tracerProvider, own.internals.contract);
      continue;
    }
    const registered = registeredTool(state.high, entry.name) ?? undefined;
    const inputSchema = isRecord(entry.inputSchema) ? entry.inputSchema : {};
    const outputSchema = isRecord(entry.outputSchema) ? entry.outputSchema : undefined;
    const hash =
      (registered && schemaHashOfRegistered(registered.inputSchema, registered.outputSchema)) ??
      schemaHashOf(inputSchema, outputSchema ?? {});
    reportContract(provider, {
      entry: {
        name: entry.name,
        description: typeof entry.description === 'string' ? entry.description : undefined,
        inputSchema,
        ...(outputSchema ? { outputSchema } : {}),
        ...(isRecord(entry.annotations) ? { annotations: entry.annotations } : {}),
      },
      version: plainToolVersion(state, entry.name, entry._meta ?? registered?.meta),
      hash,
      deprecated: deprecationOfMcpTool(entry.annotations, entry._meta, entry.description),
      origin: 'tools/list',
    });
  }
}
