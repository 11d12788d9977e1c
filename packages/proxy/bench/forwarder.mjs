// The bench's reference: a bare byte-forwarding stdio proxy (what mcp-proxy-like bridges do), nothing observed.
import { spawn } from 'node:child_process';

const split = process.argv.indexOf('--');
const [command, ...args] = process.argv.slice(split + 1);
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
process.stdin.pipe(child.stdin);
child.stdout.pipe(process.stdout);
child.on('close', (code) => process.exit(code ?? 1));
