import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
// @ts-expect-error: a build script, plain JavaScript with no types.
import { containerEngine } from '../scripts/container-engine.js';
import { ensureBinary, ensureImage } from './binary-helpers.js';
import { useTempDir } from './helpers.js';

/**
 * examples/java: a Java shop's JUnit 5 suite against the sandbox, with nothing but a JDK and the
 * JUnit console launcher (Debian: default-jdk-headless, junit5). Compiled with javac and run with
 * the launcher exactly as examples/java/README.md says, against the standalone executable and the
 * container image; green, and red (the review gate naming double-payout-after-timeout) once its
 * client is made naive. In CI (CI=true) it always runs: without the JDK, the launcher or a
 * container engine it fails; elsewhere it skips what it cannot run, and says so on stderr.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const EXAMPLE = join(ROOT, 'examples/java');
const JUNIT = '/usr/share/java/junit-platform-console-standalone.jar';
const inCi = process.env.CI === 'true' || process.env.CI === '1';
const works = (cmd: string) => spawnSync(cmd, ['-version'], { stdio: 'ignore' }).status === 0;
const missing = [...(works('javac') && works('java') ? [] : ['javac/java']), ...(existsSync(JUNIT) ? [] : [JUNIT])];
const engine = containerEngine() as { cmd: string } | null;

const CLASS = 'com.example.payouts.PayoutsTest';
/** PayoutsTest's tests, in the order they run (the review gate last). */
const TESTS = [
  'aPayoutIsPendingThenSettlesAndItsSignedWebhookArrives()',
  'rejectionsNameTheirCodeAndStoreNothing()',
  'anUnknownPayoutIsNotAFailureAndSettlesLater()',
  'onlyWebhooksSignedWithTheSecretAndAFreshTimestampAreTaken()',
  'aPayoutWhoseInitializeAnswered500IsFoundNotSentAgain()',
  'aRefusedStatusCheckIsWaitedOutOnTheSandboxClockNotInRealTime()',
  'reviewGateNoHighFinding()',
];

function javaFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? javaFiles(join(dir, e.name)) : e.name.endsWith('.java') ? [join(dir, e.name)] : [],
  );
}

/** `javac -d <classes> -cp <junit jar> $(find <example>/src -name '*.java')`. */
function compile(example: string, classes: string): void {
  const r = spawnSync('javac', ['-d', classes, '-cp', JUNIT, ...javaFiles(join(example, 'src'))], { encoding: 'utf8', timeout: 60_000 });
  expect({ code: r.status, err: r.stderr }).toEqual({ code: 0, err: '' });
}

type Case = { name: string; classname: string; result: 'passed' | 'failed' | 'error' | 'skipped'; message: string };

const unescapeXml = (s: string) =>
  s.replace(/&(lt|gt|quot|apos|amp|#\d+|#x[\da-f]+);/gi, (_, e: string) => {
    const named: Record<string, string> = { lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' };
    if (e in named) return named[e];
    return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1)));
  });

/** The test cases of the Jupiter XML report, each with its result and, when it did not pass, its message. */
function reportedCases(reports: string): Case[] {
  const xml = readFileSync(join(reports, 'TEST-junit-jupiter.xml'), 'utf8');
  return [...xml.matchAll(/<testcase name="([^"]*)" classname="([^"]*)"[^>]*?(?:\/>|>([\s\S]*?)<\/testcase>)/g)].map(([, name, classname, inner = '']) => {
    const problem = /<(failure|error|skipped)(?: message="([^"]*)")?/.exec(inner);
    const result = problem ? (problem[1] === 'failure' ? 'failed' : (problem[1] as 'error' | 'skipped')) : 'passed';
    return { name: unescapeXml(name), classname, result, message: unescapeXml(problem?.[2] ?? '') };
  });
}

/**
 * `java -jar <junit jar> --class-path <classes> --scan-class-path --reports-dir <reports>
 * --disable-banner`, with only the variables given (and PATH, HOME to find java and the engine).
 */
function runJunit(classes: string, reports: string, vars: Record<string, string>) {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...vars };
  if (process.env.XDG_RUNTIME_DIR) env.XDG_RUNTIME_DIR = process.env.XDG_RUNTIME_DIR; // rootless podman
  const started = performance.now();
  const r = spawnSync('java', ['-jar', JUNIT, '--class-path', classes, '--scan-class-path', '--reports-dir', reports, '--disable-banner'], {
    env,
    encoding: 'utf8',
    timeout: 90_000,
  });
  const ms = performance.now() - started;
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  const cases = existsSync(join(reports, 'TEST-junit-jupiter.xml')) ? reportedCases(reports) : [];
  return { code: r.status, out, cases, ms };
}

/** How long the JUnit run took: the whole java process, and the launcher's own count (the tests, the sandbox's start and stop). */
function timing(run: { ms: number; out: string }): string {
  const tests = /Test run finished after (\d+) ms/.exec(run.out)?.[1];
  return `java ${(run.ms / 1000).toFixed(1)} s, of which the test run ${tests === undefined ? '?' : (Number(tests) / 1000).toFixed(1)} s`;
}

/** Every test of PayoutsTest, in the report, passed. */
function expectAllPassed(run: ReturnType<typeof runJunit>, what: string): void {
  process.stdout.write(`examples/java against ${what}: ${timing(run)}\n`);
  if (run.code !== 0) process.stdout.write(run.out);
  const byName = (a: Case, b: Case) => a.name.localeCompare(b.name);
  expect({ code: run.code, cases: [...run.cases].sort(byName) }).toEqual({
    code: 0,
    cases: TESTS.map((name): Case => ({ name, classname: CLASS, result: 'passed', message: '' })).sort(byName),
  });
}

// Without a JDK too: what the tests below rely on is in the example's sources.
test("examples/java's sources: the client's one careful retry marked for the naive variant, a receiver that verifies V2 and never V1", () => {
  const source = (file: string) => readFileSync(join(EXAMPLE, 'src/main/java/com/example/payouts', file), 'utf8');
  expect(source('PayoutClient.java').match(/\/\/ naive-switch\n/g)).toHaveLength(1);
  const receiver = source('WebhookReceiver.java');
  expect(receiver).toContain('getFirst("X-Sandbox-Signature-V2")');
  expect(receiver).not.toContain('getFirst("X-Sandbox-Signature")');
  expect(receiver).toContain('MessageDigest.isEqual');
});

if (missing.length > 0 && !inCi) {
  process.stderr.write(
    `test/java-example.test.ts: examples/java is not run here: ${missing.join(' and ')} missing (Debian: apt-get install default-jdk-headless junit5). In CI it is.\n`,
  );
} else {
  const dir = useTempDir();
  let binary = '';
  let shared = '';
  const classes = () => join(shared, 'classes');

  beforeAll(() => {
    if (missing.length > 0) throw new Error(`${missing.join(' and ')} missing: CI must install default-jdk-headless and junit5 (.ci/run)`);
    binary = ensureBinary();
    shared = mkdtempSync(join(tmpdir(), 'payout-sandbox-java-'));
    compile(EXAMPLE, classes());
  }, 240_000);

  afterAll(() => {
    if (shared) rmSync(shared, { recursive: true, force: true });
  });

  test('examples/java: compiled with javac, its JUnit suite passes against the standalone executable', () => {
    const run = runJunit(classes(), join(dir(), 'reports'), { PAYOUT_SANDBOX_EXECUTABLE: binary });
    expectAllPassed(run, 'the executable');
  }, 120_000);

  if (engine === null && !inCi) {
    process.stderr.write(
      'test/java-example.test.ts: examples/java is not run against the image here: neither podman nor docker is installed (Debian: apt-get install podman runc). In CI it is.\n',
    );
  } else {
    test('examples/java: its JUnit suite passes against the container image (webhooks back to this host)', () => {
      expect(engine).not.toBeNull();
      const image = ensureImage(engine!.cmd); // built once per run, under a lock, for every test file that needs it
      const run = runJunit(classes(), join(dir(), 'reports'), { PAYOUT_SANDBOX_IMAGE: image, PAYOUT_SANDBOX_ENGINE: engine!.cmd });
      expectAllPassed(run, `the image (${engine!.cmd})`);
    }, 400_000);
  }

  test('examples/java goes red when its client is made naive: a new client_ref_id after a 500 fails the review gate', () => {
    const copy = join(dir(), 'java');
    cpSync(EXAMPLE, copy, { recursive: true });
    const file = join(copy, 'src/main/java/com/example/payouts/PayoutClient.java');
    const lines = readFileSync(file, 'utf8').split('\n');
    const marks = lines.flatMap((l, i) => (l.trim() === '// naive-switch' ? [i] : []));
    expect(marks).toHaveLength(1);
    const careful = lines[marks[0] + 1];
    // The careful line: the payout looked up by the same client_ref_id.
    expect(careful.trim()).toBe('Map<String, Object> found = find(clientRefId);');
    const indent = careful.slice(0, careful.length - careful.trimStart().length);
    // The naive one: sent again under a new client_ref_id (the 500 had made the first payout).
    lines[marks[0] + 1] =
      `${indent}body.put("client_ref_id", clientRefId + "-R"); call("POST", TRANSFER, body); Map<String, Object> found = find(clientRefId + "-R");`;
    writeFileSync(file, lines.join('\n'));
    compile(copy, join(dir(), 'classes'));

    const run = runJunit(join(dir(), 'classes'), join(dir(), 'reports'), { PAYOUT_SANDBOX_EXECUTABLE: binary });
    process.stdout.write(`examples/java made naive, against the executable: ${timing(run)}; exit ${run.code}\n`);
    expect(run.code).not.toBeNull(); // not killed by the time-out
    expect(run.code).not.toBe(0);
    const gate = run.cases.find((c) => c.name === 'reviewGateNoHighFinding()');
    expect(gate).toMatchObject({ result: 'failed', message: expect.stringContaining('double-payout-after-timeout (high)') });
    // The tests of what the naive line does not touch still pass.
    const passed = run.cases.filter((c) => c.result === 'passed').map((c) => c.name);
    expect(passed).toEqual(expect.arrayContaining(TESTS.slice(0, 4)));
  }, 120_000);
}
