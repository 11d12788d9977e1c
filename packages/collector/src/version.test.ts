import { describe, expect, it } from 'vitest';
import pkg from '../package.json' with { type: 'json' };
import { COLLECTOR_VERSION } from './version.js';

describe('COLLECTOR_VERSION', () => {
  it('matches package.json', () => {
    expect(COLLECTOR_VERSION).toBe(pkg.version);
  });
});
