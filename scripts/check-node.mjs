// Stops `npm start` and `npm test` with one clear line on a Node.js older than forgekit needs (the engines
// field of package.json), instead of a failure deep inside a build tool. Written for any Node.js version.
import { readFileSync } from 'node:fs';

var manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
var needed = /(\d+)\.(\d+)\.(\d+)/.exec(manifest.engines.node).slice(1).map(Number);
var running = process.versions.node.split('.').map(Number);
var older = running[0] !== needed[0] ? running[0] < needed[0] : running[1] !== needed[1] ? running[1] < needed[1] : running[2] < needed[2];
if (older) {
  console.error(`forgekit needs Node.js ${needed.join('.')} or newer; this is ${process.versions.node} (${process.execPath}).`);
  process.exit(1);
}
