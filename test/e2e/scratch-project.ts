// A scratch project under a temporary directory, as a team's repository holding its own tool would be: a
// package.json, a vitest config, node_modules links to the workspace's @toolscope/instrument, zod, vitest and tsx,
// and the tool module at src/tools/orders.ts (a `get_order` like the example server's). Nothing tracked is written.
import { spawn } from 'node:child_process';
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ROOT } from './processes.js';

const requireHere = createRequire(import.meta.url);
const fromInstrument = createRequire(join(ROOT, 'packages/instrument/package.json'));
const packageDir = (resolve: NodeJS.RequireResolve, name: string) =>
  realpathSync(dirname(resolve(`${name}/package.json`)));

/** The project's node_modules: the same physical packages the workspace uses (one zod instance). */
export function linkModules(project: string): void {
  const links: [string, string][] = [
    ['@toolscope/instrument', join(ROOT, 'packages/instrument')],
    ['zod', packageDir(fromInstrument.resolve, 'zod')],
    ['vitest', realpathSync(join(ROOT, 'node_modules/vitest'))],
    ['tsx', packageDir(requireHere.resolve, 'tsx')],
  ];
  for (const [name, target] of links) {
    const at = join(project, 'node_modules', name);
    mkdirSync(dirname(at), { recursive: true });
    symlinkSync(target, at, 'dir');
  }
  writeFileSync(
    join(project, 'package.json'),
    '{ "name": "scratch", "private": true, "type": "module" }\n',
  );
  // The workspace's packages are read from their TypeScript sources (they are not built here).
  writeFileSync(
    join(project, 'vitest.config.mjs'),
    `export default {
  resolve: { conditions: ['@toolscope/source'] },
  ssr: { resolve: { conditions: ['@toolscope/source'] } },
  test: { include: ['**/*.fixtures.test.ts'], exclude: ['**/node_modules/**', 'node-runner/**'] },
};
`,
  );
}

/**
 * The team's tool, `get_order` v2 as the example server has it, against a fake upstream whose orders of
 * customers `cus_9…` come back `on_hold`. Failing: the input takes only a string id and the output's status enum
 * lacks `on_hold`; fixed: both contracts widened.
 */
export function ordersModule(fixed: boolean): string {
  const statuses = fixed
    ? `'pending', 'paid', 'cancelled', 'on_hold'`
    : `'pending', 'paid', 'cancelled'`;
  const customerId = fixed ? 'z.union([z.string().min(1), z.number().int()])' : 'z.string().min(1)';
  return `// get_order as the example server defines it, against a fake upstream.
import { defineTool } from '@toolscope/instrument';
import { z } from 'zod';

const order = z.object({
  id: z.string(),
  status: z.enum([${statuses}]),
  total: z.number(),
  contact: z.string(),
  note: z.string(),
});

export const getOrder = defineTool({
  name: 'get_order',
  version: '2',
  effect: 'read',
  description: 'Orders of one customer. Use the customer id string from the CRM, e.g. "cus_42".',
  input: z.object({ customerId: ${customerId}, notes: z.string().optional() }).strict(),
  output: z.object({ customerId: z.string(), orders: z.array(order) }),
  execute: async ({ customerId }) => {
    const id = String(customerId);
    const status = id.startsWith('cus_9') ? 'on_hold' : 'paid';
    const note = 'paid with 4242 4242 4242 4242, receipt token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI0MiJ9.c2lnbmF0dXJlMTIz';
    return { customerId: id, orders: [{ id: \`ord_\${id}\`, status, total: 42.5, contact: 'ana.lima@example.com', note }] };
  },
});
`;
}

/** Our own secret corpus: each value sent in a call or returned by the tool; none may reach a fixture. */
export const SECRETS = [
  'ana.lima@example.com',
  'sk_live_51HxQ9abcdefghijKLMNOP',
  'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI0MiJ9.c2lnbmF0dXJlMTIz',
  '4242 4242 4242 4242',
  'AKIAIOSFODNN7EXAMPLE',
  'Bearer abcdef0123456789zz',
];
/** The notes the calls send: all but the card number and the JWT, which the tool returns. */
export const NOTES = `reach ${SECRETS[0]}; key ${SECRETS[1]} ${SECRETS[4]}; auth ${SECRETS[5]}`;

/** Runs a command in `cwd` to its end: its exit code and everything it printed. */
export function run(
  command: string,
  args: string[],
  cwd: string,
): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, CI: 'true', NO_COLOR: '1' } });
    let output = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.on('exit', (code) => resolve({ code: code ?? 1, output }));
  });
}
