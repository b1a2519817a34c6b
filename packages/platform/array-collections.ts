// A Map and a Set kept in plain arrays, for the few entries in flight at a time (HTTP/2 streams,
// gRPC calls): lookups scan, removal swaps with the last. Unlike Map and Set they never leave a
// chain of old hash tables behind (see in-flight-collections.ts). They offer what Node's HTTP/2
// session and grpc-js's transport call (get, set, add, delete, size, forEach, for…of) and the
// has/values a reader of a Map or Set would expect; nothing else of the Map and Set API.

export class ArrayMap<K, V> {
  readonly #keys: K[] = [];
  readonly #values: V[] = [];

  constructor(entries?: Iterable<readonly [K, V]>) {
    if (entries) for (const [key, value] of entries) this.set(key, value);
  }

  get size(): number {
    return this.#keys.length;
  }

  get(key: K): V | undefined {
    const i = this.#keys.indexOf(key);
    return i < 0 ? undefined : this.#values[i];
  }

  has(key: K): boolean {
    return this.#keys.includes(key);
  }

  set(key: K, value: V): this {
    const i = this.#keys.indexOf(key);
    if (i >= 0) this.#values[i] = value;
    else {
      this.#keys.push(key);
      this.#values.push(value);
    }
    return this;
  }

  delete(key: K): boolean {
    const i = this.#keys.indexOf(key);
    if (i < 0) return false;
    const last = this.#keys.length - 1;
    this.#keys[i] = this.#keys[last];
    this.#values[i] = this.#values[last];
    this.#keys.pop();
    this.#values.pop();
    return true;
  }

  /** Over a snapshot: the callback may delete (a session destroys its streams this way). */
  forEach(callback: (value: V, key: K) => void): void {
    const keys = [...this.#keys];
    const values = [...this.#values];
    for (let i = 0; i < keys.length; i++) callback(values[i], keys[i]);
  }

  values(): IterableIterator<V> {
    return [...this.#values][Symbol.iterator]();
  }

  [Symbol.iterator](): IterableIterator<[K, V]> {
    return this.#keys.map((key, i): [K, V] => [key, this.#values[i]])[Symbol.iterator]();
  }
}

export class ArraySet<T> {
  readonly #items: T[] = [];

  constructor(items?: Iterable<T>) {
    if (items) for (const item of items) this.add(item);
  }

  get size(): number {
    return this.#items.length;
  }

  has(item: T): boolean {
    return this.#items.includes(item);
  }

  add(item: T): this {
    if (!this.#items.includes(item)) this.#items.push(item);
    return this;
  }

  delete(item: T): boolean {
    const i = this.#items.indexOf(item);
    if (i < 0) return false;
    this.#items[i] = this.#items[this.#items.length - 1];
    this.#items.pop();
    return true;
  }

  /** Over a snapshot, as ArrayMap#forEach. */
  forEach(callback: (item: T) => void): void {
    for (const item of [...this.#items]) callback(item);
  }

  values(): IterableIterator<T> {
    return [...this.#items][Symbol.iterator]();
  }

  [Symbol.iterator](): IterableIterator<T> {
    return this.values();
  }
}
