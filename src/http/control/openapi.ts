import { parameters, plain } from '../../contract/openapi.js';
import { VERSION } from '../../version.js';
import type { Route } from './route.js';

const ErrorBody = { type: 'object', properties: { error: { type: 'string' } }, required: ['error'] };

const errors = {
  '400': { description: 'Invalid input: `{ error }` names the first wrong field (an unknown field, a value outside a list: the allowed ones).' },
  '401': { description: 'An admin token is set and the request did not bring it (`Authorization: Bearer <token>`).' },
  '404': { description: 'No such record (merchant, account, payout, …) or route.' },
  '409': { description: 'Refused as things are: a cap reached, a transition the domain refuses, a real clock to advance.' },
  '503': { description: 'The data file cannot be written (a full disk); nothing was done. Retry-After.' },
};

let cached: Record<string, unknown> | null = null;

/**
 * OpenAPI 3.1 of the control API, from its route table (router.ts) and the schemas the Admin
 * parses its input with (admin/inputs.ts): a route added there is described here.
 */
export function controlOpenApi(routes: Route[]): Record<string, unknown> {
  if (cached) return cached;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [method, path, doc] of routes) {
    const names = [...path.matchAll(/:(\w+)/g)].map((m) => m[1]);
    const operation: Record<string, unknown> = {
      summary: doc.summary,
      parameters: [...names.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })), ...parameters(doc.query, 'query')],
      responses: {
        [String(doc.status ?? 200)]: { description: 'Done; the JSON answer.' },
        ...Object.fromEntries(Object.entries(errors).map(([s, e]) => [s, { ...e, content: { 'application/json': { schema: ErrorBody } } }])),
      },
    };
    if (doc.body) operation.requestBody = { required: true, content: { 'application/json': { schema: plain(doc.body) } } };
    (paths[`/__sandbox${path.replace(/:(\w+)/g, '{$1}')}`] ??= {})[method] = operation;
  }
  cached = {
    openapi: '3.1.0',
    info: {
      title: "payout-sandbox: the control API (the sandbox's own surface, under /__sandbox)",
      version: VERSION,
      description: 'Generated from the route table and the schemas the Admin validates its input with. JSON in and out; failures are `{ error }`.',
    },
    servers: [{ url: '/', description: 'the sandbox itself' }],
    security: [{}, { adminToken: [] }],
    paths,
    components: {
      securitySchemes: {
        adminToken: { type: 'http', scheme: 'bearer', description: 'Needed on every route but /health when the sandbox runs with --admin-token.' },
      },
    },
  };
  return cached;
}
