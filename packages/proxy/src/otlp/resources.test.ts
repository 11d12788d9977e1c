// Which resource a session's span is exported under: `--service-name`, else its own server's name, else the
// name the upstream said last, else the fallback; never a placeholder.
import { describe, expect, it } from 'vitest';
import { type ServerIdentity, ServiceResources } from './resources.js';

const named = (name: string | undefined, version?: string): ServerIdentity => ({ name, version });

describe('ServiceResources', () => {
  it("names each session's spans by its own server", () => {
    const resources = new ServiceResources(undefined, 'orders.js');
    expect(resources.of(named(undefined)).attributes).toEqual({ 'service.name': 'orders.js' });
    const legacy = resources.of(named('orders', '1.4.0'));
    expect(legacy.attributes).toEqual({ 'service.name': 'orders', 'service.version': '1.4.0' });
    expect(resources.of(named('orders', '1.4.0'))).toBe(legacy);
    expect(resources.of(named('orders-next', '2.0.0')).attributes).toEqual({
      'service.name': 'orders-next',
      'service.version': '2.0.0',
    });
    // A session whose server never said its name: the name the upstream said last.
    expect(resources.of(named(undefined)).attributes['service.name']).toBe('orders-next');
  });

  it('names every span by --service-name when it is given', () => {
    const resources = new ServiceResources('edge-proxy', 'unused');
    expect(resources.of(named('orders', '1')).attributes).toEqual({ 'service.name': 'edge-proxy' });
  });
});
