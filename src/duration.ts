import ms from 'ms';

/** A duration with its unit: `500ms`, `5s`, `1.5m`, `30m`, `24h`, `1d`. */
export const DURATION_PATTERN = '^[0-9]+(\\.[0-9]+)?(ms|s|m|h|d)$';
const DURATION_RE = new RegExp(DURATION_PATTERN);

/** Milliseconds of a duration string, or null when it is not one (a unit is required). */
export function parseDuration(text: string): number | null {
  if (!DURATION_RE.test(text)) return null;
  const value = ms(text as ms.StringValue);
  return typeof value === 'number' && Number.isFinite(value) ? Math.round(value) : null;
}

export function formatDuration(milliseconds: number): string {
  return ms(milliseconds, { long: false });
}
