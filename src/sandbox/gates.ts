import { coverageShortfall } from '../observe/coverage.js';
import { reviewShortfall } from '../observe/review/report.js';
import type { SandboxCore } from './core.js';

/** Exit code of a shutdown below --coverage-min. */
export const EXIT_COVERAGE = 3;
/** Exit code of a shutdown with an integration-review finding at or above --review-fail-on. */
export const EXIT_REVIEW = 4;

/**
 * The shutdown gates (`--coverage-min`, `--review-fail-on`): what failed, in words, and the exit
 * code (the review's when it fails, else the coverage's; 0 when both hold).
 */
export function gates(sb: SandboxCore): { failures: string[]; code: number } {
  const coverage = coverageShortfall(sb.coverage.report(null, sb.config.coverageIgnore), sb.config.coverageMin);
  const review = sb.config.reviewFailOn === null ? null : reviewShortfall(sb.review.report(null), sb.config.reviewFailOn);
  const failures = [coverage, review].filter((f): f is string => f !== null);
  return { failures, code: review ? EXIT_REVIEW : coverage ? EXIT_COVERAGE : 0 };
}
