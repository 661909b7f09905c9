/**
 * A map that keeps its `capacity` most recently used entries. Git objects are named by their content, so what
 * is kept under an object ID is never stale: these maps only bound memory.
 */
export class LruMap<K, V> {
  private readonly entries = new Map<K, V>();

  /** `evicted`: told of each value forgotten to make room. */
  constructor(
    private readonly capacity: number,
    private readonly evicted?: (value: V) => void,
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
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) {
      const [oldest, value] = this.entries.entries().next().value as [K, V];
      this.entries.delete(oldest);
      this.evicted?.(value);
    }
  }

  /** Forgets the entry; its value, if there was one. */
  delete(key: K): V | undefined {
    const value = this.entries.get(key);
    this.entries.delete(key);
    return value;
  }

  /** Forgets every entry; their values. */
  clear(): V[] {
    const values = [...this.entries.values()];
    this.entries.clear();
    return values;
  }
}
