import type { TSchema } from '@sinclair/typebox';
import { VERSION } from '../version.js';
import { OPERATIONS, type Operation } from './operations.js';
import { EnvelopeA, WebhookV1, WebhookV2 } from './responses.js';

/**
 * A plain JSON Schema from a TypeBox one: TypeBox's symbol keys drop out in the JSON round trip;
 * the sandbox's `x-decimals` also becomes a standard `multipleOf`.
 */
export function plain(schema: TSchema): Record<string, unknown> {
  return JSON.parse(
    JSON.stringify(schema, (_k, v: unknown) => {
      if (v && typeof v === 'object' && !Array.isArray(v) && 'x-decimals' in v) {
        const places = (v as Record<string, number>)['x-decimals'];
        return { ...v, multipleOf: Number((10 ** -places).toFixed(places)) };
      }
      return v;
    }),
  ) as Record<string, unknown>;
}

export function parameters(schema: TSchema | undefined, where: 'query' | 'path') {
  if (!schema) return [];
  const props = (schema.properties ?? {}) as Record<string, TSchema>;
  const required = new Set<string>((schema.required as string[] | undefined) ?? []);
  return Object.entries(props).map(([name, s]) => ({ name, in: where, required: where === 'path' || required.has(name), schema: plain(s) }));
}

let cached: Record<string, unknown> | null = null;

/** One operation's OpenAPI object. */
function operationObject(op: Operation): Record<string, unknown> {
  const responses = Object.fromEntries(
    Object.entries(op.responses).map(([status, [description, schema]]) => [
      status,
      { description, content: { 'application/json': { schema: plain(schema) } } },
    ]),
  );
  responses['404'] ??= { description: 'Unknown route (envelope A)', content: { 'application/json': { schema: plain(EnvelopeA) } } };
  responses['500'] = { description: 'Internal error (envelope A)', content: { 'application/json': { schema: plain(EnvelopeA) } } };
  const operation: Record<string, unknown> = {
    operationId: op.id,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    security: op.security === 'dashboard' ? [{ merchantEmail: [], apiKey: [], apiSecret: [] }] : [{ merchantId: [], accessToken: [] }],
    parameters: [...parameters(op.params, 'path'), ...parameters(op.query, 'query')],
    responses,
  };
  if (op.body) {
    const schema = plain(op.body);
    operation.requestBody = {
      required: true,
      content: { 'application/json': { schema }, 'application/x-www-form-urlencoded': { schema } },
    };
  }
  return operation;
}

/** OpenAPI 3.1 of the emulated API, from the same schemas that validate requests and shape responses. */
export function openApiDocument(): Record<string, unknown> {
  if (cached) return cached;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) (paths[op.path] ??= {})[op.method] = operationObject(op);
  cached = {
    openapi: '3.1.0',
    info: {
      title: 'payout-sandbox: the emulated payout, beneficiary, verification and checkout-status API',
      version: VERSION,
      description: 'Generated from the schemas the sandbox validates requests and shapes responses with.',
    },
    servers: [{ url: '/', description: 'the sandbox itself' }],
    paths,
    webhooks: {
      payoutStatusV1: {
        post: {
          summary: 'Payout status webhook, V1 body',
          requestBody: { content: { 'application/json': { schema: plain(WebhookV1) } } },
          responses: { '200': { description: 'Any 2xx acknowledges the delivery' } },
        },
      },
      payoutStatusV2: {
        post: {
          summary: 'Payout status webhook, V2 body',
          requestBody: { content: { 'application/json': { schema: plain(WebhookV2) } } },
          responses: { '200': { description: 'Any 2xx acknowledges the delivery' } },
        },
      },
    },
    components: {
      securitySchemes: {
        merchantEmail: { type: 'apiKey', in: 'header', name: 'x-merchant-email' },
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        apiSecret: { type: 'apiKey', in: 'header', name: 'x-api-secret' },
        merchantId: { type: 'apiKey', in: 'header', name: 'MerchantId' },
        accessToken: { type: 'apiKey', in: 'header', name: 'AccessToken' },
      },
    },
  };
  return cached;
}
