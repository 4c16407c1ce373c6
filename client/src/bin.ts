#!/usr/bin/env node
// `npx crudsmith-client generate --input <openapi.json|url|module> --out <file.ts> [--check]`
import { runCli } from './generate/cli';

runCli(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
