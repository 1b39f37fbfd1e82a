import { Metadata, status, type ChannelCredentials, type ChannelOptions, type ServiceError } from '@grpc/grpc-js';
import { RatingsClient, type Rating } from './generated/gamefactory/v1/ratings.js';

/**
 * A player's rating on a ladder (Ratings.GetRating), for either client package: `undefined` for a
 * player the ladder has not rated yet, an error with the coordinator's status otherwise.
 */
export class RatingsReader {
  private client: RatingsClient | undefined;

  constructor(
    private readonly address: () => string,
    private readonly credentials: ChannelCredentials,
    private readonly channelOptions: ChannelOptions,
    private readonly metadata: () => Metadata = () => new Metadata(),
  ) {}

  rating(ladder: string, playerId: string): Promise<Rating | undefined> {
    this.client ??= new RatingsClient(this.address(), this.credentials, this.channelOptions);
    return new Promise((resolve, reject) =>
      this.client!.getRating({ ladder, playerId }, this.metadata(), (error: ServiceError | null, response) => {
        if (error?.code === status.NOT_FOUND && error.details.startsWith('player_id:')) return resolve(undefined);
        if (error) return reject(error);
        resolve(response.rating);
      }),
    );
  }

  close(): void {
    this.client?.close();
    this.client = undefined;
  }
}
