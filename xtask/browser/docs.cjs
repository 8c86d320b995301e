// The docs pages in a real browser (`cargo xtask browser`): headless Chromium, driven by
// puppeteer-core, loads `/docs` (Swagger UI) from a server on the demo catalogue, checks that
// every operation of the document is listed, authorizes with the demo token, runs "Try it out" on
// keywords retrieve and reads 200 with the demo's keywords in JSON (listed first on the page),
// saves a screenshot, then loads `/redoc` and finds the operations there too. Both pages must come with a
// `Content-Security-Policy` and `X-Content-Type-Options: nosniff`, and work under that policy
// without a single violation.
//
// node docs.cjs <base URL> <token> <operation count> <screenshot folder>
// (PUPPETEER_EXECUTABLE_PATH names the browser; NODE_PATH finds puppeteer-core.)
"use strict";

const puppeteer = require("puppeteer-core");

const [base, token, expected, folder] = process.argv.slice(2);

function check(condition, message) {
  if (!condition) {
    throw new Error(message);
  }
}

// Loads a page, checks its security headers, and has it record every violation of its policy.
async function load(page, url) {
  await page.evaluateOnNewDocument(() => {
    window.violations = [];
    document.addEventListener("securitypolicyviolation", (event) => {
      window.violations.push(`${event.violatedDirective} ${event.blockedURI}`);
    });
  });
  const response = await page.goto(url, { waitUntil: "networkidle0" });
  const headers = response.headers();
  check(
    (headers["content-security-policy"] || "").includes("default-src 'none'"),
    `${url} has no Content-Security-Policy: ${JSON.stringify(headers)}`,
  );
  check(headers["x-content-type-options"] === "nosniff", `${url} lacks nosniff`);
}

// The policy violations a page recorded.
async function violations(page, url) {
  const found = await page.evaluate(() => window.violations);
  check(found.length === 0, `${url} broke its Content-Security-Policy: ${found.join("; ")}`);
  return found.length;
}

async function main() {
  const browser = await puppeteer.launch({
    executablePath: process.env.PUPPETEER_EXECUTABLE_PATH,
    headless: true,
    args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"],
  });
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 1600 });
    const failed = [];
    page.on("requestfailed", (request) => failed.push(request.url()));

    // Every operation is listed.
    await load(page, `${base}/docs`);
    await page.waitForSelector(".opblock", { timeout: 30000 });
    const listed = await page.$$eval(".opblock", (blocks) => blocks.length);
    check(listed === Number(expected), `/docs lists ${listed} operations, not ${expected}`);
    const outside = failed.filter((url) => !url.startsWith(base));
    check(outside.length === 0, `the page fetched outside the server: ${outside.join(", ")}`);

    // Authorize with the token.
    await page.click(".auth-wrapper .authorize");
    await page.waitForSelector(".modal-ux input", { timeout: 10000 });
    await page.type(".modal-ux input", token);
    await page.click(".modal-ux .auth-btn-wrapper .authorize");
    await page.click(".modal-ux .btn-done");

    // Try it out: keywords retrieve of every level, in JSON (the page lists it first).
    const operation = "#operations-Common-keywordsRetrieve";
    await page.click(`${operation} .opblock-summary`);
    await page.waitForSelector(`${operation} .try-out__btn`, { timeout: 10000 });
    await page.click(`${operation} .try-out__btn`);
    await page.waitForSelector(`${operation} textarea.body-param__text`, { timeout: 10000 });
    await page.$eval(`${operation} textarea.body-param__text`, (area) => {
      area.value = "";
    });
    await page.type(`${operation} textarea.body-param__text`, '{"path": "/", "level": -1}');
    await page.click(`${operation} .execute`);
    const status = `${operation} .live-responses-table tbody .response-col_status`;
    await page.waitForSelector(status, { timeout: 20000 });
    const code = (await page.$eval(status, (cell) => cell.textContent)).trim();
    const body = await page.$eval(
      `${operation} .live-responses-table tbody .response-col_description pre`,
      (pre) => pre.textContent,
    );
    check(code === "200", `Try it out answered ${code}: ${body}`);
    check(body.includes("/Season/Summer"), `the answer lacks the demo's keywords: ${body}`);
    check(body.trim().startsWith("{"), `Try it out did not ask for JSON first: ${body}`);
    await page.$eval(status, (cell) => cell.scrollIntoView({ block: "center" }));
    const screenshot = `${folder}/docs.png`;
    await page.screenshot({ path: screenshot });
    await violations(page, `${base}/docs`);

    // Redoc shows the same document.
    await load(page, `${base}/redoc`);
    await page.waitForSelector("[data-section-id]", { timeout: 30000 });
    const sections = await page.$$eval("[data-section-id^='operation/']", (found) => found.length);
    check(
      sections === Number(expected),
      `/redoc shows ${sections} operations, not ${expected}`,
    );
    await page.screenshot({ path: `${folder}/redoc.png` });
    await violations(page, `${base}/redoc`);

    console.log(
      JSON.stringify({
        listed,
        tryItOut: code,
        keywords: body.length,
        screenshot,
        sections,
        violations: 0,
      }),
    );
  } finally {
    await browser.close();
  }
}

main().catch((error) => {
  console.error(`browser check failed: ${error.message}`);
  process.exit(1);
});
