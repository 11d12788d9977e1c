// The collector's version, reported by /api/health and the CLI (kept equal to package.json by a test).
export const COLLECTOR_VERSION = '0.1.0';
