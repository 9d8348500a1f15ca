// Splits a broker's V8 CPU profile (node --cpu-prof; `npm run bench:cores -- --cpu-prof DIR`) by the
// parts of the produce path, as shares of the event loop's busy time after start-up (samples whose
// stack is in module loading are left out). A sample counts for every part on its stack, so the
// shares overlap. V8 samples by wall clock: on a machine shared with other work, a sample taken
// while the thread waited for a core counts for whatever it was running, so the shares are rough.
//   node scripts/cpuprofile-shares.mjs FILE.cpuprofile [TOP]
import { readFileSync } from 'node:fs';

const [file, topArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node scripts/cpuprofile-shares.mjs FILE.cpuprofile [TOP]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

/** part name -> test on one stack frame */
const PARTS = {
  'validation (validateRecordsForAppend)': (f) => f.functionName === 'validateRecordsForAppend',
  '  record walk (walkRecords)': (f) => f.functionName === 'walkRecords',
  '  CRC-32C': (f) => f.functionName === 'crc32c',
  'framing (frame-reader)': (f) => f.url.endsWith('/frame-reader.js'),
  'log append (partition-log .. file-records, indexes)': (f) =>
    /\/(partition-log|local-log|segment|file-records|abstract-index|offset-index|time-index)\.js$/.test(f.url),
  'fs calls (handed to the threadpool)': (f) => f.url === 'node:internal/fs/promises',
  'request dispatch (dispatcher, handlers)': (f) => f.url.endsWith('/dispatcher.js'),
  'response encoding': (f) => /encode/i.test(f.functionName),
};
const STARTUP = (f) => /node:internal\/(modules|bootstrap)\//.test(f.url) || f.functionName === 'startServer';

let busy = 0;
const parts = new Map(Object.keys(PARTS).map((k) => [k, 0]));
let gc = 0;
const self = new Map();
for (let i = 0; i < profile.samples.length; i++) {
  const dt = profile.timeDeltas[i] ?? 0;
  const stack = [];
  for (let id = profile.samples[i]; id !== undefined; id = parent.get(id)) stack.push(byId.get(id).callFrame);
  const top = stack[0];
  if (top.functionName === '(idle)' || stack.some(STARTUP)) continue;
  busy += dt;
  if (top.functionName === '(garbage collector)') gc += dt;
  for (const [name, test] of Object.entries(PARTS)) if (stack.some(test)) parts.set(name, parts.get(name) + dt);
  const key = `${top.functionName || '(anonymous)'} ${top.url.replace(/^.*\/(dist|node_modules)\//, '$1/')}`;
  self.set(key, (self.get(key) ?? 0) + dt);
}
const pct = (t) => `${((t / busy) * 100).toFixed(1).padStart(5)}%`;
console.log(`event loop busy after start-up: ${(busy / 1e6).toFixed(2)} s of samples`);
for (const [name, t] of parts) console.log(`${pct(t)}  ${name}`);
console.log(`${pct(gc)}  garbage collection`);
console.log('\nself time, top functions:');
for (const [name, t] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg ?? 20)))
  console.log(`${pct(t)}  ${name}`);
