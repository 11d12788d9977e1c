// The contract catalog as read (GET /api/tools/:name/contracts, weights in /api/tools, the contract flags):
// reported contracts merged with the hashes calls carried, so a contract seen only in calls still shows.
import type { ContractSummary, ToolContract } from '../contract.js';
import type { ContractSchema } from '../read-records.js';
import { big, num, type ReadDb, type Row, text, textOrNull } from './db.js';

function parseOr(v: unknown, ifBad: unknown, db: ReadDb, what: string): unknown {
  if (v === null || v === undefined) return null;
  try {
    return JSON.parse(text(v));
  } catch {
    db.damaged(what);
    return ifBad;
  }
}

const deprecationOf = (r: Row) =>
  num(r.deprecated) === 1
    ? { replacedBy: textOrNull(r.replaced_by), sunset: textOrNull(r.sunset) }
    : null;

async function servicesByHash(db: ReadDb, tool?: string): Promise<Map<string, string[]>> {
  const rows = await db.all(
    `SELECT tool, schema_hash, service FROM tool_contract_services${tool === undefined ? '' : ' WHERE tool = ?'}
      ORDER BY service LIMIT 10000`,
    tool === undefined ? [] : [tool],
  );
  const out = new Map<string, string[]>();
  for (const r of rows) {
    const key = `${text(r.tool)}\u0000${text(r.schema_hash)}`;
    out.set(key, [...(out.get(key) ?? []), text(r.service)]);
  }
  return out;
}

export async function readContracts(db: ReadDb, name: string): Promise<ToolContract[] | null> {
  const reported = await db.all('SELECT * FROM tool_contracts WHERE tool = ? LIMIT 500', [name]);
  const seen = await db.all(
    `SELECT version, schema_hash, MIN(first_ns) AS first_ns, MAX(last_ns) AS last_ns, SUM(calls) AS calls
       FROM tool_schemas WHERE tool = ? GROUP BY version, schema_hash LIMIT 500`,
    [name],
  );
  if (reported.length === 0 && seen.length === 0) return null;
  const services = await servicesByHash(db, name);
  const byHash = new Map<string, ToolContract>();
  for (const r of reported) {
    const hash = text(r.schema_hash);
    const what = `the stored contract ${hash} of ${name}`;
    byHash.set(hash, {
      version: text(r.version),
      schemaHash: hash,
      services: services.get(`${name}\u0000${hash}`) ?? [],
      firstNs: big(r.first_ns),
      lastNs: big(r.last_ns),
      description: textOrNull(r.description),
      inputSchema: parseOr(r.input_schema, null, db, what),
      outputSchema: parseOr(r.output_schema, null, db, what),
      annotations: parseOr(r.annotations, null, db, what),
      schemaBytes: num(r.schema_bytes),
      schemaTokens: num(r.schema_tokens),
      deprecated: deprecationOf(r),
      reported: true,
      calls: 0,
    });
  }
  for (const r of seen) {
    const hash = text(r.schema_hash);
    const known = byHash.get(hash);
    const first = big(r.first_ns);
    const last = big(r.last_ns);
    if (known) {
      known.calls += num(r.calls);
      if (first < known.firstNs) known.firstNs = first;
      if (last > known.lastNs) known.lastNs = last;
      continue;
    }
    byHash.set(hash, {
      version: text(r.version),
      schemaHash: hash,
      services: [],
      firstNs: first,
      lastNs: last,
      description: null,
      inputSchema: null,
      outputSchema: null,
      annotations: null,
      schemaBytes: null,
      schemaTokens: null,
      deprecated: null,
      reported: false,
      calls: num(r.calls),
    });
  }
  return [...byHash.values()].sort((a, b) =>
    a.firstNs < b.firstNs ? -1 : a.firstNs > b.firstNs ? 1 : 0,
  );
}

/** The newest reported contract per tool, with its services. */
export async function readContractSummaries(db: ReadDb, tool?: string): Promise<ContractSummary[]> {
  const rows = await db.all(
    `SELECT tool, version, schema_hash, schema_bytes, schema_tokens, deprecated, replaced_by, sunset, last_ns
       FROM tool_contracts${tool === undefined ? '' : ' WHERE tool = ?'} LIMIT 10000`,
    tool === undefined ? [] : [tool],
  );
  const services = await servicesByHash(db, tool);
  const newest = new Map<string, ContractSummary>();
  // Per tool and service: the newest contract that service served (a canary and a stable differ).
  const served = new Map<
    string,
    { service: string; schemaBytes: number; schemaTokens: number; lastNs: bigint }
  >();
  for (const r of rows) {
    const name = text(r.tool);
    const lastNs = big(r.last_ns);
    for (const service of services.get(`${name}\u0000${text(r.schema_hash)}`) ?? []) {
      const key = `${name}\u0000${service}`;
      const s = served.get(key);
      if (!s || s.lastNs < lastNs)
        served.set(key, {
          service,
          schemaBytes: num(r.schema_bytes),
          schemaTokens: num(r.schema_tokens),
          lastNs,
        });
    }
    const known = newest.get(name);
    if (known && known.lastNs >= lastNs) continue;
    newest.set(name, {
      tool: name,
      version: text(r.version),
      schemaHash: text(r.schema_hash),
      services: services.get(`${name}\u0000${text(r.schema_hash)}`) ?? [],
      schemaBytes: num(r.schema_bytes),
      schemaTokens: num(r.schema_tokens),
      deprecated: deprecationOf(r),
      lastNs,
      served: [],
    });
  }
  for (const [key, { lastNs: _, ...weight }] of served)
    newest.get(key.slice(0, key.indexOf('\u0000')))?.served.push(weight);
  return [...newest.values()].sort((a, b) => (a.tool < b.tool ? -1 : 1));
}

/** Reported schemas by (tool, hash), for the diff paths drift flags carry. */
export async function readContractSchemas(db: ReadDb, tool?: string): Promise<ContractSchema[]> {
  const rows = await db.all(
    `SELECT tool, schema_hash, description, input_schema, output_schema FROM tool_contracts
      WHERE input_schema IS NOT NULL${tool === undefined ? '' : ' AND tool = ?'} LIMIT 2000`,
    tool === undefined ? [] : [tool],
  );
  return rows.map((r) => {
    const what = `the stored contract ${text(r.schema_hash)} of ${text(r.tool)}`;
    return {
      tool: text(r.tool),
      schemaHash: text(r.schema_hash),
      description: textOrNull(r.description),
      inputSchema: parseOr(r.input_schema, null, db, what),
      outputSchema: parseOr(r.output_schema, null, db, what),
    };
  });
}
