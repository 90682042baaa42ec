#!/usr/bin/env node
// The CLI runs from one bundled file (dist/cli.bundle.js, made by `npm run build`): loading it is
// about a third of loading dist/cli.js and its hundreds of dependency modules one by one.
import { main } from '../dist/cli.bundle.js';

main(process.argv).catch((err) => {
  console.error(err);
  process.exit(1);
});
