import type { ChannelCredentials, ClientDuplexStream, ServiceError } from '@grpc/grpc-js';
import { gameServerLinkClient, TickBatch } from '@gamefactory/protocol';
import type {
  GameServerLinkClient,
  CoordinatorMessage,
  Hello,
  ServerMessage,
  Welcome,
} from '@gamefactory/protocol/v1/game_server_link';

export interface LinkHandlers {
  /** Every order, one at a time (a CoordinatorBatch arrives here unpacked, in order). */
  order(message: CoordinatorMessage): void;
  /** Every message as it came off the wire, batches included: for logs and tests. */
  raw(message: CoordinatorMessage): void;
  /** The stream is over: null when the coordinator ended it OK, else its status. */
  ended(error: ServiceError | null): void;
}

/**
 * One GameServerLink.Connect stream: says hello, resolves on the welcome, answers keepalives and
 * coalesces the reports of a tick into one ServerBatch when batching. It knows nothing of games;
 * a new stream is made for each connection.
 */
export class LinkStream {
  private readonly stream: ClientDuplexStream<ServerMessage, CoordinatorMessage>;
  private readonly outbox: TickBatch<ServerMessage> | undefined;
  private over = false;
  private finish!: (error: ServiceError | null) => void;
  readonly welcome: Promise<Welcome>;

  constructor(
    client: GameServerLinkClient,
    hello: Hello,
    private readonly handlers: LinkHandlers,
    options: { batch: boolean; answerKeepalives: boolean },
  ) {
    this.stream = client.connect();
    this.outbox = options.batch ? new TickBatch((events) => this.write({ event: { $case: 'batch', value: { events } } })) : undefined;
    this.welcome = new Promise((resolve, reject) => {
      const dispatch = (message: CoordinatorMessage): void => {
        const order = message.order;
        if (order?.$case === 'batch') {
          for (const inner of order.value.orders) dispatch(inner);
          return;
        }
        if (order?.$case === 'welcome') resolve(order.value);
        else if (order?.$case === 'keepalive' && options.answerKeepalives) {
          this.send({ event: { $case: 'keepaliveAck', value: { sequence: order.value.sequence } } });
        }
        handlers.order(message);
      };
      this.stream.on('data', (message: CoordinatorMessage) => {
        handlers.raw(message);
        dispatch(message);
      });
      this.finish = (error) => {
        if (this.over) return;
        this.over = true;
        reject(error ?? new Error('the stream ended before the welcome'));
        handlers.ended(error);
      };
      this.stream.on('error', (error: ServiceError) => this.finish(error));
      this.stream.on('end', () => this.finish(null));
    });
    this.welcome.catch(() => {});
    this.write({ event: { $case: 'hello', value: hello } });
  }

  /** Sends a report now, or with the others of this tick when batching. */
  send(message: ServerMessage): void {
    if (this.outbox) this.outbox.push(message);
    else this.write(message);
  }

  /** True once the stream has ended. */
  get ended(): boolean {
    return this.over;
  }

  /** Sends what is waiting and hangs up; `ended` is told null. */
  close(): void {
    this.outbox?.flush();
    this.finish(null);
    this.stream.cancel();
  }

  private write(message: ServerMessage): void {
    if (!this.over) this.stream.write(message);
  }
}

export function linkClient(address: string, credentials: ChannelCredentials, channelOptions: object): GameServerLinkClient {
  return gameServerLinkClient(address, credentials, channelOptions);
}
