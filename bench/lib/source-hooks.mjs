// Lets a benchmark import forgekit's TypeScript sources (src/), whose imports name the `.js` files the build
// makes: a relative `.js` import that is not there resolves to the `.ts` file beside it. `npm run bench` runs
// every benchmark with it (`node --import ./bench/lib/source-hooks.mjs bench/<name>.ts` to run one alone).
import { registerHooks } from 'node:module';

registerHooks({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context);
    } catch (error) {
      if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !specifier.startsWith('.') || !specifier.endsWith('.js')) throw error;
      return nextResolve(`${specifier.slice(0, -3)}.ts`, context);
    }
  },
});
