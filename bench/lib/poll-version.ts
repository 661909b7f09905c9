/** One /version request and its latency. */
export interface VersionSample {
  /** When it was sent (performance.now()). */
  sent: number;
  ms: number;
}

/**
 * `GET /version` asked one request after another (10 ms apart) until stopped: how fast the server answers
 * a trivial call while it does heavy work. Used by bench/archives.ts and test/stall.test.ts.
 */
export function pollVersion(origin: string, token: string): { stop(): Promise<VersionSample[]> } {
  const samples: VersionSample[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const sent = performance.now();
      const res = await fetch(`${origin}/api/v4/version`, { headers: { 'PRIVATE-TOKEN': token } });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`GET /version answered ${res.status}`);
      samples.push({ sent, ms: performance.now() - sent });
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return samples;
    },
  };
}
