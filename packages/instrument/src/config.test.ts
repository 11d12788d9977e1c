import { describe, expect, it } from 'vitest';
import pkg from '../package.json' with { type: 'json' };
import { readEnvConfig } from './config.js';
import { PACKAGE_VERSION } from './version.js';

describe('environment configuration', () => {
  it('reads TOOLSCOPE_CAPTURE_CONTENT and TOOLSCOPE_HASH_KEY', () => {
    expect(readEnvConfig({ TOOLSCOPE_CAPTURE_CONTENT: 'true', TOOLSCOPE_HASH_KEY: 'k' })).toEqual({
      captureContent: true,
      hashKey: 'k',
    });
    expect(readEnvConfig({})).toEqual({ captureContent: false, hashKey: undefined });
    expect(readEnvConfig({ TOOLSCOPE_CAPTURE_CONTENT: 'FALSE' }).captureContent).toBe(false);
  });

  it('treats an invalid flag as off instead of failing', () => {
    expect(readEnvConfig({ TOOLSCOPE_CAPTURE_CONTENT: 'maybe', TOOLSCOPE_HASH_KEY: 'k' })).toEqual({
      captureContent: false,
      hashKey: 'k',
    });
  });

  it('reports the package version as the scope version', () => {
    expect(PACKAGE_VERSION).toBe(pkg.version);
  });
});
