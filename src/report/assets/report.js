'use strict';
// mpiscope report: draws the stored runs with Vega (embedded in the page before this script).
// The C++ side (html_report.cpp) gives the numbers as stored, bandwidths in the page's one unit;
// everything here is about how they are shown.
const DATA = JSON.parse(document.getElementById('mpiscope-data').textContent);
const BW = DATA.units.bandwidth;
const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];
// Markers as paths in the unit square (Vega scales them; the legend draws the same paths), so
// that the plot and its legend show the same symbol.
const SHAPES = [
  ['circle', 'M1,0A1,1,0,1,1,-1,0A1,1,0,1,1,1,0Z'],
  ['square', 'M-0.8,-0.8H0.8V0.8H-0.8Z'],
  ['triangle-up', 'M0,-1L1,0.8H-1Z'],
  ['diamond', 'M0,-1L1,0L0,1L-1,0Z'],
  ['cross', 'M-0.3,-1H0.3V-0.3H1V0.3H0.3V1H-0.3V0.3H-1V-0.3H-0.3Z'],
  ['triangle-down', 'M0,1L1,-0.8H-1Z'],
  ['triangle-right', 'M1,0L-0.8,1V-1Z'],
  ['triangle-left', 'M-1,0L0.8,1V-1Z'],
  ['star', 'M0,-1L0.24,-0.32L0.95,-0.31L0.38,0.12L0.59,0.81L0,0.4L-0.59,0.81L-0.38,0.12L-0.95,-0.31L-0.24,-0.32Z'],
  ['hourglass', 'M-0.9,-1H0.9L-0.9,1H0.9Z'],
];
// A point whose verdict is "cannot tell" (compare, guidelines): an open diagonal cross.
const UNDECIDED_SHAPE = 'M-0.8,-0.8L0.8,0.8M-0.8,0.8L0.8,-0.8';
const DASHES = [[], [6, 3], [2, 2], [8, 3, 2, 3], [1, 3]];
// Parameters that say how a run went, or follow from its process count, rather than what was
// measured: tables differing only in these share a card (classic and accurate rows of one
// benchmark; PRESTA laten's steps over process counts; IMB-MT's thread counts, plotted over them).
const NOT_IN_CARD_KEY = new Set(['measurement', 'refinement_max_error', 'pairs', 'threads_per_process']);
// IMB-MT's threads per process (0: a table that runs none of its own).
function threadsOf(t) { return Number(t.params.threads_per_process || 0); }
const runIndex = new Map(DATA.runs.map((r, i) => [r.id, i]));
const state = {runs: new Set(), hidden: new Set(), metric: {}, length: {}, pool: {}, filter: ''};
// The newest twelve runs are shown first.
DATA.runs.slice(-12).forEach(r => state.runs.add(r.id));
let views = [];

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const k of kids) if (k !== null && k !== undefined) e.append(k);
  return e;
}
function fmt(v) {
  if (v === null || v === undefined || !Number.isFinite(v)) return '-';
  const a = Math.abs(v);
  if (a !== 0 && (a >= 1e6 || a < 1e-2)) return v.toExponential(2);
  return v.toFixed(a >= 100 ? 1 : 2);
}
function fmtBytes(b) {
  if (b >= 1048576 && b % 1048576 === 0) return (b / 1048576) + ' MiB';
  if (b >= 1024 && b % 1024 === 0) return (b / 1024) + ' KiB';
  return b + ' B';
}
function shortDate(d) { return (d || '').replace(/(\d)T(\d)/, '$1 $2').replace(/:\d\d(\.\d+)?([+-]\d\d:?\d\d|Z)?$/, ''); }
function fileName(s) { return s.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 80); }
function download(name, blob) {
  const a = el('a', {href: URL.createObjectURL(blob), download: name});
  document.body.append(a); a.click(); a.remove();
}

// ---- runs: what a legend names ----------------------------------------------------------

function runName(r) {
  return [`run ${r.id}`, r.label, r.library, r.hosts, shortDate(r.date), r.method].filter(x => x).join(' \u00b7 ');
}
function selectedRuns() { return DATA.runs.filter(r => state.runs.has(r.id)); }

// Colour from the run, marker from the run's tens; another process count or method of the same
// run takes the next marker free with that colour, so that no two curves of a plot look alike.
function styleSeries(series) {
  const used = new Set();
  series.forEach((s, i) => {
    const k = s.run ? runIndex.get(s.run.id) : i;
    let c = k % PALETTE.length, m = Math.floor(k / PALETTE.length) % SHAPES.length, tries = 0;
    while (used.has(c + '|' + m) && tries++ < PALETTE.length * SHAPES.length) {
      m = (m + 1) % SHAPES.length;
      if (m === Math.floor(k / PALETTE.length) % SHAPES.length) c = (c + 1) % PALETTE.length;
    }
    used.add(c + '|' + m);
    s.color = PALETTE[c];
    s.shape = SHAPES[m];
    s.dash = DASHES[(s.variant || 0) % DASHES.length];
  });
  return series;
}
function swatch(s) {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('width', '30'); svg.setAttribute('height', '12'); svg.setAttribute('viewBox', '0 0 30 12');
  svg.innerHTML = `<line x1="1" x2="29" y1="6" y2="6" stroke="${s.color}" stroke-width="2" stroke-dasharray="${s.dash.join(' ')}"/>` +
    `<path transform="translate(15,6) scale(4.5)" d="${s.shape[1]}" fill="${s.color}"/>`;
  return svg;
}

// ---- one plot ---------------------------------------------------------------------------

// Log axes: the byte and process axes in powers of two, values in decades with minor ticks;
// labels at the decades (at 1-2-5 and every tick when the range is narrow) and at the lowest
// value of a time plot (its floor, drawn as a rule). Drag pans, shift+wheel zooms, double-click
// resets; hovering a point shows its numbers; SVG, PNG and CSV export.
const DECADE = 'abs(log(datum.value) / LN10 - round(log(datum.value) / LN10)) < 1e-6';
const LEAD = 'datum.value / pow(10, floor(log(datum.value) / LN10 + 1e-9))';
function yLabelExpr() {
  return `(ydom[1] / ydom[0] < 3 || ${DECADE} || (ydom[1] / ydom[0] < 1000 && (abs(${LEAD} - 2) < 1e-6 || abs(${LEAD} - 5) < 1e-6))) ? datum.label : ''`;
}
const BYTES_LABEL = "datum.value >= 1073741824 ? format(datum.value / 1073741824, '~r') + 'G' : datum.value >= 1048576 ? format(datum.value / 1048576, '~r') + 'M' : datum.value >= 1024 ? format(datum.value / 1024, '~r') + 'K' : format(datum.value, '~r')";

function extent(values, pad) {
  let lo = Math.min(...values), hi = Math.max(...values);
  if (lo === hi) { lo /= 2; hi *= 2; }
  return [lo / pad, hi * pad];
}

function vegaSpec(o, width) {
  const points = [];
  for (const s of o.series) {
    if (state.hidden.has(s.key)) continue;
    for (const p of s.points)
      if (p.x > 0 && (o.yLinear ? Number.isFinite(p.y) : p.y > 0)) points.push({s: s.key, x: p.x, y: p.y, lo: p.lo > 0 ? p.lo : null, hi: p.hi > 0 ? p.hi : null, hollow: !!p.hollow, cross: !!p.cross, tip: s.name + '\n' + p.tip});
  }
  // A curve's model (README "The model of a curve"): each protocol region's line t = alpha +
  // X / beta over its lengths, dashed in its curve's colour.
  const fitted = [];
  for (const s of o.series) {
    if (state.hidden.has(s.key) || !s.model) continue;
    s.model.regions.forEach((g, i) => {
      const first = Math.max(g.first_bytes, Math.min(...s.points.map(p => p.x).filter(x => x > 0)), 1);
      const last = Math.max(g.last_bytes, first);
      for (let k = 0; k <= 16; k++) {
        const x = first * Math.pow(last / first, k / 16);
        const y = g.alpha_us + (g.beta_mb_per_s ? x / g.beta_mb_per_s : 0);
        if (y > 0) fitted.push({s: s.key, g: s.key + '#' + i, x, y, tip: `${s.name}\nmodel, region ${i + 1}: ${modelRegionText(g)}`});
      }
    });
  }
  const xs = points.map(p => p.x), ys = points.flatMap(p => [p.y, p.lo, p.hi].filter(v => v > 0));
  const xdom = extent(xs, 1.15);
  const ydom = o.yLinear ? [Math.min(0, ...ys), Math.max(...ys, 1) * 1.1] : extent(ys, 1.3);
  const keys = o.series.map(s => s.key);
  const floor = o.floor && points.length ? Math.min(...points.map(p => p.y)) : null;
  const xBase = ['bytes', 'processes', 'threads', 'sends'].includes(o.xAxis) ? 2 : 10;
  const logPan = (dom, cur, d, len) => `[${cur}[0] * pow(${cur}[1] / ${cur}[0], ${d} / ${len}), ${cur}[1] * pow(${cur}[1] / ${cur}[0], ${d} / ${len})]`;
  const logZoom = (dom, a) => `[${a} * pow(${dom}[0] / ${a}, zoom), ${a} * pow(${dom}[1] / ${a}, zoom)]`;
  const spec = {
    width: width, height: o.height || 250, padding: 4,
    autosize: {type: 'fit-x', contains: 'padding'},
    title: {text: o.title, fontSize: 13, limit: Math.max(120, width - 20), anchor: 'middle'},
    data: [{name: 'points', values: points}, {name: 'decided', values: points.filter(p => !p.cross)}, {name: 'undecided', values: points.filter(p => p.cross)},
           {name: 'intervals', values: points.filter(p => p.lo && p.hi)}, {name: 'fitted', values: fitted}],
    signals: [
      {name: 'down', value: null, on: [{events: 'mousedown', update: 'xy()'}, {events: 'window:mouseup', update: 'null'}]},
      {name: 'xcur', value: null, on: [{events: 'mousedown', update: 'slice(xdom)'}]},
      {name: 'ycur', value: null, on: [{events: 'mousedown', update: 'slice(ydom)'}]},
      {name: 'delta', value: [0, 0], on: [{events: [{source: 'window', type: 'mousemove', consume: true, between: [{type: 'mousedown'}, {source: 'window', type: 'mouseup'}]}],
                                           update: 'down ? [down[0] - x(), y() - down[1]] : [0, 0]'}]},
      {name: 'anchor', value: [1, 1], on: [{events: 'wheel', update: "[invert('x', x()), invert('y', y())]"}]},
      {name: 'zoom', value: 1, on: [{events: {type: 'wheel', consume: true, filter: 'event.shiftKey'}, force: true, update: 'pow(1.002, (event.deltaY || event.deltaX) * pow(16, event.deltaMode))'}]},
      {name: 'xdom', value: xdom, on: [{events: {signal: 'delta'}, update: `xcur ? ${logPan('xdom', 'xcur', 'delta[0]', 'width')} : xdom`},
                                       {events: {signal: 'zoom'}, update: logZoom('xdom', 'anchor[0]')},
                                       {events: 'dblclick', update: JSON.stringify(xdom)}]},
      {name: 'ydom', value: ydom, on: [{events: {signal: 'delta'}, update: `ycur ? ${o.yLinear ? '[ycur[0] + span(ycur) * delta[1] / height, ycur[1] + span(ycur) * delta[1] / height]' : logPan('ydom', 'ycur', 'delta[1]', 'height')} : ydom`},
                                       {events: {signal: 'zoom'}, update: o.yLinear ? '[anchor[1] + (ydom[0] - anchor[1]) * zoom, anchor[1] + (ydom[1] - anchor[1]) * zoom]' : logZoom('ydom', 'anchor[1]')},
                                       {events: 'dblclick', update: JSON.stringify(ydom)}]},
    ],
    scales: [
      {name: 'x', type: 'log', base: xBase, domain: {signal: 'xdom'}, range: 'width', nice: false, zero: false},
      o.yLinear ? {name: 'y', type: 'linear', domain: {signal: 'ydom'}, range: 'height', nice: false, zero: false}
                : {name: 'y', type: 'log', base: 10, domain: {signal: 'ydom'}, range: 'height', nice: false, zero: false},
      {name: 'color', type: 'ordinal', domain: keys, range: o.series.map(s => s.color)},
      {name: 'shape', type: 'ordinal', domain: keys, range: o.series.map(s => s.shape[1])},
      {name: 'dash', type: 'ordinal', domain: keys, range: o.series.map(s => s.dash.length ? s.dash : [1, 0])},
    ],
    axes: [
      {orient: 'bottom', scale: 'x', title: o.xTitle, grid: true, gridOpacity: 0.25, labelOverlap: 'parity', labelFlush: true,
       tickCount: xBase === 2 ? 24 : 8,
       encode: {labels: {update: {text: {signal: o.xAxis === 'bytes' ? BYTES_LABEL : "format(datum.value, '~r')"}}}}},
      o.yLinear ? {orient: 'left', scale: 'y', title: o.yTitle, grid: true, gridOpacity: 0.25, titleLimit: 240}
                : {orient: 'left', scale: 'y', title: o.yTitle, grid: true, tickCount: 10, titleLimit: 240,
                   encode: {labels: {update: {text: {signal: yLabelExpr()}}},
                            grid: {update: {strokeOpacity: {signal: `${DECADE} ? 0.35 : 0.1`}}}}},
    ],
    marks: [
      {type: 'group', clip: true, encode: {enter: {width: {signal: 'width'}, height: {signal: 'height'}}},
       marks: [
         {type: 'rule', interactive: false, name: 'interval', from: {data: 'intervals'},
          encode: {update: {x: {scale: 'x', field: 'x'}, y: {scale: 'y', field: 'lo'}, y2: {scale: 'y', field: 'hi'},
                            stroke: {scale: 'color', field: 's'}, strokeWidth: {value: 1.5}, opacity: {value: 0.8}}}},
         {type: 'group', from: {facet: {name: 'one', data: 'points', groupby: 's'}},
          marks: [{type: 'line', name: 'curve', from: {data: 'one'}, sort: {field: 'datum.x'},
                   encode: {update: {x: {scale: 'x', field: 'x'}, y: {scale: 'y', field: 'y'}, stroke: {scale: 'color', field: 's'},
                                     strokeDash: {scale: 'dash', field: 's'}, strokeWidth: {value: 1.8}}}}]},
         {type: 'group', from: {facet: {name: 'region', data: 'fitted', groupby: 'g'}},
          marks: [{type: 'line', name: 'model', from: {data: 'region'}, sort: {field: 'datum.x'},
                   encode: {update: {x: {scale: 'x', field: 'x'}, y: {scale: 'y', field: 'y'}, stroke: {scale: 'color', field: 's'},
                                     strokeDash: {value: [6, 3]}, strokeWidth: {value: 1.2}, opacity: {value: 0.75}, tooltip: {field: 'tip'}}}}]},
         {type: 'symbol', name: 'marker', from: {data: 'decided'},
          encode: {update: {x: {scale: 'x', field: 'x'}, y: {scale: 'y', field: 'y'}, shape: {scale: 'shape', field: 's'},
                            fill: {scale: 'color', field: 's'}, fillOpacity: {signal: 'datum.hollow ? 0 : 1'}, stroke: {scale: 'color', field: 's'},
                            strokeWidth: {value: 1.2}, size: {value: 50}, tooltip: {field: 'tip'}}}},
         // "Cannot tell": a diagonal cross in the curve's colour, a shape no curve has (SHAPES'
         // cross is upright), drawn as a mark of its own.
         {type: 'symbol', name: 'undecided', from: {data: 'undecided'},
          encode: {update: {x: {scale: 'x', field: 'x'}, y: {scale: 'y', field: 'y'}, shape: {value: UNDECIDED_SHAPE},
                            fillOpacity: {value: 0}, stroke: {scale: 'color', field: 's'},
                            strokeWidth: {value: 1.6}, size: {value: 50}, tooltip: {field: 'tip'}}}},
       ]},
    ],
  };
  if (floor !== null) {
    spec.marks.push(
      {type: 'rule', interactive: false, name: 'floor', encode: {update: {x: {value: 0}, x2: {signal: 'width'}, y: {scale: 'y', value: floor}, stroke: {value: '#888'}, strokeDash: {value: [3, 3]},
                                                      opacity: {signal: `${floor} >= ydom[0] && ${floor} <= ydom[1] ? 1 : 0`}}}},
      {type: 'text', interactive: false, name: 'floor-label', encode: {update: {x: {signal: 'width - 4'}, y: {scale: 'y', value: floor, offset: -4}, align: {value: 'right'}, fill: {value: '#555'}, fontSize: {value: 10},
                                                            text: {value: 'lowest ' + fmt(floor) + ' ' + o.yUnit},
                                                            opacity: {signal: `${floor} >= ydom[0] && ${floor} <= ydom[1] ? 1 : 0`}}}});
  }
  return {spec, points};
}

// A plot's box: a bar with the export buttons, the drawing, and a legend whose entries hide
// and show their series. The view is made once the box is in the page (its width is known).
function plot(o) {
  styleSeries(o.series);
  const box = el('div', {class: 'plot', 'data-plot': o.id});
  const drawing = el('div', {class: 'drawing'});
  const bar = el('div', {class: 'bar'});
  const legend = el('div', {class: 'legend'});
  box.append(bar, drawing, legend);
  box.dataset.series = JSON.stringify(o.series.filter(s => !state.hidden.has(s.key) && s.points.some(p => p.x > 0 && p.y > 0))
    .map(s => ({key: s.key, color: s.color, shape: s.shape[0], dash: s.dash.join(' ')})));
  for (const s of o.series) {
    const item = el('span', {class: state.hidden.has(s.key) ? 'off' : '', title: 'show or hide this series'}, swatch(s), ' ' + s.name);
    item.addEventListener('click', () => { if (state.hidden.has(s.key)) state.hidden.delete(s.key); else state.hidden.add(s.key); render(); });
    legend.append(item);
  }
  box.draw = () => {
    const width = Math.max(260, drawing.clientWidth);
    const {spec, points} = vegaSpec(o, width);
    if (!points.length) {
      const any = o.series.some(s => s.points.length);
      drawing.append(any ? el('div', {class: 'muted empty no-positive'}, 'no value above 0 to place on a log axis (see the numbers)')
                         : el('div', {class: 'muted empty'}, 'no data for the chosen runs and series'));
      return;
    }
    const view = new vega.View(vega.parse(spec), {renderer: 'svg', container: drawing, hover: true});
    views.push(view);
    view.runAsync().catch(e => console.error(e));
    const name = fileName(o.id);
    const button = (text, f) => el('button', {type: 'button', onclick: f}, text);
    bar.append(el('span', {class: 'muted'}, o.intervalNote || ''),
      el('span', {},
        button('SVG', () => view.toSVG().then(svg => download(name + '.svg', new Blob([svg], {type: 'image/svg+xml'})))),
        ' ', button('PNG', () => view.toImageURL('png', 2).then(url => { const a = el('a', {href: url, download: name + '.png'}); document.body.append(a); a.click(); a.remove(); })),
        ' ', button('CSV', () => download(name + '.csv', new Blob([csvOf(o)], {type: 'text/csv'})))));
  };
  return box;
}

// The data of a plot, one row per point: what it shows, as it shows it.
function csvOf(o) {
  const q = v => (/[",\n]/.test(String(v)) ? '"' + String(v).replace(/"/g, '""') + '"' : String(v));
  const lines = [['series', o.xTitle, o.yTitle, 'interval low', 'interval high'].map(q).join(',')];
  for (const s of o.series)
    for (const p of s.points) lines.push([s.name, p.x, p.y, p.lo ?? '', p.hi ?? ''].map(q).join(','));
  return lines.join('\n') + '\n';
}

// ---- benchmark cards --------------------------------------------------------------------

// SKaMPI names the measuring method in a parameter of its own.
function inCardKey(p, v) { return !NOT_IN_CARD_KEY.has(p) && p !== 'accurate_settings' && !(p === 'method' && (v === 'classic' || v === 'accurate')); }
// IMB-P2P's PingPong and PingPing run on every rank at once: not IMB-MPI1's, whose card they
// would otherwise share.
function cardKey(t, run) {
  let k = (run && run.suite === 'imb-p2p' ? 'IMB-P2P ' : '') + t.name + (t.mode ? ` (${t.mode})` : '');
  for (const [p, v] of Object.entries(t.params)) if (inCardKey(p, v)) k += `, ${p}=${v}`;
  return k;
}
function isBeff(run, t) { return run.suite === 'beff' && t.params.pattern && t.params.kind; }
function isBeffIo(run, t) { return run.suite === 'beffio' && t.params.access_method && t.params.pattern_type; }
function isHeatmap(t) { return t.rows.length && t.rows.every(r => r.values.row && r.values.col); }

// Every benchmark of the chosen runs (b_eff's and heat-map tables apart), with its tables.
function benchmarks() {
  const map = new Map();
  for (const r of selectedRuns()) for (const t of r.tables) {
    if (isBeff(r, t) || isBeffIo(r, t) || isHeatmap(t) || isMapPair(r, t) || isMapSweep(r, t)) continue;
    if (r.tune) continue;  // a tune run's tables: its own cards (tuneCards)
    const k = cardKey(t, r);
    if (!map.has(k)) map.set(k, []);
    map.get(k).push({run: r, table: t});
  }
  return map;
}

const AXES = {bytes: 'message size [bytes]', processes: 'processes', chunks: 'chunks'};
function xOf(table, row) { return table.axis === 'bytes' ? (row.x ?? row.bytes) : row.x; }

function metricsOf(tables) {
  const m = [{id: 't_us', name: 'time', unit: 'microseconds', get: r => r.t_us, interval: true},
             {id: 't_min_us', name: 't_min', unit: 'microseconds', get: r => r.t_min_us},
             {id: 't_avg_us', name: 't_avg', unit: 'microseconds', get: r => r.t_avg_us},
             {id: 't_max_us', name: 't_max', unit: 'microseconds', get: r => r.t_max_us}];
  const named = new Map();
  for (const t of tables) for (const r of t.rows) for (const [k, v] of Object.entries(r.values)) named.set(k, v[1]);
  for (const [k, unit] of named) m.push({id: 'v:' + k, name: k, unit: unit, get: r => (r.values[k] ? r.values[k][0] : null)});
  return m.filter(x => tables.some(t => t.rows.some(r => x.get(r) !== null && x.get(r) !== undefined)));
}

function point(x, y, row, unit, xText, withInterval) {
  const p = {x, y, tip: `${xText}: ${fmt(y)} ${unit}`};
  if (withInterval && row.lo !== undefined && row.hi !== undefined) {
    p.lo = row.lo; p.hi = row.hi;
    p.tip += ` [${fmt(row.lo)}, ${fmt(row.hi)}] (${row.interval})`;
  }
  if (row.repetitions) p.tip += `, ${row.repetitions} repetitions`;
  if (row.not_converged) { p.hollow = true; p.tip += `\nnot converged: ${row.not_converged}`; }
  return p;
}

function numbersTable(entries, xTitle) {
  const det = el('details', {class: 'numbers'}, el('summary', {}, 'numbers'));
  const t = el('table');
  t.append(el('tr', {}, ...['run', xTitle, 'procs', 'method', 'time [us]', 'interval [us]', `bandwidth [${BW}]`, 'repetitions', 't_min', 't_avg', 't_max']
    .map(h => el('th', {class: 'n'}, h))));
  for (const {run, table} of entries)
    for (const r of table.rows)
      t.append(el('tr', {}, ...[`run ${run.id}`, String(xOf(table, r) ?? r.bytes), String(table.nprocs), table.method, fmt(r.t_us),
        r.lo !== undefined ? `${fmt(r.lo)} .. ${fmt(r.hi)} (${r.interval})` : '-', fmt(r.bw), String(r.repetitions || '-'),
        fmt(r.t_min_us), fmt(r.t_avg_us), fmt(r.t_max_us)].map(c => el('td', {class: 'n'}, c))));
  det.append(t);
  return det;
}

function benchmarkCard(key, entries) {
  const card = el('section', {class: 'card', 'data-benchmark': key});
  card.append(el('h2', {}, key));
  const tables = entries.map(e => e.table);
  const metrics = metricsOf(tables);
  const metric = metrics.find(m => m.id === state.metric[key]) || metrics[0];
  const pick = el('select', {'aria-label': 'quantity to plot'});
  for (const m of metrics) { const o = el('option', {value: m.id}, m.name + ' [' + m.unit + ']'); if (m === metric) o.selected = true; pick.append(o); }
  pick.addEventListener('change', () => { state.metric[key] = pick.value; render(); });
  // Repeated launches of one configuration (same MPI library, method, label and process count)
  // can be pooled: one curve, the median over the runs at each point, bars from lowest to highest.
  const pool = el('input', {type: 'checkbox', 'aria-label': 'pool repeated runs'});
  pool.checked = !!state.pool[key];
  pool.addEventListener('change', () => { state.pool[key] = pool.checked; render(); });
  card.append(el('div', {class: 'muted'}, 'plot: ', pick, ' \u00b7 ', el('label', {}, pool, ' pool repeated runs (median, lowest to highest)'),
                 ' \u00b7 drag to pan, shift+wheel to zoom, double-click to reset; click a legend entry to hide it; hover a point for its numbers'));
  const axis = tables[0].axis in AXES ? tables[0].axis : 'bytes';
  const xTitle = AXES[axis];
  const unconverged = entries.flatMap(({run, table}) => table.rows.filter(r => r.not_converged).map(r =>
    `run ${run.id}, ${axis === 'bytes' ? fmtBytes(xOf(table, r)) : xOf(table, r) + ' ' + axis}: ${r.not_converged}`));
  if (unconverged.length)
    card.append(el('ul', {class: 'notes', 'data-not-converged': String(unconverged.length)},
                   el('li', {}, 'Hollow markers: not converged (the figure is drawn, but its stopping rule was not met):'),
                   ...unconverged.map(u => el('li', {}, u))));
  const nprocsAll = [...new Set(tables.map(t => t.nprocs))].sort((a, b) => a - b);
  const threadsAll = [...new Set(tables.map(threadsOf))].sort((a, b) => a - b);
  const methods = new Set(tables.map(t => t.method));
  // The run's name carries its method unless the run has both.
  const variantName = (run, t) => [nprocsAll.length > 1 && axis !== 'processes' ? `${t.nprocs} procs` : '',
                                   threadsAll.length > 1 ? `${threadsOf(t)} threads` : '',
                                   methods.size > 1 && run.method !== t.method ? t.method : ''].filter(x => x).join(', ');
  const perRun = (get, unit, withInterval, withModel) => entries.map(({run, table}, i) => ({
    key: key + '|' + run.id + '|' + table.nprocs + '|' + threadsOf(table) + '|' + table.method + '|' + i,
    run, variant: nprocsAll.indexOf(table.nprocs) * threadsAll.length + threadsAll.indexOf(threadsOf(table)),
    model: withModel ? table.model : undefined,
    name: runName(run) + (variantName(run, table) ? ` (${variantName(run, table)})` : ''),
    points: table.rows.filter(r => get(r) !== null && get(r) !== undefined).map(r =>
      point(xOf(table, r), get(r), r, unit, axis === 'bytes' ? fmtBytes(xOf(table, r)) : `${xOf(table, r)} ${axis}`, withInterval))}));
  const series = (get, unit, withInterval, withModel) => state.pool[key] ? pooledSeries(key, entries, get, unit, axis) : perRun(get, unit, withInterval, withModel);
  const plots = el('div', {class: 'plots'});
  const hasX = tables.some(t => t.rows.some(r => xOf(t, r) > 0)) && (axis !== 'bytes' || tables.some(t => t.sized));
  const intervalNote = state.pool[key] ? 'bars: lowest to highest of the pooled runs' :
    metric.interval && tables.some(t => t.rows.some(r => r.lo !== undefined)) ? 'bars: ' + [...new Set(tables.flatMap(t => t.rows.map(r => r.interval)).filter(x => x))].join('; ') : '';
  if (hasX) {
    plots.append(plot({id: key + ' ' + metric.id, title: `${metric.name} over ${axis === 'bytes' ? 'message size' : axis}`, xAxis: axis, xTitle,
                       yTitle: `${metric.name} [${metric.unit}]`, yUnit: metric.unit, floor: metric.unit === 'microseconds', intervalNote,
                       series: series(metric.get, metric.unit, metric.interval, metric.id === 't_us' && axis === 'bytes')}));
    if (tables.some(t => t.rows.some(r => r.bw !== null)))
      plots.append(plot({id: key + ' bandwidth', title: 'bandwidth over message size', xAxis: axis, xTitle, yTitle: `bandwidth [${BW}]`, yUnit: BW,
                         series: series(r => r.bw, BW, false)}));
    // IMB-IO's non-blocking and IMB-NBC's overlap with CPU work, in percent on a linear axis.
    if (tables.some(t => t.rows.some(r => r.values.overlap)))
      plots.append(plot({id: key + ' overlap', title: 'overlap with CPU work over message size', xAxis: axis, xTitle, yTitle: 'overlap [percent]', yUnit: 'percent', yLinear: true,
                         series: series(r => (r.values.overlap ? r.values.overlap[0] : null), 'percent', false)}));
  }
  if (axis !== 'processes' && (nprocsAll.length > 1 || !hasX)) plots.append(scalingPlot(key, entries, metric, axis));
  if (threadsAll.length > 1) plots.append(scalingPlot(key, entries, metric, axis, 'threads'));
  const pairs = pairPlot(key, entries);
  if (pairs) plots.append(pairs);
  card.append(plots);
  const models = modelNotes(entries);
  if (models) card.append(models);
  card.append(numbersTable(entries, xTitle));
  return card;
}

function modelRegionText(g) {
  return `${fmtBytes(g.first_bytes)} to ${fmtBytes(g.last_bytes)}: alpha ${fmt(g.alpha_us)} us, ` +
    (g.beta_mb_per_s ? `beta ${fmt(g.beta_mb_per_s)} MB/s` : 'no beta (flat)') + `, fit error ${(100 * g.rms_relative_error).toFixed(1)} %`;
}

// Each run's model of the curve in words: its regions, and where the protocol switches.
function modelNotes(entries) {
  const withModel = entries.filter(({table}) => table.model);
  if (!withModel.length) return null;
  const items = withModel.map(({run, table}) => {
    const m = table.model, r = m.regions;
    const switches = r.slice(1).map((g, i) => `between ${fmtBytes(r[i].last_bytes)} and ${fmtBytes(g.first_bytes)}`);
    const poor = m.rms_relative_error > 0.15 ? ' (poor fit: the regions are no finding)' : '';
    return el('li', {'data-model-regions': String(r.length)},
      `run ${run.id}, ${table.nprocs} processes (${m.time_column}, fit error ${(100 * m.rms_relative_error).toFixed(1)} %${poor}): ` +
      r.map(modelRegionText).join('; ') + (switches.length ? `; protocol switch ${switches.join(', ')}` : '; no protocol switch found'));
  });
  return el('ul', {class: 'notes models'}, el('li', {}, 'Model t = alpha + X / beta per protocol region (dashed on the time plot; README "The model of a curve"):'), ...items);
}

// What makes two runs of a process count repeats of one configuration: the MPI library, or for
// an imported file, which does not say it, the file it came from.
function configuration(run) {
  const source = (run.meta.find(([k]) => k === 'Source') || [])[1];
  return run.library || source || run.source;
}

function median(sorted) {
  return sorted.length % 2 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
}

// One curve per configuration (MPI library, method, label, process count): at each point the
// median over the runs that measured it, the bar from the lowest to the highest of them.
function pooledSeries(key, entries, get, unit, axis) {
  const groups = new Map();
  for (const {run, table} of entries) {
    const g = [configuration(run), table.method, run.label, `${table.nprocs} procs`].filter(x => x).join(' \u00b7 ');
    if (!groups.has(g)) groups.set(g, {runs: new Set(), at: new Map(), unconverged: new Map(), first: run});
    const group = groups.get(g);
    group.runs.add(run.id);
    for (const r of table.rows) {
      const v = get(r), x = xOf(table, r);
      if (v === null || v === undefined) continue;
      if (!group.at.has(x)) group.at.set(x, []);
      group.at.get(x).push(v);
      if (r.not_converged) group.unconverged.set(x, (group.unconverged.get(x) || 0) + 1);
    }
  }
  return [...groups].map(([g, group]) => ({
    key: key + '|pool|' + g, run: group.first, name: `${g} (${group.runs.size} run${group.runs.size === 1 ? '' : 's'})`,
    points: [...group.at].map(([x, vs]) => {
      const v = vs.slice().sort((a, b) => a - b);
      const p = {x, y: median(v), tip: `${axis === 'bytes' ? fmtBytes(x) : x + ' ' + axis}: ${fmt(median(v))} ${unit}, median of ${v.length} (lowest ${fmt(v[0])}, highest ${fmt(v[v.length - 1])})`};
      if (v.length > 1) { p.lo = v[0]; p.hi = v[v.length - 1]; }
      const unconverged = group.unconverged.get(x) || 0;
      if (unconverged) { p.hollow = true; p.tip += `\n${unconverged} of them not converged`; }
      return p;
    })}));
}

// PRESTA com and rma: each pair's time (the longer of its two ranks') over the message size, at
// the largest step of each run (every pair active), so that one slow pair or link stands out.
function pairPlot(key, entries) {
  const largest = new Map();
  for (const e of entries)
    if (e.table.pairs && e.table.sized && e.table.rows.some(r => r.pair_us) &&
        (!largest.has(e.run.id) || largest.get(e.run.id).table.nprocs < e.table.nprocs)) largest.set(e.run.id, e);
  if (!largest.size) return null;
  const series = [];
  for (const {run, table} of largest.values())
    table.pairs.forEach((pair, k) => series.push({
      key: `${key}|pairs|${run.id}|${table.method}|${pair}`, name: `${runName(run)} · pair ${pair}`,
      points: table.rows.filter(r => r.pair_us && r.pair_us[k] > 0).map(r =>
        ({x: r.bytes, y: r.pair_us[k], tip: `${fmtBytes(r.bytes)}: ${fmt(r.pair_us[k])} microseconds, pair ${pair} of ${table.pairs.length}`}))}));
  const procs = [...new Set([...largest.values()].map(e => e.table.nprocs))].join(', ');
  return plot({id: key + ' pairs', title: `time of each pair over message size (${procs} processes)`, xAxis: 'bytes', xTitle: AXES.bytes,
               yTitle: 'time [microseconds]', yUnit: 'microseconds', floor: true, series});
}

// Time over process count across launches: one series per MPI library, method and label; the
// runs that measured the same count give their median, and their spread (lowest to highest) as
// the interval when there are several.
// `over` the process count, or IMB-MT's threads per process.
function scalingPlot(key, entries, metric, axis, over = 'processes') {
  const lengths = [...new Set(entries.flatMap(e => e.table.rows.map(r => r.bytes)))].sort((a, b) => a - b);
  const sized = axis === 'bytes' && entries.some(e => e.table.sized) && lengths.length > 1;
  const chosen = lengths.includes(state.length[key]) ? state.length[key] : (lengths.find(b => b > 0) ?? lengths[0]);
  // Tables that do not know their process count (OSU's imported collectives) are placed by run.
  const byRun = over === 'processes' && entries.every(e => !(e.table.nprocs > 0));
  const counts = new Set(entries.map(e => e.table.nprocs)).size;
  const threadCounts = new Set(entries.map(e => threadsOf(e.table))).size;
  const groups = new Map();
  for (const {run, table} of entries) {
    const row = table.rows.find(r => r.bytes === chosen) || (sized ? null : table.rows[0]);
    if (!row || metric.get(row) === null || metric.get(row) === undefined) continue;
    const g = [configuration(run), table.method, run.label,
               over === 'threads' && counts > 1 ? `${table.nprocs} procs` : '',
               over === 'processes' && threadCounts > 1 ? `${threadsOf(table)} threads` : ''].filter(x => x).join(' \u00b7 ');
    if (!groups.has(g)) groups.set(g, new Map());
    const at = groups.get(g);
    const x = byRun ? run.id : over === 'threads' ? threadsOf(table) : table.nprocs;
    if (!at.has(x)) at.set(x, []);
    at.get(x).push({v: metric.get(row), run: run.id, row});
  }
  const series = [...groups].map(([g, at]) => ({
    key: key + '|scaling|' + g, name: g,
    points: [...at].map(([n, vs]) => {
      const v = vs.map(x => x.v).sort((a, b) => a - b);
      const mid = median(v);
      const p = {x: n, y: mid, tip: `${n} ${byRun ? '(run)' : over === 'threads' ? 'threads per process' : 'processes'}: ${fmt(mid)} ${metric.unit}` + (v.length > 1 ? `, median of runs ${vs.map(x => x.run).join(', ')} (lowest ${fmt(v[0])}, highest ${fmt(v[v.length - 1])})` : `, run ${vs[0].run}`)};
      if (v.length > 1) { p.lo = v[0]; p.hi = v[v.length - 1]; }
      else if (metric.interval && vs[0].row.lo !== undefined) { p.lo = vs[0].row.lo; p.hi = vs[0].row.hi; }
      return p;
    })}));
  const overText = byRun ? 'runs (process count unknown)' : over === 'threads' ? 'threads per process' : 'process count';
  const xName = byRun ? 'run' : over === 'threads' ? 'threads per process' : 'processes';
  const box = plot({id: key + (over === 'threads' ? ' threads ' : ' scaling ') + metric.id, title: `${metric.name} over ${overText}` + (sized ? ` at ${fmtBytes(chosen)}` : ''),
                    xAxis: byRun ? 'run' : over, xTitle: xName, yTitle: `${metric.name} [${metric.unit}]`, yUnit: metric.unit, series,
                    intervalNote: 'bars: lowest to highest of the runs at a count'});
  if (sized) {
    const pick = el('select', {'aria-label': 'message size of the scaling plot'});
    for (const b of lengths) { const o = el('option', {value: b}, fmtBytes(b)); if (b === chosen) o.selected = true; pick.append(o); }
    pick.addEventListener('change', () => { state.length[key] = Number(pick.value); render(); });
    box.querySelector('.bar').append(el('label', {class: 'muted'}, 'at ', pick));
  }
  return box;
}

// SKaMPI: the paper's Figures 6 and 7 set suites side by side (MPI_Send against MPI_Ssend, a
// collective against its emulation). One card per SKaMPI run with one plot per axis that two or
// more of its suites share: each suite's time (with its standard error) over that axis.
function skampiSuitesCard(run) {
  if (run.suite !== 'skampi') return null;
  const byAxis = new Map();
  for (const t of run.tables) {
    if (!t.rows.some(r => xOf(t, r) > 0 && r.t_us > 0)) continue;
    const axis = t.axis in AXES ? t.axis : 'bytes';
    if (!byAxis.has(axis)) byAxis.set(axis, []);
    byAxis.get(axis).push(t);
  }
  const shared = [...byAxis].filter(([, ts]) => ts.length > 1);
  if (!shared.length) return null;
  const card = el('section', {class: 'card', 'data-benchmark': `SKaMPI suites run ${run.id}`, 'data-card': 'skampi-suites'});
  card.append(el('h2', {}, `SKaMPI suites side by side · ${runName(run)}`));
  const plots = el('div', {class: 'plots'});
  for (const [axis, ts] of shared) {
    const intervals = [...new Set(ts.flatMap(t => t.rows.map(r => r.interval)).filter(x => x))];
    plots.append(plot({id: `skampi ${run.id} ${axis}`, title: `every suite's time over ${axis === 'bytes' ? 'message size' : axis}`, xAxis: axis, xTitle: AXES[axis],
                       yTitle: 'time [microseconds]', yUnit: 'microseconds', floor: true, intervalNote: intervals.length ? 'bars: ' + intervals.join('; ') : '',
                       series: ts.map(t => ({key: `skampi|${run.id}|${cardKey(t)}`, name: cardKey(t),
                         points: t.rows.filter(r => xOf(t, r) > 0 && r.t_us > 0).map(r =>
                           point(xOf(t, r), r.t_us, r, 'microseconds', axis === 'bytes' ? fmtBytes(xOf(t, r)) : `${xOf(t, r)} ${axis}`, true))}))}));
  }
  card.append(plots);
  return card;
}

// b_eff: one card per run: the averages b_eff is made of over the message length, and each
// pattern family's patterns (best method at each length), with the run's headline figures.
function beffCard(run) {
  const card = el('section', {class: 'card', 'data-benchmark': `b_eff run ${run.id}`, 'data-card': 'beff'});
  card.append(el('h2', {}, `b_eff \u00b7 ${runName(run)}`));
  const headline = run.summary.filter(s => !s.name.includes('/'));
  if (headline.length) {
    const t = el('table', {class: 'figures'});
    for (const s of headline) t.append(el('tr', {}, el('th', {}, s.name), el('td', {class: 'n'}, fmt(s.value)), el('td', {}, s.unit)));
    card.append(el('details', {}, el('summary', {}, `b_eff = ${fmt((run.summary.find(s => s.name === 'b_eff') || {}).value)} ${BW}; all ${headline.length} figures`), t));
  }
  const plots = el('div', {class: 'plots'});
  const averages = new Map();
  for (const s of run.summary) {
    const m = /^(b_eff_at|ring_logavg_at|random_logavg_at)\/(\d+)$/.exec(s.name);
    if (!m) continue;
    if (!averages.has(m[1])) averages.set(m[1], []);
    averages.get(m[1]).push({x: Number(m[2]), y: s.value, tip: `${fmtBytes(Number(m[2]))}: ${fmt(s.value)} ${s.unit}`});
  }
  if (averages.size)
    plots.append(plot({id: `beff ${run.id} averages`, title: 'b_eff and its averages over message length', xAxis: 'bytes', xTitle: AXES.bytes,
                       yTitle: `bandwidth [${BW}]`, yUnit: BW, series: [...averages].map(([n, points]) => ({key: `beff|${run.id}|${n}`, name: n.replace('_at', ''), points}))}));
  const families = new Map();
  for (const t of run.tables) {
    if (!isBeff(run, t)) continue;
    const fam = t.params.kind;
    if (!families.has(fam)) families.set(fam, new Map());
    const pat = families.get(fam);
    if (!pat.has(t.params.pattern)) pat.set(t.params.pattern, new Map());
    const best = pat.get(t.params.pattern);
    for (const r of t.rows) if (r.bw !== null && (!best.has(r.bytes) || best.get(r.bytes).bw < r.bw)) best.set(r.bytes, {bw: r.bw, method: t.params.method});
  }
  for (const [fam, pats] of families)
    plots.append(plot({id: `beff ${run.id} ${fam}`, title: `${fam} patterns: bandwidth over message length`, xAxis: 'bytes', xTitle: AXES.bytes,
                       yTitle: `bandwidth [${BW}]`, yUnit: BW,
                       series: [...pats].map(([p, best]) => ({key: `beff|${run.id}|${p}`, name: p,
                         points: [...best].map(([b, v]) => ({x: b, y: v.bw, tip: `${fmtBytes(b)}: ${fmt(v.bw)} ${BW} (${v.method})`}))}))}));
  card.append(plots);
  return card;
}

// b_eff_io: one card per run: for each access method, each pattern type's bandwidth over the
// pattern's disk chunk (one point per pattern), with the run's b_eff_io.
function beffIoCard(run) {
  const card = el('section', {class: 'card', 'data-benchmark': `b_eff_io run ${run.id}`, 'data-card': 'beffio'});
  const headline = run.summary.find(s => s.name === 'b_eff_io');
  card.append(el('h2', {}, `b_eff_io \u00b7 ${runName(run)}` + (headline ? ` \u00b7 b_eff_io = ${fmt(headline.value)} ${headline.unit}` : '')));
  const methods = new Map();
  for (const t of run.tables) {
    if (!isBeffIo(run, t)) continue;
    const m = t.params.access_method;
    if (!methods.has(m)) methods.set(m, new Map());
    const types = methods.get(m);
    const type = 'type ' + t.params.pattern_type;
    if (!types.has(type)) types.set(type, []);
    for (const r of t.rows) if (r.bw !== null && r.bytes > 0)
      types.get(type).push({x: r.bytes, y: r.bw, tip: `pattern ${t.params.pattern}, chunk ${fmtBytes(r.bytes)}: ${fmt(r.bw)} ${BW}`});
  }
  const plots = el('div', {class: 'plots'});
  for (const [m, types] of methods)
    plots.append(plot({id: `beffio ${run.id} ${m}`, title: `${m}: bandwidth per pattern type`, xAxis: 'bytes', xTitle: 'disk chunk [bytes]',
                       yTitle: `bandwidth [${BW}]`, yUnit: BW,
                       series: [...types].sort((a, b) => a[0].localeCompare(b[0])).map(([type, points]) => ({key: `beffio|${run.id}|${m}|${type}`, name: type, points}))}));
  card.append(plots);
  return card;
}

// A heat map for tables whose rows carry values named `row` and `col` (the cluster map of
// issue 19 fills such a table): one cell per row, coloured by the reported time.
function heatmapCard(run, t) {
  const card = el('section', {class: 'card', 'data-benchmark': cardKey(t) + ` run ${run.id}`, 'data-card': 'heatmap'});
  card.append(el('h2', {}, `${cardKey(t)} \u00b7 ${runName(run)}`));
  const box = el('div', {class: 'plot', 'data-plot': `heatmap ${run.id} ${t.key}`});
  const drawing = el('div', {class: 'drawing'});
  box.append(drawing);
  box.draw = () => {
    const cells = t.rows.map(r => ({row: String(r.values.row[0]), col: String(r.values.col[0]), v: r.t_us, tip: `${r.values.row[0]} \u2192 ${r.values.col[0]}: ${fmt(r.t_us)} us`}));
    const width = Math.max(260, Math.min(drawing.clientWidth, 640));
    const spec = {width, height: width * 0.8, padding: 4, autosize: {type: 'fit', contains: 'padding'}, data: [{name: 'cells', values: cells}],
      scales: [{name: 'x', type: 'band', domain: {data: 'cells', field: 'col', sort: true}, range: 'width'},
               {name: 'y', type: 'band', domain: {data: 'cells', field: 'row', sort: true}, range: 'height'},
               {name: 'c', type: 'log', domain: {data: 'cells', field: 'v'}, range: {scheme: 'viridis'}}],
      axes: [{orient: 'bottom', scale: 'x', title: 'to', labelOverlap: true}, {orient: 'left', scale: 'y', title: 'from', labelOverlap: true}],
      legends: [{fill: 'c', title: 'time [us]', orient: 'right'}],
      marks: [{type: 'rect', name: 'cell', from: {data: 'cells'}, encode: {update: {x: {scale: 'x', field: 'col'}, width: {scale: 'x', band: 1}, y: {scale: 'y', field: 'row'},
               height: {scale: 'y', band: 1}, fill: {scale: 'c', field: 'v'}, tooltip: {field: 'tip'}}}}]};
    const view = new vega.View(vega.parse(spec), {renderer: 'svg', container: drawing, hover: true});
    views.push(view);
    view.runAsync().catch(e => console.error(e));
  };
  card.append(box);
  return card;
}

// mpiscope map: one table per pair of ranks (parameters rank_a, rank_b, host_a, host_b). One card
// per run with two heat maps, latency and bandwidth, rank by rank in rank order with each rank's
// host; beyond 64 ranks host by host (the median over the rank pairs of two hosts), since a
// 1,024-rank matrix has a million cells. Flagged pairs (their rows' note) are outlined.
// A map that was interrupted has only the sweeps' tables (map_sweep), recorded as measured: they
// are drawn instead (the median over a pair's sweeps, as the pair tables hold it).
function isMapPair(run, t) {
  if (run.suite !== 'map' || t.params.rank_a === undefined) return false;
  return t.name === 'map' || (t.name === 'map_sweep' && !run.tables.some(u => u.name === 'map'));
}
function isMapSweep(run, t) { return run.suite === 'map' && t.name === 'map_sweep'; }
function mapCard(run) {
  const pairs = run.tables.filter(t => isMapPair(run, t));
  const hostOf = new Map();
  for (const t of pairs) { hostOf.set(+t.params.rank_a, t.params.host_a); hostOf.set(+t.params.rank_b, t.params.host_b); }
  const byHost = hostOf.size > 64;
  const ranks = [...hostOf.keys()].sort((a, b) => a - b);
  const labelOf = r => byHost ? hostOf.get(r) : `${r} (${hostOf.get(r)})`;
  const order = [...new Set(ranks.map(labelOf))];
  const card = el('section', {class: 'card', 'data-benchmark': `map run ${run.id}`, 'data-card': 'map'});
  card.append(el('h2', {}, `map \u00b7 ${runName(run)}`));
  const hosts = new Set(hostOf.values()).size;
  const pairCount = new Set(pairs.map(t => t.params.rank_a + '-' + t.params.rank_b)).size;
  const sweepsOnly = pairs.some(t => t.name === 'map_sweep');
  card.append(el('p', {class: 'muted'}, `${pairCount} pairs of ${hostOf.size} ranks on ${hosts} host${hosts === 1 ? '' : 's'}` +
    (sweepsOnly ? ` (the map did not finish: drawn from the ${pairs.length} pair measurements of its sweeps recorded before it stopped, nothing flagged)` : '') +
    (byHost ? '; host by host (median over their rank pairs)' : '; rank by rank') +
    '. Latency: 10th percentile round trip / 2; bandwidth from the same of the large message; outlined: flagged slow.'));
  const plots = el('div', {class: 'plots'});
  const figures = [{id: 'latency', title: 'latency [us]', pick: t => t.rows.find(r => r.values.latency), value: r => r.values.latency[0], scheme: 'viridis', reverse: true},
                   {id: 'bandwidth', title: `bandwidth [${BW}]`, pick: t => t.rows.find(r => r.values.bandwidth), value: r => r.values.bandwidth[0], scheme: 'viridis', reverse: false}];
  for (const f of figures) {
    const cells = new Map();
    for (const t of pairs) {
      const r = f.pick(t);
      if (!r) continue;
      const a = labelOf(+t.params.rank_a), b = labelOf(+t.params.rank_b);
      for (const [x, y] of [[a, b], [b, a]]) {
        const k = x + '\u0000' + y;
        if (!cells.has(k)) cells.set(k, {row: x, col: y, vs: [], flag: ''});
        cells.get(k).vs.push(f.value(r));
        if (r.note) cells.get(k).flag = r.note;
      }
    }
    const values = [...cells.values()].map(c => {
      const s = [...c.vs].sort((p, q) => p - q);
      const v = s[Math.floor((s.length - 1) / 2)];
      return {row: c.row, col: c.col, v, flag: c.flag ? 1 : 0, tip: `${c.row} \u2194 ${c.col}: ${fmt(v)} ${f.id === 'latency' ? 'us' : BW}${c.flag ? ' \u2014 ' + c.flag : ''}`};
    });
    const box = el('div', {class: 'plot', 'data-plot': `map ${f.id} ${run.id}`});
    box.append(el('h3', {}, f.title));
    const drawing = el('div', {class: 'drawing'});
    box.append(drawing);
    box.draw = () => {
      const width = Math.max(260, Math.min(drawing.clientWidth, 560));
      const spec = {width, height: width, padding: 4, autosize: {type: 'fit', contains: 'padding'}, data: [{name: 'cells', values}],
        scales: [{name: 'x', type: 'band', domain: order, range: 'width'}, {name: 'y', type: 'band', domain: order, range: 'height'},
                 {name: 'c', type: 'log', domain: {data: 'cells', field: 'v'}, range: {scheme: f.scheme}, reverse: f.reverse}],
        axes: [{orient: 'bottom', scale: 'x', labelAngle: -45, labelAlign: 'right', labelOverlap: true, labelLimit: 90},
               {orient: 'left', scale: 'y', labelOverlap: true, labelLimit: 90}],
        legends: [{fill: 'c', title: f.title, orient: 'right'}],
        marks: [{type: 'rect', name: 'cell', from: {data: 'cells'}, encode: {update: {x: {scale: 'x', field: 'col'}, width: {scale: 'x', band: 1}, y: {scale: 'y', field: 'row'},
                 height: {scale: 'y', band: 1}, fill: {scale: 'c', field: 'v'}, stroke: {signal: "datum.flag ? '#d62728' : null"}, strokeWidth: {value: 2}, tooltip: {field: 'tip'}}}}]};
      const view = new vega.View(vega.parse(spec), {renderer: 'svg', container: drawing, hover: true});
      views.push(view);
      view.runAsync().catch(e => console.error(e));
    };
    plots.append(box);
  }
  card.append(plots);
  const notes = run.meta.filter(([k]) => k === 'note').map(([, v]) => v);
  if (notes.length) card.append(el('ul', {class: 'notes'}, ...notes.map(n => el('li', {}, n))));
  return card;
}

// compare's verdicts for the sides given with --compare: B/A per length, marked where beyond
// the noise, crossed where the data cannot tell.
function comparisonCard(c) {
  const card = el('section', {class: 'card', id: 'comparison', 'data-benchmark': 'comparison'});
  card.append(el('h2', {}, `Comparison: runs ${c.b.join(',')} (B) against runs ${c.a.join(',')} (A)`));
  card.append(el('p', {class: 'muted'}, 'B/A of the reported time (median for accurate runs, else t_max or t_avg; the median over a side\'s runs). Filled markers: beyond the noise (compare\'s rank test over several runs per side, else a change beyond the most one launch moves from the next); hollow: within it; diagonal crosses (x): cannot tell (the runs spread too widely for their number, too few runs, or a figure that did not converge).'));
  const byTable = new Map();
  for (const r of c.rows) { if (!byTable.has(r.table)) byTable.set(r.table, []); byTable.get(r.table).push(r); }
  const series = [...byTable].map(([t, rows], i) => ({key: 'cmp|' + t, name: t, run: null, variant: 0,
    points: rows.map(r => ({x: r.sized ? Math.max(r.bytes, 1) : i + 1, y: r.ratio, hollow: !r.beyond, cross: !r.conclusive,
      tip: `${r.sized ? fmtBytes(r.bytes) : ''} B/A ${fmt(r.ratio)}: ${r.verdict} (${r.basis}${r.p !== null ? ', p=' + r.p.toFixed(4) : ''}${r.conclusive ? '' : '; ' + r.why_not_conclusive})`}))}));
  const plots = el('div', {class: 'plots'});
  plots.append(plot({id: 'comparison', title: 'B/A over message size (1 = no change)', xAxis: 'bytes', xTitle: AXES.bytes, yTitle: 'B/A', yUnit: '', series, height: 300}));
  card.append(plots);
  if (c.rule_differences && c.rule_differences.length)
    card.append(el('ul', {class: 'notes'}, el('li', {}, 'Not timed under the same rules; the rows these rules govern differ by rule as well as by any change of the system:'),
      ...c.rule_differences.map(d => el('li', {}, d))));
  if (c.provenance_differences && c.provenance_differences.length)
    card.append(el('ul', {class: 'notes'}, el('li', {}, 'MPI was configured or placed differently; rule it out before the machine:'),
      ...c.provenance_differences.map(d => el('li', {}, d))));
  if (c.switch_differences && c.switch_differences.length)
    card.append(el('ul', {class: 'notes', 'data-switch-differences': String(c.switch_differences.length)},
      el('li', {}, 'The curves\' protocol switches differ (their models, drawn dashed on each benchmark\'s time plot):'),
      ...c.switch_differences.map(d => el('li', {}, d))));
  const det = el('details', {class: 'numbers'}, el('summary', {}, `${c.rows.length} rows; ${c.rows.filter(r => r.beyond).length} beyond the noise; ${c.inconclusive} cannot tell`));
  const t = el('table');
  t.append(el('tr', {}, ...['table', 'bytes', 'A [us]', 'B [us]', 'B/A', 'bounds', 'noise', 'verdict'].map(h => el('th', {class: 'n'}, h))));
  const bounds = r => r.ratio_low === null || r.ratio_high === null ? '-' : `${fmt(r.ratio_low)}-${fmt(r.ratio_high)}`;
  for (const r of c.rows) t.append(el('tr', {class: r.conclusive ? (r.beyond ? 'beyond' : '') : 'inconclusive', title: r.why_not_conclusive}, ...[r.table, String(r.bytes) + (r.argument !== null ? ` (${r.argument})` : ''), fmt(r.a_us), fmt(r.b_us), fmt(r.ratio), bounds(r), r.basis + (r.p !== null ? ` p=${r.p.toFixed(4)}` : ''), r.verdict].map(x => el('td', {class: 'n'}, x))));
  det.append(t);
  card.append(det);
  return card;
}

// ---- the history view -------------------------------------------------------------------

// Every run of the page over time (html_report.cpp's history_view_data): one table and length at
// a time, its figure over the date, the run or the MPI library, and the changes 'mpiscope history'
// finds there, each with what else changed with it. Picked by table and length, or by clicking a
// change in the list of all of them.
const historyState = {series: null, x: 'date'};
function historyPoints(s) {
  const runs = DATA.history.runs;
  let at = 0;
  return s.steps.map((step, i) => { at += step; const [id, date, label, library] = runs[at]; return {i, at, id, date, label, library, us: s.us[i]}; });
}
function historyName(s) { return s.table + (s.bytes !== null ? ', ' + fmtBytes(s.bytes) : '') + (s.argument !== null ? ', ' + s.argument : ''); }
function changeText(s, c, points) {
  const before = points[c.at - 1], after = points[c.at];
  const pct = (c.ratio - 1) * 100;
  const bounds = c.ratio_low !== null && c.ratio_high !== null ? ` (95 % bounds ${c.ratio_low.toFixed(3)} to ${c.ratio_high.toFixed(3)})` : '';
  return `${Math.abs(pct).toFixed(1)} % ${pct >= 0 ? 'slower' : 'faster'} between run ${before.id} (${before.date}) and run ${after.id} (${after.date}), after/before ${c.ratio.toFixed(3)}${bounds}` +
    (c.changed_with_it.length ? '; changed with it: ' + c.changed_with_it.join('; ') : '; nothing recorded changed with it');
}
// A series' possible changes of at least the minimum change (history's "cannot tell").
function possibleChanges(s) {
  return (s.possible || []).filter(c => c.reported);
}
function possibleText(s, c, points) {
  const before = points[c.at - 1], after = points[c.at];
  const pct = (c.ratio - 1) * 100;
  return `possible change, cannot tell: ${Math.abs(pct).toFixed(1)} % ${pct >= 0 ? 'slower' : 'faster'} between run ${before.id} (${before.date}) and run ${after.id} (${after.date}); ` +
    `its test's p ${c.p_value.toPrecision(3)} is above the level ${DATA.history.series_level.toPrecision(3)}, its medians ${c.spreads_apart === null ? '?' : c.spreads_apart.toPrecision(3)} spreads apart`;
}
function historySpec(s, points, width) {
  const x = historyState.x;
  const libraries = [...new Set(points.map(p => p.library || 'unknown'))];
  const xOfPoint = p => x === 'date' ? Date.parse(p.date.replace(' ', 'T') + ':00Z') : x === 'run' ? p.at + 1 : p.library || 'unknown';
  const values = points.map(p => ({x: xOfPoint(p), y: p.us, lib: p.library || 'unknown', jitter: ((p.at * 7919) % 97) / 97 - 0.5,
    tip: `run ${p.id} \u00b7 ${p.date}${p.label ? ' \u00b7 ' + p.label : ''}${p.library ? ' \u00b7 ' + p.library : ''}\n${fmt(p.us)} us`}));
  // A change sits between the last run before it and the first after; the segments' medians
  // (of the values drawn) as lines over their runs.
  const rules = x === 'library' ? [] : s.changes.map(c => {
    const a = xOfPoint(points[c.at - 1]), b = xOfPoint(points[c.at]);
    return {x: (a + b) / 2, reported: c.reported, tip: changeText(s, c, points)};
  });
  // Possible changes (history's "cannot tell": a test short of the level) in orange.
  const maybes = x === 'library' ? [] : possibleChanges(s).map(c => {
    const a = xOfPoint(points[c.at - 1]), b = xOfPoint(points[c.at]);
    return {x: (a + b) / 2, tip: possibleText(s, c, points)};
  });
  const cuts = [0, ...s.changes.map(c => c.at), points.length];
  const medians = x === 'library' ? [] : cuts.slice(0, -1).map((from, k) => {
    const part = points.slice(from, cuts[k + 1]).map(p => p.us).sort((a, b) => a - b);
    return {x: xOfPoint(points[from]), x2: xOfPoint(points[cuts[k + 1] - 1]), y: median(part)};
  });
  const ys = values.map(v => v.y).filter(v => v > 0);
  return {
    width, height: 280, padding: 4, autosize: {type: 'fit-x', contains: 'padding'},
    title: {text: historyName(s), fontSize: 13},
    data: [{name: 'points', values: values.filter(v => v.y > 0 && (x === 'library' || Number.isFinite(v.x)))}, {name: 'rules', values: rules}, {name: 'maybes', values: maybes}, {name: 'medians', values: medians}],
    signals: [{name: 'ydom', value: extent(ys, 1.3)}],
    scales: [
      x === 'library' ? {name: 'x', type: 'band', domain: libraries, range: 'width', padding: 0.2}
                      : {name: 'x', type: x === 'date' ? 'utc' : 'linear', domain: {data: 'points', field: 'x'}, range: 'width', zero: false, nice: false},
      {name: 'y', type: 'log', base: 10, domain: {signal: 'ydom'}, range: 'height', nice: false, zero: false},
      {name: 'color', type: 'ordinal', domain: libraries, range: PALETTE},
    ],
    axes: [
      {orient: 'bottom', scale: 'x', title: x === 'date' ? 'date (UTC)' : x === 'run' ? 'run, in date order' : 'MPI library', labelOverlap: true, grid: x !== 'library', gridOpacity: 0.25},
      {orient: 'left', scale: 'y', title: 'time [microseconds]', grid: true, tickCount: 10, encode: {labels: {update: {text: {signal: yLabelExpr()}}}}},
    ],
    legends: libraries.length > 1 ? [{fill: 'color', title: 'MPI library', orient: 'top', direction: 'horizontal', symbolType: 'circle'}] : [],
    marks: [
      {type: 'rule', name: 'segment-median', from: {data: 'medians'}, interactive: false,
       encode: {update: {x: {scale: 'x', field: 'x'}, x2: {scale: 'x', field: 'x2'}, y: {scale: 'y', field: 'y'}, stroke: {value: '#444'}, strokeWidth: {value: 1.5}, opacity: {value: 0.7}}}},
      {type: 'symbol', name: 'marker', from: {data: 'points'},
       encode: {update: {x: x === 'library' ? {scale: 'x', field: 'x', band: {signal: '0.5 + 0.8 * datum.jitter'}} : {scale: 'x', field: 'x'}, y: {scale: 'y', field: 'y'},
                         fill: {scale: 'color', field: 'lib'}, size: {value: values.length > 500 ? 12 : 30}, opacity: {value: 0.8}, tooltip: {field: 'tip'}}}},
      {type: 'rule', name: 'change', from: {data: 'rules'},
       encode: {update: {x: {scale: 'x', field: 'x'}, y: {value: 0}, y2: {signal: 'height'}, stroke: {value: '#d62728'},
                         strokeDash: {signal: "datum.reported ? [6, 3] : [2, 3]"}, strokeWidth: {value: 2}, tooltip: {field: 'tip'}}}},
      {type: 'rule', name: 'possible-change', from: {data: 'maybes'},
       encode: {update: {x: {scale: 'x', field: 'x'}, y: {value: 0}, y2: {signal: 'height'}, stroke: {value: '#ff7f0e'},
                         strokeDash: {value: [2, 3]}, strokeWidth: {value: 2}, tooltip: {field: 'tip'}}}},
    ],
  };
}
function historyCard() {
  const H = DATA.history;
  if (!H || !H.series.length) return null;
  const card = el('section', {class: 'card', id: 'history', 'data-benchmark': 'history', 'data-card': 'history'});
  const first = H.runs[0], last = H.runs[H.runs.length - 1];
  card.append(el('h2', {}, `History: ${H.runs.length} runs from ${first[1]} to ${last[1]}`));
  const older = H.runs.length - H.detail_runs;
  card.append(el('p', {class: 'muted'}, `Each benchmark's reported time (the median in accurate mode, else t_max or t_avg) per run, to 4 digits; red lines: the changes 'mpiscope history' finds (binary segmentation with a permutation test, ${H.tested} series sharing a level of ${H.level}; dashed: at least ${H.min_change_percent} %, dotted: smaller), orange dotted lines: possible changes it cannot tell (a test short of the level that a flat series would rarely give), grey lines: the medians between them.` +
    (older > 0 ? ` The ${older} runs older than the newest ${H.detail_runs} are drawn here only (report --detail).` : '')));
  // Every reported change; those of one table between the same two runs in one line (a new
  // library moves every length of a collective at once).
  const all = [];
  H.series.forEach((s, k) => {
    if (!s.changes.some(c => c.reported)) return;
    const pts = historyPoints(s);
    for (const c of s.changes) if (c.reported) all.push({k, s, c, before: pts[c.at - 1], after: pts[c.at]});
  });
  const groups = new Map();
  for (const x of all) {
    const key = [x.s.table, x.before.id, x.after.id, x.c.ratio >= 1].join('|');
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(x);
  }
  const lines = [...groups.values()].sort((a, b) => (b[0].after.date || '').localeCompare(a[0].after.date || ''));
  if (historyState.series === null) historyState.series = lines.length ? lines[0][0].k : 0;
  const choose = k => { historyState.series = k; render(); document.getElementById('history').scrollIntoView(); };
  const lineOf = g => {
    const {s, c, before, after} = g[0];
    if (g.length === 1) return el('li', {}, el('a', {href: '#', 'data-series': String(g[0].k), onclick: ev => { ev.preventDefault(); choose(g[0].k); }}, historyName(s)), ': ' + changeText(s, c, historyPoints(s)));
    const pcts = g.map(x => Math.abs(x.c.ratio - 1) * 100), sizes = g.map(x => x.s.bytes).filter(b => b !== null);
    const withIt = [...new Set(g.flatMap(x => x.c.changed_with_it))];
    const item = el('li', {}, el('a', {href: '#', 'data-series': String(g[0].k), onclick: ev => { ev.preventDefault(); choose(g[0].k); }}, s.table),
      `: ${g.length} lengths${sizes.length ? ` (${fmtBytes(Math.min(...sizes))} to ${fmtBytes(Math.max(...sizes))})` : ''}, ${Math.min(...pcts).toFixed(1)} to ${Math.max(...pcts).toFixed(1)} % ${c.ratio >= 1 ? 'slower' : 'faster'} between run ${before.id} (${before.date}) and run ${after.id} (${after.date})` +
      (withIt.length ? '; changed with it: ' + withIt.join('; ') : '; nothing recorded changed with it') + '; each: ');
    g.forEach((x, i) => item.append(i ? ', ' : '', el('a', {href: '#', 'data-series': String(x.k), onclick: ev => { ev.preventDefault(); choose(x.k); }}, x.s.bytes !== null ? fmtBytes(x.s.bytes) : historyName(x.s))));
    return item;
  };
  const list = el('ul', {class: 'notes', 'data-changes': String(all.length)},
    el('li', {}, all.length ? `${all.length} change${all.length === 1 ? '' : 's'} of at least ${H.min_change_percent} %, those of a table between the same two runs on one line, newest first:` : H.series.some(s => possibleChanges(s).length) ? 'No change reaches the level in any series.' : 'No change found in any series.'));
  lines.slice(0, 12).forEach(g => list.append(lineOf(g)));
  if (lines.length > 12) {
    const more = el('details', {}, el('summary', {}, `${lines.length - 12} more`));
    more.append(el('ul', {class: 'notes'}, ...lines.slice(12).map(lineOf)));
    list.append(el('li', {}, more));
  }
  card.append(list);
  const maybes = H.series.flatMap((s, k) => possibleChanges(s).map(c => ({k, s, c})));
  if (maybes.length) {
    const choosePossible = k => ev => { ev.preventDefault(); choose(k); };
    card.append(el('ul', {class: 'notes', 'data-possible-changes': String(maybes.length)},
      el('li', {}, `Cannot tell: ${maybes.length} possible change${maybes.length === 1 ? '' : 's'} of at least ${H.min_change_percent} %, whose tests fell short of the level:`),
      ...maybes.slice(0, 12).map(m => el('li', {}, el('a', {href: '#', 'data-series': String(m.k), onclick: choosePossible(m.k)}, historyName(m.s)), ': ' + possibleText(m.s, m.c, historyPoints(m.s))))));
  }
  const s = H.series[historyState.series];
  const tables = [...new Set(H.series.map(x => x.table))];
  const pickTable = el('select', {'aria-label': 'history: table'}, ...tables.map(t => el('option', {value: t}, t)));
  pickTable.value = s.table;
  pickTable.addEventListener('change', () => choose(H.series.findIndex(x => x.table === pickTable.value)));
  const lengths = H.series.map((x, k) => [x, k]).filter(([x]) => x.table === s.table);
  const pickLength = el('select', {'aria-label': 'history: length'}, ...lengths.map(([x, k]) => el('option', {value: String(k)}, x.bytes !== null ? fmtBytes(x.bytes) : String(x.argument ?? '-'))));
  pickLength.value = String(historyState.series);
  pickLength.addEventListener('change', () => choose(Number(pickLength.value)));
  const pickX = el('select', {'aria-label': 'history: x axis'}, ...[['date', 'over the date'], ['run', 'over the runs'], ['library', 'by MPI library']].map(([v, t]) => el('option', {value: v}, t)));
  pickX.value = historyState.x;
  pickX.addEventListener('change', () => { historyState.x = pickX.value; render(); });
  card.append(el('div', {class: 'muted'}, pickTable, ' ', pickLength, ' ', pickX));
  const points = historyPoints(s);
  // Runs whose date is unknown ("-": an import of a file that prints none) have no place on a
  // date axis: such a series is drawn over the runs.
  if (historyState.x === 'date' && points.some(p => !/^\d{4}-\d\d-\d\d \d\d:\d\d$/.test(p.date || ''))) {
    historyState.x = 'run';
    pickX.value = 'run';
  }
  const box = el('div', {class: 'plot', 'data-plot': 'history', 'data-points': String(points.length), 'data-series-changes': String(s.changes.length)});
  const drawing = el('div', {class: 'drawing'});
  box.append(drawing);
  box.draw = () => {
    const view = new vega.View(vega.parse(historySpec(s, points, Math.max(260, drawing.clientWidth))), {renderer: 'svg', container: drawing, hover: true});
    views.push(view);
    view.runAsync().catch(e => console.error(e));
  };
  const plots = el('div', {class: 'plots'});
  plots.append(box);
  card.append(plots);
  const notes = [];
  if (s.cannot_tell) notes.push('cannot tell: ' + s.cannot_tell);
  if (s.unconverged) notes.push(`${s.unconverged} point(s) did not converge (drawn as measured)`);
  if (s.left_out) notes.push(`${s.left_out} run(s) left out: no figure (not physical, or not converged without a range)`);
  for (const c of s.changes) notes.push((c.reported ? '' : `(below ${H.min_change_percent} %) `) + changeText(s, c, points));
  for (const c of possibleChanges(s)) notes.push(possibleText(s, c, points));
  if (notes.length) card.append(el('ul', {class: 'notes'}, ...notes.map(n => el('li', {}, n))));
  return card;
}

// ---- the page ---------------------------------------------------------------------------

function renderSide() {
  const side = document.getElementById('side');
  side.replaceChildren();
  const picker = el('div', {class: 'card', id: 'run-picker'}, el('h2', {}, `Runs (${state.runs.size} of ${DATA.runs.length} shown)`));
  const filter = el('input', {type: 'search', placeholder: 'filter: suite, library, label, date ...', 'aria-label': 'filter the runs', value: state.filter});
  const matching = () => DATA.runs.filter(r => !state.filter || runName(r).toLowerCase().includes(state.filter.toLowerCase()) || r.suite.includes(state.filter));
  filter.addEventListener('change', () => { state.filter = filter.value; render(); });
  const all = el('button', {type: 'button', onclick: () => { matching().forEach(r => state.runs.add(r.id)); render(); }}, 'show these');
  const none = el('button', {type: 'button', onclick: () => { matching().forEach(r => state.runs.delete(r.id)); render(); }}, 'hide these');
  picker.append(filter, el('div', {class: 'buttons'}, all, ' ', none));
  if (DATA.history && DATA.history.runs.length > DATA.runs.length)
    picker.append(el('p', {class: 'muted'}, `${DATA.history.runs.length - DATA.runs.length} older runs are in the history view only (report --detail).`));
  // Grouped by label, then by suite; newest first in each group.
  const groups = new Map();
  for (const r of matching().slice().reverse()) {
    const g = (r.label ? r.label + ' \u00b7 ' : '') + r.suite;
    if (!groups.has(g)) groups.set(g, []);
    groups.get(g).push(r);
  }
  const list = el('div', {class: 'runlist'});
  for (const [g, runs] of groups) {
    list.append(el('div', {class: 'group'}, `${g} (${runs.length})`));
    for (const r of runs) {
      const box = el('input', {type: 'checkbox', 'data-run': r.id});
      box.checked = state.runs.has(r.id);
      box.addEventListener('change', () => { if (box.checked) state.runs.add(r.id); else state.runs.delete(r.id); render(); });
      const meta = el('details', {}, el('summary', {}, runName(r) + (r.complete ? '' : ' (incomplete)')));
      const t = el('table');
      for (const [k, v] of r.meta) t.append(el('tr', {}, el('th', {}, k), el('td', {}, v)));
      meta.append(t);
      const s = styleSeries([{run: r}])[0];
      list.append(el('label', {class: 'run'}, box, swatch(s), meta));
    }
  }
  picker.append(list);
  side.append(picker);
}

function renderSummary(target) {
  // b_eff's figures are in its own cards.
  const rows = selectedRuns().filter(r => r.suite !== 'beff').flatMap(r => r.summary.map(s => [r, s]));
  if (!rows.length) return;
  const card = el('section', {class: 'card', id: 'summary'}, el('h2', {}, 'Summary figures'));
  const table = list => {
    const t = el('table');
    t.append(el('tr', {}, el('th', {}, 'run'), el('th', {}, 'figure'), el('th', {class: 'n'}, 'value'), el('th', {}, 'unit')));
    for (const [r, s] of list) t.append(el('tr', {}, el('td', {}, runName(r)), el('td', {}, s.name), el('td', {class: 'n'}, fmt(s.value)), el('td', {}, s.unit)));
    return t;
  };
  const headline = rows.filter(([, s]) => !s.name.includes('/'));
  const detail = rows.filter(([, s]) => s.name.includes('/'));
  card.append(table(headline.length ? headline : detail));
  if (headline.length && detail.length) {
    const more = el('details');
    more.append(el('summary', {}, `${detail.length} more figures (per pattern, type or method)`), table(detail));
    card.append(more);
  }
  target.append(card);
}

// The machine on one screen (src/report/summary.cpp, as 'mpiscope summary' prints it): each
// figure's value links to the card of the table or run it comes from.
function machineCard() {
  const m = DATA.machine_summary;
  if (!m || !m.figures.length) return null;
  const card = el('section', {class: 'card', id: 'machine'},
    el('h2', {}, `This machine, from ${m.runs} run${m.runs === 1 ? '' : 's'} (MB/s = 10^6 bytes per second)`));
  const t = el('table');
  for (const f of m.figures) {
    const run = DATA.runs.find(r => r.id === f.run);
    const table = run && run.tables.find(x => x.key === f.table);
    const key = table ? cardKey(table, run) : run && run.suite === 'beff' ? `b_eff run ${run.id}` : null;
    const value = key ? el('a', {href: '#', 'data-card': key, onclick: ev => {
      ev.preventDefault();
      state.runs.add(f.run);
      render();
      const target = [...document.querySelectorAll('section.card')].find(c => c.dataset.benchmark === key);
      if (target) target.scrollIntoView();
    }}, f.value) : f.value;
    t.append(el('tr', {'data-figure': f.name}, el('th', {}, f.name), el('td', {}, value), el('td', {class: 'muted'}, f.how)));
  }
  card.append(t);
  return card;
}

// A guidelines run (docs/guidelines.md): each guideline's factor, the collective's median over
// its mock-up's, over the message size; filled markers violated, hollow holds, diagonal crosses (x) cannot tell.
function guidelinesCard(run) {
  const g = run.guidelines;
  const card = el('section', {class: 'card', 'data-benchmark': `guidelines run ${run.id}`, 'data-card': 'guidelines'});
  card.append(el('h2', {}, `Performance guidelines · ${runName(run)}`));
  card.append(el('p', {class: 'muted'}, `Collective / mock-up of the medians; violated (filled) where the collective's 95 % interval lies above the mock-up's by more than ${g.tolerance_percent} %, holds (hollow) where its interval shows it is not, diagonal cross (x): cannot tell.`));
  // A colour per guideline (as the comparison's tables), not the run's one colour.
  const series = g.list.map(x => ({key: `guideline|${run.id}|${x.name}`, name: x.name, run: null, variant: 0,
    points: x.points.filter(p => p.factor !== null).map(p => ({x: Math.max(p.bytes, 1), y: p.factor, hollow: p.verdict === 'holds', cross: p.verdict === 'cannot tell',
      tip: `${fmtBytes(p.bytes)}: ${fmt(p.collective_us)} us against ${fmt(p.mock_up_us)} us, factor ${fmt(p.factor)}: ${p.verdict}${p.why ? ' (' + p.why + ')' : ''}`}))}));
  const plots = el('div', {class: 'plots'});
  plots.append(plot({id: `guidelines ${run.id}`, title: 'collective / mock-up over message size (1 = alike)', xAxis: 'bytes', xTitle: AXES.bytes, yTitle: 'factor', yUnit: '', series}));
  card.append(plots);
  const violated = g.list.flatMap(x => x.points.filter(p => p.verdict === 'VIOLATED').map(p => `${x.name} at ${fmtBytes(p.bytes)}: factor ${fmt(p.factor)}`));
  card.append(el('ul', {class: 'notes', 'data-violations': String(violated.length)},
    el('li', {}, violated.length ? `${violated.length} violated:` : 'No guideline violated.'), ...violated.map(v => el('li', {}, v))));
  return card;
}

// IMB-P2P: one card per run setting its patterns side by side over the messages each rank sends
// in one repetition, each to a neighbour of its own (html_report.cpp asks the suite): PingPong,
// PingPing, Corandom and SendRecv_Replace 1, Stencil2D 4, Stencil3D 6; Unirandom and Birandom
// draw their partners at random and have none. At one message size: how the time per message
// and the message rate change as each rank has more messages out at once.
function p2pCard(run) {
  const tables = run.tables.filter(t => t.sends_per_rank > 0);
  if (!tables.length) return null;
  const key = `imb-p2p run ${run.id}`;
  const card = el('section', {class: 'card', 'data-benchmark': key, 'data-card': 'p2p'});
  card.append(el('h2', {}, `IMB-P2P patterns over the messages each rank sends \u00b7 ${runName(run)}`));
  card.append(el('p', {class: 'muted'}, 'Messages each rank sends in one repetition, each to a neighbour of its own ' +
    '(PingPong, PingPing, Corandom and SendRecv_Replace 1; Stencil2D 4 and Stencil3D 6: a stencil\'s neighbours; Unirandom and Birandom draw their partners at random and are left out). ' +
    'Time per message: IMB-P2P\'s t[usec], the ranks\' summed time over the messages they moved (PingPong\'s half a round trip); message rate: messages over the slowest rank\'s time.'));
  const lengths = [...new Set(tables.flatMap(t => t.rows.map(r => r.bytes)))].sort((a, b) => a - b);
  const chosen = lengths.includes(state.length[key]) ? state.length[key] : lengths[lengths.length - 1];
  const name = t => t.name + (t.params.grid ? ` (${t.params.grid})` : '');
  const series = (get, unit) => tables.map(t => {
    const row = t.rows.find(r => r.bytes === chosen);
    const y = row ? get(row) : null;
    return {key: `p2p|${run.id}|${name(t)}`, name: name(t), run: null, variant: 0,
            points: y === null || y === undefined ? [] : [{x: t.sends_per_rank, y,
              tip: `${t.sends_per_rank} message${t.sends_per_rank === 1 ? '' : 's'} sent per rank, ${fmtBytes(chosen)}: ${fmt(y)} ${unit}, ${row.repetitions} repetitions`}]};
  });
  const plots = el('div', {class: 'plots'});
  const time = plot({id: `${key} time`, title: `time per message over the messages each rank sends, at ${fmtBytes(chosen)}`, xAxis: 'sends', xTitle: 'messages each rank sends per repetition',
                     yTitle: 'time per message [microseconds]', yUnit: 'microseconds', series: series(r => r.t_us, 'microseconds')});
  const pick = el('select', {'aria-label': 'message size of the IMB-P2P pattern plots'});
  for (const b of lengths) { const o = el('option', {value: b}, fmtBytes(b)); if (b === chosen) o.selected = true; pick.append(o); }
  pick.addEventListener('change', () => { state.length[key] = Number(pick.value); render(); });
  time.querySelector('.bar').append(el('label', {class: 'muted'}, 'at ', pick));
  plots.append(time);
  if (tables.some(t => t.rows.some(r => r.values.message_rate)))
    plots.append(plot({id: `${key} rate`, title: `message rate over the messages each rank sends, at ${fmtBytes(chosen)}`, xAxis: 'sends', xTitle: 'messages each rank sends per repetition',
                       yTitle: 'message rate [messages/s]', yUnit: 'messages/s',
                       series: series(r => (r.values.message_rate ? r.values.message_rate[0] : null), 'messages/s')}));
  card.append(plots);
  return card;
}

// A tune run (docs/tune.md): a card per collective, each algorithm's time (the median over the
// rounds of its medians) over the message size; the library's own choice a first in the legend, and the
// chosen algorithm's points filled where it beats the library's choice beyond the noise.
function tuneCards(run) {
  const t = run.tune;
  return t.collectives.map(c => {
    const card = el('section', {class: 'card', 'data-benchmark': `tune ${c.name} run ${run.id}`, 'data-card': 'tune', 'data-collective': c.name});
    card.append(el('h2', {}, `${c.name}: the library's algorithms · ${runName(run)}`));
    card.append(el('p', {class: 'muted'}, `${c.variable}; each algorithm's median over ${t.rounds} round(s). Filled: chosen, faster than the library's own choice (${c.algorithms[0].name}) beyond the noise in every round at +${t.tolerance_percent} %.`));
    const chosen = new Map(c.choices.filter(x => x.changed).map(x => [x.bytes, x.fastest]));
    const series = c.algorithms.map((a, i) => ({key: `tune|${run.id}|${c.name}|${a.name}`, name: i === 0 ? `${a.name} (library's own)` : a.name, run: null, variant: 0,
      points: a.points.filter(p => p.us !== null).map(p => ({x: Math.max(p.bytes, 1), y: p.us, hollow: chosen.get(p.bytes) !== a.name,
        tip: `${a.name} at ${fmtBytes(p.bytes)}: ${fmt(p.us)} us${chosen.get(p.bytes) === a.name ? ' (chosen)' : ''}`}))}));
    const plots = el('div', {class: 'plots'});
    plots.append(plot({id: `tune ${run.id} ${c.name}`, title: 'time over message size', xAxis: 'bytes', xTitle: AXES.bytes, yTitle: 'time [microseconds]', yUnit: 'microseconds', series}));
    card.append(plots);
    const lines = c.choices.filter(x => x.changed).map(x => `${fmtBytes(x.bytes)}: ${x.fastest}, ${fmt(x.fastest_us)} us against ${fmt(x.library_us)} us`);
    card.append(el('ul', {class: 'notes', 'data-changed': String(lines.length)},
      el('li', {}, lines.length ? `${lines.length} length(s) choose another algorithm:` : `The library's own choice stays at every length.`), ...lines.map(v => el('li', {}, v))));
    return card;
  });
}

function render() {
  for (const v of views) v.finalize();
  views = [];
  renderSide();
  const main = document.getElementById('plots');
  main.replaceChildren();
  const machine = machineCard();
  if (machine) main.append(machine);
  if (DATA.comparison) main.append(comparisonCard(DATA.comparison));
  const history = historyCard();
  if (history) main.append(history);
  if (!state.runs.size) main.append(el('div', {class: 'card'}, 'Choose one or more runs on the left.'));
  else {
    renderSummary(main);
    for (const r of selectedRuns()) {
      if (r.tables.some(t => isBeff(r, t))) main.append(beffCard(r));
      if (r.tables.some(t => isBeffIo(r, t))) main.append(beffIoCard(r));
      for (const t of r.tables) if (isHeatmap(t)) main.append(heatmapCard(r, t));
      if (r.tables.some(t => isMapPair(r, t))) main.append(mapCard(r));
      if (r.guidelines) main.append(guidelinesCard(r));
      if (r.tune) main.append(...tuneCards(r));
      const p2p = p2pCard(r);
      if (p2p) main.append(p2p);
      const suites = skampiSuitesCard(r);
      if (suites) main.append(suites);
    }
    for (const [key, entries] of benchmarks()) main.append(benchmarkCard(key, entries));
  }
  // Drawn once in the page, when their width is known.
  for (const box of main.querySelectorAll('.plot')) if (box.draw) box.draw();
}

document.getElementById('dbpath').textContent = DATA.database;
render();
let resizeTimer = null;
let lastWidth = window.innerWidth;
window.addEventListener('resize', () => {
  if (window.innerWidth === lastWidth) return;
  lastWidth = window.innerWidth;
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(render, 200);
});
