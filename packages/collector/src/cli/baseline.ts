// Reads the baseline of `report|ci --baseline FILE`: an earlier `--format json` report, of this format or of
// the unversioned format 1, checked field by field, or refused with a message that says why.
import { readFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * The newest `formatVersion` of the JSON report this code writes and reads; reports without the field are
 * format 1. Format 3 is a report of one MCP client's calls (`--client`): its tools count other calls than a
 * format 2 report's, so a toolscope that reads only 2 refuses it instead of comparing it (decision 0018).
 */
export const REPORT_FORMAT_VERSION = 3;
/** The format of a report of every call: what toolscopes reading format 2 compare as before. */
export const EVERY_CALL_FORMAT_VERSION = 2;

/** A contract's schemas as the JSON report carries them (format 2), so a later run can diff against them. */
const contractSchemasSchema = z.object({
  name: z.string(),
  version: z.string(),
  schemaHash: z.string(),
  description: z.string().nullable(),
  inputSchema: z.unknown(),
  outputSchema: z.unknown(),
});
/** One entry of a report's `contractSchemas`. */
export type ContractSchemas = z.infer<typeof contractSchemasSchema>;

/** One step of a cycle flag's evidence: the tool and the input it was called with. */
export const cycleStepSchema = z.object({ tool: z.string(), inputHash: z.string() });

// What a comparison reads of a report; the rest of it (servers, exceptions, result sizes) is not compared.
// Fields that older reports lack are optional and read as unknown, never as zero.
const toolSchema = z.object({
  name: z.string(),
  calls: z.number().int().min(0),
  errorRate: z.number().min(0).max(1),
  p95Ms: z.number().nullable(),
  codes: z.record(z.string(), z.number()),
  resultTokensP95: z.number().nullable().optional(),
  schemaTokens: z.number().nullable().optional(),
});
const flagSchema = z.object({
  // Any kind: a baseline written by a newer collector may name kinds this one does not detect.
  kind: z.string(),
  tool: z.string(),
  summary: z.string(),
  evidence: z.looseObject({
    inputHash: z.string().optional(),
    cycle: z.array(cycleStepSchema).optional(),
  }),
});
const contractSchema = z.object({ name: z.string(), version: z.string(), schemaHash: z.string() });
const reportSchema = z.object({
  // Absent from reports older than --client, which counted every call.
  client: z.object({ name: z.string(), version: z.string().optional() }).nullable().optional(),
  tools: z.array(toolSchema),
  flags: z.array(flagSchema),
  // Absent from reports older than the contract catalog: then contract changes cannot be told.
  contracts: z.array(contractSchema).optional(),
  passed: z.boolean(),
  contractSchemas: z.array(contractSchemasSchema).optional(),
});

/** What a comparison reads of a baseline's tool. */
export type BaselineTool = z.infer<typeof toolSchema>;
type BaselineFlag = z.infer<typeof flagSchema>;
/** A baseline report as read: what the comparison uses of it. */
export type Baseline = {
  file: string;
  formatVersion: number;
  /** The MCP client whose calls the baseline's tools count (--client), or null for every call. */
  client: ReportClient;
  tools: BaselineTool[];
  flags: BaselineFlag[];
  /** null when the report predates contracts. */
  contracts: z.infer<typeof contractSchema>[] | null;
  /** Empty for format 1, which carried no schemas. */
  contractSchemas: ContractSchemas[];
};

/** A baseline, or why it cannot be read. */
export type BaselineRead = { ok: true; baseline: Baseline } | { ok: false; message: string };

/** Parses the text of a baseline report; `file` only names it in messages. */
export function parseBaseline(text: string, file: string): BaselineRead {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return {
      ok: false,
      message: `${file} is not JSON: give the report written with --format json`,
    };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { ok: false, message: `${file} is not a toolscope JSON report` };
  const declared: unknown = Reflect.get(raw, 'formatVersion');
  const version = declared === undefined ? 1 : declared;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1)
    return {
      ok: false,
      message: `${file}: formatVersion ${JSON.stringify(declared)} is not a report format`,
    };
  if (version > REPORT_FORMAT_VERSION)
    return {
      ok: false,
      message: `${file} is report format ${version}, newer than this toolscope reads (${REPORT_FORMAT_VERSION} and older): compare it with the toolscope that wrote it, or write the baseline again with this one`,
    };
  const parsed = reportSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      ok: false,
      message: `${file} does not read as a toolscope JSON report of format ${version}: ${issue?.path.join('.') || '(top)'}: ${issue?.message ?? 'invalid'}`,
    };
  }
  if (version >= 3 && !parsed.data.client)
    return { ok: false, message: `${file} is report format 3 but names no client` };
  const r = parsed.data;
  return {
    ok: true,
    baseline: {
      file,
      formatVersion: version,
      client: r.client ?? null,
      tools: r.tools,
      flags: r.flags,
      contracts: r.contracts ?? null,
      contractSchemas: r.contractSchemas ?? [],
    },
  };
}

/** Reads and parses a baseline file; a missing or unreadable file is an error value. */
export function readBaseline(file: string): BaselineRead {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? String(error.code) : '';
    return {
      ok: false,
      message:
        code === 'ENOENT'
          ? `no baseline at ${file}`
          : `cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  return parseBaseline(text, file);
}

/** The MCP client a report's tools count (`--client`), or null for every call. */
export type ReportClient = { name: string; version?: string | undefined } | null;

/** Why `baseline` cannot be compared with a run counting `client`'s calls, or undefined when it can. */
export function clientMismatch(baseline: Baseline, client: ReportClient): string | undefined {
  const a = baseline.client;
  if (a?.name === client?.name && a?.version === client?.version) return undefined;
  return `${baseline.file} counts ${clientLabel(a)}, this run ${clientLabel(client)}: compare reports of the same calls`;
}

/**
 * A client as a message names it: quoted, escaped and cut, since a baseline file's text (and a client's name,
 * which the agent's MCP client chose) is anyone's.
 */
export function clientLabel(c: ReportClient): string {
  if (!c) return 'every call';
  const quoted = (s: string) => JSON.stringify(s.length > 128 ? `${s.slice(0, 128)}…` : s);
  return `the calls of client ${quoted(c.name)}${c.version === undefined ? '' : ` version ${quoted(c.version)}`}`;
}
