// Conversations of traffic without a session: one per client (its address and the client its requests name),
// a new one after half an hour of silence.
import { describe, expect, it } from 'vitest';
import { ConversationScopes, IDLE_MS } from './conversation-scopes.js';

const envelope = (name: string, version: string) => ({
  'io.modelcontextprotocol/clientInfo': { name, version },
});

describe('ConversationScopes', () => {
  it('keeps one client one conversation, and tells clients apart by address and name', () => {
    const scopes = new ConversationScopes();
    const a = scopes.of('127.0.0.1', envelope('cursor', '1.2'), 0);
    expect(a).toMatch(/^[0-9a-f-]{36}$/);
    expect(scopes.of('127.0.0.1', envelope('cursor', '1.2'), 1000)).toBe(a);
    expect(scopes.of('127.0.0.1', envelope('claude-code', '2.0'), 1000)).not.toBe(a);
    expect(scopes.of('10.0.0.7', envelope('cursor', '1.2'), 1000)).not.toBe(a);
    // A 2025-era request names no client: its address is its scope.
    const legacy = scopes.of('127.0.0.1', undefined, 1000);
    expect(legacy).not.toBe(a);
    expect(scopes.of('127.0.0.1', {}, 2000)).toBe(legacy);
  });

  it('starts a new conversation after half an hour of silence, and not before', () => {
    const scopes = new ConversationScopes();
    const first = scopes.of('::1', envelope('agent', '1'), 0);
    expect(scopes.of('::1', envelope('agent', '1'), IDLE_MS)).toBe(first);
    expect(scopes.of('::1', envelope('agent', '1'), 2 * IDLE_MS + 1)).not.toBe(first);
  });
});
