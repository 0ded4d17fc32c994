#include "html_report.hpp"

#include <cmath>

#include "report/compare.hpp"

namespace mpiscope::report {

using nlohmann::json;

namespace {

json number_or_null(double v) {
  return std::isfinite(v) ? json(v) : json(nullptr);
}

json run_meta(const db::StoredRun& r) {
  const auto& i = r.info;
  std::string hosts;
  for (const auto& [h, n] : i.ranks_per_host)
    hosts += (hosts.empty() ? "" : ", ") + h + " (" + std::to_string(n) + " ranks)";
  std::string command;
  for (const auto& w : i.command_line) command += (command.empty() ? "" : " ") + w;
  json meta = json::array();
  auto add = [&](const std::string& k, const std::string& v) {
    if (!v.empty()) meta.push_back({k, v});
  };
  add("Run", std::to_string(r.id));
  add("Source", r.source + (r.source_file.empty() ? "" : " (" + r.source_file + ")"));
  add("Suite", i.suite + (i.suite_title.empty() ? "" : " - " + i.suite_title));
  add("Date", i.date_iso.empty() ? i.date : i.date_iso);
  add("Complete", r.complete ? (r.ok ? "yes" : "yes, some measurements could not run")
                             : "no (interrupted: only the finished measurements are stored)");
  add("Processes", i.world_size ? std::to_string(i.world_size) : "");
  add("Hosts", hosts);
  add("MPI library", i.mpi_library);
  add("MPI version", i.mpi_version);
  add("Thread level", i.thread_level);
  add("Machine", i.machine + " " + i.system + " " + i.release);
  add("mpiscope",
      i.mpiscope_version.empty() ? "" : i.mpiscope_version + " (commit " + i.mpiscope_commit + ")");
  add("Command line", command);
  for (const auto& [k, v] : i.settings) add("setting " + k, v);
  for (const auto& n : r.notes) add("note", n);
  return meta;
}

}  // namespace

json report_data(const std::vector<db::StoredRun>& runs, const std::string& db_path) {
  json data = {{"database", db_path}, {"runs", json::array()}};
  for (const auto& r : runs) {
    std::string lib = short_library_name(r.info.mpi_library);
    if (lib.size() > 40) lib = lib.substr(0, 40) + "...";
    json jr = {
        {"id", r.id},
        {"label",
         "run " + std::to_string(r.id) + ": " + r.info.suite + (lib.empty() ? "" : ", " + lib) +
             (r.info.world_size ? ", " + std::to_string(r.info.world_size) + " ranks" : "") +
             (r.complete ? "" : " (incomplete)")},
        {"date", r.info.date_iso.empty() ? r.info.date : r.info.date_iso},
        {"meta", run_meta(r)},
        {"summary", json::array()},
        {"tables", json::array()}};
    for (const auto& s : r.summary)
      jr["summary"].push_back({{"name", s.name}, {"value", s.value}, {"unit", s.unit}});
    for (const auto& b : r.benchmarks) {
      std::string key = b.name;
      if (!b.mode.empty()) key += " (" + b.mode + ")";
      for (const auto& [k, v] : b.parameters)
        if (!is_outcome_parameter(k)) key += ", " + k + "=" + v;
      json jt = {{"key", key}, {"nprocs", b.nprocs}, {"sized", b.sized}, {"rows", json::array()}};
      for (const auto& m : b.rows) {
        if (!m.measured) continue;
        json row = {{"bytes", m.bytes},
                    {"repetitions", m.repetitions},
                    {"t_us", number_or_null(reported_time_us(m))},
                    {"t_min_us", number_or_null(m.t_min_us)},
                    {"t_max_us", number_or_null(m.t_max_us)},
                    {"t_avg_us", number_or_null(m.t_avg_us)},
                    {"mbytes_per_sec", m.mbytes_per_sec ? json(*m.mbytes_per_sec) : json(nullptr)}};
        json values = json::object();
        for (const auto& v : m.values) values[v.name] = {v.value, v.unit};
        if (m.samples_us) {
          values["samples median"] = {m.samples_us->median, "microseconds"};
          values["samples p95"] = {m.samples_us->p95, "microseconds"};
        }
        if (m.overlap) values["overlap"] = {m.overlap->overlap_percent, "percent"};
        row["values"] = values;
        jt["rows"].push_back(row);
      }
      if (!jt["rows"].empty()) jr["tables"].push_back(jt);
    }
    data["runs"].push_back(jr);
  }
  return data;
}

namespace {

const char* const kStyle = R"CSS(
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1d2327;background:#f4f5f7}
header{background:#233044;color:#fff;padding:12px 20px}
header h1{margin:0;font-size:20px}header p{margin:4px 0 0;font-size:13px;opacity:.8}
main{display:flex;gap:16px;padding:16px;align-items:flex-start}
#side{width:330px;flex:none;position:sticky;top:8px;max-height:calc(100vh - 16px);overflow:auto}
#plots{flex:1;min-width:0}
.card{background:#fff;border-radius:6px;box-shadow:0 1px 3px rgba(0,0,0,.15);padding:12px 14px;margin-bottom:16px}
.card h2{font-size:16px;margin:0 0 8px}.card h3{font-size:14px;margin:10px 0 6px}
.run{display:flex;gap:6px;align-items:flex-start;font-size:13px;margin:4px 0}
.swatch{display:inline-block;width:12px;height:12px;border-radius:2px;flex:none;margin-top:3px}
details{font-size:12px}details table{border-collapse:collapse;margin:4px 0}
td,th{padding:2px 6px;text-align:left;vertical-align:top;border-bottom:1px solid #eee;font-size:12px}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
.plots{display:flex;flex-wrap:wrap;gap:12px}
.plot{flex:1 1 460px;min-width:360px;max-width:760px}
.plot .bar{display:flex;justify-content:space-between;align-items:center;font-size:12px;color:#555}
.plot>svg{width:100%;height:auto;user-select:none;background:#fff}
.legend svg{width:24px;height:10px;vertical-align:middle}
button,select{font-size:12px}
.legend span{cursor:pointer;margin-right:10px;font-size:12px;white-space:nowrap}
.legend span.off{opacity:.35;text-decoration:line-through}
.muted{color:#777;font-size:12px}
)CSS";

const char* const kScript = R"JS(
'use strict';
const DATA = JSON.parse(document.getElementById('mpiscope-data').textContent);
const PALETTE = ['#1f77b4','#d62728','#2ca02c','#ff7f0e','#9467bd','#8c564b','#e377c2','#17becf','#7f7f7f','#bcbd22'];
const DASHES = ['', '6 3', '2 3', '8 3 2 3', '1 2'];
const SVGNS = 'http://www.w3.org/2000/svg';
const state = {runs: new Set(), hidden: new Set(), zoom: {}, bench: '', metric: {}};
DATA.runs.forEach((r, i) => { r.color = PALETTE[i % PALETTE.length]; });
// The newest runs are shown first; at most four are selected at the start.
DATA.runs.slice(-4).forEach(r => state.runs.add(r.id));

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v; else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k);
  return e;
}
function sv(tag, attrs, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}
function fmt(v) {
  if (v === null || v === undefined) return '-';
  const a = Math.abs(v);
  if (a !== 0 && (a >= 1e6 || a < 1e-2)) return v.toExponential(2);
  return v.toFixed(a >= 100 ? 1 : 2);
}
function fmtBytes(b) {
  if (b >= 1048576 && b % 1048576 === 0) return (b / 1048576) + ' MiB';
  if (b >= 1024 && b % 1024 === 0) return (b / 1024) + ' KiB';
  return b + ' B';
}

// Metrics a benchmark can be plotted by: the reported time, its statistics, and every named value.
function metricsOf(tables) {
  const m = [{id: 't_us', name: 'time (median in accurate mode, else t_max, else t_avg)', unit: 'microseconds', get: r => r.t_us},
             {id: 't_min_us', name: 't_min', unit: 'microseconds', get: r => r.t_min_us},
             {id: 't_avg_us', name: 't_avg', unit: 'microseconds', get: r => r.t_avg_us},
             {id: 't_max_us', name: 't_max', unit: 'microseconds', get: r => r.t_max_us}];
  const named = new Map();
  for (const t of tables) for (const r of t.rows) for (const [k, v] of Object.entries(r.values)) named.set(k, v[1]);
  for (const [k, unit] of named) m.push({id: 'v:' + k, name: k, unit: unit, get: r => (r.values[k] ? r.values[k][0] : null)});
  return m.filter(x => tables.some(t => t.rows.some(r => x.get(r) !== null && x.get(r) !== undefined)));
}

// Byte and process axes tick at powers of two, others at powers of ten.
function ticks(lo, hi, base) {
  const out = [], lg = v => Math.log(v) / Math.log(base);
  const a = Math.floor(lg(lo)), b = Math.ceil(lg(hi));
  const step = Math.max(1, Math.ceil((b - a) / 8));
  for (let e = a; e <= b; e += step) { const v = Math.pow(base, e); if (v >= lo * 0.999 && v <= hi * 1.001) out.push(v); }
  if (out.length < 2) { out.length = 0; for (const f of [lo, Math.sqrt(lo * hi), hi]) out.push(f); }
  return out;
}
function tickText(v, isBytes) {
  if (isBytes) return v >= 1048576 ? (v / 1048576) + 'M' : v >= 1024 ? (v / 1024) + 'K' : String(Math.round(v * 100) / 100);
  if (Number.isInteger(v)) return String(v);
  return fmt(v).replace(/\.0+$/, '');
}

// One plot: series of [x, y, tooltip] points, log-log unless told; drag to zoom, double-click
// to reset, legend entries toggle series, 'save SVG' downloads the drawing.
function plot(opts) {
  const W = 640, H = 380, L = 70, R = 16, T = 28, B = 48;
  const box = el('div', {class: 'plot', 'data-plot': opts.id});
  const save = el('button', {type: 'button'}, 'save SVG');
  const reset = el('button', {type: 'button'}, 'reset zoom');
  box.append(el('div', {class: 'bar'}, el('span', {}, ''), el('span', {}, reset, ' ', save)));
  const svg = sv('svg', {viewBox: `0 0 ${W} ${H}`, xmlns: SVGNS, 'font-family': 'sans-serif', 'font-size': '11'});
  box.append(svg);
  const legend = el('div', {class: 'legend'});
  box.append(legend);
  const visible = opts.series.filter(s => !state.hidden.has(s.key));
  const pts = visible.flatMap(s => s.points).filter(p => p[0] > 0 && p[1] > 0);
  svg.append(sv('rect', {x: 0, y: 0, width: W, height: H, fill: '#fff'}));
  svg.append(sv('text', {x: L + (W - L - R) / 2, y: 16, 'text-anchor': 'middle', 'font-size': '13', 'font-weight': 'bold'}, opts.title));
  if (!pts.length) {
    svg.append(sv('text', {x: W / 2, y: H / 2, 'text-anchor': 'middle', fill: '#888'}, 'no data for the chosen runs and series'));
  } else {
    let [x0, x1] = [Math.min(...pts.map(p => p[0])), Math.max(...pts.map(p => p[0]))];
    let [y0, y1] = [Math.min(...pts.map(p => p[1])), Math.max(...pts.map(p => p[1]))];
    if (x0 === x1) { x0 /= 2; x1 *= 2; }
    if (y0 === y1) { y0 /= 2; y1 *= 2; }
    y0 /= 1.25; y1 *= 1.25;
    const z = state.zoom[opts.id];
    if (z) [x0, x1, y0, y1] = z;
    const lx = Math.log10, sx = v => L + (lx(v) - lx(x0)) / (lx(x1) - lx(x0)) * (W - L - R);
    const sy = v => H - B - (lx(v) - lx(y0)) / (lx(y1) - lx(y0)) * (H - T - B);
    const ix = px => Math.pow(10, lx(x0) + (px - L) / (W - L - R) * (lx(x1) - lx(x0)));
    const iy = py => Math.pow(10, lx(y0) + (H - B - py) / (H - T - B) * (lx(y1) - lx(y0)));
    const grid = sv('g', {stroke: '#e3e3e3'});
    for (const v of ticks(x0, x1, opts.xBase2 ? 2 : 10)) {
      grid.append(sv('line', {x1: sx(v), x2: sx(v), y1: T, y2: H - B}));
      svg.append(sv('text', {x: sx(v), y: H - B + 16, 'text-anchor': 'middle'}, tickText(v, opts.xBytes)));
    }
    for (const v of ticks(y0, y1, 10)) {
      grid.append(sv('line', {x1: L, x2: W - R, y1: sy(v), y2: sy(v)}));
      svg.append(sv('text', {x: L - 6, y: sy(v) + 4, 'text-anchor': 'end'}, tickText(v, false)));
    }
    svg.insertBefore(grid, svg.children[2]);
    svg.append(sv('rect', {x: L, y: T, width: W - L - R, height: H - T - B, fill: 'none', stroke: '#999'}));
    svg.append(sv('text', {x: L + (W - L - R) / 2, y: H - 10, 'text-anchor': 'middle'}, opts.xLabel));
    svg.append(sv('text', {x: 14, y: T + (H - T - B) / 2, 'text-anchor': 'middle', transform: `rotate(-90 14 ${T + (H - T - B) / 2})`}, opts.yLabel));
    const clipId = 'clip-' + opts.id.replace(/[^A-Za-z0-9_-]/g, '_');
    const defs = sv('defs');
    const clip = sv('clipPath', {id: clipId});
    clip.append(sv('rect', {x: L, y: T, width: W - L - R, height: H - T - B}));
    defs.append(clip);
    svg.append(defs);
    const data = sv('g', {'clip-path': `url(#${clipId})`, class: 'series'});
    for (const s of visible) {
      const p = s.points.filter(q => q[0] > 0 && q[1] > 0).sort((a, b) => a[0] - b[0]);
      if (!p.length) continue;
      const g = sv('g', {'data-series': s.key});
      g.append(sv('polyline', {points: p.map(q => `${sx(q[0]).toFixed(1)},${sy(q[1]).toFixed(1)}`).join(' '),
                               fill: 'none', stroke: s.color, 'stroke-width': 2, 'stroke-dasharray': s.dash}));
      for (const q of p) {
        const c = sv('circle', {cx: sx(q[0]).toFixed(1), cy: sy(q[1]).toFixed(1), r: 3, fill: s.color});
        c.append(sv('title', {}, s.name + '\n' + q[2]));
        g.append(c);
      }
      data.append(g);
    }
    svg.append(data);
    // Drag a rectangle to zoom into it.
    let start = null;
    const sel = sv('rect', {fill: 'rgba(30,100,200,.15)', stroke: '#36c', visibility: 'hidden'});
    svg.append(sel);
    const pos = ev => { const r = svg.getBoundingClientRect(); return [(ev.clientX - r.left) * W / r.width, (ev.clientY - r.top) * H / r.height]; };
    svg.addEventListener('mousedown', ev => { start = pos(ev); ev.preventDefault(); });
    svg.addEventListener('mousemove', ev => {
      if (!start) return;
      const p = pos(ev);
      sel.setAttribute('x', Math.min(p[0], start[0])); sel.setAttribute('y', Math.min(p[1], start[1]));
      sel.setAttribute('width', Math.abs(p[0] - start[0])); sel.setAttribute('height', Math.abs(p[1] - start[1]));
      sel.setAttribute('visibility', 'visible');
    });
    svg.addEventListener('mouseup', ev => {
      if (!start) return;
      const p = pos(ev), a = start;
      start = null;
      sel.setAttribute('visibility', 'hidden');
      if (Math.abs(p[0] - a[0]) < 6 || Math.abs(p[1] - a[1]) < 6) return;
      state.zoom[opts.id] = [ix(Math.min(a[0], p[0])), ix(Math.max(a[0], p[0])), iy(Math.max(a[1], p[1])), iy(Math.min(a[1], p[1]))];
      render();
    });
    svg.addEventListener('dblclick', () => { delete state.zoom[opts.id]; render(); });
  }
  reset.addEventListener('click', () => { delete state.zoom[opts.id]; render(); });
  save.addEventListener('click', () => {
    const text = new XMLSerializer().serializeToString(svg);
    const a = el('a', {href: URL.createObjectURL(new Blob([text], {type: 'image/svg+xml'})),
                       download: opts.id.replace(/[^A-Za-z0-9_-]+/g, '_') + '.svg'});
    document.body.append(a); a.click(); a.remove();
  });
  for (const s of opts.series) {
    // The swatch repeats the line's colour and dash, so that process counts can be told apart.
    const swatch = sv('svg', {width: 24, height: 10, viewBox: '0 0 24 10'});
    swatch.append(sv('line', {x1: 1, x2: 23, y1: 5, y2: 5, stroke: s.color, 'stroke-width': 2.5, 'stroke-dasharray': s.dash}));
    const item = el('span', {class: state.hidden.has(s.key) ? 'off' : '', title: 'show or hide this series'},
                    swatch, ' ' + s.name);
    item.addEventListener('click', () => {
      if (state.hidden.has(s.key)) state.hidden.delete(s.key); else state.hidden.add(s.key);
      render();
    });
    legend.append(item);
  }
  return box;
}

function selectedRuns() { return DATA.runs.filter(r => state.runs.has(r.id)); }

// Every benchmark (name, mode, parameters) of the chosen runs, with its tables per run.
function benchmarks() {
  const map = new Map();
  for (const r of selectedRuns()) for (const t of r.tables) {
    if (!map.has(t.key)) map.set(t.key, []);
    map.get(t.key).push({run: r, table: t});
  }
  return map;
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
  card.append(el('div', {class: 'muted'}, 'plot: ', pick, '  (drag to zoom, double-click to reset, click a legend entry to hide it; hover a point for its numbers)'));
  const nprocsAll = [...new Set(tables.map(t => t.nprocs))].sort((a, b) => a - b);
  const series = (getY, unit) => entries.map(({run, table}) => ({
    key: key + '|' + run.id + '|' + table.nprocs,
    name: `run ${run.id}` + (table.nprocs ? `, ${table.nprocs} procs` : ''),
    color: run.color, dash: DASHES[nprocsAll.indexOf(table.nprocs) % DASHES.length],
    points: table.rows.filter(r => getY(r) !== null && getY(r) !== undefined).map(r => [r.bytes, getY(r),
      `${fmtBytes(r.bytes)}: ${fmt(getY(r))} ${unit}` + (r.repetitions ? `, ${r.repetitions} repetitions` : '')])}));
  const plots = el('div', {class: 'plots'});
  const sized = tables.some(t => t.sized && t.rows.some(r => r.bytes > 0));
  if (sized) {
    plots.append(plot({id: key + ' ' + metric.id, title: metric.name + ' over message size', xBytes: true, xBase2: true,
                       xLabel: 'message size [bytes]', yLabel: metric.name + ' [' + metric.unit + ']',
                       series: series(metric.get, metric.unit)}));
    if (tables.some(t => t.rows.some(r => r.mbytes_per_sec !== null)))
      plots.append(plot({id: key + ' bandwidth', title: 'bandwidth over message size', xBytes: true, xBase2: true,
                         xLabel: 'message size [bytes]', yLabel: 'bandwidth [MiB/s = 2^20 bytes/s]',
                         series: series(r => r.mbytes_per_sec, 'MiB/s')}));
  }
  if (nprocsAll.filter(n => n > 0).length > 1) {
    // Time over process count: one series per run and message size (at most four sizes).
    const sizes = [...new Set(tables.flatMap(t => t.rows.map(r => r.bytes)))].sort((a, b) => a - b);
    const chosen = sizes.length <= 4 ? sizes : [sizes[0], sizes[Math.floor(sizes.length / 3)], sizes[Math.floor(2 * sizes.length / 3)], sizes[sizes.length - 1]];
    const s = [];
    for (const run of selectedRuns()) chosen.forEach((b, i) => {
      const points = [];
      for (const e of entries) if (e.run === run) for (const r of e.table.rows)
        if (r.bytes === b && e.table.nprocs > 0 && metric.get(r) !== null) points.push([e.table.nprocs, metric.get(r), `${e.table.nprocs} processes: ${fmt(metric.get(r))} ${metric.unit}`]);
      if (points.length) s.push({key: key + '|np|' + run.id + '|' + b, name: `run ${run.id}` + (sized ? `, ${fmtBytes(b)}` : ''), color: run.color, dash: DASHES[i % DASHES.length], points});
    });
    plots.append(plot({id: key + ' nprocs ' + metric.id, title: metric.name + ' over process count', xBytes: false, xBase2: true,
                       xLabel: 'processes', yLabel: metric.name + ' [' + metric.unit + ']', series: s}));
  }
  card.append(plots);
  // The numbers, as stored.
  const det = el('details', {}, el('summary', {}, 'numbers'));
  for (const {run, table} of entries) {
    det.append(el('h3', {}, `run ${run.id}` + (table.nprocs ? `, ${table.nprocs} processes` : '')));
    const t = el('table');
    t.append(el('tr', {}, ...['bytes', 'repetitions', 't_min [usec]', 't_max [usec]', 't_avg [usec]', 'MiB/s'].map(h => el('th', {class: 'n'}, h))));
    for (const r of table.rows)
      t.append(el('tr', {}, ...[String(r.bytes), String(r.repetitions || '-'), fmt(r.t_min_us), fmt(r.t_max_us), fmt(r.t_avg_us), fmt(r.mbytes_per_sec)].map(c => el('td', {class: 'n'}, c))));
    det.append(t);
  }
  card.append(det);
  return card;
}

function renderSide() {
  const side = document.getElementById('side');
  side.replaceChildren();
  const runs = el('div', {class: 'card', id: 'run-picker'}, el('h2', {}, 'Runs'));
  for (const r of DATA.runs.slice().reverse()) {
    const box = el('input', {type: 'checkbox', 'data-run': r.id});
    box.checked = state.runs.has(r.id);
    box.addEventListener('change', () => { if (box.checked) state.runs.add(r.id); else state.runs.delete(r.id); render(); });
    const meta = el('details', {}, el('summary', {}, r.label + (r.date ? ' - ' + r.date : '')));
    const t = el('table');
    for (const [k, v] of r.meta) t.append(el('tr', {}, el('th', {}, k), el('td', {}, v)));
    meta.append(t);
    runs.append(el('label', {class: 'run'}, box, el('span', {class: 'swatch', style: `background:${r.color}`}), meta));
  }
  side.append(runs);
  const bench = el('div', {class: 'card'}, el('h2', {}, 'Benchmarks'));
  const pick = el('select', {id: 'benchmark-picker'});
  pick.append(el('option', {value: ''}, 'all benchmarks'));
  for (const k of benchmarks().keys()) { const o = el('option', {value: k}, k); if (k === state.bench) o.selected = true; pick.append(o); }
  pick.addEventListener('change', () => { state.bench = pick.value; render(); });
  bench.append(pick);
  side.append(bench);
}

function renderSummary(target) {
  const rows = selectedRuns().flatMap(r => r.summary.map(s => [r, s]));
  if (!rows.length) return;
  const card = el('section', {class: 'card', id: 'summary'}, el('h2', {}, 'Summary figures'));
  const table = list => {
    const t = el('table');
    t.append(el('tr', {}, el('th', {}, 'run'), el('th', {}, 'figure'), el('th', {class: 'n'}, 'value'), el('th', {}, 'unit')));
    for (const [r, s] of list)
      t.append(el('tr', {}, el('td', {}, el('span', {class: 'swatch', style: `background:${r.color}`}), ' run ' + r.id),
                  el('td', {}, s.name), el('td', {class: 'n'}, fmt(s.value)), el('td', {}, s.unit)));
    return t;
  };
  // The headline figures (b_eff, b_eff_io, ...) first; per-pattern and per-type ones ("a/b") folded.
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

function render() {
  renderSide();
  const main = document.getElementById('plots');
  main.replaceChildren();
  if (!state.runs.size) { main.append(el('div', {class: 'card'}, 'Choose one or more runs on the left.')); return; }
  renderSummary(main);
  for (const [key, entries] of benchmarks())
    if (!state.bench || state.bench === key) main.append(benchmarkCard(key, entries));
}

document.getElementById('dbpath').textContent = DATA.database;
render();
)JS";

// Keeps "</script>" and "<!--" inside the data from ending the script element.
std::string script_safe(std::string s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<')
      out += "\\u003c";
    else
      out += s[i];
  }
  return out;
}

}  // namespace

std::string render_html(const std::vector<db::StoredRun>& runs, const std::string& db_path) {
  const std::string data = script_safe(report_data(runs, db_path).dump());
  std::string page =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>mpiscope results</title>\n<style>";
  page += kStyle;
  page +=
      "</style>\n</head>\n<body>\n<header><h1>mpiscope results</h1><p>from <span "
      "id=\"dbpath\"></span> &middot; times in microseconds, bandwidth in MiB/s (2<sup>20</sup> "
      "bytes per second); log-log scales</p></header>\n"
      "<main><nav id=\"side\"></nav><div id=\"plots\"></div></main>\n"
      "<script type=\"application/json\" id=\"mpiscope-data\">";
  page += data;
  page += "</script>\n<script>";
  page += kScript;
  page += "</script>\n</body>\n</html>\n";
  return page;
}

}  // namespace mpiscope::report
