// A Map from string keys kept in a dictionary-mode object, for a long-lived table whose entries
// come and go (nats.js's requests awaiting a reply, one per JetStream publish). When V8 rehashes
// a Map it leaves the old table pointing to the new one (for iterators still walking it); once
// the Map is in the old generation, the young-generation collector keeps that chain of tables,
// and every entry they held, alive until a full collection (docs/upstream-reports.md has the
// reproduction). A dictionary object drops deleted entries and old backing stores outright.
// Offers what nats.js calls (get, set, delete, size, values, forEach) and has; nothing else of
// the Map API.

export class StringKeyMap<V> {
  #entries: Record<string, V> = Object.create(null) as Record<string, V>;
  #size = 0;

  constructor(entries?: Iterable<readonly [string, V]>) {
    if (entries) for (const [key, value] of entries) this.set(key, value);
  }

  get size(): number {
    return this.#size;
  }

  get(key: string): V | undefined {
    return this.#entries[key];
  }

  has(key: string): boolean {
    return key in this.#entries;
  }

  set(key: string, value: V): this {
    if (!(key in this.#entries)) this.#size++;
    this.#entries[key] = value;
    return this;
  }

  delete(key: string): boolean {
    if (!(key in this.#entries)) return false;
    delete this.#entries[key];
    this.#size--;
    return true;
  }

  values(): IterableIterator<V> {
    return Object.values(this.#entries)[Symbol.iterator]();
  }

  forEach(callback: (value: V, key: string, map: this) => void): void {
    for (const [key, value] of Object.entries(this.#entries)) callback(value, key, this);
  }
}
