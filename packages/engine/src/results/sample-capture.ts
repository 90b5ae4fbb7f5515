import type { BalanceMoment } from '../account/account.ts';
import { CapturedPositions } from '../positions/captured-positions.ts';
import type { ExactSample, SampleSource } from './timeseries-sampler.ts';

/**
 * An offered point of an account with open positions: its balance and its positions' numbers and
 * marks as they were, valued by `value` only if the sampler keeps the point. The engine refills one
 * the sampler has released (`TimeseriesSampler.releasedSource`) rather than allocating a capture and a
 * closure every bar a position is open.
 */
export class SampleCapture implements SampleSource {
  balance: BalanceMoment | undefined;
  readonly positions = new CapturedPositions();

  constructor(
    private readonly value: (balance: BalanceMoment, positions: CapturedPositions) => ExactSample,
  ) {}

  sample(): ExactSample {
    return this.value(this.balance as BalanceMoment, this.positions);
  }
}
