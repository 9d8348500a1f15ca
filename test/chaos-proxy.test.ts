// The chaos harness's link proxy (test/chaos/proxy.ts) on loopback: it forwards both ways; a
// block destroys the connections it carries and stalls new ones (no byte through); a heal closes
// the stalled ones and forwards new connections again.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { connect, createServer, type Socket } from 'node:net';
import { once } from 'node:events';
import { LinkProxy } from './chaos/proxy.js';
import { waitFor } from './helpers/wait-for.js';

const server = createServer((s) => s.pipe(s)); // echo
const sockets: Socket[] = [];
let proxy: LinkProxy;

after(async () => {
  for (const s of sockets) s.destroy();
  await proxy?.close();
  await new Promise<void>((r) => server.close(() => r()));
});

async function open(port: number): Promise<{ socket: Socket; received: () => string; closed: () => boolean }> {
  const socket = connect({ host: '127.0.0.1', port });
  sockets.push(socket);
  let data = '';
  let closed = false;
  socket.on('data', (b) => (data += b.toString()));
  socket.on('error', () => undefined);
  socket.on('close', () => (closed = true));
  await once(socket, 'connect');
  return { socket, received: () => data, closed: () => closed };
}

test('forwards, blocks (existing connections cut, new ones stalled) and heals', async () => {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const target = (server.address() as { port: number }).port;
  proxy = new LinkProxy('test', () => target);
  const port = await proxy.start();
  assert.notEqual(port, target);

  const a = await open(port);
  a.socket.write('ping');
  await waitFor(() => a.received() === 'ping', { what: 'the echo through the proxy' });

  proxy.block();
  assert.equal(proxy.blocked, true);
  await waitFor(() => a.closed(), { what: 'the carried connection to be cut' });
  const b = await open(port); // accepted, but nothing goes through
  b.socket.write('lost');
  const c = await open(port);
  c.socket.write('lost too');
  // the echo server is reachable directly, so a reply would have come by now if anything were forwarded
  const direct = await open(target);
  direct.socket.write('direct');
  await waitFor(() => direct.received() === 'direct', { what: 'the direct echo' });
  assert.equal(b.received(), '');
  assert.equal(c.received(), '');
  assert.equal(b.closed(), false);

  proxy.heal();
  await waitFor(() => b.closed() && c.closed(), { what: 'stalled connections to be closed at the heal' });
  const d = await open(port);
  d.socket.write('again');
  await waitFor(() => d.received() === 'again', { what: 'the echo after the heal' });
});
