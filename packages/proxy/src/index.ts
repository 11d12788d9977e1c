// Public API of @toolscope/proxy. Every export here is public contract: add, never rename.
export { main } from './cli.js';
export { type ParsedArgs, type ProxyOptions, parseProxyArgs, USAGE } from './options.js';
export { PROXY_VERSION } from './version.js';
