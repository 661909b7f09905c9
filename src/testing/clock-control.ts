import { forwardOf, instantOf } from '../clock.js';
import { BadRequestError } from '../errors.js';
import type { ControlRoute } from './control.js';

// The clock's control routes (docs/testing.md "A clock"): `hosting.clock` over HTTP. Each answers the time it leaves.

/** A body's attributes, every one of them among `allowed`: a 400 naming the first that is not. */
function onlyAttributes(body: Record<string, unknown>, allowed: readonly string[]): void {
  const unknown = Object.keys(body).find((name) => !allowed.includes(name));
  if (unknown !== undefined) throw BadRequestError.invalid(unknown, 'is not an attribute of this call');
}

const answer = (now: Date) => ({ status: 200, body: { now: now.toISOString() } });

export const clockRoutes: ControlRoute[] = [
  { method: 'GET', path: 'clock', run: async ({ testDouble }) => answer(testDouble.clock.now()) },
  {
    method: 'PUT',
    path: 'clock',
    run: async ({ testDouble, body }) => {
      onlyAttributes(body, ['now']);
      return answer(testDouble.clock.set(instantOf(body.now, 'now')));
    },
  },
  {
    method: 'POST',
    path: 'clock/advance',
    run: async ({ testDouble, body }) => {
      onlyAttributes(body, ['ms']);
      return answer(testDouble.clock.advance(forwardOf(body.ms, 'ms')));
    },
  },
  { method: 'DELETE', path: 'clock', run: async ({ testDouble }) => answer(testDouble.clock.reset()) },
];
