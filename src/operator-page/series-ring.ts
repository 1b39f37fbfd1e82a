/** The last `capacity` points of a few columns (a time series), in fixed memory. */
export class SeriesRing {
  private readonly data: (number | null)[][];
  private next = 0;
  private size = 0;

  constructor(
    width: number,
    private readonly capacity: number,
  ) {
    this.data = Array.from({ length: width }, () => new Array<number | null>(capacity).fill(null));
  }

  push(point: readonly (number | null)[]): void {
    point.forEach((v, i) => (this.data[i]![this.next] = v));
    this.next = (this.next + 1) % this.capacity;
    this.size = Math.min(this.capacity, this.size + 1);
  }

  /** Column-major, oldest first: the shape uPlot draws. */
  columns(): (number | null)[][] {
    const start = (this.next - this.size + this.capacity) % this.capacity;
    return this.data.map((col) => Array.from({ length: this.size }, (_, i) => col[(start + i) % this.capacity]!));
  }
}
