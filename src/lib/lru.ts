// A Map that keeps at most `capacity` entries: reading or writing an entry makes it the most
// recently used, and a write past the capacity drops the least recently used (a Map iterates in
// insertion order, so the first key is the oldest). For in-process caches and rate-limit buckets.
export class LruMap<K, V> {
  private readonly entries = new Map<K, V>();
  readonly capacity: number;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('capacity must be a positive integer');
    this.capacity = capacity;
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: K, value: V): this {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as K);
    return this;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }
}
