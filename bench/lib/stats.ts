/**
 * Small statistics for benchmark rounds: every figure is the median of several rounds, reported with
 * how many rounds there were and how far apart they lay.
 */

/** A figure measured over several rounds. */
export interface Summary {
  /** Median of the rounds: the figure itself. */
  median: number;
  min: number;
  max: number;
  rounds: number;
  /** (max - min) / median, in percent: how spread the rounds were. */
  spreadPct: number;
  /** Every round's value, in the order measured. */
  values: number[];
}

/** Median of `values` (mean of the two middle values for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The `p`-th percentile (0 to 100) of `values` by the nearest-rank method. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function summarize(values: readonly number[]): Summary {
  const middle = median(values);
  const min = Math.min(...values);
  const max = Math.max(...values);
  return {
    median: round(middle),
    min: round(min),
    max: round(max),
    rounds: values.length,
    spreadPct: middle === 0 ? 0 : round(((max - min) / Math.abs(middle)) * 100, 1),
    values: values.map((value) => round(value)),
  };
}

/**
 * The ratio of two figures measured in the same rounds: the median of the per-round ratios, so that a
 * round in which the whole machine was slow moves numerator and denominator together.
 */
export function pairedRatio(numerators: readonly number[], denominators: readonly number[]): Summary {
  const ratios = numerators.map((value, index) => value / denominators[index]!);
  const summary = summarize(ratios);
  return { ...summary, median: round(median(ratios), 3), min: round(Math.min(...ratios), 3), max: round(Math.max(...ratios), 3), values: ratios.map((value) => round(value, 3)) };
}

/**
 * The order in which round `round` (from 0) measures `sides`: a rotation of `sides`, then the same
 * rotation reversed (rounds 0 and 1: A B C D, D C B A; rounds 2 and 3: B C D A, A D C B; ...). Over any
 * even number of rounds every pair of sides is measured as often one way round as the other, so a
 * drift within a round (a table that grows while a load writes to it, a machine warming up) favours
 * neither side of a ratio. A plain rotation does not balance pairs: with four sides, the second runs
 * after the first in three rounds of four.
 */
export function balancedOrder<T>(sides: readonly T[], round: number): T[] {
  const shift = Math.floor(round / 2) % sides.length;
  const rotated = [...sides.slice(shift), ...sides.slice(0, shift)];
  return round % 2 === 0 ? rotated : rotated.reverse();
}

/** Rounds to `digits` decimals (default 2). */
export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
