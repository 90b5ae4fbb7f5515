import { validateConfiguration } from './src/configuration/index.ts';
const base = { name: 'base', subscriptions: [{ instrument: 'C:BTCUSD', events: ['candle_1m'] }], startTime: '2024-01-01T00:00:00Z', endTime: '2024-02-01T00:00:00Z' };
const cases: unknown[] = [
  base,
  { ...base, strategyVersionId: 'x' },
  { ...base, name: null },
  { ...base, costs: { commission: { model: 'zero', foo: 1 } } },
  { ...base, costs: { commission: {} } },
  { ...base, costs: { commission: { model: 'pct' } } },
  { ...base, costs: { commission: 5 } },
  { ...base, costs: { slippage: { base_slippage_bps: '1', size_impact_bps_per_100k: '1', max_slippage_bps: '10000' } } },
  { ...base, costs: { slippage: { base_slippage_bps: '1e3', size_impact_bps_per_100k: 1 } } },
  { ...base, costs: { funding: { model: 'daily', long_rate: '1.5', short_rate: '0', day_multipliers: [1, 2, 1.5], day_count_basis: 366 } } },
  { ...base, subscriptions: [{ instrument: 'C:BTCUSD', events: ['candle_*d', 'CANDLE_1m', 'candle_{1, 5}m', 'tick', 'candle_', 'candle_{}m', 'candle_{1,60}m', null] }] },
  { ...base, subscriptions: [{ instrument: 'C:BTCUSD', events: ['order_update'] }, { instrument: 'C:BTCUSD', events: ['candle_1m'] }] },
  { ...base, startTime: '2024-02-30T00:00:00Z', endTime: '2024-01-01' },
  { ...base, endTime: '2024-01-01T00:00:00Z' },
  { ...base, env: { 'a-b': 'x', PLATFORM_X: 'y', PROXY_WS_URL: 'z', ok: '<redacted>', c: 'a\nb', n: 5 } },
  { ...base, initialCapital: 0.5, positionMode: 'NETTING', isActive: 'yes', description: 5 },
  [],
  null,
  { ...base, name: '   ', subscriptions: [] },
];
for (const c of cases) {
  const r = validateConfiguration('saved', c);
  console.log(r.ok ? 'OK ' + JSON.stringify(r.value) : r.message + '\n   ' + r.details);
}
