/**
 * The normal distribution and Gaussian messages for TrueSkill. erfc is the Chebyshev fit from
 * Numerical Recipes (fractional error < 1.2e-7), the one the reference TrueSkill code uses.
 */
export function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + z / 2);
  // prettier-ignore
  const r = t * Math.exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 +
    t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))));
  return x < 0 ? 2 - r : r;
}

function inverseErfc(y: number): number {
  if (y >= 2) return -100;
  if (y <= 0) return 100;
  const lower = y < 1;
  const yy = lower ? y : 2 - y;
  const t = Math.sqrt(-2 * Math.log(yy / 2));
  let x = -0.70711 * ((2.30753 + t * 0.27061) / (1 + t * (0.99229 + t * 0.04481)) - t);
  for (let i = 0; i < 2; i++) {
    const err = erfc(x) - yy;
    x += err / (1.1283791670955126 * Math.exp(-(x * x)) - x * err);
  }
  return lower ? x : -x;
}

export const cdf = (x: number) => 0.5 * erfc(-x / Math.SQRT2);
export const pdf = (x: number) => Math.exp(-(x * x) / 2) / Math.sqrt(2 * Math.PI);
export const ppf = (p: number) => -Math.SQRT2 * inverseErfc(2 * p);

/** A Gaussian in natural parameters: precision pi = 1/sigma^2, precision-adjusted mean tau = pi*mu. */
export class Gaussian {
  constructor(
    readonly pi = 0,
    readonly tau = 0,
  ) {}

  static of(mu: number, sigma: number): Gaussian {
    const pi = 1 / (sigma * sigma);
    return new Gaussian(pi, pi * mu);
  }

  get mu(): number {
    return this.pi === 0 ? 0 : this.tau / this.pi;
  }

  get sigma(): number {
    return this.pi === 0 ? Infinity : Math.sqrt(1 / this.pi);
  }

  times(o: Gaussian): Gaussian {
    return new Gaussian(this.pi + o.pi, this.tau + o.tau);
  }

  over(o: Gaussian): Gaussian {
    return new Gaussian(this.pi - o.pi, this.tau - o.tau);
  }
}

/** Additive correction for a win: v(t, eps) = N(t - eps) / Phi(t - eps). */
export function vWin(diff: number, margin: number): number {
  const x = diff - margin;
  const denom = cdf(x);
  return denom !== 0 ? pdf(x) / denom : -x;
}

export function wWin(diff: number, margin: number): number {
  const x = diff - margin;
  const v = vWin(diff, margin);
  const w = v * (v + x);
  // Outside (0, 1) only in floating-point underflow far in the tail; the limit there is 1.
  return w > 0 && w < 1 ? w : w >= 1 ? 1 - 1e-12 : 1e-12;
}

export function vDraw(diff: number, margin: number): number {
  const abs = Math.abs(diff);
  const a = margin - abs;
  const b = -margin - abs;
  const denom = cdf(a) - cdf(b);
  const v = denom !== 0 ? (pdf(b) - pdf(a)) / denom : a;
  return diff < 0 ? -v : v;
}

export function wDraw(diff: number, margin: number): number {
  const abs = Math.abs(diff);
  const a = margin - abs;
  const b = -margin - abs;
  const denom = cdf(a) - cdf(b);
  if (denom === 0) return 1 - 1e-12;
  const v = vDraw(abs, margin);
  return v * v + (a * pdf(a) - b * pdf(b)) / denom;
}
