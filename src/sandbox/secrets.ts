/**
 * What a secret may be made of: visible ASCII (letters, digits, punctuation), as a header carries
 * it and a person can type it. No spaces, no control or invisible characters (a token of sixteen
 * zero-width spaces looks empty and is), nothing a header would mangle. The admin token
 * (config.ts), a rotated webhook secret (admin/webhook-inputs.ts) and a fixture merchant's
 * credentials (fixtures.ts) are held to it.
 */
export const SECRET_PATTERN = '^[\\x21-\\x7e]+$';
export const SECRET_CHARACTERS = 'visible ASCII characters (letters, digits, punctuation), no spaces, control or invisible characters';
