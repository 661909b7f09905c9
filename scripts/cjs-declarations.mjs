// The CommonJS declarations (dist/index.d.cts) import their dependencies' types the ECMAScript-module way:
// typebox is published as ES modules only, and TypeScript (module node16/node18) refuses a CommonJS file that
// imports an ES module, even for types. Declarations use types only, so each import becomes a type-only import
// resolved as ESM (`resolution-mode`, TypeScript 5.3 or newer).
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../dist/index.d.cts', import.meta.url);
const text = readFileSync(file, 'utf8').replace(
  /^import (?!type )(.+) from ('[^']+');$/gm,
  (_line, names, module) => `import type ${names} from ${module} with { 'resolution-mode': 'import' };`,
);
writeFileSync(file, text);
