// src/tools/program.ts's runToolDirectly dispatches `server start` and the tools without commander:
// for every argv it takes, it must read what commander reads (the same file and overrides, the
// same raw arguments for a tool), and leave to commander every argv it does not take.
import test from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { buildProgram, runToolDirectly, type StartServerOptions } from '../src/tools/program.js';
import type { ToolIO } from '../src/tools/common/io.js';

const sink = (): Writable => new Writable({ write: (_c, _e, cb) => cb() });
const io: ToolIO = { stdout: sink(), stderr: sink(), stdin: process.stdin, env: {} };

type Started = Pick<StartServerOptions, 'file' | 'overrides'>;

async function direct(args: string[]): Promise<Started | null> {
  let got: Started | null = null;
  const code = await runToolDirectly(args, io, {
    startServer: (o) => {
      got = { file: o.file, overrides: o.overrides };
      return Promise.resolve(0);
    },
  });
  return code === null ? null : got;
}

async function viaCommander(args: string[]): Promise<Started | 'error'> {
  let got: Started | null = null;
  const program = buildProgram(io, {
    startServer: (o) => {
      got = { file: o.file, overrides: o.overrides };
      return Promise.resolve(0);
    },
  });
  program.configureOutput({ writeOut: () => {}, writeErr: () => {} });
  try {
    await program.parseAsync(args, { from: 'user' });
  } catch {
    return 'error';
  }
  return got ?? 'error';
}

test('server start: the argv runToolDirectly takes reads as commander reads it', async () => {
  const taken = [
    ['server', 'start'],
    ['server', 'start', 'server.properties'],
    ['server', 'start', '--override', 'a=b'],
    ['server', 'start', '--override', 'a=b', 'c=d'],
    ['server', 'start', 'f.properties', '--override', 'a=b', '--override', 'c=d'],
    // --override is variadic: a file after it is one more override, as commander reads it
    ['server', 'start', '--override', 'a=b', 'f.properties'],
  ];
  for (const args of taken) {
    const d = await direct(args);
    assert.notEqual(d, null, args.join(' '));
    assert.deepEqual(d, await viaCommander(args), args.join(' '));
  }
});

test('server start: anything else is left to commander', async () => {
  const left = [
    ['server', 'start', '-h'],
    ['server', 'start', '--help'],
    ['server', 'start', 'a', 'b'],
    ['server', 'start', '--override'],
    ['server', 'start', '--override=a=b'],
    ['server', 'start', '--override', '-x'],
    ['server', 'start', '--', 'f'],
    ['server', 'start', '--version'],
    ['server'],
    ['nosuch'],
    [],
  ];
  for (const args of left) assert.equal(await direct(args), null, args.join(' '));
});

test('a tool: -V, --version and -- anywhere go to commander (the program reads them)', async () => {
  for (const args of [
    ['topics', '--version'],
    ['topics', '--list', '-V'],
    ['topics', '--'],
  ])
    assert.equal(await direct(args), null, args.join(' '));
});
