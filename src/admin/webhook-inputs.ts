import { type Static, type TObject, type TProperties, Type } from '@sinclair/typebox';
import { inputParser } from '../contract/parse.js';
import { DURATION_FORMS, DURATION_PATTERN } from '../duration.js';
import { MIN_SECRET_LENGTH, secretRule } from '../sandbox/secrets.js';
import { HTTP_URL_MESSAGE, HTTP_URL_PATTERN } from '../webhooks/targets.js';

/**
 * The inputs of the webhook endpoint's control routes (secret rotation, probe, replay), in the
 * control API's style (admin/inputs.ts): closed, each rule named in its message; they validate
 * the body, type the WebhookAdmin's methods and describe the routes in the control OpenAPI.
 */
const input = <P extends TProperties>(properties: P, description: string): TObject<P> => Type.Object(properties, { additionalProperties: false, description });

/** The longest grace a rotation may give the previous secret. */
export const MAX_GRACE_MS = 30 * 24 * 3_600_000;

export const RotateSecretBody = input(
  {
    secret: Type.Optional(
      Type.String({
        ...secretRule(MIN_SECRET_LENGTH),
        maxLength: 256,
      }),
    ),
    grace: Type.Optional(Type.String({ pattern: DURATION_PATTERN, 'x-message': `must be ${DURATION_FORMS}, of at most 30d.`, default: '24h' })),
  },
  "The new secret (16 to 256 visible ASCII characters, no spaces; default: a random one), and how long (on the merchant's clock, at most 30d; default 24h) the previous secret still signs beside it.",
);
export type RotateSecretInput = Static<typeof RotateSecretBody>;

export const ProbeBody = input(
  {
    url: Type.Optional(Type.String({ pattern: HTTP_URL_PATTERN, 'x-message': HTTP_URL_MESSAGE })),
  },
  "Where to send the probe's deliveries (default: the merchant's webhook_url).",
);
export type ProbeInput = Static<typeof ProbeBody>;

const Instant = Type.String({ format: 'date-time', 'x-message': 'must be an ISO date and time with its offset, e.g. 2026-01-01T09:00:00+05:30.' });

export const ReplayBody = input(
  { from: Type.Optional(Instant), to: Type.Optional(Instant) },
  'Which never-acknowledged deliveries to send: those created within [from, to] (sandbox time; default: all).',
);
export type ReplayInput = Static<typeof ReplayBody>;

const strict = { strict: true };

export const parseWebhookInput = {
  rotate: inputParser(RotateSecretBody, strict),
  probe: inputParser(ProbeBody, strict),
  replay: inputParser(ReplayBody, strict),
};
