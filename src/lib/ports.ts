// Required ports (ARCHITECTURE.md): what a module needs from another module is declared by the
// module as a port, wired by the composition root (src/app.ts, wirePorts()) and checked when the
// app is built. No port has a default: one line missing in app.ts must stop the start-up, not
// make sends free or skip a hook in silence.

/** What the start-up check asks of every port. */
export interface Wirable {
  /** `<module>.<port>`, as the start-up refusal names it. */
  readonly label: string;
  readonly wired: boolean;
}

/** A dependency on exactly one implementation, provided by another module. */
export class Port<T> implements Wirable {
  #value: T | undefined;
  readonly label: string;

  constructor(module: string, name: string) {
    this.label = `${module}.${name}`;
  }

  get wired(): boolean {
    return this.#value !== undefined;
  }

  wire(value: T): void {
    if (this.#value !== undefined) throw new Error(`Port ${this.label} is wired twice.`);
    this.#value = value;
  }

  /** The implementation; reading an unwired port is a composition bug buildApp already refuses. */
  get value(): T {
    if (this.#value === undefined) throw new Error(`Port ${this.label} is not wired (src/app.ts wirePorts()).`);
    return this.#value;
  }
}

/** Listeners another module hangs on a change (run in its transaction): at least one is required. */
export class Listeners<L> implements Wirable {
  readonly #all: L[] = [];
  readonly label: string;

  constructor(module: string, name: string) {
    this.label = `${module}.${name}`;
  }

  get wired(): boolean {
    return this.#all.length > 0;
  }

  wire(listener: L): void {
    this.#all.push(listener);
  }

  get all(): readonly L[] {
    return this.#all;
  }
}

/** One line of the composition root's wiring table. */
export interface Wire {
  /** The label of the port it wires. */
  readonly port: string;
  connect(): void;
}

export function wire<T>(port: Port<T> | Listeners<T>, value: T): Wire {
  return { port: port.label, connect: () => port.wire(value) };
}

/** Throws, naming every port left unwired. */
export function refuseUnwired(ports: Iterable<Wirable>): void {
  const missing = [...ports].filter((port) => !port.wired).map((port) => port.label);
  if (missing.length === 0) return;
  throw new Error(
    `Cellgate cannot start: ${missing.length === 1 ? 'port' : 'ports'} ${missing.join(', ')} not wired (src/app.ts wirePorts()).`,
  );
}
