type Listener = (...args: never[]) => void;

/**
 * The part of Node's EventEmitter a Ticket uses (on, once, off, emit...), for browsers: the
 * package's `#events` import is this file wherever `node:events` is not.
 */
export class EventEmitter {
  private readonly listeners = new Map<string | symbol, Listener[]>();

  on(event: string | symbol, listener: Listener): this {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return this;
  }

  addListener(event: string | symbol, listener: Listener): this {
    return this.on(event, listener);
  }

  once(event: string | symbol, listener: Listener): this {
    const once = (...args: never[]) => {
      this.off(event, once);
      listener(...args);
    };
    return this.on(event, once);
  }

  off(event: string | symbol, listener: Listener): this {
    const list = this.listeners.get(event);
    if (list) this.listeners.set(event, list.filter((l) => l !== listener));
    return this;
  }

  removeListener(event: string | symbol, listener: Listener): this {
    return this.off(event, listener);
  }

  removeAllListeners(event?: string | symbol): this {
    if (event === undefined) this.listeners.clear();
    else this.listeners.delete(event);
    return this;
  }

  listenerCount(event: string | symbol): number {
    return this.listeners.get(event)?.length ?? 0;
  }

  emit(event: string | symbol, ...args: unknown[]): boolean {
    const list = this.listeners.get(event);
    // As Node does: an 'error' nobody listens to is thrown.
    if (event === 'error' && !list?.length) throw args[0];
    for (const listener of list ?? []) (listener as (...a: unknown[]) => void)(...args);
    return (list?.length ?? 0) > 0;
  }
}
