/** The shortest admin token or webhook secret taken: a short (or empty) one is guessed, or was meant to be a secret and is not. */
export const MIN_SECRET_LENGTH = 16;

/**
 * What a secret may be made of: visible ASCII (letters, digits, punctuation), as a header carries
 * it and a person can type it. No spaces, no control or invisible characters (a token of sixteen
 * zero-width spaces looks empty and is), nothing a header would mangle. The admin token
 * (config.ts), a rotated webhook secret (admin/webhook-inputs.ts) and a fixture merchant's
 * credentials (fixtures.ts) are held to it.
 */
export const SECRET_PATTERN = '^[\\x21-\\x7e]+$';
export const SECRET_CHARACTERS = 'visible ASCII characters (letters, digits, punctuation), no spaces, control or invisible characters';

/** SECRET_PATTERN as a regular expression, for checks outside a schema. */
export const SECRET_RE = new RegExp(SECRET_PATTERN);

/** A schema field's rule for a secret of at least `minLength` characters: SECRET_PATTERN, its refusal saying it in words. */
export function secretRule(minLength: number): { minLength: number; pattern: string; 'x-message': string } {
  return { minLength, pattern: SECRET_PATTERN, 'x-message': `must be ${SECRET_CHARACTERS}.` };
}
