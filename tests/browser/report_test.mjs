// Opens mpiscope's HTML report in headless Chromium at three window widths and checks what a
// reader sees: every card draws a plot, no two curves of a plot share colour and marker,
// accurate mode's intervals are drawn, no text of a plot lies outside its drawing, no error in
// the console; at one width also the run picker, legend toggles, zoom and pan, tooltips, SVG and
// CSV export, and that nothing is loaded from the network. Writes a screenshot per width to
// SHOTS_DIR. Prints 'N passed, N failed'; exits non-zero on a failure.
//   node report_test.mjs CHROMIUM PAGE WORK_DIR SHOTS_DIR
import { chromium } from 'playwright-core';
import { readFileSync } from 'node:fs';
import { checks, drawn } from './checks.mjs';

const [executablePath, pagePath, work, shots] = process.argv.slice(2);
const { check, finish } = checks();

// What each card and plot shows, read from the drawing itself.
function survey() {
  const out = { cards: [], plots: [], outside: [] };
  for (const card of document.querySelectorAll('section.card[data-benchmark]')) {
    const plots = [...card.querySelectorAll('.plot .drawing svg')]
      .filter(svg => svg.querySelectorAll('.marker path, .undecided path, .cell path').length > 0);
    out.cards.push({ key: card.dataset.benchmark, type: card.dataset.card || 'benchmark', plots: plots.length,
                     nothingPositive: card.querySelectorAll('.no-positive').length > 0 });
  }
  for (const box of document.querySelectorAll('.plot[data-series]')) {
    const svg = box.querySelector('.drawing svg');
    if (!svg) continue;
    const series = JSON.parse(box.dataset.series);
    // A curve is told apart by its marker's colour and shape (the path Vega draws for it); a
    // point whose verdict is "cannot tell" is a diagonal cross in its curve's colour only.
    const decided = [...svg.querySelectorAll('.marker path')];
    const colours = new Set(decided.map(p => p.getAttribute('fill')));
    const onlyUndecided = new Set([...svg.querySelectorAll('.undecided path')].map(p => p.getAttribute('stroke')).filter(c => !colours.has(c)));
    const looks = new Set(decided.map(p => p.getAttribute('fill') + ' ' + p.getAttribute('d')));
    onlyUndecided.forEach(c => looks.add(c));
    const declared = new Set(series.map(s => s.color + ' ' + s.shape));
    out.plots.push({ id: box.dataset.plot, series: series.length, looks: looks.size, declared: declared.size,
                     intervals: svg.querySelectorAll('.interval line').length });
    const frame = svg.getBoundingClientRect();
    for (const t of svg.querySelectorAll('text')) {
      if (!t.textContent.trim() || t.getAttribute('opacity') === '0') continue;
      const b = t.getBoundingClientRect();
      if (b.left < frame.left - 1 || b.right > frame.right + 1 || b.top < frame.top - 1 || b.bottom > frame.bottom + 1)
        out.outside.push(`${box.dataset.plot}: "${t.textContent}"`);
    }
  }
  return out;
}

const browser = await chromium.launch({ executablePath, headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
try {
  for (const width of [800, 1400, 1920]) {
    const context = await browser.newContext({ acceptDownloads: true, viewport: { width, height: 1000 } });
    const page = await context.newPage();
    const errors = [];
    page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('pageerror', e => errors.push(String(e)));
    page.on('requestfailed', r => errors.push('request failed: ' + r.url()));
    const requests = [];
    page.on('request', r => { if (!r.url().startsWith('file:') && !r.url().startsWith('blob:') && !r.url().startsWith('data:')) requests.push(r.url()); });
    const started = Date.now();
    await page.goto('file://' + pagePath);
    const runs = await page.locator('#run-picker input[type=checkbox]').count();
    if (width === 800) check(runs >= 17, `the run picker lists every run (${runs})`);
    await page.locator('#run-picker button', { hasText: 'show these' }).click();
    await drawn(page);
    const at = `at ${width} px`;
    console.log(`# ${width} px: every run drawn in ${Date.now() - started} ms`);
    const s = await page.evaluate(survey);
    // A card may only lack a plot when none of its values can stand on a log axis, and says so
    // (SKaMPI's classic barrier samples: the empty loop subtracted leaves times of 0 or below).
    const empty = s.cards.filter(c => c.plots === 0 && !c.nothingPositive).map(c => c.key);
    check(s.cards.filter(c => c.nothingPositive).length <= 1, `${at}: at most the one sample card without positive values has no plot`);
    check(s.cards.length >= 10 && empty.length === 0, `${at}: each of the ${s.cards.length} cards draws a plot (${empty.join(' | ')})`);
    const alike = s.plots.filter(p => p.looks !== p.series || p.declared !== p.series).map(p => `${p.id}: ${p.series} curves, ${p.looks} looks`);
    check(s.plots.length > 0 && alike.length === 0, `${at}: no two curves of a plot share colour and marker (${alike.join(' | ')})`);
    const most = Math.max(...s.plots.map(p => p.series));
    check(most >= 12, `${at}: a plot holds 12 or more curves (${most})`);
    check(s.outside.length === 0, `${at}: no text of a plot is cut off (${s.outside.slice(0, 5).join(' | ')})`);
    const accurate = s.plots.filter(p => /^PingPong(_Send_Recv.*)? t_us$/.test(p.id));
    check(accurate.length >= 2 && accurate.every(p => p.intervals >= 2),
          `${at}: accurate runs' intervals are drawn (${accurate.map(p => p.id + ': ' + p.intervals).join(', ')})`);
    // The accurate runs' points did not converge (a target of 0.0001 %): hollow markers, and the
    // card lists each with its reason. Fails with the points drawn filled.
    const pingpong = page.locator('section.card[data-benchmark="PingPong"]');
    const hollow = await pingpong.locator('.plot .drawing svg').first().locator('.marker path[fill-opacity="0"]').count();
    const listed = await pingpong.locator('ul.notes[data-not-converged] li', { hasText: 'stopped by the time budget' }).count();
    // 0 bytes has no place on the log axis: each run's 1 KiB and 64 KiB points are drawn.
    const notes = await pingpong.locator('ul.notes[data-not-converged] li').allTextContents();
    check(hollow >= 4 && listed === 6, `${at}: the accurate runs' unconverged points are hollow (${hollow} of the 4 drawn) and all 6 named with their reason (${listed}: ${notes.join(' | ')})`);
    // The imported PingPong of Intel's IMB from 1 byte to 1 MiB has a model (the other curves
    // are too short): its regions in words, and each region's line dashed over the time plot.
    const modelled = await pingpong.locator('ul.models li[data-model-regions]').allTextContents();
    const lines = await pingpong.locator('.plot .drawing svg').first().locator('.model path').count();
    check(modelled.length === 1 && /protocol switch between 2 KiB and 4 KiB/.test(modelled[0]) && lines >= 2,
          `${at}: the PingPong card names the imported curve's model and its switch (${modelled.join(' | ')}) and draws its regions (${lines} lines)`);
    // The guidelines run: a card of its own whose plot has a marker per guideline and length.
    const guidelines = s.cards.filter(c => c.type === 'guidelines');
    const guidelineMarkers = await page.locator('section.card[data-card="guidelines"] .plot .drawing svg').first().locator('.marker path, .undecided path').count();
    const guidelineTitles = await page.locator('section.card[data-card="guidelines"] .legend').first().textContent();
    check(guidelines.length === 1 && guidelines[0].plots === 1 && guidelineMarkers === 4 && /Allreduce <= Reduce \+ Bcast/.test(guidelineTitles),
          `${at}: the guidelines run has its card, a marker per guideline and length (${guidelineMarkers} of 4; ${guidelineTitles})`);
    // The comparison of the two accurate PingPong runs, one per side, alike: every point cannot
    // tell and is drawn as a diagonal cross, none as a curve's own marker.
    const comparison = page.locator('section#comparison .plot .drawing svg').first();
    const undecided = await comparison.locator('.undecided path').count();
    const decided = await comparison.locator('.marker path').count();
    check(undecided >= 2 && decided === 0,
          `${at}: the comparison draws each point that cannot tell as a diagonal cross (${undecided} crosses, ${decided} other markers)`);
    // The tune run: one card for Bcast, a curve per algorithm (the library offers at least 2),
    // the library's own choice named in the legend; its tables make no card of their own.
    const tune = s.cards.filter(c => c.type === 'tune');
    const tuneCurves = await page.locator('section.card[data-card="tune"] .plot .drawing svg').first().locator('.marker path').count();
    const tuneLegend = await page.locator('section.card[data-card="tune"] .legend').first().textContent();
    const tuneTables = s.cards.filter(c => /algorithm=/.test(c.key)).length;
    check(tune.length === 1 && tune[0].plots === 1 && tuneCurves >= 4 && /\(library's own\)/.test(tuneLegend) && tuneTables === 0,
          `${at}: the tune run has one card, a marker per algorithm and length (${tuneCurves}), the library's own choice named (${tuneLegend}), no card per algorithm (${tuneTables})`);
    check(s.cards.filter(c => c.type === 'beff').every(c => c.plots >= 2) && s.cards.some(c => c.type === 'beff'),
          `${at}: the b_eff run has its own card with its plots`);
    const maps = s.cards.filter(c => c.type === 'map');
    check(maps.length === 1 && maps[0].plots === 2, `${at}: the map run has one card with its latency and bandwidth heat maps`);
    const cells = await page.locator('section[data-card="map"] .plot .drawing svg').first().locator('.cell path').count();
    check(cells === 12, `${at}: the 4-rank map's latency heat map has a cell for each ordered pair (${cells} of 12)`);
    // SKaMPI's suites side by side (the paper's Figures 6 and 7): each SKaMPI run has a card
    // whose message-size plot holds both of its Length suites.
    const skampi = s.plots.filter(p => /^skampi \d+ bytes$/.test(p.id));
    check(skampi.length === 2 && skampi.every(p => p.series === 2),
          `${at}: each SKaMPI run sets its suites side by side (${skampi.map(p => p.id + ': ' + p.series).join(', ')})`);
    // PRESTA com: each pair of the 4-rank step is a curve of its own.
    const pairs = s.plots.filter(p => / pairs$/.test(p.id) && p.id.startsWith('Unidirectional'));
    check(pairs.length >= 1 && pairs.every(p => p.series === 2),
          `${at}: PRESTA com's per-pair plot has a curve per pair (${pairs.map(p => p.id + ': ' + p.series).join(', ')})`);
    // IMB-MT on 1 and 2 threads per process: one card, each thread count a curve of its own in
    // the time plot, and a plot over the threads per process with a point at each count.
    const mt = s.cards.filter(c => c.key === 'PingPongMT');
    const mtTime = s.plots.find(p => p.id === 'PingPongMT t_us');
    const mtThreads = s.plots.find(p => p.id === 'PingPongMT threads t_us');
    const mtLegend = await page.locator('section.card[data-benchmark="PingPongMT"] .legend').first().textContent();
    const mtPoints = mtThreads ? await page.locator('section.card[data-benchmark="PingPongMT"] .plot[data-plot="PingPongMT threads t_us"] .marker path').count() : 0;
    check(mt.length === 1 && mtTime && mtTime.series === 2 && /1 threads/.test(mtLegend) && /2 threads/.test(mtLegend) && mtThreads && mtPoints === 2,
          `${at}: IMB-MT's two thread counts share one card, a curve each (${mtTime && mtTime.series}: ${mtLegend}) and a plot over the threads (${mtPoints} points)`);
    // IMB-P2P on 4 ranks: a card whose plots set the patterns over the messages each rank sends
    // per repetition, a marker each: PingPong, PingPing, Corandom and SendRecv_Replace at 1,
    // Stencil2D (2 x 2) at 4; its PingPong a card of its own, apart from IMB-MPI1's.
    const p2p = s.cards.filter(c => c.type === 'p2p');
    const p2pLegend = p2p.length ? await page.locator('section.card[data-card="p2p"] .legend').first().textContent() : '';
    const p2pAt = p2p.length ? await page.locator('section.card[data-card="p2p"] .plot').first().evaluate(box => {
      const at = {};
      for (const series of JSON.parse(box.dataset.series)) {
        const marker = [...box.querySelectorAll('.marker path')].find(p => p.getAttribute('fill') === series.color);
        if (!marker) continue;
        const r = marker.getBoundingClientRect();
        at[series.key.split('|').pop()] = Math.round(r.left + r.width / 2);
      }
      return at;
    }) : {};
    const x = n => p2pAt[n];
    check(p2p.length === 1 && p2p[0].plots === 2 && s.cards.some(c => c.key === 'IMB-P2P PingPong') && Object.keys(p2pAt).length === 5 && /Stencil2D \(2 x 2\)/.test(p2pLegend) &&
          x('PingPong') === x('PingPing') && x('PingPing') === x('Corandom') && x('Corandom') === x('SendRecv_Replace') &&
          x('SendRecv_Replace') < x('Stencil2D (2 x 2)'),
          `${at}: the IMB-P2P run's card sets its patterns over the messages each rank sends (${JSON.stringify(p2pAt)}; ${p2pLegend})`);
    const nodes = await page.locator('section[data-benchmark^="Barrier"] .plot svg').first().textContent();
    check(/processes/.test(nodes), `${at}: SKaMPI's Nodes suite is plotted over the process count`);
    await page.screenshot({ path: `${shots}/report-${width}.png`, fullPage: true });

    // The page opens with the machine on one screen; its latency comes from the imported
    // PingPong's model, and following it leads to the PingPong card even with that run hidden.
    const firstCard = await page.locator('#plots > section.card').first().getAttribute('id');
    const figures = await page.locator('#machine tr[data-figure]').count();
    const latency = await page.locator('#machine tr[data-figure="latency"]').textContent();
    check(firstCard === 'machine' && figures >= 8 && /fitted alpha of 0 B to 2 KiB/.test(latency),
          `${at}: the page opens with the machine card (${firstCard}, ${figures} figures; latency: ${latency})`);
    if (width === 800) {
      const run = Number(/\(run (\d+):/.exec(latency)[1]);
      await page.locator(`#run-picker input[data-run="${run}"]`).uncheck();
      await drawn(page);
      await page.locator('#machine tr[data-figure="latency"] a').click();
      await drawn(page);
      const shown = await page.locator(`#run-picker input[data-run="${run}"]`).isChecked();
      const top = await page.locator('section.card[data-benchmark="PingPong"]').evaluate(e => e.getBoundingClientRect().top);
      check(shown && Math.abs(top) < 50, `following the latency figure shows run ${run} again and scrolls to the PingPong card (top at ${top} px)`);
      await page.evaluate(() => window.scrollTo(0, 0));
    }

    if (width === 1400) {
      const section = page.locator('section[data-benchmark="PingPong"]');
      const markers = () => section.locator('.plot .drawing svg').first().locator('.marker path').count();
      const before = await markers();
      // Unticking a run removes its curve.
      await page.locator('#run-picker input[data-run="2"]').uncheck();
      await drawn(page);
      check(await markers() < before, `unticking run 2 removes its points (${before} -> ${await markers()})`);
      await page.locator('#run-picker input[data-run="2"]').check();
      await drawn(page);
      // A legend entry hides its series.
      await section.locator('.legend span').first().click();
      await drawn(page);
      check(await markers() < before, 'a legend click hides a series');
      await section.locator('.legend span.off').first().click();
      await drawn(page);
      // Shift+wheel zooms, dragging pans: the tick labels change.
      const svg = section.locator('.plot .drawing svg').first();
      // Hovering a point gives its numbers.
      const point = svg.locator('.marker path').first();
      await point.scrollIntoViewIfNeeded();
      const at_point = await point.boundingBox();
      await page.mouse.move(at_point.x + at_point.width / 2, at_point.y + at_point.height / 2, { steps: 3 });
      await page.waitForTimeout(200);
      const tip = await section.locator('.plot .drawing').first().evaluate(d => (d.querySelector('[title]') || d).getAttribute('title') || '');
      check(/microseconds/.test(tip), `hovering a point shows its value and unit ("${tip.replace(/\n/g, ' | ')}")`);
      const ticks = () => svg.locator('text').allTextContents();
      const ticksBefore = JSON.stringify(await ticks());
      const box = await svg.boundingBox();
      await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5);
      await page.keyboard.down('Shift');
      await page.mouse.wheel(0, -400);
      await page.keyboard.up('Shift');
      await page.waitForTimeout(300);
      const ticksZoomed = JSON.stringify(await ticks());
      check(ticksBefore !== ticksZoomed, 'shift+wheel zooms the plot');
      await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width * 0.2, box.y + box.height * 0.4, { steps: 5 });
      await page.mouse.up();
      await page.waitForTimeout(300);
      check(JSON.stringify(await ticks()) !== ticksZoomed, 'dragging pans the plot');
      // SVG and CSV export.
      const [svgFile] = await Promise.all([page.waitForEvent('download'), section.locator('button', { hasText: 'SVG' }).first().click()]);
      await svgFile.saveAs(work + '/saved.svg');
      const saved = readFileSync(work + '/saved.svg', 'utf8');
      check(saved.startsWith('<svg') && saved.includes('marker'), 'SVG export downloads the drawing');
      const [csvFile] = await Promise.all([page.waitForEvent('download'), section.locator('button', { hasText: 'CSV' }).first().click()]);
      await csvFile.saveAs(work + '/saved.csv');
      const csv = readFileSync(work + '/saved.csv', 'utf8').trim().split('\n');
      check(csv[0].startsWith('series,') && csv.length > 12, `CSV export writes the plot's points (${csv.length - 1} rows)`);
      // Pooling the repeated launches: the six imports of each IMB file (Open MPI's, MPICH's)
      // become one curve each, their spread drawn as bars, and the two accurate runs (labelled
      // apart, "accurate A" and "accurate B": a label makes a configuration of its own) and the
      // import of Intel's long PingPong stay curves of their own (5 in all); unpooled again,
      // every run is back.
      const curves = async () => JSON.parse(await section.locator('.plot').first().getAttribute('data-series')).length;
      const unpooled = await curves();
      await section.locator('input[aria-label="pool repeated runs"]').check();
      await drawn(page);
      const pooled = await curves();
      const bars = await section.locator('.plot .drawing svg').first().locator('.interval line').count();
      check(pooled === 5 && bars > 0, `pooling repeated runs draws one curve per configuration with its spread (${unpooled} -> ${pooled} curves, ${bars} bars)`);
      await section.locator('input[aria-label="pool repeated runs"]').uncheck();
      await drawn(page);
      check(await curves() === unpooled, 'unpooling shows every run again');
      check(requests.length === 0, `the page loads nothing from the network (${requests.join(', ')})`);
    }
    check(errors.length === 0, `${at}: no error in the console (${errors.join(' | ')})`);
    await context.close();
  }
} finally {
  await browser.close();
}
finish();
