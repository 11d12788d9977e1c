// The agent's side of docs/mcp.md on SDK 1.x.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { instrumentMcpClient } from '@toolscope/instrument';

export function agentClient(conversationId: string): Client {
  return instrumentMcpClient(new Client({ name: 'orders-agent', version: '1.9.0' }), {
    conversationId,
  });
}
