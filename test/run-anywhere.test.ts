import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

/**
 * What docs/run-anywhere.md and examples/docker-compose.yml tell users to copy: the compose file
 * parses and runs the image built here with the token, beside an app that waits for its
 * HEALTHCHECK; the docs' YAML snippets parse, and the action's snippet uses only inputs and
 * outputs action.yml has; the Dockerfile is what the docs say.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const { version } = JSON.parse(read('package.json')) as { version: string };

type Service = {
  image?: string;
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
};

test('examples/docker-compose.yml: the image of this version with SANDBOX_ADMIN_TOKEN, and an app that waits for it to be healthy', () => {
  const compose = parseYaml(read('examples/docker-compose.yml')) as { services: Record<string, Service>; volumes: Record<string, unknown> };
  const sandbox = compose.services['payout-sandbox'];
  expect(sandbox.image).toBe(`payout-sandbox:${version}`);
  expect(sandbox.environment?.SANDBOX_ADMIN_TOKEN).toMatch(/^\$\{SANDBOX_ADMIN_TOKEN:\?/);
  // The app calls it by its service name: a Host the control API answers only when allowed.
  expect(sandbox.environment?.SANDBOX_ALLOWED_HOST).toBe('payout-sandbox');
  expect(sandbox.ports).toEqual(['127.0.0.1:4010:4010']);
  expect(sandbox.volumes).toEqual(['sandbox-data:/data']);
  expect(Object.keys(compose.volumes)).toEqual(['sandbox-data']);
  const app = compose.services.app;
  expect(app.depends_on).toEqual({ 'payout-sandbox': { condition: 'service_healthy' } });
  expect(app.environment).toMatchObject({
    PAYOUT_SANDBOX_URL: 'http://payout-sandbox:4010',
    PAYOUT_SANDBOX_ADMIN_TOKEN: `$\{SANDBOX_ADMIN_TOKEN}`, // compose's variable, not a template
    PAYOUT_WEBHOOK_HOST: 'app',
  });
});

test('the Dockerfile: FROM scratch, a numeric non-root user, port 4010, a /data volume, a HEALTHCHECK with wait, listening on 0.0.0.0', () => {
  const lines = read('Dockerfile')
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'));
  expect(lines[0]).toBe('FROM scratch');
  expect(lines).toContain('USER 10001:10001');
  expect(lines).toContain('EXPOSE 4010');
  expect(lines).toContain('VOLUME /data');
  expect(lines.find((l) => l.startsWith('HEALTHCHECK'))).toMatch(/CMD \["\/usr\/local\/bin\/payout-sandbox", "wait"/);
  // Checked every second from the start: compose's service_healthy within about a second, not ten.
  expect(lines.find((l) => l.startsWith('HEALTHCHECK'))).toMatch(/^HEALTHCHECK --interval=1s --timeout=\d+s --start-period=\d+s /);
  expect(lines.join('\n')).toMatch(/SANDBOX_HOST=0\.0\.0\.0/);
  expect(lines.join('\n')).not.toMatch(/SANDBOX_(ADMIN_TOKEN|INSECURE_OPEN_CONTROL)=/);
});

test("docs/run-anywhere.md: every YAML snippet parses; the action's uses only action.yml's inputs and outputs", () => {
  const doc = read('docs/run-anywhere.md');
  const action = parseYaml(read('action.yml')) as { inputs: Record<string, unknown>; outputs: Record<string, unknown> };
  const blocks = [...doc.matchAll(/^( *)```yaml\n([\s\S]*?)^\1```$/gm)].map((m) => m[2].replace(new RegExp(`^${m[1]}`, 'gm'), ''));
  expect(blocks.length).toBeGreaterThanOrEqual(4);
  let usesAction = 0;
  for (const block of blocks) {
    const parsed = parseYaml(block) as unknown;
    expect(parsed).not.toBeNull();
    const steps = (Object.values((parsed as { jobs?: Record<string, { steps?: unknown[] }> }).jobs ?? {}).flatMap((j) => j.steps ?? []) ?? []) as Array<{
      uses?: string;
      with?: Record<string, unknown>;
    }>;
    for (const step of steps.filter((s) => s.uses?.includes('/payout-sandbox@'))) {
      usesAction += 1;
      for (const input of Object.keys(step.with ?? {})) expect({ input, known: input in action.inputs }).toEqual({ input, known: true });
    }
  }
  expect(usesAction).toBe(1);
  for (const [, output] of doc.matchAll(/steps\.sandbox\.outputs\.([a-z-]+)/g))
    expect({ output, known: output in action.outputs }).toEqual({ output, known: true });
  for (const input of Object.keys(action.inputs)) expect(doc).toContain(`\`${input}\``);
});
