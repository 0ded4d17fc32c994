// Opens mpiscope's HTML report in headless Chromium and checks what a reader sees: plots with
// drawn series, a run picker that changes the drawing, series toggles, zoom, SVG download, and
// no error in the console. Prints 'N passed, N failed'; exits non-zero on a failure.
import { chromium } from 'playwright-core';
import { readFileSync } from 'node:fs';

const [executablePath, page_path, work] = process.argv.slice(2);
const failures = [];
let passed = 0;
function check(ok, what) {
  if (ok) passed++;
  else failures.push(what);
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
}

const browser = await chromium.launch({ executablePath, headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
try {
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  const errors = [];
  page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', e => errors.push(String(e)));
  page.on('requestfailed', r => errors.push('request failed: ' + r.url()));
  const requests = [];
  page.on('request', r => { if (!r.url().startsWith('file:') && !r.url().startsWith('blob:')) requests.push(r.url()); });
  await page.goto('file://' + page_path);

  // The four imported runs; the page starts with the last four selected.
  const runBoxes = page.locator('#run-picker input[type=checkbox]');
  check(await runBoxes.count() === 4, 'the run picker lists the 4 runs');
  const plots = page.locator('.plot svg');
  check(await plots.count() >= 4, `plots are present (${await plots.count()})`);
  const pingpong = page.locator('section[data-benchmark="PingPong"] .plot svg').first();
  const lines = await pingpong.locator('polyline').count();
  check(lines >= 2, `PingPong's time plot draws the two IMB runs (${lines} lines)`);
  const firstPoints = await pingpong.locator('polyline').first().getAttribute('points');
  check(firstPoints && firstPoints.split(' ').length === 3, 'a line has a point per non-zero length (3)');
  const circles = await page.locator('.plot svg circle').count();
  check(circles > 20, `data points are drawn (${circles})`);
  const tip = await pingpong.locator('circle title').first().textContent();
  check(/microseconds/.test(tip), `a point names its value and unit ("${tip.replace(/\n/g, ' | ')}")`);

  // Choosing another run changes what is drawn.
  const before = await pingpong.innerHTML();
  await page.locator('#run-picker input[data-run="2"]').uncheck();
  const after = await page.locator('section[data-benchmark="PingPong"] .plot svg').first().innerHTML();
  check(before !== after, 'unchecking run 2 changes the PingPong plot');
  check(await page.locator('section[data-benchmark="PingPong"] .plot svg').first().locator('polyline').count() === lines - 1,
        'one line fewer without run 2');
  await page.locator('#run-picker input[data-run="2"]').check();

  // A legend entry hides its series.
  const section = page.locator('section[data-benchmark="PingPong"]');
  await section.locator('.legend span').first().click();
  check(await section.locator('.plot svg').first().locator('polyline').count() === lines - 1, 'a legend click hides a series');
  await section.locator('.legend span.off').first().click();

  // Dragging a rectangle zooms: the tick labels change.
  const svg = section.locator('.plot svg').first();
  const ticksBefore = await svg.locator('text').allTextContents();
  const box = await svg.boundingBox();
  await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.7, box.y + box.height * 0.7, { steps: 5 });
  await page.mouse.up();
  const ticksAfter = await section.locator('.plot svg').first().locator('text').allTextContents();
  check(JSON.stringify(ticksBefore) !== JSON.stringify(ticksAfter), 'dragging zooms the plot');

  // Save as SVG gives a standalone SVG document.
  const [download] = await Promise.all([page.waitForEvent('download'),
    section.locator('button', { hasText: 'save SVG' }).first().click()]);
  const file = work + '/saved.svg';
  await download.saveAs(file);
  const saved = readFileSync(file, 'utf8');
  check(saved.startsWith('<svg') && saved.includes('polyline'), 'save SVG downloads the drawing');

  // Summary figures and metadata are on the page; SKaMPI's process-count plot is drawn.
  check(await page.locator('section[data-benchmark="MPI_Barrier-nodes"] .plot svg polyline').count() >= 1,
        'SKaMPI barrier is plotted over the process count');
  check((await page.locator('#run-picker').textContent()).includes('imb_mpi1_mpich.txt'),
        'each run shows its metadata (source file)');
  check(requests.length === 0, `the page loads nothing from the network (${requests.join(', ')})`);
  check(errors.length === 0, `no error in the console (${errors.join(' | ')})`);
} finally {
  await browser.close();
}
console.log(`${passed} passed, ${failures.length} failed`);
process.exit(failures.length ? 1 : 0);
