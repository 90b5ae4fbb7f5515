/**
 * The report page's own script (plain DOM, no framework), inlined after the charting library. It
 * reads the embedded data and draws the equity, drawdown and per-instrument price charts (every
 * point: the library copes with hundreds of thousands), and runs the trades table: sort by a column
 * header, filter by symbol or side, 100 rows a page. Decimal cells are compared exactly as text and
 * shown as given.
 *
 * Kept as source text rather than a function's `toString()`, so no transpiler helper can slip in;
 * it is written without template literals or `${`, which a raw string cannot hold.
 */
export const REPORT_SCRIPT = String.raw`
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('report-data').textContent);
  var LWC = window.LightweightCharts;
  var PAGE_SIZE = 100;

  /** Epoch ms of a time column (first time and differences). */
  function timesOf(col, n) {
    var out = new Array(n);
    var t = col.t0;
    for (var i = 0; i < n; i++) {
      if (i > 0) t += col.dt[i - 1];
      out[i] = t;
    }
    return out;
  }

  /** The numbers of a scaled column (integers at a decimal scale, written as differences). */
  function unscaled(col) {
    var unit = Math.pow(10, col.scale);
    var out = new Array(col.deltas.length + 1);
    var v = col.first;
    out[0] = v / unit;
    for (var i = 0; i < col.deltas.length; i++) {
      v += col.deltas[i];
      out[i + 1] = v / unit;
    }
    return out;
  }

  /** Chart points in whole seconds, strictly increasing: points within one second keep the last. */
  function points(ms, value) {
    var out = [];
    for (var i = 0; i < ms.length; i++) {
      var s = Math.floor(ms[i] / 1000);
      var last = out[out.length - 1];
      var p = value(i);
      p.time = s;
      if (last && last.time >= s) out[out.length - 1] = p;
      else out.push(p);
    }
    return out;
  }

  /**
   * The chart spaces points evenly, whatever their times; the sampled account curve is dense around
   * fills and sparse elsewhere. Blank points on a grid of at most MAX_GAP_POINTS steps fill its gaps,
   * so the time axis stays close to linear.
   */
  var MAX_GAP_POINTS = 50000;
  function withTimeGaps(data) {
    if (data.length < 2) return data;
    var span = data[data.length - 1].time - data[0].time;
    var step = Math.max(60, Math.ceil(span / MAX_GAP_POINTS));
    var out = [data[0]];
    for (var i = 1; i < data.length; i++) {
      for (var t = data[i - 1].time + step; t < data[i].time; t += step) out.push({ time: t });
      out.push(data[i]);
    }
    return out;
  }

  function decimalsOf(values) {
    var most = 2;
    for (var i = 0; i < values.length && i < 2000; i++) {
      var text = String(values[i]);
      var dot = text.indexOf('.');
      if (dot >= 0 && text.indexOf('e') < 0) most = Math.max(most, text.length - dot - 1);
    }
    return Math.min(most, 8);
  }

  function makeChart(el) {
    return LWC.createChart(el, {
      autoSize: true,
      layout: { background: { type: 'solid', color: '#ffffff' }, textColor: '#3e4c59', fontSize: 11 },
      grid: { vertLines: { color: '#f0f2f5' }, horzLines: { color: '#f0f2f5' } },
      rightPriceScale: { borderVisible: false },
      // Small bar spacing and conflation: fitContent shows a whole run of 1m bars at once.
      timeScale: {
        borderVisible: false, timeVisible: true, secondsVisible: false, minBarSpacing: 0.001, enableConflation: true,
      },
      crosshair: { mode: 0 },
    });
  }

  function chartFailed(el, error) {
    console.error(error);
    el.textContent = '';
    var note = document.createElement('div');
    note.className = 'chart-error';
    note.textContent = 'This chart could not be drawn: ' + (error && error.message ? error.message : error);
    el.appendChild(note);
  }

  /** Keeps two charts with the same time points scrolled and zoomed together. */
  function linkTimeScales(a, b) {
    var busy = false;
    function follow(src, dst) {
      src.timeScale().subscribeVisibleLogicalRangeChange(function (range) {
        if (busy || !range) return;
        busy = true;
        dst.timeScale().setVisibleLogicalRange(range);
        busy = false;
      });
    }
    follow(a, b);
    follow(b, a);
  }

  /** A step line needs only the points where it changes, and the last. */
  function changesOnly(data) {
    return data.filter(function (p, i) {
      return i === 0 || i === data.length - 1 || p.value !== data[i - 1].value;
    });
  }

  function drawAccountCharts() {
    var eq = data.equity;
    var navValues = unscaled(eq.nav);
    var balanceValues = unscaled(eq.balance);
    var n = navValues.length;
    var ms = timesOf(eq, n);
    var equityEl = document.getElementById('equity-chart');
    var drawdownEl = document.getElementById('drawdown-chart');
    var equity, drawdown;
    try {
      equity = makeChart(equityEl);
      var money = { type: 'price', precision: 2, minMove: 0.01 };
      var nav = equity.addSeries(LWC.LineSeries, { color: '#2962ff', lineWidth: 2, title: 'NAV', priceFormat: money });
      nav.setData(withTimeGaps(points(ms, function (i) { return { value: navValues[i] }; })));
      var balance = equity.addSeries(LWC.LineSeries, {
        color: '#9aa5b1', lineWidth: 1, lineStyle: 2, lineType: 1, title: 'Balance', priceFormat: money,
        lastValueVisible: false, priceLineVisible: false,
      });
      balance.setData(changesOnly(points(ms, function (i) { return { value: balanceValues[i] }; })));
      equity.timeScale().fitContent();
    } catch (error) {
      chartFailed(equityEl, error);
      equity = undefined;
    }
    try {
      drawdown = makeChart(drawdownEl);
      var peak = -Infinity;
      var dd = drawdown.addSeries(LWC.BaselineSeries, {
        baseValue: { type: 'price', price: 0 },
        topLineColor: '#c62828', topFillColor1: 'rgba(198,40,40,0)', topFillColor2: 'rgba(198,40,40,0)',
        bottomLineColor: '#c62828', bottomFillColor1: 'rgba(198,40,40,0.08)', bottomFillColor2: 'rgba(198,40,40,0.35)',
        lineWidth: 1, title: 'Drawdown',
        priceFormat: { type: 'custom', minMove: 0.01, formatter: function (v) { return v.toFixed(2) + ' %'; } },
      });
      dd.setData(withTimeGaps(points(ms, function (i) {
        var v = navValues[i];
        if (v > peak) peak = v;
        return { value: peak > 0 ? (v / peak - 1) * 100 : 0 };
      })));
      drawdown.timeScale().fitContent();
    } catch (error) {
      chartFailed(drawdownEl, error);
      drawdown = undefined;
    }
    if (equity && drawdown) linkTimeScales(equity, drawdown);
  }

  /** The last index whose time is at or before t (0 when t is before them all). */
  function barAt(times, t) {
    var lo = 0, hi = times.length - 1;
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      if (times[mid] <= t) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Fills of the symbol's lots: a long opens with a buy and closes with a sell, a short the reverse. */
  function fillsOf(symbol) {
    var fills = [];
    for (var i = 0; i < data.trades.length; i++) {
      var r = data.trades[i];
      if (r[1] !== symbol) continue;
      var long = r[2] === 'Long';
      fills.push({ ms: r[5], price: Number(r[6]), buy: long });
      if (r[7] !== null) fills.push({ ms: r[7], price: Number(r[8]), buy: !long });
    }
    fills.sort(function (a, b) { return a.ms - b.ms; });
    return fills;
  }

  function drawPriceChart(symbol, candles, el, note) {
    var chart = makeChart(el);
    var fills = fillsOf(symbol);
    var series, barSeconds;
    if (candles) {
      var open = unscaled(candles.open), high = unscaled(candles.high);
      var low = unscaled(candles.low), close = unscaled(candles.close);
      var ms = timesOf(candles, close.length);
      var places = candles.close.scale;
      series = chart.addSeries(LWC.CandlestickSeries, {
        upColor: '#26a69a', downColor: '#ef5350', borderVisible: false,
        wickUpColor: '#26a69a', wickDownColor: '#ef5350',
        priceFormat: { type: 'price', precision: places, minMove: Math.pow(10, -places) },
      });
      var bars = points(ms, function (i) {
        return { open: open[i], high: high[i], low: low[i], close: close[i] };
      });
      series.setData(bars);
      barSeconds = bars.map(function (b) { return b.time; });
    } else {
      var prices = fills.map(function (f) { return f.price; });
      series = chart.addSeries(LWC.LineSeries, {
        color: '#52606d', lineWidth: 1, title: 'Fill price',
        priceFormat: { type: 'price', precision: decimalsOf(prices), minMove: Math.pow(10, -decimalsOf(prices)) },
      });
      var line = points(fills.map(function (f) { return f.ms; }), function (i) { return { value: fills[i].price }; });
      series.setData(line);
      barSeconds = line.map(function (p) { return p.time; });
    }
    if (barSeconds.length > 0 && fills.length > 0) {
      var markers = fills.map(function (f) {
        return {
          time: barSeconds[barAt(barSeconds, Math.floor(f.ms / 1000))],
          position: f.buy ? 'atPriceBottom' : 'atPriceTop',
          price: f.price,
          shape: f.buy ? 'arrowUp' : 'arrowDown',
          color: f.buy ? '#089981' : '#f23645',
          size: 1,
        };
      });
      markers.sort(function (a, b) { return a.time - b.time; });
      showFillsInView(chart, LWC.createSeriesMarkers(series, []), markers, note);
    }
    chart.timeScale().fitContent();
  }

  /** The first index whose time is after t (or at or after it, when inclusive). */
  function boundOf(times, t, inclusive) {
    var lo = 0, hi = times.length;
    while (lo < hi) {
      var mid = (lo + hi) >> 1;
      if (times[mid] < t || (!inclusive && times[mid] === t)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * Marks the fills in the visible time range, or none when there are more than MAX_FILLS_IN_VIEW
   * (thousands of arrows hide the candles): the legend then says how many, and zooming in shows them.
   */
  var MAX_FILLS_IN_VIEW = 1500;
  function showFillsInView(chart, plugin, markers, note) {
    var times = markers.map(function (m) { return m.time; });
    var shown = '';
    function update() {
      var range = chart.timeScale().getVisibleRange();
      var from = range ? boundOf(times, range.from, true) : 0;
      var to = range ? boundOf(times, range.to, false) : times.length;
      var count = to - from;
      var key = count > MAX_FILLS_IN_VIEW ? 'hidden' : from + ':' + to;
      if (key === shown) return;
      shown = key;
      if (count > MAX_FILLS_IN_VIEW) {
        plugin.setMarkers([]);
        note.textContent = count.toLocaleString('en-US') + ' fills in view: zoom in to see them.';
      } else {
        plugin.setMarkers(markers.slice(from, to));
        note.textContent = '';
      }
    }
    chart.timeScale().subscribeVisibleTimeRangeChange(update);
    update();
  }

  function drawPriceCharts() {
    var holder = document.getElementById('price-charts');
    var bySymbol = {};
    for (var i = 0; i < data.candles.length; i++) bySymbol[data.candles[i].symbol] = data.candles[i];
    data.symbols.forEach(function (symbol) {
      var candles = bySymbol[symbol];
      var title = document.createElement('h3');
      title.textContent = symbol + (candles ? ' \u00b7 ' + candles.timeframe + ' candles' : ' \u00b7 fill prices');
      var panel = document.createElement('div');
      panel.className = 'panel';
      var el = document.createElement('div');
      el.className = 'chart price';
      el.setAttribute('data-symbol', symbol);
      var legend = document.createElement('div');
      legend.className = 'legend';
      legend.innerHTML = '<span class="buy">\u25b2 buy fill</span> \u00a0 <span class="sell">\u25bc sell fill</span> \u00a0 ';
      var note = document.createElement('span');
      note.className = 'fills-note';
      legend.appendChild(note);
      panel.appendChild(el);
      panel.appendChild(legend);
      holder.appendChild(title);
      holder.appendChild(panel);
      try {
        drawPriceChart(symbol, candles, el, note);
      } catch (error) {
        chartFailed(el, error);
      }
    });
    if (data.symbols.length === 0) {
      var none = document.createElement('div');
      none.className = 'empty';
      none.textContent = 'No instrument was traded and no candles were given.';
      holder.appendChild(none);
    }
  }

  /** Exact order of two decimal strings ("-12.5", "0.0001"): by sign, integer digits, then fraction. */
  function compareDecimal(a, b) {
    var negA = a.charAt(0) === '-', negB = b.charAt(0) === '-';
    var absA = negA ? a.slice(1) : a, absB = negB ? b.slice(1) : b;
    if (/^[0.]*$/.test(absA)) negA = false;
    if (/^[0.]*$/.test(absB)) negB = false;
    if (negA !== negB) return negA ? -1 : 1;
    var m = compareMagnitude(absA, absB);
    return negA ? -m : m;
  }

  function compareMagnitude(a, b) {
    var pa = a.split('.'), pb = b.split('.');
    var ia = pa[0].replace(/^0+/, ''), ib = pb[0].replace(/^0+/, '');
    if (ia.length !== ib.length) return ia.length < ib.length ? -1 : 1;
    if (ia !== ib) return ia < ib ? -1 : 1;
    var fa = (pa[1] || '').replace(/0+$/, ''), fb = (pb[1] || '').replace(/0+$/, '');
    var width = Math.max(fa.length, fb.length);
    fa = fa.padEnd(width, '0');
    fb = fb.padEnd(width, '0');
    return fa < fb ? -1 : fa > fb ? 1 : 0;
  }

  function isBlank(v) { return v === null || v === ''; }

  function formatTime(ms) {
    return new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
  }

  function setUpTradesTable() {
    var columns = data.columns;
    var all = data.trades;
    var table = document.getElementById('trades-table');
    var body = table.querySelector('tbody');
    var heads = table.querySelectorAll('th');
    var filterBox = document.getElementById('trade-filter');
    var countEl = document.getElementById('trade-count');
    var pageEl = document.getElementById('trade-page');
    var buttons = {
      first: document.getElementById('page-first'), prev: document.getElementById('page-prev'),
      next: document.getElementById('page-next'), last: document.getElementById('page-last'),
    };
    var state = { view: all.slice(), column: -1, direction: 1, page: 0, filter: '' };
    var number = new Intl.NumberFormat('en-US');

    function compareRows(col, dir) {
      var type = columns[col].type;
      return function (x, y) {
        var a = x[col], b = y[col];
        var blankA = isBlank(a), blankB = isBlank(b);
        var c;
        if (blankA || blankB) return blankA === blankB ? compareId(x, y) : blankA ? 1 : -1;
        if (type === 'decimal') c = compareDecimal(a, b);
        else if (type === 'time') c = a - b;
        else c = a < b ? -1 : a > b ? 1 : 0;
        return c !== 0 ? c * dir : compareId(x, y);
      };
    }

    function compareId(x, y) { return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0; }

    function matches(row, tokens) {
      var text = (row[1] + ' ' + row[2]).toLowerCase();
      for (var i = 0; i < tokens.length; i++) if (text.indexOf(tokens[i]) < 0) return false;
      return true;
    }

    function rebuild() {
      var tokens = state.filter.trim().toLowerCase().split(/\s+/).filter(Boolean);
      var view = tokens.length ? all.filter(function (r) { return matches(r, tokens); }) : all.slice();
      if (state.column >= 0) view.sort(compareRows(state.column, state.direction));
      state.view = view;
      var pages = Math.max(1, Math.ceil(view.length / PAGE_SIZE));
      if (state.page >= pages) state.page = pages - 1;
      render();
    }

    function cell(row, col) {
      var td = document.createElement('td');
      var v = row[col];
      var type = columns[col].type;
      if (type === 'time') td.textContent = v === null ? '' : formatTime(v);
      else td.textContent = v;
      if (type === 'decimal' || type === 'time') td.className = 'num';
      var key = columns[col].key;
      if ((key === 'realizedPnl' || key === 'netPnl') && !isBlank(v) && !/^-?[0.]*$/.test(v)) {
        td.className += v.charAt(0) === '-' ? ' neg' : ' pos';
      }
      return td;
    }

    function render() {
      var view = state.view;
      var pages = Math.max(1, Math.ceil(view.length / PAGE_SIZE));
      var from = state.page * PAGE_SIZE;
      var rows = view.slice(from, from + PAGE_SIZE);
      var fragment = document.createDocumentFragment();
      rows.forEach(function (row) {
        var tr = document.createElement('tr');
        tr.setAttribute('data-trade', row[0]);
        for (var c = 0; c < columns.length; c++) tr.appendChild(cell(row, c));
        fragment.appendChild(tr);
      });
      if (rows.length === 0) {
        var tr = document.createElement('tr');
        var td = document.createElement('td');
        td.colSpan = columns.length;
        td.className = 'empty';
        td.textContent = all.length ? 'No trade matches the filter.' : 'No trades.';
        tr.appendChild(td);
        fragment.appendChild(tr);
      }
      body.textContent = '';
      body.appendChild(fragment);
      countEl.textContent = view.length === all.length
        ? number.format(all.length) + ' trades'
        : number.format(view.length) + ' of ' + number.format(all.length) + ' trades';
      pageEl.textContent = 'Page ' + number.format(state.page + 1) + ' of ' + number.format(pages);
      buttons.first.disabled = buttons.prev.disabled = state.page === 0;
      buttons.next.disabled = buttons.last.disabled = state.page >= pages - 1;
      for (var i = 0; i < heads.length; i++) {
        var sorted = i === state.column;
        heads[i].setAttribute('aria-sort', sorted ? (state.direction > 0 ? 'ascending' : 'descending') : 'none');
      }
    }

    function sortBy(col) {
      if (state.column === col) state.direction = -state.direction;
      else {
        state.column = col;
        state.direction = 1;
      }
      state.page = 0;
      rebuild();
    }

    for (var h = 0; h < heads.length; h++) {
      (function (col) {
        heads[col].addEventListener('click', function () { sortBy(col); });
        heads[col].addEventListener('keydown', function (e) {
          if (e.key === 'Enter' || e.key === ' ') {
            e.preventDefault();
            sortBy(col);
          }
        });
      })(h);
    }
    filterBox.addEventListener('input', function () {
      state.filter = filterBox.value;
      state.page = 0;
      rebuild();
    });
    function lastPage() { return Math.max(0, Math.ceil(state.view.length / PAGE_SIZE) - 1); }
    buttons.first.addEventListener('click', function () { state.page = 0; render(); });
    buttons.prev.addEventListener('click', function () { state.page = Math.max(0, state.page - 1); render(); });
    buttons.next.addEventListener('click', function () { state.page = Math.min(lastPage(), state.page + 1); render(); });
    buttons.last.addEventListener('click', function () { state.page = lastPage(); render(); });
    render();
  }

  setUpTradesTable();
  if (!LWC) {
    console.error('the charting library did not load');
    return;
  }
  drawAccountCharts();
  drawPriceCharts();
  document.documentElement.setAttribute('data-report-ready', 'true');
})();
`;
