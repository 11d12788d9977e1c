// One tool's calls per MCP client (name and version) over a window, from the client rollups (aggregation/
// rollups.ts) as the tool's own statistics come from its rollups: hours and minutes for the whole of the range,
// raw calls only at its edges, so a tool page costs the same for 1k or 1M calls. Counts only; the API ranks
// them and names each client's most frequent failure (api/tool-page.ts).
import type { ClientCalls } from '../read-records.js';
import { CLIENT_KEY_SEPARATOR } from './client-sql.js';
import type { ReadDb } from './db.js';
import { aggregate } from './tool-stats.js';

/** Every client of `tool` with a call in the window, each call counted once (side `any`). */
export async function toolClients(
  db: ReadDb,
  tool: string,
  sinceNs: bigint,
  untilNs: bigint,
): Promise<ClientCalls[]> {
  const byClient = await aggregate(db, sinceNs, untilNs, {
    tool,
    side: 'any',
    sizes: false,
    latency: false,
    client: undefined,
    by: 'client',
  });
  return [...byClient].map(([key, a]) => {
    const at = key.indexOf(CLIENT_KEY_SEPARATOR);
    const name = key.slice(0, at);
    const version = key.slice(at + CLIENT_KEY_SEPARATOR.length);
    return {
      name: name === '' ? null : name,
      version: version === '' ? null : version,
      calls: a.calls,
      errors: a.errors,
      codes: Object.fromEntries(a.codes),
    };
  });
}
