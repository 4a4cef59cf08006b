// Lighthouse on our own server, in Debian's Chromium launched by path (bench/lighthouse_bench.py
// starts the server and reads what this prints). Nothing here reaches past the machine: the
// browser gets the e2e host-resolver rules, Lighthouse's error reporting stays off, and the
// only URLs opened are the server's.
//
//   node bench/lighthouse.mjs PLAN.json
//
// PLAN.json: {url, chrome, args, user: [name, password], note, outDir, runs: [{id, target,
// preset, mode}]} with target "sign-in" | "workspace" | "bare", preset "mobile" | "desktop",
// mode "navigation" (a page load: performance and accessibility) or "snapshot" (accessibility
// of the page as it stands once the app is ready). The last line printed is the summary JSON.
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import puppeteer from "puppeteer-core";
import { navigation, snapshot, defaultConfig, desktopConfig } from "lighthouse";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const READY = "document.documentElement.dataset.ready === 'true'";
const WAIT = { timeout: 90_000, polling: 100 };
const METRICS = {
  fcp: "first-contentful-paint",
  lcp: "largest-contentful-paint",
  tbt: "total-blocking-time",
  si: "speed-index",
  cls: "cumulative-layout-shift",
};

function log(msg) {
  process.stderr.write(`  ${msg}\n`);
}

function config(preset, categories) {
  const base = preset === "desktop" ? desktopConfig : defaultConfig;
  return {
    ...base,
    settings: {
      ...base.settings,
      onlyCategories: categories,
      disableFullPageScreenshot: true, // only the report's node thumbnails use it
      locale: "en-US",
    },
  };
}

// What the page needs before Lighthouse loads it: a sign-in and a note open in an Inbox frame
// (the app keeps the open frames in localStorage, which Lighthouse's storage reset leaves).
async function signIn(page) {
  await page.goto(plan.url + "/");
  await page.waitForFunction(READY, WAIT);
  await page.locator('[data-testid="login-username"]').fill(plan.user[0]);
  await page.locator('[data-testid="login-password"]').fill(plan.user[1]);
  await page.locator('[data-testid="login-submit"]').click();
  await page.waitForSelector('[data-testid="workspace-select"]', { visible: true, ...WAIT });
  await page.locator(`[data-testid="note-link"][data-path="${plan.note}"]`).click();
  await noteShown(page);
  await page.waitForFunction(
    (note) => Object.keys(localStorage).some(
      (k) => k.startsWith("ana:frames:") && localStorage.getItem(k).includes(note)),
    WAIT, plan.note);
}

async function noteShown(page) {
  await page.waitForFunction(READY, WAIT);
  await page.waitForFunction(
    (note) => [...document.querySelectorAll('[data-testid="frame"][data-frame-kind="inbox"]')]
      .some((el) => el.dataset.path === note && el.querySelector(".cm-content")),
    WAIT, plan.note);
}

function failing(lhr) {
  const category = lhr.categories.accessibility;
  if (!category) return [];
  return category.auditRefs
    .map((ref) => ({ ref, audit: lhr.audits[ref.id] }))
    .filter(({ ref, audit }) => ref.weight > 0 && audit.score !== null && audit.score < 1)
    .map(({ ref, audit }) => ({
      id: ref.id,
      title: audit.title,
      weight: ref.weight,
      nodes: (audit.details?.items || []).slice(0, 8).map((item) => ({
        selector: item.node?.selector,
        snippet: item.node?.snippet,
        explanation: item.node?.explanation,
      })),
    }));
}

function summarise(run, lhr, seconds) {
  const score = (name) => {
    const value = lhr.categories[name]?.score;
    return value === null || value === undefined ? null : Math.round(value * 100);
  };
  const metrics = {};
  for (const [key, id] of Object.entries(METRICS)) {
    metrics[key] = lhr.audits[id]?.numericValue ?? null;
  }
  return {
    ...run,
    seconds,
    finalUrl: lhr.finalDisplayedUrl,
    lighthouse: lhr.lighthouseVersion,
    userAgent: lhr.environment?.hostUserAgent,
    benchmarkIndex: lhr.environment?.benchmarkIndex,
    performance: score("performance"),
    accessibility: score("accessibility"),
    metrics,
    failing: failing(lhr),
    runtimeError: lhr.runtimeError?.message || null,
    warnings: lhr.runWarnings || [],
  };
}

async function one(browser, run) {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  try {
    const started = Date.now();
    const path = run.target === "bare" ? plan.bare : "/";
    if (run.target === "workspace") await signIn(page);
    let result;
    if (run.mode === "snapshot") {
      await page.goto(plan.url + path);
      if (run.target === "workspace") await noteShown(page);
      else await page.waitForFunction(READY, WAIT);
      result = await snapshot(page, { config: config(run.preset, ["accessibility"]) });
    } else {
      result = await navigation(page, plan.url + path, {
        config: config(run.preset, ["performance", "accessibility"]),
      });
    }
    const seconds = (Date.now() - started) / 1000;
    writeFileSync(join(plan.outDir, `${run.id}.json`), JSON.stringify(result.lhr));
    return summarise(run, result.lhr, seconds);
  } finally {
    await context.close();
  }
}

mkdirSync(plan.outDir, { recursive: true });
const browser = await puppeteer.launch({
  executablePath: plan.chrome,
  headless: true,
  defaultViewport: null, // Lighthouse sets each preset's screen itself
  args: plan.args,
});
const results = [];
try {
  for (const run of plan.runs) {
    log(`lighthouse ${run.id}`);
    try {
      results.push(await one(browser, run));
    } catch (err) {
      log(`${run.id} failed: ${err.stack || err}`);
      results.push({ ...run, error: String(err.message || err) });
    }
  }
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(results) + "\n");
