// The package version reported as the instrumentation scope version (kept equal to package.json by a test).
export const PACKAGE_VERSION = '0.1.0';
