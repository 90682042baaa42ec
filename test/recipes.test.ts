import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
// @ts-expect-error: a build script, plain JavaScript with no types.
import { containerEngine } from '../scripts/container-engine.js';
import { ensureBinary, ensureImage } from './binary-helpers.js';
import { killAll } from './cli-helpers.js';
import { useTempDir } from './helpers.js';

/**
 * The CI recipes of docs/run-anywhere.md ("GitLab CI and other CIs", "docker compose"), run as
 * written (only the port made a free one): the Node-free one with the executable and both gates,
 * and the compose one gated through the control API under podman-compose. Each passes a careful
 * suite (test/recipes/merchant-suite.sh, in bash and curl) and fails a naive one (NAIVE=1: a
 * payout answered 500 sent again under a new id); the merchant's `python -m unittest -v` is a
 * `python` on the PATH that runs that suite.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SUITE = join(ROOT, 'test/recipes/merchant-suite.sh');
const dir = useTempDir(killAll);
const doc = readFileSync(join(ROOT, 'docs/run-anywhere.md'), 'utf8');
const which = (tool: string) => spawnSync('bash', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();

/** The fenced block between `<!-- NAME:start -->` and `<!-- NAME:end -->`. */
function block(name: string): string {
  const part = doc.slice(doc.indexOf(`<!-- ${name}:start -->`), doc.indexOf(`<!-- ${name}:end -->`));
  const m = /```\w*\n([\s\S]*?)```/.exec(part);
  if (!m) throw new Error(`no ${name} block in docs/run-anywhere.md`);
  return m[1];
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** A bin directory with the tools named (links to this machine's) and a `python` that runs the suite (or exits `code`). */
function binDir(root: string, tools: string[], suiteCode?: number): string {
  const bin = join(root, 'bin');
  mkdirSync(bin, { recursive: true });
  for (const tool of tools) symlinkSync(which(tool), join(bin, tool));
  const python = join(bin, 'python');
  writeFileSync(python, `#!${which('bash')}\n${suiteCode === undefined ? `exec ${which('bash')} ${SUITE}` : `exit ${suiteCode}`}\n`);
  chmodSync(python, 0o755);
  return bin;
}

function run(script: string, cwd: string, env: NodeJS.ProcessEnv, timeout = 120_000): Promise<{ code: number | null; out: string }> {
  const proc = spawn(which('bash'), ['-e', '-o', 'pipefail', '-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout.on('data', (d) => (out += d));
  proc.stderr.on('data', (d) => (out += d));
  const timer = setTimeout(() => proc.kill('SIGKILL'), timeout);
  return new Promise((resolve) =>
    proc.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    }),
  );
}

describe('the Node-free recipe: the executable in the job, both gates, the log printed when the start or a gate fails', () => {
  const job = () => (parseYaml(block('gitlab-recipe')) as { integration: { variables: Record<string, string>; script: string[] } }).integration;

  /** Runs the job's script in a fresh directory with the executable beside it and no Node on the PATH. */
  async function runJob(port: number, opts: { naive?: boolean; suiteCode?: number } = {}) {
    const root = join(dir(), `job-${port}-${opts.naive ? 'naive' : 'careful'}-${opts.suiteCode ?? ''}`);
    mkdirSync(root);
    symlinkSync(ensureBinary(), join(root, 'payout-sandbox-linux-x64'));
    const bin = binDir(root, ['mkdir', 'cat', 'tail', 'curl', 'grep', 'seq', 'rm', 'head'], opts.suiteCode);
    const { variables, script } = job();
    const env: NodeJS.ProcessEnv = {
      PATH: bin,
      HOME: root,
      ...Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, v.replaceAll('4010', String(port))])),
      ...(opts.naive ? { NAIVE: '1' } : {}),
    };
    const result = await run(script.join('\n').replaceAll('4010', String(port)), root, env);
    return { ...result, root };
  }

  test('as written: both gates, JUnit with uncovered behaviours skipped, the reports kept as artifacts', () => {
    const { script } = job();
    const text = script.join('\n');
    for (const part of [
      '--coverage-min 60',
      '--review-fail-on high',
      '--coverage-uncovered skipped',
      'wait --ready-file sandbox.ready --pid',
      'cat sandbox.log',
    ]) {
      expect(text).toContain(part);
    }
    expect(text).not.toMatch(/\bnode\b|\bnpx?\b/);
    expect(spawnSync('bash', ['-n', '-c', text]).status).toBe(0);
  });

  test('a careful suite passes; the coverage JUnit has skipped, not failed, test cases', async () => {
    const { code, out, root } = await runJob(await freePort());
    expect({ code, out }).toEqual({ code: 0, out: expect.stringContaining('suite passed') });
    const coverage = readFileSync(join(root, 'reports/coverage.xml'), 'utf8');
    expect(coverage).toContain('<skipped');
    expect(coverage).not.toContain('<failure');
    expect(readFileSync(join(root, 'reports/review.xml'), 'utf8')).toContain('<testsuites');
  }, 60_000);

  test('a naive suite (a 500 paid again under a new id) fails the job with the review gate, 4, saying why', async () => {
    const { code, out } = await runJob(await freePort(), { naive: true });
    expect({ code, out }).toEqual({ code: 4, out: expect.stringContaining('suite passed') });
    expect(out).toContain('payout-sandbox gate failed (exit 4: 3 coverage, 4 review); the end of its log:');
    expect(out).toContain('integration review: 1 finding of severity high or above (double-payout-after-timeout)');
  }, 60_000);

  test('a failing suite fails the job with its own code', async () => {
    expect((await runJob(await freePort(), { suiteCode: 7 })).code).toBe(7);
  }, 60_000);

  test('the port taken: the job fails at once with the sandbox log, not after 30 s of ECONNREFUSED', async () => {
    const taken = createServer((s) => s.on('error', () => {}).end()).listen(0, '127.0.0.1');
    await new Promise((resolve) => taken.once('listening', resolve));
    const port = (taken.address() as { port: number }).port;
    const started = Date.now();
    const { code, out } = await runJob(port);
    taken.close();
    expect(code).toBe(1);
    expect(out).toContain('payout-sandbox did not start; its log:');
    expect(out).toMatch(/cannot listen: port \d+ on 127\.0\.0\.1 is in use/);
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 60_000);
});

const engine = containerEngine() as { cmd: string } | null;
const inCi = process.env.CI === 'true' || process.env.CI === '1';
const compose = which('podman-compose');

if ((engine === null || engine.cmd !== 'podman' || compose === '') && !inCi) {
  process.stderr.write(
    'test/recipes.test.ts: the compose recipe is not run here: it needs podman and podman-compose (Debian: apt-get install podman runc podman-compose). In CI it is.\n',
  );
} else {
  describe('the image recipes: compose gated through the control API with curl --fail-with-body; reports out of the container', () => {
    /**
     * The job's environment: the suite's `python` first on the PATH, and podman (podman-compose's
     * too) on runc: this machine's crun cannot set up cgroups (docs: containers.conf).
     */
    function podmanEnv(root: string, naive: boolean): NodeJS.ProcessEnv {
      writeFileSync(join(root, 'containers.conf'), '[containers]\ndefault_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]\n[engine]\nruntime = "runc"\n');
      return {
        ...process.env,
        PATH: `${binDir(root, [])}:${process.env.PATH}`,
        CONTAINERS_CONF: join(root, 'containers.conf'),
        ...(naive ? { NAIVE: '1' } : {}),
      };
    }

    async function runCompose(naive: boolean) {
      const port = await freePort();
      const root = join(dir(), `compose-${naive ? 'naive' : 'careful'}`);
      mkdirSync(join(root, 'examples'), { recursive: true });
      writeFileSync(
        join(root, 'examples/docker-compose.yml'),
        readFileSync(join(ROOT, 'examples/docker-compose.yml'), 'utf8').replaceAll('4010:4010', `${port}:4010`),
      );
      const env = podmanEnv(root, naive);
      return run(block('compose-recipe').replaceAll('4010', String(port)), root, env, 240_000);
    }

    beforeAll(() => {
      expect(engine?.cmd).toBe('podman');
      expect(compose).not.toBe('');
      ensureImage('podman');
    }, 300_000);

    test('a careful suite passes both gates', async () => {
      const { code, out } = await runCompose(false);
      expect({ code, out }).toEqual({ code: 0, out: expect.stringContaining('suite passed') });
      expect(out).toMatch(/### Integration review: \*\*unproven\*\*/);
      expect(out).toMatch(/### Behaviour coverage: \d+ of \d+/);
    }, 240_000);

    test('reports out of the container: run as yourself with a bind mount, the reports land on the host, yours; the step fails on the gate', async () => {
      for (const naive of [false, true]) {
        const port = await freePort();
        const name = `payout-sandbox-reports-${port}`;
        const root = join(dir(), `reports-${naive ? 'naive' : 'careful'}`);
        mkdirSync(root);
        const env = podmanEnv(root, naive);
        // As written; only the port and the container's name made this run's own.
        // One pass: a port that begins with 4010 is not replaced again.
        const script = block('reports-recipe')
          .replace(/4010:4010|127\.0\.0\.1:4010\b/g, (m) => (m === '4010:4010' ? `${port}:4010` : `127.0.0.1:${port}`))
          .replace(/(--name |podman (?:stop|wait|rm|rm -f|logs) )payout-sandbox\b/g, `$1${name}`);
        const { code, out } = await run(script, root, env, 180_000);
        expect(out).toContain('suite passed');
        expect(code).toBe(naive ? 4 : 0);
        for (const file of ['coverage.xml', 'review.md']) {
          const st = statSync(join(root, 'reports', file));
          expect({ file, uid: st.uid, gid: st.gid }).toEqual({ file, uid: process.getuid?.(), gid: process.getgid?.() });
        }
        expect(readFileSync(join(root, 'reports/review.md'), 'utf8')).toMatch(naive ? /\*\*not-ready\*\*/ : /\*\*unproven\*\*/);
        expect(readFileSync(join(root, 'reports/coverage.xml'), 'utf8')).toContain('<skipped');
      }
    }, 300_000);

    test('reports out of the container: a failing suite fails the step with its own code, the container stopped and removed, the reports written', async () => {
      const port = await freePort();
      const name = `payout-sandbox-reports-${port}`;
      const root = join(dir(), 'reports-failing');
      mkdirSync(root);
      const env = podmanEnv(root, false);
      env.PATH = `${binDir(root, [], 7)}:${process.env.PATH}`;
      const script = block('reports-recipe')
        .replace(/4010:4010|127\.0\.0\.1:4010\b/g, (m) => (m === '4010:4010' ? `${port}:4010` : `127.0.0.1:${port}`))
        .replace(/(--name |podman (?:stop|wait|rm|rm -f|logs) )payout-sandbox\b/g, `$1${name}`);
      const { code } = await run(script, root, env, 180_000);
      expect(code).toBe(7);
      expect(readFileSync(join(root, 'reports/review.md'), 'utf8')).toMatch(/### Integration review/);
      expect(spawnSync('podman', ['container', 'exists', name], { env }).status).not.toBe(0);
    }, 240_000);

    test('a naive suite fails the review gate: curl exits 22 on the 422, the report printed', async () => {
      const { code, out } = await runCompose(true);
      expect(out).toContain('suite passed');
      expect(code).toBe(22);
      expect(out).toMatch(/### Integration review: \*\*not-ready\*\*/);
      expect(out).toContain('double-payout-after-timeout');
    }, 240_000);
  });
}
