import { Gaussian } from './gaussian.js';

/**
 * The pieces of TrueSkill's factor graph (Herbrich, Minka, Graepel 2007, figure 1): variables
 * hold a marginal and the last message from each factor; factors send messages down and up.
 */
export class Variable {
  value = new Gaussian();
  private readonly messages = new Map<object, Gaussian>();

  message(factor: object): Gaussian {
    return this.messages.get(factor) ?? new Gaussian();
  }

  /** Replace `factor`'s message; returns how far the marginal moved. */
  updateMessage(factor: object, message: Gaussian): number {
    const old = this.message(factor);
    this.messages.set(factor, message);
    return this.set(this.value.over(old).times(message));
  }

  /** Set the marginal to `value`, deriving the message `factor` must have sent. */
  updateValue(factor: object, value: Gaussian): number {
    const old = this.message(factor);
    this.messages.set(factor, value.times(old).over(this.value));
    return this.set(value);
  }

  private set(value: Gaussian): number {
    const piDelta = Math.abs(this.value.pi - value.pi);
    const delta = piDelta === Infinity ? 0 : Math.max(Math.abs(this.value.tau - value.tau), Math.sqrt(piDelta));
    this.value = value;
    return delta;
  }
}

/** Prior on a skill, widened by the dynamics tau. */
export class PriorFactor {
  constructor(
    private readonly variable: Variable,
    private readonly prior: Gaussian,
    private readonly dynamic: number,
  ) {}

  down(): number {
    const sigma = Math.sqrt(this.prior.sigma ** 2 + this.dynamic ** 2);
    return this.variable.updateValue(this, Gaussian.of(this.prior.mu, sigma));
  }
}

/** Performance = skill + noise of variance beta^2. */
export class LikelihoodFactor {
  constructor(
    private readonly mean: Variable,
    private readonly value: Variable,
    private readonly variance: number,
  ) {}

  private pass(from: Variable, to: Variable): number {
    const msg = from.value.over(from.message(this));
    const a = 1 / (1 + this.variance * msg.pi);
    return to.updateMessage(this, new Gaussian(a * msg.pi, a * msg.tau));
  }

  down(): number {
    return this.pass(this.mean, this.value);
  }

  up(): number {
    return this.pass(this.value, this.mean);
  }
}

/** sum = Σ coefficients[i] * terms[i]. */
export class SumFactor {
  constructor(
    private readonly sum: Variable,
    private readonly terms: readonly Variable[],
    private readonly coefficients: readonly number[],
  ) {}

  down(): number {
    return this.update(this.sum, this.terms, this.coefficients);
  }

  /** Solve for terms[index] given the sum and the other terms. */
  up(index: number): number {
    const c = this.coefficients[index]!;
    const coefficients = this.coefficients.map((x, i) => (c === 0 ? 0 : i === index ? 1 / c : -x / c));
    const vars = [...this.terms];
    vars[index] = this.sum;
    return this.update(this.terms[index]!, vars, coefficients);
  }

  private update(target: Variable, vars: readonly Variable[], coefficients: readonly number[]): number {
    let piInv = 0;
    let mu = 0;
    vars.forEach((v, i) => {
      const div = v.value.over(v.message(this));
      const c = coefficients[i]!;
      mu += c * div.mu;
      if (piInv === Infinity) return;
      piInv = div.pi === 0 ? Infinity : piInv + (c * c) / div.pi;
    });
    const pi = 1 / piInv;
    return target.updateMessage(this, new Gaussian(pi, pi * mu));
  }
}

/** A team difference truncated by the result: above the draw margin for a win, inside it for a draw. */
export class TruncateFactor {
  constructor(
    private readonly variable: Variable,
    private readonly v: (diff: number, margin: number) => number,
    private readonly w: (diff: number, margin: number) => number,
    private readonly drawMargin: number,
  ) {}

  up(): number {
    const div = this.variable.value.over(this.variable.message(this));
    const sqrtPi = Math.sqrt(div.pi);
    const diff = div.tau / sqrtPi;
    const margin = this.drawMargin * sqrtPi;
    const v = this.v(diff, margin);
    const w = this.w(diff, margin);
    const denom = 1 - w;
    return this.variable.updateValue(this, new Gaussian(div.pi / denom, (div.tau + sqrtPi * v) / denom));
  }
}
