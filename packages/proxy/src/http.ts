// The Streamable HTTP reverse proxy (filled in below).
import type { Logger } from './log.js';
import type { ProxyOptions } from './options.js';
import type { ProxyRun } from './session.js';

export type HttpProxyOptions = {
  options: Extract<ProxyOptions, { mode: 'http' }>;
  run: ProxyRun;
  log: Logger;
  finish: () => Promise<void>;
};

export async function runHttpProxy(o: HttpProxyOptions): Promise<number> {
  o.log.log('error', 'HTTP mode is not available yet');
  await o.finish();
  return 2;
}
