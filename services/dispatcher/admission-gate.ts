// The EVENTS consumer's admission gate: a new event is taken only while few direct deliveries wait
// in their lanes to start. Without it, a burst that outruns the dispatcher itself (every hook
// healthy, the process busy) is taken hundreds of events at a time; the lanes cannot start those
// deliveries within their wait budget, so most of them go through DELIVERIES after all, paying for
// the publish and the second consumption that the direct path exists to avoid. EVENTS keeps the
// events as durably while they wait there.
//
// Running deliveries do not count: a hook that hangs holds at most its lane's concurrency, and it
// must not close the gate for the others.

/**
 * `open`: an event is admitted while the load is below the gate's places. `closed`: the load
 * reached them, and the gate opens again only once half its places are free, so that events come
 * in in groups, which the intake records with one statement each. Reopened whenever one place
 * freed, it would let them in one at a time, a statement each, which costs the database more per
 * delivery than storing the overflow in DELIVERIES.
 */
export type GateState = "open" | "closed";

/** How fast the deliveries-per-event estimate falls back when events have fewer deliveries. */
export const FAN_OUT_DECAY = 0.05;

export class AdmissionGate {
  readonly places: number;
  #state: GateState = "open";
  /** Direct deliveries submitted to their lanes and not started yet. */
  #waiting = 0;
  /** Events admitted whose deliveries are not known yet (their intake is still running). */
  #taking = 0;
  /**
   * Deliveries an event has had lately; an event being taken counts as that many. Counted as one,
   * the hundreds taken in one batch would turn into several times as many deliveries as the gate
   * allows (one per hook), more than the lanes' places, and the rest would go to DELIVERIES.
   */
  #perEvent = 1;
  /** Admissions waiting for the gate to open. */
  #waiters: (() => void)[] = [];

  constructor(places: number) {
    this.places = places;
  }

  get state(): GateState {
    return this.#state;
  }

  /** What the gate weighs against its places: deliveries waiting to start and those expected of events being taken. */
  get load(): number {
    return this.#waiting + this.#taking * this.#perEvent;
  }

  /** Resolves once another event may be taken; it then counts as being taken until `taken()`. */
  async admit(): Promise<void> {
    while (this.#state === "closed" || this.load >= this.places) {
      this.#state = "closed";
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
    this.#taking += 1;
  }

  /** An admitted event's deliveries are known (or taking it failed): it no longer holds places. */
  taken(): void {
    this.#taking -= 1;
    this.#openIfRoom();
  }

  /** An event has `count` deliveries: the estimate goes up at once and down slowly, so that a burst of events with many hooks does not find the gate wide open. */
  fanOut(count: number): void {
    this.#perEvent = count >= this.#perEvent ? count : this.#perEvent + FAN_OUT_DECAY * (count - this.#perEvent);
  }

  /** A direct delivery joins its lane and waits to start. */
  queued(): void {
    this.#waiting += 1;
  }

  /** A direct delivery has left its lane's queue (started, or settled without starting). */
  started(): void {
    this.#waiting -= 1;
    this.#openIfRoom();
  }

  #openIfRoom(): void {
    const load = this.load;
    if (load >= this.places || (this.#state === "closed" && load > this.places / 2)) return;
    this.#state = "open";
    const ready = this.#waiters;
    this.#waiters = [];
    for (const wake of ready) wake();
  }
}
