import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type StartedSandbox, startSandbox } from '../src/index.js';
import { BIN } from './cli-helpers.js';

/**
 * `payout-sandbox mcp`: the MCP server over stdio, driven by the SDK's own client (a real
 * process, as an MCP client starts it; needs `npm run build`), against a sandbox in-process.
 */

const TOOLS = [
  'advance_clock',
  'coverage_gaps',
  'create_merchant',
  'explain_request',
  'force_payout_status',
  'get_payout',
  'initialize_payout',
  'list_outcomes',
  'probe_webhook',
  'review_findings',
];

let sb: StartedSandbox;
let client: Client;

beforeAll(async () => {
  sb = await startSandbox({ clock: 'manual' });
  client = new Client({ name: 'payout-sandbox-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--url', sb.url], stderr: 'ignore' }));
});
afterAll(async () => {
  await client.close();
  await sb.stop();
});

/** A tool's answer: its JSON, or a failure with its text. */
async function call(name: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ type: string; text: string }> };
  const text = result.content.map((c) => c.text).join('\n');
  if (result.isError) throw new Error(text);
  return JSON.parse(text) as Record<string, unknown>;
}

test('lists its tools, each with a description and an input schema', async () => {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
  for (const t of tools) {
    expect(t.description?.length ?? 0).toBeGreaterThan(80);
    expect(t.inputSchema.type).toBe('object');
  }
  const initialize = tools.find((t) => t.name === 'initialize_payout');
  expect(Object.keys(initialize?.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['merchant_id', 'outcome', 'amount']));
  expect(initialize?.inputSchema.required).toEqual(['merchant_id']);
});

test('create → initialize (a reversal, amount 2002.05) → advance → get_payout shows the reversal', async () => {
  const merchant = await call('create_merchant', { balance: 50_000 });
  expect(merchant).toMatchObject({ merchant_id: expect.stringMatching(/^SBX/), api_base_url: sb.url, env: { SANDBOX_URL: sb.url } });
  const made = await call('initialize_payout', { merchant_id: merchant.merchant_id, amount: 2002.05 });
  expect(made).toMatchObject({ outcome: 'payout.reversed', rule: '2002.05', initialize: { status: 200 }, ref_id: expect.stringMatching(/^\d{10}$/) });
  const advanced = await call('advance_clock', { by: '2h' });
  expect(advanced.clock).toMatchObject({ now: '2026-01-01T11:00:00.000+05:30' });
  const payout = (await call('get_payout', { ref_id: made.ref_id })) as {
    reversed: boolean;
    transaction: { status: string };
    timeline: { taken: Array<{ status: string }> };
    refund: unknown;
  };
  expect(payout.reversed).toBe(true);
  expect(payout.transaction.status).toBe('Failed');
  expect(payout.timeline.taken.map((s) => s.status)).toEqual(['Pending', 'Success', 'Failed']);
  expect(payout.refund).not.toBeNull();
});

test('the other tools: outcomes, a forced status, a request explained, coverage gaps, review findings, a probe; refusals are tool errors', async () => {
  const { outcomes } = (await call('list_outcomes')) as { outcomes: Array<{ name: string; amount: number }> };
  expect(outcomes).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'payout.reversed', amount: 2002.05 })]));
  const m = await call('create_merchant', {});
  const pending = await call('initialize_payout', { merchant_id: m.merchant_id, outcome: 'payout.pending' });
  const forced = (await call('force_payout_status', { ref_id: pending.ref_id, status: 'Failed', bank_res_msg: 'Account closed' })) as {
    transaction: { status: string; bank_res_msg: string };
  };
  expect(forced.transaction).toMatchObject({ status: 'Failed', bank_res_msg: 'Account closed' });
  await expect(call('force_payout_status', { ref_id: pending.ref_id, status: 'Success' })).rejects.toThrow(/HTTP 409/);

  const { requests } = sb.admin.requests({ merchant_id: String(m.merchant_id) });
  const explained = await call('explain_request', { request_id: requests[0].request_id });
  expect(explained).toMatchObject({ method: 'POST', status: 200, rule: '2002.07', ref_id: pending.ref_id });

  const gaps = (await call('coverage_gaps', { merchant_id: m.merchant_id })) as { summary: { total: number }; uncovered: Array<{ how: string }> };
  expect(gaps.uncovered.length).toBeGreaterThan(0);
  expect(gaps.uncovered.length).toBeLessThan(gaps.summary.total);
  // The forced failure was never learnt: no status check saw it, no webhook of it was acknowledged.
  expect(await call('review_findings', { merchant_id: m.merchant_id })).toMatchObject({
    merchant_id: m.merchant_id,
    findings: [
      expect.objectContaining({
        rule: 'outcome-never-observed',
        occurrences: 1,
        evidence: [{ kind: 'payout', id: pending.ref_id, url: `/__sandbox/payouts/${pending.ref_id}` }],
      }),
    ],
  });
  await expect(call('probe_webhook', { merchant_id: m.merchant_id })).rejects.toThrow(/no webhook_url/);
  await expect(call('initialize_payout', { merchant_id: m.merchant_id, outcome: 'payout.nope' })).rejects.toThrow(
    /unknown outcome "payout.nope"[\s\S]*payout\.reversed/,
  );
  await expect(call('get_payout', { ref_id: '0000000000' })).rejects.toThrow(/HTTP 404/);
});

test('nothing but MCP messages on stdout; the server exits 0 when its stdin closes', async () => {
  const proc = spawn(process.execPath, [BIN, 'mcp', '--url', sb.url], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  const answered = new Promise<void>((resolve) =>
    proc.stdout.on('data', (d) => {
      stdout += d;
      if (stdout.includes('"id":2')) resolve();
    }),
  );
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const send = (m: unknown) => proc.stdin.write(`${JSON.stringify(m)}\n`);
  send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_outcomes', arguments: {} } });
  const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
  await answered;
  proc.stdin.end();
  expect(await exited).toBe(0);
  clearTimeout(timer);
  const lines = stdout.trim().split('\n');
  expect(lines).toHaveLength(2);
  for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
  expect(JSON.parse(lines[0]).result.serverInfo).toMatchObject({ name: 'payout-sandbox' });
  expect(JSON.parse(lines[1]).result.content[0].text).toContain('payout.reversed');
});
