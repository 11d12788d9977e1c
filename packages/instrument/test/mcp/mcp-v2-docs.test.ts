// docs/mcp.md shows code that runs as written: every TypeScript block on the page is one of the files the MCP
// tests run (mcp-v2-*.ts, named on the page without the prefix), to the byte, and the page shows all of them.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const page = readFileSync(new URL('../../../../docs/mcp.md', import.meta.url), 'utf8');
const SHOWN = [
  'get-order.ts',
  'orders.ts',
  'stdio-server.ts',
  'http-server.ts',
  'agent.ts',
  'sdk1-server.ts',
  'sdk1-agent.ts',
];

/** Each ```ts block of the page with the file its marker line names (`<!-- file: NAME -->`), if any. */
function blocks(): { file: string | undefined; code: string }[] {
  const found: { file: string | undefined; code: string }[] = [];
  for (const m of page.matchAll(/(?:<!-- file: (\S+) -->\n)?```ts\n([\s\S]*?)\n```/g)) {
    found.push({ file: m[1], code: m[2] as string });
  }
  return found;
}

describe('docs/mcp.md', () => {
  it('shows each tested file once, and no TypeScript that is not one of them', () => {
    const shown = blocks();
    expect(shown.map((b) => b.file)).toEqual(SHOWN);
  });

  it.each(SHOWN)('shows %s as the tests run it', (file) => {
    const source = readFileSync(new URL(`./mcp-v2-${file}`, import.meta.url), 'utf8');
    const block = blocks().find((b) => b.file === file);
    expect(block?.code).toBe(source.trimEnd().replaceAll("'./mcp-v2-", "'./"));
  });
});
