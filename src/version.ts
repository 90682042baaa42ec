import { resolve } from 'node:path';
import { PACKAGE_ROOT, readTextSync } from './shipped.js';

/** The package's folder (where fixtures/ and scenarios/ ship), from src/ or dist/ alike (src/shipped.ts). */
export { PACKAGE_ROOT };

export const VERSION: string = (JSON.parse(readTextSync(resolve(PACKAGE_ROOT, 'package.json'))) as { version: string }).version;
