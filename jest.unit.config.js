import base from './jest.config.js';

/**
 * The fast inner-loop tier: only tests that run inside the Jest process (supertest against
 * createApp, in-process servers on 127.0.0.1, pure modules). Nothing here spawns the CLI or any
 * other child process, reads the build output (dist/) or drives a browser, so it needs no
 * `npm run build`. Same transform, module mapping and ESM setup as jest.config.js.
 *
 * Left out (run them with the full suite, `npm test`):
 *   spawn the CLI or another process: cli, cli-first-hour, ci-recipe, coverage (one test starts
 *     the CLI), crash, durability-cli, pack, shared-cli, scenario/persistence;
 *   read dist/: browse (serves the built dashboard from dist/ui);
 *   drive a browser: dashboard.
 *
 * A new test file joins this tier by being under one of the folders below, or by being named in
 * IN_PROCESS, once it is known to start no process and need no build.
 */
const IN_PROCESS = [
  'admin-parity',
  'architecture',
  'change-log',
  'control',
  'control-api',
  'docs-links',
  'durability',
  'failure-everywhere',
  'listen',
  'openapi',
  'run-anywhere',
  'schemas',
  'shared',
  'start-sandbox',
  'store',
  'tenants',
  'time',
  'trace',
  'webhooks',
];

/** @type {import('jest').Config} */
export default {
  ...base,
  testMatch: [
    '<rootDir>/test/unit/**/*.test.ts',
    '<rootDir>/test/domain/**/*.test.ts',
    '<rootDir>/test/api/**/*.test.ts',
    '<rootDir>/test/scenario/**/*.test.ts',
    ...IN_PROCESS.map((name) => `<rootDir>/test/${name}.test.ts`),
    '<rootDir>/examples/**/*.test.ts',
  ],
  // Starts the CLI (runCli/startCli).
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/scenario/persistence\\.test\\.ts$'],
};
