/**
 * A seeded uniform generator in [0, 1) (mulberry32): the same seed gives the same sequence, so the
 * bandit can be tested and replayed. Not for anything secret.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A draw from Beta(alpha, beta) as X / (X + Y) with X ~ Gamma(alpha), Y ~ Gamma(beta); decayed
 * counts make the parameters fractional, which this handles.
 *
 * @throws RangeError unless both parameters are positive and finite.
 */
export function sampleBeta(alpha: number, beta: number, random: () => number): number {
  if (!(alpha > 0 && beta > 0 && Number.isFinite(alpha) && Number.isFinite(beta))) throw new RangeError(`Beta parameters must be positive and finite, got ${alpha} and ${beta}`);
  const x = sampleGamma(alpha, random);
  const y = sampleGamma(beta, random);
  const sum = x + y;
  return sum > 0 ? x / sum : alpha / (alpha + beta);
}

/** Marsaglia and Tsang's method; shape < 1 by the boost Gamma(a) = Gamma(a + 1) × U^(1/a). */
function sampleGamma(shape: number, random: () => number): number {
  if (shape < 1) return sampleGamma(shape + 1, random) * open(random) ** (1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = normal(random);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = open(random);
    if (u < 1 - 0.0331 * x ** 4 || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}

/** A uniform draw in (0, 1): logarithms and powers of 0 are no use. */
function open(random: () => number): number {
  const u = random();
  return u > 0 && u < 1 ? u : 0.5;
}

/** A standard normal draw (Box–Muller). */
function normal(random: () => number): number {
  return Math.sqrt(-2 * Math.log(open(random))) * Math.cos(2 * Math.PI * random());
}
