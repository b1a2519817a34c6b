// A set for items that come and go at a high rate and live as long as a request (deliveries in a
// lane, attempts in flight), kept in an array of slots instead of a Set or Map.
//
// V8 replaces a Set's or Map's hash table as entries come and go, and links each table it replaces
// to its successor without letting go of the entries it held. Once one of those tables is old (a
// full collection made it so while it was in use), each later table, and every item ever added,
// stays reachable from it until the next full collection. Under bench:webhooks load the
// dispatcher's few such collections (a lane's running deliveries, the deliveries being recorded,
// the attempts a shutdown would stop, the attempts in progress by delivery id) kept about a sixth
// of everything it allocated that way: 7–9 MB promoted per scavenge after any full collection,
// against 0.3–1.2 MB with slots (and a plain object for the one keyed by id).

export class SlotSet<T> {
  #slots: (T | undefined)[] = [];
  /** Emptied slots, reused before the array grows. */
  #free: number[] = [];
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** Adds `item` and answers its slot, which `delete` takes (once: the slot is reused after). */
  add(item: T): number {
    const slot = this.#free.pop() ?? this.#slots.length;
    this.#slots[slot] = item;
    this.#size += 1;
    return slot;
  }

  delete(slot: number): void {
    if (this.#slots[slot] === undefined) return;
    this.#slots[slot] = undefined;
    this.#free.push(slot);
    this.#size -= 1;
  }

  values(): T[] {
    return this.#slots.filter((item): item is T => item !== undefined);
  }
}
