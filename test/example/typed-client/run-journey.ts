// The journey as a user's script runs it: compiled by tsc, then `node run-journey.js <baseUrl>`
// in a process of its own, with the built client; the user's name and password in
// JOURNEY_USER and JOURNEY_PASSWORD. Prints what the journey saw as one JSON line.
import { journey } from './consumer';

declare const process: { argv: string[]; env: Record<string, string | undefined>; exitCode?: number };

journey(process.argv[2], { username: process.env.JOURNEY_USER!, password: process.env.JOURNEY_PASSWORD! }).then(
  (seen) => console.log(JSON.stringify(seen)),
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
