// Self time per function per variant from one `node --cpu-prof` run of mcp-ab.ts: each sample is given to the
// variant whose round was running when it was taken (MCP_AB_WINDOWS), so one profile compares the adapters with
// Traceloop's under the same JIT and the same load. Prints µs per call, sorted by what SORT (a variant) adds.
//
//   MCP_AB_WINDOWS=/tmp/w.json node --cpu-prof --cpu-prof-dir=/tmp/prof --conditions=@toolscope/source \
//     --import tsx bench/mcp-ab.ts
//   tsx bench/profile-by-variant.ts /tmp/prof /tmp/w.json    (SORT=server TOP=50)
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

type Frame = { functionName: string; url: string; lineNumber: number };
type ProfileNode = { id: number; callFrame: Frame };
type Profile = { nodes: ProfileNode[]; startTime: number; samples: number[]; timeDeltas: number[] };

const [dir, windowsFile] = process.argv.slice(2);
if (!dir || !windowsFile) throw new Error('usage: profile-by-variant.ts PROFILE_DIR WINDOWS_JSON');
const windows = (JSON.parse(readFileSync(windowsFile, 'utf8')) as [string, number, number][]).sort(
  (a, b) => a[1] - b[1],
);
// The main thread's profile is the largest (the loader thread writes one too).
const file = readdirSync(dir)
  .map((f) => join(dir, f))
  .sort((a, b) => statSync(b).size - statSync(a).size)[0];
if (!file) throw new Error(`no profile in ${dir}`);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
const variants = [...new Set(windows.map((w) => w[0]))];
const calls = new Map(variants.map((v) => [v, windows.filter((w) => w[0] === v).length * 1000]));

const where = (frame: Frame) => {
  const url = frame.url
    .replace(/.*node_modules\/\.pnpm\/(@?[^@/]+(?:\+[^@/]+)?)@[^/]+\/.*\/([^/]+)$/, '$1/$2')
    .replace(/.*\/packages\//, '');
  return `${frame.functionName || '(anonymous)'} ${url}:${frame.lineNumber}`;
};

const self = new Map<string, Map<string, number>>();
let time = profile.startTime;
let w = 0;
for (let i = 0; i < profile.samples.length; i++) {
  time += profile.timeDeltas[i] ?? 0;
  const spent = profile.timeDeltas[i + 1] ?? 0;
  while (w < windows.length && (windows[w] as [string, number, number])[2] < time) w++;
  const window = windows[w];
  if (!window || window[1] > time) continue;
  const frame = frames.get(profile.samples[i] as number);
  if (!frame) continue;
  const key = where(frame);
  const row = self.get(key) ?? new Map<string, number>();
  row.set(window[0], (row.get(window[0]) ?? 0) + spent);
  self.set(key, row);
}

const perCall = (row: Map<string, number> | undefined, v: string) =>
  (row?.get(v) ?? 0) / (calls.get(v) ?? 1);
const sortBy = process.env.SORT ?? variants[variants.length - 1] ?? '';
const reference = variants[0] ?? '';
const rows = [...self.entries()].sort(
  ([, a], [, b]) =>
    perCall(b, sortBy) - perCall(b, reference) - (perCall(a, sortBy) - perCall(a, reference)),
);
const cell = (n: number) => n.toFixed(3).padStart(10);
console.log(variants.map((v) => v.slice(0, 10).padStart(10)).join(''));
const totals = new Map<string, number>();
for (const row of self.values()) for (const [v, t] of row) totals.set(v, (totals.get(v) ?? 0) + t);
console.log(
  `${variants.map((v) => cell((totals.get(v) ?? 0) / (calls.get(v) ?? 1))).join('')}   all`,
);
for (const [key, row] of rows.slice(0, Number(process.env.TOP ?? 50)))
  console.log(`${variants.map((v) => cell(perCall(row, v))).join('')}   ${key.slice(0, 110)}`);
