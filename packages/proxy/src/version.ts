// The package version, reported as the instrumentation scope version and on the resource.
export const PROXY_VERSION = '0.1.0';
