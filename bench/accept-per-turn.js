#!/usr/bin/env node
// How a Node server accepts connections that arrive together while its event loop is busy: one
// connection per turn of the loop (libuv accepts one per readiness event since 1.45, the libuv of
// Node 20). A child process listens and keeps each turn of its loop busy for --turn-ms (a
// stand-in for a loaded server: every turn serves the requests that are ready); this process
// opens --connections connections at once; the child reports when each was accepted.
//
//   node bench/accept-per-turn.js [--connections 10] [--turn-ms 20] [--json]
//
// Prints the gaps between one accept and the next (about one turn each) and how many turns the
// last connection waited. docs/performance.md ("Why new connections wait") says what it means for
// the fleet benchmark's first requests on a new connection.
import { fork } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const USAGE = 'usage: node bench/accept-per-turn.js [--connections N (1-200, default 10)] [--turn-ms MS (1-200, default 20)] [--json]';

function server(turnMs, expected) {
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
  srv.listen(0, '127.0.0.1', () => {
    process.send({ port: srv.address().port });
    setImmediate(turn);
  });
}

function whole(name, value, max) {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > max) {
    console.error(`--${name} must be a whole number from 1 to ${max}\n${USAGE}`);
    process.exit(2);
  }
  return n;
}

if (process.argv[2] === '--child') server(Number(process.argv[3]), Number(process.argv[4]));
else {
  let opt;
  try {
    opt = parseArgs({
      options: {
        connections: { type: 'string', default: '10' },
        'turn-ms': { type: 'string', default: '20' },
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
  const child = fork(fileURLToPath(import.meta.url), ['--child', String(turnMs), String(connections)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const sockets = [];
  child.on('message', (m) => {
    if (m.port !== undefined) {
      for (let i = 0; i < connections; i++) sockets.push(net.connect(m.port, '127.0.0.1').on('error', () => {}));
      return;
    }
    for (const s of sockets) s.destroy();
    const result = { node: process.version, libuv: process.versions.uv, connections, turn_ms: turnMs, ...m };
    if (opt.json) console.log(JSON.stringify(result));
    else {
      console.log(`Node ${result.node} (libuv ${result.libuv}): ${connections} connections opened at once, each turn of the server's loop busy ${turnMs} ms`);
      console.log(`  gaps between one accept and the next, ms: ${m.gaps_ms.join(', ')}`);
      console.log(`  turns of the loop until the last was accepted: ${m.turns}`);
    }
  });
  child.once('exit', (code) => process.exit(code ?? 1));
}
