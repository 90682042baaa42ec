#!/usr/bin/env node
// How a Node server accepts connections that arrive together while its event loop is busy: one
// connection per turn of the loop (libuv accepts one per readiness event since 1.45, the libuv of
// Node 20). A child process listens and keeps each turn of its loop busy for --turn-ms (a
// stand-in for a loaded server: every turn serves the requests that are ready); this process
// opens --connections connections at once; the child reports when each was accepted.
//
//   node bench/accept-per-turn.js [--connections 10] [--turn-ms 20] [--handles 0] [--json]
//
// Prints the gaps between one accept and the next (about one turn each) and how many turns the
// last connection waited. docs/performance.md ("Why new connections wait") says what it means for
// the fleet benchmark's first requests on a new connection. --handles N gives the child's server
// N more listening handles on its socket, as the sandbox's command does (src/accept.ts, from
// dist/: build first): it then accepts up to N + 1 connections a turn.
import { fork } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const USAGE =
  'usage: node bench/accept-per-turn.js [--connections N (1-200, default 10)] [--turn-ms MS (1-200, default 20)] [--handles N (0-64, default 0)] [--json]';

async function server(turnMs, expected, handles) {
  const accepted = [];
  const srv = net.createServer((socket) => {
    accepted.push(performance.now());
    socket.on('error', () => {});
  });
  let turns = 0;
  const turn = () => {
    turns += 1;
    const end = performance.now() + turnMs;
    while (performance.now() < end); // the turn's work
    if (accepted.length < expected) setImmediate(turn);
    else {
      const gaps = accepted.slice(1).map((t, i) => Math.round((t - accepted[i]) * 10) / 10);
      process.send({ gaps_ms: gaps, turns });
      srv.close();
      process.exit(0);
    }
  };
  srv.listen(0, '127.0.0.1', async () => {
    const added = handles > 0 ? await (await import('../dist/accept.js')).acceptMore(srv, handles).added : 0;
    if (added !== handles) throw new Error(`${added} of ${handles} more listening handles`);
    process.send({ port: srv.address().port, handles: added });
    setImmediate(turn);
  });
}

function whole(name, value, max, min = 1) {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    console.error(`--${name} must be a whole number from ${min} to ${max}\n${USAGE}`);
    process.exit(2);
  }
  return n;
}

if (process.argv[2] === '--child') await server(Number(process.argv[3]), Number(process.argv[4]), Number(process.argv[5]));
else {
  let opt;
  try {
    opt = parseArgs({
      options: {
        connections: { type: 'string', default: '10' },
        'turn-ms': { type: 'string', default: '20' },
        handles: { type: 'string', default: '0' },
        json: { type: 'boolean' },
        help: { type: 'boolean' },
      },
    }).values;
  } catch (err) {
    console.error(`${err.message}\n${USAGE}`);
    process.exit(2);
  }
  if (opt.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const connections = whole('connections', opt.connections, 200);
  const turnMs = whole('turn-ms', opt['turn-ms'], 200);
  const handles = whole('handles', opt.handles, 64, 0);
  const child = fork(fileURLToPath(import.meta.url), ['--child', String(turnMs), String(connections), String(handles)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const sockets = [];
  child.on('message', (m) => {
    if (m.port !== undefined) {
      for (let i = 0; i < connections; i++) sockets.push(net.connect(m.port, '127.0.0.1').on('error', () => {}));
      return;
    }
    for (const s of sockets) s.destroy();
    const result = { node: process.version, libuv: process.versions.uv, connections, turn_ms: turnMs, handles, ...m };
    if (opt.json) console.log(JSON.stringify(result));
    else {
      console.log(
        `Node ${result.node} (libuv ${result.libuv}): ${connections} connections opened at once, each turn of the server's loop busy ${turnMs} ms, ${handles + 1} listening handle${handles === 0 ? '' : 's'}`,
      );
      console.log(`  gaps between one accept and the next, ms: ${m.gaps_ms.join(', ')}`);
      console.log(`  turns of the loop until the last was accepted: ${m.turns}`);
    }
  });
  child.once('exit', (code) => process.exit(code ?? 1));
}
