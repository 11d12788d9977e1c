// `--enforce-output`: a successful result whose structuredContent breaks the tool's advertised outputSchema is
// answered with an `isError` result carrying the INVALID_OUTPUT envelope as text instead (no structuredContent,
// which SDK clients would check against the same schema and refuse).
import type { ToolFailure, ValidationIssue } from '@toolscope/instrument';
import type { RpcId } from './jsonrpc.js';

/** The JSON-RPC response line (with its newline) that replaces a result breaking its contract. */
export function enforcedResponse(id: RpcId, tool: string, issues: ValidationIssue[]): Buffer {
  const envelope: ToolFailure = {
    ok: false,
    code: 'INVALID_OUTPUT',
    message: `${tool} answered a result that breaks its own outputSchema; the proxy withheld it.`,
    issues,
    retryable: false,
    partialEffect: false,
    attempt: 1,
  };
  const result = { content: [{ type: 'text', text: JSON.stringify(envelope) }], isError: true };
  return Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', id, result })}\n`);
}
