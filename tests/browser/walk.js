// Clicks through the explorer in Debian's Chromium (puppeteer-core, pinned in package-lock.json),
// as a person would, and holds what the pages show to what the CLI said (expect.json, written by
// tests/t_serve_browser.sh).  One PASS/FAIL line per step; a failing step saves a screenshot.
// Usage: node walk.js URL MODE(main|diff) EXPECT.json OUTDIR PROFILE_DIR
"use strict";
const puppeteer = require("puppeteer-core");
const fs = require("fs");
const [url, mode, expectFile, outdir, profile] = process.argv.slice(2);
const expect = JSON.parse(fs.readFileSync(expectFile, "utf8"));

let page, failed = 0;
function pass(name) { console.log("PASS " + name); }
async function fail(name, why) {
  failed++;
  const shot = outdir + "/fail-" + name.replace(/[^a-z0-9-]/gi, "_") + ".png";
  try { await page.screenshot({ path: shot, fullPage: true }); } catch (e) { /* the page is gone */ }
  console.log("FAIL " + name + ": " + why + " (screenshot " + shot + ")");
}
async function step(name, fn) {
  try {
    const r = await fn();
    if (r === true) pass(name);
    else await fail(name, r === false ? "check failed" : String(r));
  } catch (e) {
    await fail(name, e.message.split("\n")[0]);
  }
}
// after a navigation: the page's data loaded (body[data-ready]) on the expected page
async function ready(kind) {
  await page.waitForFunction((k) => document.body.getAttribute("data-ready") === "1" &&
    document.body.getAttribute("data-page") === k, { timeout: 30000 }, kind);
}
// the previous page's data-ready would satisfy the wait before the next page starts: clear it first
async function unready() { await page.evaluate(() => document.body.removeAttribute("data-ready")); }
async function clickAndWait(selector, kind) {
  await page.waitForSelector(selector, { timeout: 10000 });
  await unready();
  await Promise.all([ready(kind), page.click(selector)]);
}
const text = (sel) => page.$eval(sel, (e) => e.textContent);

async function main() {
  const browser = await puppeteer.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    userDataDir: profile,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--window-size=1280,1000"],
  });
  page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 1000 });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  if (mode === "diff") await diffWalk();
  else await mainWalk();
  await step("no-script-errors", async () => errors.length === 0 || errors.join(" | "));
  await browser.close();
}

async function mainWalk() {
  await step("overview", async () => {
    await page.goto(url, { waitUntil: "domcontentloaded" });
    await ready("overview");
    const first = await page.$eval("#top a.oid", (a) => a.textContent);
    return first === expect.top || "top retainer " + first + ", the CLI says " + expect.top;
  });
  await step("token-gone-from-address", async () => !page.url().includes("token=") || page.url());
  await step("top-retainer-page", async () => {
    await clickAndWait('#top a.oid[data-id="' + expect.held + '"]', "object");
    const h = await text("h2");
    return h.includes(expect.held) || h;
  });
  await step("referrers", async () => {
    await page.waitForSelector("#referrers a.oid", { timeout: 10000 });
    const n = await page.$$eval("#referrers tbody tr", (r) => r.length);
    return n === expect.top_referrers || n + " referrers shown, the CLI lists " + expect.top_referrers;
  });
  await step("referrer-page", async () => {
    const id = await page.$eval("#referrers a.oid", (a) => a.textContent);
    await clickAndWait("#referrers a.oid", "object");
    return (await text("h2")).includes(id) || "not on " + id;
  });
  await step("back-button", async () => {
    await unready();
    await Promise.all([ready("object"), page.goBack()]);
    return (await text("h2")).includes(expect.held) || "back went to " + (await text("h2"));
  });
  await step("path-from-root", async () => {
    const ids = await page.$$eval("#path a.oid", (a) => a.map((x) => x.textContent));
    return JSON.stringify(ids) === JSON.stringify(expect.top_path) || ids.join(",") + " vs " + expect.top_path.join(",");
  });
  await step("path-step-page", async () => {
    await clickAndWait("#path a.oid", "object");
    return (await text("h2")).includes(expect.top_path[0]) || await text("h2");
  });
  await step("leak-judged-on-object-page", async () => {
    await unready();
    await page.goto(url.replace(/\?.*$/, "") + "#/object/" + expect.leak_object, { waitUntil: "domcontentloaded" });
    await ready("object");
    if (await page.$("#leakbtn")) await page.click("#leakbtn"); // without the overview's facts: on a click
    await page.waitForSelector("ol.trace li.leaking", { timeout: 30000 });
    const last = await page.$eval("ol.trace li.leaking a.oid", (a) => a.textContent);
    return last === expect.leak_object || last;
  });
  await step("field-link", async () => { // from the leaking object's page, where the step before left us
    const id = await page.$eval("table.fields a.oid", (a) => a.textContent);
    await clickAndWait("table.fields a.oid", "object");
    return (await text("h2")).includes(id) || "not on " + id;
  });
  await step("class-page", async () => {
    await unready();
    await page.goBack();
    await ready("object");
    await clickAndWait(".objhead a.cls", "class");
    return (await text("h2")) === expect.leak_class || await text("h2");
  });
  await step("instance-page", async () => {
    await page.waitForSelector("#instances a.oid", { timeout: 10000 });
    const ids = await page.$$eval("#instances a.oid", (a) => a.map((x) => x.textContent));
    if (ids.length !== expect.leak_class_instances) return ids.length + " instances, the CLI says " + expect.leak_class_instances;
    await clickAndWait("#instances a.oid", "object");
    return (await text("h2")).includes(ids[0]) || await text("h2");
  });
  await step("leak-static-step", async () => {
    await unready();
    await page.goto(url.replace(/\?.*$/, "") + "#/leaks", { waitUntil: "domcontentloaded" });
    await ready("leaks");
    const steps = await page.$$eval("ol.trace li", (l) => l.map((x) => x.textContent));
    return steps.some((s) => s.includes("LeakyService") && s.includes("static leakAllTheBinders")) || steps.slice(0, 4).join(" / ");
  });
  await step("bitmaps-real-pictures", async () => {
    await unready();
    await page.goto(url.replace(/\?.*$/, "") + "#/bitmaps", { waitUntil: "domcontentloaded" });
    await ready("bitmaps");
    await page.waitForFunction(() => Array.from(document.images).every((i) => i.complete), { timeout: 20000 });
    const imgs = await page.$$eval(".gallery img", (l) => l.map((i) => [i.naturalWidth, i.naturalHeight]));
    const broken = await page.$$eval(".gallery .noimg", (l) => l.length);
    if (imgs.length !== expect.bitmaps.length || broken) return imgs.length + " pictures, " + broken + " broken; the CLI finds " + expect.bitmaps.length;
    const want = JSON.stringify(expect.bitmaps), got = JSON.stringify(imgs);
    return got === want || "sizes " + got + " vs " + want;
  });
  await step("console-histogram", async () => {
    await unready();
    await page.goto(url.replace(/\?.*$/, "") + "#/console", { waitUntil: "domcontentloaded" });
    await ready("console");
    await page.select("#qname", "histogram");
    await page.type("#qargs input[name=n]", "5");
    await page.click("#qform button");
    await page.waitForFunction(() => document.body.getAttribute("data-console"), { timeout: 20000 });
    const rows = await page.$$eval("#out tbody tr td:first-child", (l) => l.map((x) => x.textContent));
    return JSON.stringify(rows) === JSON.stringify(expect.histogram5) || rows.join(",") + " vs " + expect.histogram5.join(",");
  });
  await step("console-lua", async () => {
    await page.evaluate(() => document.body.removeAttribute("data-console"));
    await page.$eval("#lua", (t) => { t.value = "return {objects = dump:info().objects}"; });
    await page.click("#lform button");
    await page.waitForFunction(() => document.body.getAttribute("data-console"), { timeout: 20000 });
    const cell = await page.$eval("#out tbody td", (x) => x.textContent);
    return Number(cell) === expect.objects || cell + " vs " + expect.objects;
  });
  await step("dominator-tree", async () => {
    await unready();
    await page.goto(url.replace(/\?.*$/, "") + "#/dominators", { waitUntil: "domcontentloaded" });
    await ready("dominators");
    const first = await page.$eval("ul.domtree summary a.oid", (a) => a.textContent);
    if (first !== expect.dominated[0]) return "first " + first + ", the CLI says " + expect.dominated[0];
    const tiles = await page.$$eval("#tm a.tm", (l) => l.length);
    if (tiles !== expect.dominated_count) return tiles + " tiles for " + expect.dominated_count + " tops";
    await page.click("ul.domtree summary");
    await page.waitForSelector("ul.domtree ul.domtree a.oid", { timeout: 20000 });
    const kids = await page.$$eval("ul.domtree ul.domtree > li > details > summary a.oid", (l) => l.map((a) => a.textContent));
    return JSON.stringify(kids) === JSON.stringify(expect.dominated_kids) || kids.join(",") + " vs " + expect.dominated_kids.join(",");
  });
  await step("search-id", async () => {
    await page.$eval("#q", (i, v) => { i.value = v; }, String(parseInt(expect.top, 16)));
    await unready();
    await Promise.all([ready("object"), page.click("#search button")]);
    return (await text("h2")).includes(expect.top) || await text("h2");
  });
  await step("array-next-page", async () => {
    const a = expect.array;
    await unready();
    await page.goto(url.replace(/\?.*$/, "") + "#/object/" + a.id, { waitUntil: "domcontentloaded" });
    await ready("object");
    const first = await page.$$eval("#elements tbody tr", (l) => l.length);
    if (first !== 100) return first + " elements on the first page";
    await unready();
    await Promise.all([ready("object"), page.evaluate(() => Array.from(document.querySelectorAll("#elempager a")).find((x) => /next/.test(x.textContent)).click())]);
    const vals = await page.$$eval("#elements tbody tr td:nth-child(2)", (l) => l.map((x) => Number(x.textContent)));
    const idx = await page.$eval("#elements tbody tr td", (x) => x.textContent);
    return (idx === "100" && JSON.stringify(vals) === JSON.stringify(a.page2)) || "from " + idx + ": " + vals.slice(0, 5) + " vs " + a.page2.slice(0, 5);
  });
  await step("array-jump-to-index", async () => {
    const a = expect.array;
    await page.$eval("#elemindex", (i, v) => { i.value = v; }, String(a.jump));
    await unready();
    await Promise.all([ready("object"), page.click("#elemjump button")]);
    const vals = await page.$$eval("#elements tbody tr td:nth-child(2)", (l) => l.map((x) => Number(x.textContent)));
    const t = await text("#elemtext");
    if (JSON.stringify(vals) !== JSON.stringify(a.last.values)) return vals.length + " values from the jump, the CLI gives " + a.last.values.length;
    return t === a.last.text || JSON.stringify(t.slice(0, 40)) + " vs " + JSON.stringify(a.last.text.slice(0, 40));
  });
  await step("referrers-next-page", async () => {
    const r = expect.refpage;
    await unready();
    await page.goto(url.replace(/\?.*$/, "") + "#/object/" + r.id, { waitUntil: "domcontentloaded" });
    await ready("object");
    await page.waitForSelector("#referrers a.oid", { timeout: 10000 });
    await unready();
    await Promise.all([ready("object"), page.evaluate(() => Array.from(document.querySelectorAll("#referrers ~ .pager a")).find((x) => /next/.test(x.textContent)).click())]);
    await page.waitForSelector("#referrers a.oid", { timeout: 10000 });
    const ids = await page.$$eval("#referrers tbody tr td:first-child a.oid", (l) => l.map((a) => a.textContent));
    return JSON.stringify(ids) === JSON.stringify(r.second) || ids.length + " referrers from 50: " + ids.slice(0, 3) + " vs " + r.second.slice(0, 3);
  });
  await step("bitmap-size-on-object-page", async () => {
    const b = expect.bitmap;
    await unready();
    await page.goto(url.replace(/\?.*$/, "") + "#/object/" + b.id, { waitUntil: "domcontentloaded" });
    await ready("object");
    const t = await text("#bmcaption");
    return t.startsWith(b.w + "×" + b.h + " ·") || t;
  });
  await step("unknown-id-says-so", async () => {
    await unready();
    await page.goto(url.replace(/\?.*$/, "") + "#/object/0x1", { waitUntil: "domcontentloaded" });
    await ready("object");
    const e = await page.$eval(".error", (x) => x.textContent);
    return e.includes("no object with id 0x1") || e;
  });
}

async function diffWalk() {
  await step("diff-top-grower", async () => {
    await unready();
    await page.goto(url.replace(/\?/, "?") + "#/diff", { waitUntil: "domcontentloaded" });
    await ready("diff");
    const first = await page.$eval("#growers tbody tr td", (x) => x.textContent);
    return first === expect.top_grower || first + " vs " + expect.top_grower;
  });
  await step("diff-classes-beside-baseline", async () => {
    await unready();
    await page.goto(url.replace(/\?.*$/, "") + "#/classes?heap=", { waitUntil: "domcontentloaded" });
    await ready("classes");
    const rows = await page.$$eval("#classes tbody tr", (l) => l.map((tr) => Array.from(tr.children).map((td) => td.textContent)));
    const head = await page.$$eval("#classes thead th", (l) => l.map((th) => th.textContent.replace(/[▲▼]/g, "").trim()));
    const want = expect.class_row;
    const row = rows.find((r) => r[head.indexOf("class")] === want.class);
    if (!row) return want.class + " is not listed";
    const got = [row[0], row[head.indexOf("count before")].replace(/,/g, ""), row[head.indexOf("Δ count")].replace(/,/g, "")];
    const w = [want.mark, String(want.count_base), String(want.count_delta)];
    return JSON.stringify(got) === JSON.stringify(w) || JSON.stringify(got) + " vs " + JSON.stringify(w);
  });
  const marks = (sel) => page.$$eval(sel, (l) => l.map((x) => x.textContent));
  await step("diff-overview-both-sides", async () => {
    await unready();
    await page.goto(url.replace(/\?.*$/, "") + "#/", { waitUntil: "domcontentloaded" });
    await ready("overview");
    const t = (await text("#basecards .card .v")).replace(/,/g, "");
    const want = expect.objects_base_dump.join(" → ");
    if (t !== want) return t + " vs " + want;
    await page.waitForSelector("#top .mark", { timeout: 20000 });
    return (await marks("#top .mark")).length === 10 || "top retainers without marks";
  });
  await step("diff-dominators-marked", async () => {
    await unready();
    await page.goto(url.replace(/\?.*$/, "") + "#/dominators", { waitUntil: "domcontentloaded" });
    await ready("dominators");
    const got = await marks("ul.domtree > li > details > summary > .mark, ul.domtree > li > summary > .mark");
    return JSON.stringify(got) === JSON.stringify(expect.dominated_marks) || got.slice(0, 6) + " vs " + expect.dominated_marks.slice(0, 6);
  });
  await step("diff-instances-marked", async () => {
    await unready();
    await page.goto(url.replace(/\?.*$/, "") + "#/class/" + encodeURIComponent("DumpedStuff$StackSmasher"), { waitUntil: "domcontentloaded" });
    await ready("class");
    await page.waitForSelector("#instances .mark", { timeout: 20000 });
    const got = await marks("#instances .mark");
    return JSON.stringify(got) === JSON.stringify(expect.instance_marks) || got.join(",").slice(0, 80) + " vs " + expect.instance_marks.join(",").slice(0, 80);
  });
  await step("diff-strings-marked", async () => {
    await unready();
    await page.goto(url.replace(/\?.*$/, "") + "#/strings", { waitUntil: "domcontentloaded" });
    await ready("strings");
    const got = await marks("table .mark");
    return JSON.stringify(got) === JSON.stringify(expect.string_marks) || got.length + " marks vs " + expect.string_marks.length;
  });
  await step("diff-object-matched", async () => {
    await unready();
    await page.goto(url.replace(/\?.*$/, "") + "#/diff", { waitUntil: "domcontentloaded" });
    await ready("diff");
    await clickAndWait("#growers a.oid", "object");
    await page.click("#matchbtn");
    await page.waitForSelector("#matched", { timeout: 30000 });
    const t = await text("#matched");
    return t === "matched to " + expect.grower_base + " in the baseline, at " + expect.top_grower || t;
  });
}

main().then(() => process.exit(failed ? 1 : 0), (e) => { console.log("FAIL browser: " + e.message.split("\n")[0]); process.exit(1); });
