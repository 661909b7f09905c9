/** Where forgekit reports what it does; `console` fits. Secrets are never passed to it. */
export interface Logger {
  info(message: string, ...details: unknown[]): void;
  warn(message: string, ...details: unknown[]): void;
  error(message: string, ...details: unknown[]): void;
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
