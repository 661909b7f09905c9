/**
 * A map that keeps its most recently used entries, up to `capacity` of them (or of their weight, with `weigh`).
 * Git objects are named by their content, so what is kept under an object ID is never stale: these maps only
 * bound memory.
 */
export class LruMap<K, V> {
  private readonly entries = new Map<K, V>();
  private weight = 0;

  /** `evicted`: told of each value forgotten to make room; `weigh`: what a value counts for (1 each by default). */
  constructor(
    private readonly capacity: number,
    private readonly evicted?: (value: V) => void,
    private readonly weigh: (value: V) => number = () => 1,
  ) {}

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      // Moved to the end: the most recently used.
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    this.delete(key);
    this.entries.set(key, value);
    this.weight += this.weigh(value);
    while (this.weight > this.capacity && this.entries.size > 1) {
      const [oldest, value] = this.entries.entries().next().value as [K, V];
      this.delete(oldest);
      this.evicted?.(value);
    }
  }

  /** Forgets the entry; its value, if there was one. */
  delete(key: K): V | undefined {
    const value = this.entries.get(key);
    if (this.entries.delete(key)) this.weight -= this.weigh(value!);
    return value;
  }

  /** Forgets every entry; their values. */
  clear(): V[] {
    const values = [...this.entries.values()];
    this.entries.clear();
    this.weight = 0;
    return values;
  }
}
