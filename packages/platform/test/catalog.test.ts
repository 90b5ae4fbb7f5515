import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { instrumentSeed } from '@hindsight/core';
import { sql } from 'drizzle-orm';
import type { ApiClient, ApiResponse } from './support/api-client.ts';
import { storageBackends } from './support/storage-backends.ts';
import { startTestPlatform, withTestPlatform } from './support/test-platform.ts';

/** What the bundled sample data holds (first and last UTC day with a bar); everything else is coming soon. */
const COVERAGE: Record<string, [string, string]> = {
  'C:BTCUSD': ['2024-01-01', '2024-03-31'],
  'F:EURUSD': ['2014-05-01', '2014-05-15'],
  'F:USDJPY': ['2013-02-01', '2013-03-01'],
  'S:SPY': ['2011-03-01', '2011-03-31'],
};

/** Spelled out rather than imported, so the served list is checked against the spec, not against itself. */
const GRANULARITIES = ['tick', '1m', '2m', '5m', '10m', '15m', '30m', '1h', '2h', '4h', '12h', '1d', '1w'];
const MARKETS = ['CRYPTO', 'FOREX', 'FUTURES', 'STOCKS'];
const PREFIX: Record<string, string> = { CRYPTO: 'C', FOREX: 'F', STOCKS: 'S' };
const FIELDS = [
  'symbol',
  'name',
  'market',
  'dataSymbol',
  'underlying',
  'denomination',
  'dataStartDate',
  'dataEndDate',
  'granularities',
  'status',
  'tickSize',
  'lotSize',
  'pricePrecision',
  'spreadModel',
];
const CANONICAL_DECIMAL = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;

interface Instrument {
  symbol: string;
  name: string;
  market: string;
  dataSymbol: string;
  underlying: string;
  denomination: string;
  dataStartDate?: string;
  dataEndDate?: string;
  granularities: string[];
  status: string;
  tickSize?: string;
  lotSize?: string;
  pricePrecision?: number;
  spreadModel: { kind: string; value?: string };
}

const symbols = (list: Instrument[]) => list.map((i) => i.symbol).sort();

async function listAll(api: ApiClient): Promise<Instrument[]> {
  const response = await api.get('/v1/instruments');
  assert.equal(response.status, 200);
  return response.body.data;
}

/** A 400 BAD_REQUEST whose message starts by naming the offending query parameter. */
function assertBadRequest(response: ApiResponse, parameter: string, label: string) {
  assert.equal(response.status, 400, label);
  assert.equal(response.body.error.code, 'BAD_REQUEST', label);
  assert.ok(
    response.body.error.message.startsWith(`query parameter ${parameter}: `),
    `${label}: "${response.body.error.message}" names ${parameter}`,
  );
}

for (const backend of storageBackends()) {
  describe(`instrument catalog (${backend.name})`, () => {
    const t = withTestPlatform(backend);

    it('lists every seed instrument with the documented record, publicly', async () => {
      const { api } = t.get();
      const response = await api.get('/v1/instruments');
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(Object.keys(response.body), ['data'], 'a plain envelope, no nextCursor');
      assert.equal(response.text.includes('null'), false, 'optional fields are omitted, never null');
      const list: Instrument[] = response.body.data;
      assert.deepEqual(symbols(list), instrumentSeed.map((i) => i.symbol).sort());

      for (const i of list) {
        const label = i.symbol;
        for (const key of Object.keys(i))
          assert.ok(FIELDS.includes(key), `${label}: unexpected field ${key}`);
        for (const key of ['name', 'dataSymbol', 'underlying', 'denomination'] as const) {
          assert.ok(typeof i[key] === 'string' && i[key].length > 0, `${label}: ${key}`);
        }
        assert.ok(MARKETS.includes(i.market), `${label}: market ${i.market}`);
        assert.match(
          i.symbol,
          new RegExp(`^${PREFIX[i.market]}:[A-Z0-9]+$`),
          `${label}: prefix matches market`,
        );
        assert.deepEqual(i.granularities, GRANULARITIES, `${label}: tick first, then 1m through 1w`);
        assert.equal('lotSize' in i, false, `${label}: lotSize is never populated`);
      }
    });

    it('derives status and the date range from the stored data', async () => {
      const { api } = t.get();
      for (const i of await listAll(api)) {
        const covered = COVERAGE[i.symbol];
        if (covered) {
          assert.equal(i.status, 'available', i.symbol);
          assert.deepEqual([i.dataStartDate, i.dataEndDate], covered, `${i.symbol}: dates from the store`);
        } else {
          assert.equal(i.status, 'coming_soon', i.symbol);
          assert.equal('dataStartDate' in i, false, `${i.symbol}: no dataStartDate when coming soon`);
          assert.equal('dataEndDate' in i, false, `${i.symbol}: no dataEndDate when coming soon`);
        }
        // The spec's rule, stated independently of the fixture: available iff dataStartDate is present.
        assert.equal(i.status === 'available', i.dataStartDate !== undefined, i.symbol);
        for (const day of [i.dataStartDate, i.dataEndDate].filter((d) => d !== undefined)) {
          assert.match(day, /^\d{4}-\d\d-\d\d$/, `${i.symbol}: YYYY-MM-DD`);
          assert.equal(new Date(`${day}T00:00:00Z`).toISOString().slice(0, 10), day, `${i.symbol}: real day`);
        }
        if (i.dataStartDate && i.dataEndDate) assert.ok(i.dataStartDate <= i.dataEndDate, i.symbol);
      }
    });

    it('carries trading rules for FX pairs only: 5 decimals, 3 when JPY-quoted', async () => {
      const { api } = t.get();
      const list = await listAll(api);
      const forex = list.filter((i) => i.market === 'FOREX');
      assert.ok(forex.some((i) => i.denomination === 'JPY') && forex.some((i) => i.denomination !== 'JPY'));
      for (const i of forex) {
        const precision = i.denomination === 'JPY' ? 3 : 5;
        assert.equal(i.pricePrecision, precision, `${i.symbol} pricePrecision`);
        assert.equal(i.tickSize, `0.${'0'.repeat(precision - 1)}1`, `${i.symbol} tickSize`);
      }
      const crypto = list.filter((i) => i.market === 'CRYPTO');
      assert.ok(crypto.length > 0);
      for (const i of crypto) {
        assert.equal('tickSize' in i, false, `${i.symbol}: crypto carries no tickSize`);
        assert.equal('pricePrecision' in i, false, `${i.symbol}: crypto carries no pricePrecision`);
        assert.equal(i.denomination, 'USD', `${i.symbol}: USDT-quoted crypto is listed as USD (decision 1)`);
      }
      for (const i of list) {
        // Whoever carries trading rules carries both, and they agree.
        assert.equal('tickSize' in i, 'pricePrecision' in i, i.symbol);
        if (i.pricePrecision !== undefined) {
          assert.equal(i.tickSize, (1 / 10 ** i.pricePrecision).toFixed(i.pricePrecision), i.symbol);
        }
      }
    });

    it('shows a well-formed spreadModel on every instrument (decision 3)', async () => {
      const { api } = t.get();
      for (const i of await listAll(api)) {
        const model = i.spreadModel;
        assert.ok(model, `${i.symbol}: spreadModel present`);
        if (model.kind === 'zero') {
          assert.deepEqual(model, { kind: 'zero' }, i.symbol);
        } else {
          assert.equal(model.kind, 'half_spread_bps', i.symbol);
          assert.deepEqual(Object.keys(model).sort(), ['kind', 'value'], i.symbol);
          assert.match(model.value ?? '', CANONICAL_DECIMAL, `${i.symbol}: canonical decimal string`);
        }
      }
    });

    it('filters by market and status, case-insensitively', async () => {
      const { api } = t.get();
      const all = await listAll(api);
      const expect = (market?: string, status?: string) =>
        symbols(all.filter((i) => (!market || i.market === market) && (!status || i.status === status)));
      const filtered = async (query: Record<string, string>) => {
        const response = await api.get('/v1/instruments', { query });
        assert.equal(response.status, 200, JSON.stringify(query));
        return symbols(response.body.data);
      };

      assert.deepEqual(await filtered({ market: 'crypto' }), ['C:BTCUSD', 'C:ETHUSD', 'C:SOLUSD']);
      assert.deepEqual(await filtered({ market: 'CRYPTO' }), expect('CRYPTO'));
      assert.deepEqual(await filtered({ market: 'Forex' }), expect('FOREX'));
      assert.deepEqual(await filtered({ market: 'sToCkS' }), expect('STOCKS'));
      assert.deepEqual(await filtered({ status: 'COMING_SOON' }), expect(undefined, 'coming_soon'));
      assert.deepEqual(await filtered({ status: 'available' }), Object.keys(COVERAGE).sort());
      assert.deepEqual(await filtered({ status: 'Available' }), Object.keys(COVERAGE).sort());
      assert.deepEqual(await filtered({ market: 'forex', status: 'AVAILABLE' }), ['F:EURUSD', 'F:USDJPY']);
      assert.deepEqual(await filtered({ market: 'crypto', status: 'coming_soon' }), ['C:ETHUSD', 'C:SOLUSD']);
      for (const i of (await api.get('/v1/instruments', { query: { market: 'forex' } })).body.data) {
        assert.deepEqual(
          i,
          all.find((a) => a.symbol === i.symbol),
          'filtered records are the full records',
        );
      }
    });

    it('answers a recognised market without instruments with an empty list', async () => {
      const { api } = t.get();
      for (const market of ['FUTURES', 'futures']) {
        const response = await api.get('/v1/instruments', { query: { market } });
        assert.equal(response.status, 200, market);
        assert.deepEqual(response.body, { data: [] });
      }
      const both = await api.get('/v1/instruments', { query: { market: 'FUTURES', status: 'available' } });
      assert.deepEqual(both.body, { data: [] });
    });

    it('rejects an unknown filter value with 400 naming the parameter', async () => {
      const { api } = t.get();
      const cases: [Record<string, string | string[]>, string][] = [
        [{ market: 'BONDS' }, 'market'],
        [{ market: 'C' }, 'market'],
        [{ market: '' }, 'market'],
        [{ market: 'crypto ' }, 'market'],
        [{ market: 'available' }, 'market'],
        [{ market: ['crypto', 'forex'] }, 'market'],
        [{ status: 'live' }, 'status'],
        [{ status: 'coming-soon' }, 'status'],
        [{ status: 'comingsoon' }, 'status'],
        [{ status: '' }, 'status'],
        [{ status: 'CRYPTO' }, 'status'],
        [{ market: 'crypto', status: 'nope' }, 'status'],
      ];
      for (const [query, parameter] of cases) {
        assertBadRequest(await api.get('/v1/instruments', { query }), parameter, JSON.stringify(query));
      }
    });

    it('lists exactly the four markets, each with a name', async () => {
      const { api } = t.get();
      const response = await api.get('/v1/instruments/markets');
      assert.equal(response.status, 200);
      const markets: { id: string; name: string }[] = response.body.data;
      assert.deepEqual(markets.map((m) => m.id).sort(), MARKETS);
      for (const m of markets) {
        assert.deepEqual(Object.keys(m).sort(), ['id', 'name']);
        assert.ok(m.name.length > 0, m.id);
      }
      for (const i of await listAll(api)) assert.ok(MARKETS.includes(i.market), i.symbol);
      for (const m of markets) {
        const filtered = await api.get('/v1/instruments', { query: { market: m.id } });
        assert.equal(filtered.status, 200, `${m.id} is accepted by the market filter`);
      }
    });

    it('searches symbol and name by case-insensitive substring', async () => {
      const { api } = t.get();
      const all = await listAll(api);
      const search = async (q: string) => {
        const response = await api.get('/v1/instruments/search', { query: { q } });
        assert.equal(response.status, 200, `q=${q}`);
        for (const i of response.body.data) {
          assert.deepEqual(
            i,
            all.find((a) => a.symbol === i.symbol),
            'results are full records',
          );
        }
        return symbols(response.body.data);
      };
      const usd = [
        'C:BTCUSD',
        'C:ETHUSD',
        'C:SOLUSD',
        'F:AUDUSD',
        'F:EURUSD',
        'F:GBPUSD',
        'F:USDCHF',
        'F:USDJPY',
      ];
      assert.deepEqual(await search('btc'), ['C:BTCUSD']);
      assert.deepEqual(await search('BTC'), ['C:BTCUSD']);
      assert.deepEqual(await search('euro'), ['F:EURJPY', 'F:EURUSD'], 'matches the name "Euro / ..."');
      assert.deepEqual(await search('usd'), usd);
      assert.deepEqual(await search('UsD'), usd);
      assert.deepEqual(await search('bitcoin'), ['C:BTCUSD'], 'name only');
      assert.deepEqual(await search('japanese yen'), ['F:EURJPY', 'F:GBPJPY', 'F:USDJPY'], 'name only');
      assert.deepEqual(await search('c:'), ['C:BTCUSD', 'C:ETHUSD', 'C:SOLUSD'], 'symbol only');
      assert.deepEqual(await search('S:SPY'), ['S:SPY'], 'the whole symbol');
      assert.deepEqual(await search('USDT'), [], 'dataSymbol is not searched');
      for (const literal of ['%', '_', '.*', '\\']) {
        assert.deepEqual(await search(literal), [], `"${literal}" is a literal, not a pattern`);
      }
      const expected = (q: string) =>
        symbols(all.filter((i) => `${i.symbol}\n${i.name}`.toLowerCase().includes(q.toLowerCase())));
      for (const q of ['a', 'Dollar', 'JPY', '/ us', 'inc.'])
        assert.deepEqual(await search(q), expected(q), q);
    });

    it('requires q: missing, empty or over 100 characters is 400', async () => {
      const { api } = t.get();
      assertBadRequest(await api.get('/v1/instruments/search'), 'q', 'missing q');
      assertBadRequest(await api.get('/v1/instruments/search', { query: { q: '' } }), 'q', 'empty q');
      assertBadRequest(
        await api.get('/v1/instruments/search', { query: { q: 'x'.repeat(101) } }),
        'q',
        '101 characters',
      );
      const longest = await api.get('/v1/instruments/search', { query: { q: 'x'.repeat(100) } });
      assert.equal(longest.status, 200, '100 characters is the limit, inclusive');
      assert.deepEqual(longest.body, { data: [] });
      // Characters, as JSON Schema's maxLength counts them (code points), not bytes or UTF-16 units.
      for (const char of ['é', '€', '😀']) {
        const at = await api.get('/v1/instruments/search', { query: { q: char.repeat(100) } });
        assert.equal(at.status, 200, `100 × ${char}`);
        const over = await api.get('/v1/instruments/search', { query: { q: char.repeat(101) } });
        assertBadRequest(over, 'q', `101 × ${char}`);
      }
    });

    it('gets one instrument by its exact platform symbol', async () => {
      const { api } = t.get();
      const all = await listAll(api);
      const btc = await api.get('/v1/instruments/C:BTCUSD');
      assert.equal(btc.status, 200);
      assert.deepEqual(Object.keys(btc.body), ['data']);
      assert.deepEqual(
        btc.body.data,
        all.find((i) => i.symbol === 'C:BTCUSD'),
      );
      const encoded = await api.get('/v1/instruments/C%3ABTCUSD');
      assert.equal(encoded.status, 200, 'the URL-encoded colon is the same symbol');
      assert.deepEqual(encoded.body, btc.body);
      const comingSoon = await api.get('/v1/instruments/S:AAPL');
      assert.equal(comingSoon.status, 200);
      assert.equal(comingSoon.body.data.status, 'coming_soon');

      for (const symbol of ['c:btcusd', 'C:btcusd', 'BTCUSDT', 'BTCUSD', 'C:BTCUSDT', 'C:BTC', 'X:NOPE']) {
        const missing = await api.get(`/v1/instruments/${encodeURIComponent(symbol)}`);
        assert.equal(missing.status, 404, symbol);
        assert.equal(missing.body.error.code, 'NOT_FOUND', symbol);
        assert.ok(
          missing.body.error.message.includes(symbol),
          `${missing.body.error.message} names ${symbol}`,
        );
      }
    });

    it('needs no credentials, and ignores wrong ones', async () => {
      const { api } = t.get();
      const paths = [
        '/v1/instruments',
        '/v1/instruments/markets',
        '/v1/instruments/search?q=eur',
        '/v1/instruments/F:EURUSD',
      ];
      for (const path of paths) {
        assert.equal((await api.get(path)).status, 200, path);
        assert.equal((await api.get(path, { key: 'not-a-real-key' })).status, 200, `${path} with a bad key`);
        assert.equal(
          (await api.get(path, { headers: { authorization: 'Bearer a.b.c' } })).status,
          200,
          `${path} with a bad bearer token`,
        );
      }
    });

    it('reaches every status the spec lists for the catalog endpoints', () => {
      const { api } = t.get();
      api.assertStatusesReached('GET /v1/instruments', [200, 400]);
      api.assertStatusesReached('GET /v1/instruments/search', [200, 400]);
      api.assertStatusesReached('GET /v1/instruments/{symbol}', [200, 404]);
      api.assertStatusesReached('GET /v1/instruments/markets', [200]);
    });
  });

  describe(`unloadable instrument catalog (${backend.name})`, () => {
    it('answers 500 INTERNAL_ERROR without leaking internals, and recovers', async () => {
      const { platform, store, api } = await startTestPlatform(backend);
      try {
        await platform.ctx.db.execute(sql`alter table instruments rename to instruments_unloadable`);
        const reads = ['/v1/instruments', '/v1/instruments/search?q=usd', '/v1/instruments/C:BTCUSD'];
        for (const path of reads) {
          const response = await api.get(path);
          assert.equal(response.status, 500, path);
          assert.deepEqual(Object.keys(response.body), ['error'], path);
          assert.deepEqual(
            Object.keys(response.body.error).sort(),
            ['code', 'message'],
            `${path}: no details`,
          );
          assert.equal(response.body.error.code, 'INTERNAL_ERROR', path);
          for (const leak of [
            /instruments_unloadable/,
            /relation/i,
            /select/i,
            /\bfrom\b/i,
            /\n\s+at /,
            /\.ts\b/,
          ]) {
            assert.doesNotMatch(response.text, leak, `${path} leaks ${leak}`);
          }
        }
        const markets = await api.get('/v1/instruments/markets');
        assert.equal(markets.status, 200, 'the market list is fixed and never errors');
        assert.equal(markets.body.data.length, 4);

        await platform.ctx.db.execute(sql`alter table instruments_unloadable rename to instruments`);
        for (const path of reads) assert.equal((await api.get(path)).status, 200, `${path} after recovery`);

        api.assertStatusesReached('GET /v1/instruments', [500]);
        api.assertStatusesReached('GET /v1/instruments/search', [500]);
        api.assertStatusesReached('GET /v1/instruments/{symbol}', [500]);
      } finally {
        await platform.close();
        await store.dispose();
      }
    });
  });
}
