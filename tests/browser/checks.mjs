// What both browser tests share: a tally of checks that prints each and the summary line and
// gives the exit status, and the wait until every plot of the page has drawn.

export function checks() {
  const failures = [];
  let passed = 0;
  return {
    check(ok, what) {
      if (ok) passed++;
      else failures.push(what);
      console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
    },
    // Prints 'N passed, N failed' and ends the process, non-zero on a failure.
    finish() {
      console.log(`${passed} passed, ${failures.length} failed`);
      process.exit(failures.length ? 1 : 0);
    },
  };
}

// Every plot of the page has drawn its markers, or says it has no data (run in the page).
export const everyPlotDrawn = () => [...document.querySelectorAll('.plot .drawing')]
  .every(d => d.querySelector('svg .marker path, svg .undecided path, svg .cell path, .empty'));

export async function drawn(page, timeout = 60000) {
  await page.waitForFunction(everyPlotDrawn, null, { timeout });
}
