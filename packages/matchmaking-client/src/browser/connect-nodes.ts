import { CancelFindRequest, CancelFindResponse, FindGameRequest, FindGameUpdate, MatchmakerDefinition } from '@gamefactory/protocol/web/v1/matchmaker';
import type { FindGameRequest as NodeFindGameRequest } from '@gamefactory/protocol/v1/matchmaker';
import type { FindGameCalls, FindGameHandlers } from '../find-game-calls.js';
import { connectServerStream, connectUnary } from './connect-client.js';

export interface ConnectNodeOptions {
  /**
   * Coordinator nodes' HTTP gateways (`--http-listen`), as base URLs: "https://mm.example.com:8443".
   * Any node of a cluster serves any ticket.
   */
  readonly addresses: string | readonly string[];
  /** A player's JWT, sent as `authorization: Bearer <token>` on every call. */
  readonly token?: string | (() => string);
  /** Default: the global fetch. */
  readonly fetch?: typeof fetch;
}

/** The calls' paths, from the contract the messages were generated from. */
const FIND_GAME = `/${MatchmakerDefinition.fullName}/${MatchmakerDefinition.methods.findGame.name}`;
const CANCEL_FIND = `/${MatchmakerDefinition.fullName}/${MatchmakerDefinition.methods.cancelFind.name}`;

/** The coordinator nodes over the Connect protocol with fetch: what a ticket's calls need of them in a browser. */
export class ConnectNodes implements FindGameCalls {
  readonly addresses: readonly string[];
  private turn = 0;

  constructor(private readonly options: ConnectNodeOptions) {
    this.addresses = (typeof options.addresses === 'string' ? [options.addresses] : [...options.addresses]).map((a) => a.replace(/\/+$/, ''));
    if (this.addresses.length === 0) throw new Error('addresses: name at least one coordinator (its --http-listen base URL)');
  }

  address(node: number): string {
    return this.addresses[node % this.addresses.length]!;
  }

  indexOf(address: string): number {
    return this.addresses.indexOf(address);
  }

  nextNode(): number {
    return this.turn++ % this.addresses.length;
  }

  findGame(address: string, request: NodeFindGameRequest, handlers: FindGameHandlers): { cancel(): void } {
    const abort = new AbortController();
    let ended = false;
    // Node's and the browsers' generated messages differ only in how bytes are typed (Buffer, Uint8Array).
    const bytes = FindGameRequest.encode(request as unknown as FindGameRequest).finish();
    void connectServerStream(`${address}${FIND_GAME}`, bytes, this.callOptions(abort.signal), (message) => {
      if (!ended) handlers.update(FindGameUpdate.decode(message) as never);
    }).then((error) => {
      if (ended) return;
      ended = true;
      handlers.end(error);
    });
    return {
      cancel: () => {
        if (ended) return;
        ended = true;
        abort.abort();
      },
    };
  }

  async cancelFind(address: string, ticketId: string): Promise<boolean | undefined> {
    const answer = await this.cancel(address, ticketId);
    return answer instanceof Uint8Array ? CancelFindResponse.decode(answer).cancelled : undefined;
  }

  /** CancelFind's reply bytes or its error. */
  cancel(address: string, ticketId: string): ReturnType<typeof connectUnary> {
    return connectUnary(`${address}${CANCEL_FIND}`, CancelFindRequest.encode({ ticketId }).finish(), this.callOptions());
  }

  private callOptions(signal?: AbortSignal) {
    const token = typeof this.options.token === 'function' ? this.options.token() : this.options.token;
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    return { headers, fetch: this.options.fetch ?? globalThis.fetch.bind(globalThis), ...(signal && { signal }) };
  }
}
