/**
 * "The last half of the run grows under 10%": how much a sampled series grew over the second half
 * of a run. A single sample of a garbage-collected heap lands anywhere between two collections, so
 * the growth is read off a least-squares line through every sample of the last half (its rise over
 * that half, relative to its value where the half starts), not off the two end points alone; both
 * are reported.
 */

export interface Growth {
  /** Samples in the last half. */
  samples: number;
  /** Fitted value where the last half starts and where it ends. */
  fittedStart: number;
  fittedEnd: number;
  /** (fittedEnd − fittedStart) / fittedStart. */
  fittedGrowth: number;
  /** (last sample − first sample of the last half) / first sample of the last half. */
  endpointGrowth: number;
}

/** Growth of `values` (sampled at `times`) over the samples at or after the run's midpoint. */
export function lastHalfGrowth(times: readonly number[], values: readonly number[]): Growth {
  if (times.length !== values.length) throw new Error("one value per time");
  if (times.length < 2) throw new Error("growth needs at least two samples");
  const first = times[0] as number;
  const last = times[times.length - 1] as number;
  const middle = (first + last) / 2;
  const xs: number[] = [];
  const ys: number[] = [];
  times.forEach((t, i) => {
    if (t >= middle) {
      xs.push(t);
      ys.push(values[i] as number);
    }
  });
  if (xs.length < 2) throw new Error("the last half holds fewer than two samples");
  const n = xs.length;
  const meanX = xs.reduce((a, b) => a + b, 0) / n;
  const meanY = ys.reduce((a, b) => a + b, 0) / n;
  let covariance = 0;
  let variance = 0;
  for (let i = 0; i < n; i += 1) {
    covariance += ((xs[i] as number) - meanX) * ((ys[i] as number) - meanY);
    variance += ((xs[i] as number) - meanX) ** 2;
  }
  const slope = variance === 0 ? 0 : covariance / variance;
  const at = (x: number) => meanY + slope * (x - meanX);
  const fittedStart = at(xs[0] as number);
  const fittedEnd = at(xs[n - 1] as number);
  const firstValue = ys[0] as number;
  return {
    samples: n,
    fittedStart,
    fittedEnd,
    fittedGrowth: (fittedEnd - fittedStart) / fittedStart,
    endpointGrowth: ((ys[n - 1] as number) - firstValue) / firstValue,
  };
}
