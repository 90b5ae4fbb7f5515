/**
 * What a run ran with: its settings (subscriptions, window, position mode, capital, env, costs) from
 * the scenario record, and its reproducibility manifest (image digest, data fingerprint, engine
 * version and the resolved configuration), recorded when a worker started it.
 */
import type { components } from '../api/openapi.gen.ts';
import { formatInstant, formatMoney } from '../format.ts';
import { CopyButton } from './copy-button.tsx';

type Scenario = components['schemas']['Scenario'];

export function RunSettings({ scenario, currency }: { scenario: Scenario; currency: string }) {
  const env = Object.entries(scenario.env ?? {});
  return (
    <dl className="runs-dl" data-testid="run-settings">
      <dt>Subscriptions</dt>
      <dd>
        {scenario.subscriptions.map((s) => (
          <div key={s.instrument}>
            <strong>{s.instrument}</strong>: {s.events.join(', ')}
          </div>
        ))}
      </dd>
      <dt>Window</dt>
      <dd>
        {formatInstant(scenario.startTime)} to {formatInstant(scenario.endTime)} (end not included)
      </dd>
      <dt>Position mode</dt>
      <dd>{scenario.positionMode}</dd>
      <dt>Initial capital</dt>
      <dd>{formatMoney(scenario.initialCapital, currency)}</dd>
      <dt>Env</dt>
      <dd>
        {env.length === 0
          ? 'none'
          : env.map(([key, value]) => (
              <div key={key}>
                <code>
                  {key}={value}
                </code>
              </div>
            ))}
      </dd>
      <dt>Costs</dt>
      <dd>{describeCosts(scenario.costs)}</dd>
      {scenario.label && (
        <>
          <dt>Label</dt>
          <dd>{scenario.label}</dd>
        </>
      )}
      {scenario.configId && (
        <>
          <dt>From configuration</dt>
          <dd>
            <code>{scenario.configId}</code>
          </dd>
        </>
      )}
    </dl>
  );
}

function describeCosts(costs: Scenario['costs']): string {
  if (!costs) return 'spread only';
  const parts: string[] = [];
  if (costs.commission?.model === 'bps_of_notional')
    parts.push(`commission ${costs.commission.fee_rate_bps} bps of notional`);
  if (costs.slippage) {
    const s = costs.slippage;
    parts.push(
      `slippage ${s.base_slippage_bps} bps + ${s.size_impact_bps_per_100k} bps per 100k notional, capped at ${s.max_slippage_bps} bps`,
    );
  }
  if (costs.funding?.model === 'daily') {
    const f = costs.funding;
    parts.push(
      `daily funding: long ${f.long_rate}, short ${f.short_rate} a year, ${f.day_count_basis ?? 365}-day basis, day multipliers ${(f.day_multipliers ?? [1, 1, 3, 1, 1, 0, 0]).join(' ')}`,
    );
  }
  return parts.length > 0 ? parts.join('; ') : 'spread only';
}

export function RunManifest({ manifest }: { manifest: Scenario['manifest'] }) {
  if (!manifest) return <p className="muted">Recorded when a worker starts the run.</p>;
  return (
    <dl className="runs-dl" data-testid="run-manifest">
      <dt>Image digest</dt>
      <dd className="row">
        <code>{manifest.imageDigest}</code>
        <CopyButton text={manifest.imageDigest} label="Copy image digest" />
      </dd>
      <dt>Data fingerprint</dt>
      <dd className="row">
        <code>{manifest.dataFingerprint}</code>
        <CopyButton text={manifest.dataFingerprint} label="Copy data fingerprint" />
      </dd>
      <dt>Engine version</dt>
      <dd>
        <code>{manifest.engineVersion}</code>
      </dd>
      <dt>Resolved configuration</dt>
      <dd>
        <pre className="runs-pre">{JSON.stringify(manifest.configuration, null, 2)}</pre>
      </dd>
    </dl>
  );
}
