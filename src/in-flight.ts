import { ServiceUnavailableError } from './errors.js';

/**
 * The calls a hosting instance is running. Closing waits for them, so that no call loses its database
 * half-way; a call that arrives once closing has begun is refused (503) instead.
 */
export class InFlightCalls {
  private running = 0;
  private closing = false;
  private idle?: () => void;

  /** Registers a call; the returned function ends it. */
  begin(): () => void {
    if (this.closing) throw new ServiceUnavailableError();
    this.running += 1;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.running -= 1;
      if (this.running === 0) this.idle?.();
    };
  }

  /** Refuses new calls and resolves once the running ones have ended. */
  drain(): Promise<void> {
    this.closing = true;
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => (this.idle = resolve));
  }
}
