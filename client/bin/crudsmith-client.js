#!/usr/bin/env node
'use strict';
// `npx crudsmith-client generate --input <openapi.json|url> --out <file.ts> [--check]`
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS bin, run by node as it stands
require('../dist/generate/cli.js')
  .runCli(process.argv.slice(2))
  .then(
    (code) => process.exit(code),
    (error) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
