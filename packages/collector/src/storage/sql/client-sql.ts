// One MCP client's calls in the shared read SQL: the client rollups beside the tool rollups, the condition of
// a client's calls on them and on tool_calls, and how an aggregate by client keys its rows.
import type { ClientFilter } from '../read-records.js';

/** The client rollups beside each tool rollup table. */
export const CLIENT_TABLE = {
  tool_hours: 'tool_client_hours',
  tool_minutes: 'tool_client_minutes',
} as const;

/** What joins a client's name and version in the keys of an aggregate `by: 'client'`. */
export const CLIENT_KEY_SEPARATOR = '\u0000';

/**
 * The condition of one client's calls, on the client rollups (where no name or version is '') and on
 * tool_calls (where it is null), and its parameters.
 */
export function clientWhere(client: ClientFilter | undefined): {
  rollups: string;
  calls: string;
  params: string[];
} {
  if (!client) return { rollups: '', calls: '', params: [] };
  if (client.version === undefined)
    return {
      rollups: ' AND client_name = ?',
      calls: ' AND client_name = ?',
      params: [client.name],
    };
  return {
    rollups: ' AND client_name = ? AND client_version = ?',
    calls: " AND client_name = ? AND COALESCE(client_version, '') = ?",
    params: [client.name, client.version],
  };
}

/** The condition of one client's calls on tool_calls alone (no leading AND), and its parameters. */
export function clientCallsWhere(client: ClientFilter): { sql: string; params: string[] } {
  const { calls, params } = clientWhere(client);
  return { sql: calls.slice(' AND '.length), params };
}
