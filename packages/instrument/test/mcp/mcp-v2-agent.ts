// The agent's side of docs/mcp.md on SDK v2: it speaks 2026-07-28 to a server that offers it, 2025 otherwise.
import { Client } from '@modelcontextprotocol/client';
import { instrumentMcpClient } from '@toolscope/instrument';

export function agentClient(conversationId: string): Client {
  const client = new Client(
    { name: 'orders-agent', version: '2.1.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  return instrumentMcpClient(client, { conversationId });
}
