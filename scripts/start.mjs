// `npm start`: the `forgekit` command from this checkout, built first only when the build is missing or older
// than its sources. The command runs in this process, and package.json starts it with `exec`, so that the signals
// npm passes on to its script (Ctrl-C, SIGTERM) reach the server rather than the shell between them.
import './check-node.mjs';
import { buildIfStale, root } from './build-if-stale.mjs';

buildIfStale();
const cli = `${root}dist/cli.js`;
process.argv[1] = cli;
await import(cli);
