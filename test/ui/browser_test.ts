/**
 * The web view in a real headless Chromium (Debian's, driven by
 * playwright-core): log in with the printed link, search, read a memory's
 * history, revise and forget it, expand the graph, watch vectors pending fall.
 * One browser for the whole file. Skipped, saying why, without
 * /usr/bin/chromium. With CAIRN_UI_SCREENSHOTS=FOLDER it saves a screenshot
 * of each view there (the README's come from this test).
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { startUiServer } from "./ui_server.ts";
import { FakeEmbedder } from "../embed/fake_embedder.ts";
import { tempDir } from "../helpers.ts";

const CHROMIUM = "/usr/bin/chromium";
const hasChromium = await Deno.stat(CHROMIUM).then(() => true, () => false);
const SKIPPED = hasChromium ? "" : ` (skipped: ${CHROMIUM} is absent; apt-get install chromium)`;
if (!hasChromium) console.warn(`test/ui/browser_test.ts${SKIPPED}`);
const screenshots = Deno.env.get("CAIRN_UI_SCREENSHOTS");

/** Embeds documents slowly, so a test sees vectors pending fall while they are computed. */
class SlowEmbedder extends FakeEmbedder {
  override async embedDocuments(texts: readonly string[]): Promise<Float32Array[]> {
    await new Promise((resolve) => setTimeout(resolve, 250));
    return await super.embedDocuments(texts);
  }
}

async function shot(page: Page, name: string): Promise<void> {
  if (screenshots) await page.screenshot({ path: join(screenshots, `${name}.png`) });
}

/** A folder of `files` TypeScript files with five small functions each. */
async function writeProject(root: string, files: number): Promise<void> {
  await Deno.mkdir(join(root, "src"), { recursive: true });
  for (let f = 0; f < files; f++) {
    const functions = Array.from(
      { length: 5 },
      (_, i) =>
        `export function step${f}x${i}(value: number): number {\n  // stage ${i} of file ${f}\n` +
        `  const doubled = value * ${i + 2};\n  return doubled + ${f};\n}\n`,
    ).join("\n");
    await Deno.writeTextFile(join(root, "src", `file${f}.ts`), functions);
  }
}

Deno.test({
  name:
    `the web view in Chromium: log in, search, history, revise, forget, graph, health${SKIPPED}`,
  ignore: !hasChromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    await using ui = await startUiServer(new SlowEmbedder());
    await using project = await tempDir("cairn-ui-project-");
    const { memory } = await ui.cairn.memories.remember({
      content: "Billing uses Postgres for its row locks; SQLite could not take the write load",
      project: "api",
      kind: "decision",
      entities: ["Postgres", "billing"],
      relations: [{ from: "billing", relation_type: "stores data in", to: "Postgres" }],
    });
    await ui.cairn.memories.remember({
      content: "Retries use exponential backoff",
      project: "api",
    });
    await ui.cairn.memories.remember({
      content: "Ada reviews every billing migration before it ships",
      project: "api",
      entities: ["Ada", "billing"],
    });
    await ui.cairn.entities.createEntities([
      { name: "Ada", entityType: "person", observations: ["maintains billing"] },
    ]);
    await ui.cairn.entities.createRelations([
      { from: "Ada", relationType: "maintains", to: "billing" },
    ]);

    const browser: Browser = await chromium.launch({ executablePath: CHROMIUM });
    try {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.stack ?? error.message));
      page.on("console", (message) => {
        const text = message.text();
        // The probe of another origin below is refused by the page's own policy too.
        const probe = text.includes(`localhost:${ui.port}/ui/api/health`);
        if (message.type() === "error" && !probe && !/401|Failed to load resource/.test(text)) {
          errors.push(text);
        }
      });

      await t.step("without the cookie the page answers 401; the link logs in", async () => {
        const refused = await page.goto(`${ui.base}/ui/`);
        assert.equal(refused?.status(), 401);
        await page.goto(await ui.link());
        assert.equal(new URL(page.url()).pathname, "/ui/");
        const [cookie] = await context.cookies();
        assert.equal(cookie?.httpOnly, true);
        assert.equal(cookie?.sameSite, "Strict");
        const foreign = await page.evaluate(async (base) => {
          const response = await fetch(`${base}/ui/api/health`, {
            method: "POST",
            body: "{}",
            headers: { "x-probe": "1" },
          });
          return response.status;
        }, `http://localhost:${ui.port}`).catch(() => "blocked");
        assert.notEqual(foreign, 200, "a page of another origin cannot use the routes");
      });

      await t.step("search shows the known memory first, with its score components", async () => {
        await page.goto(`${ui.base}/ui/#search`);
        await page.fill("#query", "which database does billing use and why?");
        await page.click("form.bar button[type=submit]");
        const first = page.locator("tr.result").first();
        await first.waitFor();
        assert.equal(await first.locator("td").nth(2).innerText(), memory.id);
        assert.match(await first.locator("td.components").innerText(), /fused/);
        await shot(page, "search");
      });

      await t.step("a memory's history, revised and forgotten through the page", async () => {
        await page.locator("tr.result").first().locator("a").click();
        await page.locator(".memory-detail ol.history li").first().waitFor();
        assert.equal(await page.locator(".memory-detail ol.history li").count(), 1);
        await page.fill("#revise-text", "Billing uses Postgres 16 for its row locks");
        await page.click("#revise");
        await page.click("#confirm-yes");
        await page.locator(".memory-detail ol.history li.revised").waitFor();
        assert.equal(await page.locator(".memory-detail ol.history li").count(), 2);
        await shot(page, "memories");
        await page.click("#forget");
        await page.click("#confirm-yes");
        await page.locator(`tr.memory[data-id="${memory.id}"]`).waitFor({ state: "detached" });
        assert.equal(await page.locator("tr.memory").count(), 2);
        assert.equal((await ui.cairn.memories.get(memory.id))?.forgotten_at !== undefined, true);
      });

      await t.step("the graph draws entities and expands a node on click", async () => {
        await page.goto(`${ui.base}/ui/#graph`);
        await page.waitForFunction(() =>
          (globalThis as unknown as { cairnGraph?: { nodes(): unknown[] } }).cairnGraph?.nodes()
            .length
        );
        const drawn = () =>
          page.evaluate(() =>
            (globalThis as unknown as { cairnGraph: { nodes(): unknown[] } }).cairnGraph.nodes()
              .length
          );
        await page.click("#graph-clear");
        assert.equal(await drawn(), 0);
        await page.fill("#graph-search", "Ada");
        await page.press("#graph-search", "Enter");
        await page.locator("#graph-status", { hasText: "nodes match" }).waitFor();
        const before = await drawn();
        const where = await page.evaluate(() => {
          const cy = (globalThis as unknown as {
            cairnGraph: {
              getElementById(id: string): { renderedPosition(): { x: number; y: number } };
              container(): { getBoundingClientRect(): { left: number; top: number } };
            };
          }).cairnGraph;
          const { x, y } = cy.getElementById("entity:Ada").renderedPosition();
          const box = cy.container().getBoundingClientRect();
          return { x: box.left + x, y: box.top + y };
        });
        await page.mouse.click(where.x, where.y);
        await page.locator("#graph-info h3", { hasText: "Ada" }).waitFor();
        await page.locator("#graph-status", { hasText: "new neighbours" }).waitFor();
        assert.ok(await drawn() > before, "a click on Ada drew the memory that names her");
        assert.equal(await page.locator("#graph-info .error").count(), 0);
        await page.fill("#graph-walk", "who reviews billing migrations");
        await page.press("#graph-walk", "Enter");
        await page.locator("#graph-status", { hasText: "recall walked" }).waitFor();
        const walked = await page.evaluate(() =>
          (globalThis as unknown as { cairnGraph: { edges(s: string): unknown[] } }).cairnGraph
            .edges(".walked").length
        );
        assert.ok(walked > 0, "the walked neighbourhood is highlighted");
        await shot(page, "graph");
      });

      await t.step(
        "health shows the log and vectors pending falling while they embed",
        async () => {
          await writeProject(project.path, 40);
          await ui.cairn.code.index({ path: project.path, project: "demo" });
          await page.goto(`${ui.base}/ui/#health`);
          const pending = async () =>
            Number((await page.locator("#vectors-pending .value").innerText()).replaceAll(",", ""));
          await page.locator("#vectors-pending").waitFor();
          const first = await pending();
          assert.ok(first > 0, "the project waits for vectors");
          await page.waitForFunction(
            (at) => {
              const doc = (globalThis as unknown as {
                document: { querySelector(s: string): { textContent: string | null } | null };
              }).document;
              const text = doc.querySelector("#vectors-pending .value")?.textContent ?? "";
              return Number(text.replaceAll(",", "")) < at;
            },
            first,
            { timeout: 30_000 },
          );
          assert.match(await page.locator("#projects").innerText(), /demo/);
          assert.match(await page.locator("#log tbody").innerText(), /\d+\s+\d+\s+[\d.]+ (B|KiB)/);
          await shot(page, "health");
        },
      );

      await t.step(
        "sessions: a turn with the files it touched and the user's decision",
        async () => {
          const fixture = new URL(
            "../fixtures/transcripts/claude-decisions/ask-user-question.jsonl",
            import.meta.url,
          ).pathname;
          await ui.cairn.sessions.ingest({ path: fixture, agent: "claude", final: true });
          await page.goto(`${ui.base}/ui/#sessions`);
          await page.locator("li.session").first().click();
          await page.locator("li.turn").first().waitFor();
          assert.match(await page.locator(".decision").first().innerText(), /^User answered/);
          assert.ok(await page.locator(".decision").count() > 0, "the user's decision is shown");
          await shot(page, "sessions");
        },
      );

      await t.step(
        "a graph of 1,000 entities is drawn a page at a time without freezing",
        async () => {
          // A store of its own, so the other steps' indexing does not scan 1,000 names.
          await using big = await startUiServer();
          const names = Array.from({ length: 1000 }, (_, i) => `Service ${i}`);
          // The graph operations take 100 at a time.
          for (let at = 0; at < names.length; at += 100) {
            await big.cairn.entities.createEntities(
              names.slice(at, at + 100).map((name) => ({
                name,
                entityType: "service",
                observations: [],
              })),
            );
          }
          for (let at = 1; at < names.length; at += 100) {
            await big.cairn.entities.createRelations(
              names.slice(at, at + 100).map((name, i) => ({
                from: name,
                relationType: "calls",
                to: names[Math.floor((at + i - 1) / 3)]!,
              })),
            );
          }
          await page.goto(await big.link());
          await page.goto(`${big.base}/ui/#graph`);
          await page.locator("#graph-status", { hasText: "more entities" }).waitFor();
          const drawnCount = () =>
            page.evaluate(() =>
              (globalThis as unknown as { cairnGraph: { nodes(): unknown[] } }).cairnGraph.nodes()
                .length
            );
          const started = performance.now();
          let slowest = 0;
          while (await drawnCount() < 1000) {
            const before = await drawnCount();
            const click = performance.now();
            await page.click("#more-entities");
            await page.waitForFunction(
              (count) =>
                (globalThis as unknown as { cairnGraph: { nodes(): unknown[] } }).cairnGraph.nodes()
                  .length > count,
              before,
            );
            slowest = Math.max(slowest, performance.now() - click);
          }
          const total = performance.now() - started;
          console.log(
            `1,000-entity graph: ${await drawnCount()} nodes drawn in ${Math.round(total)} ms, ` +
              `slowest page of 50 ${Math.round(slowest)} ms`,
          );
          assert.ok(slowest < 5000, `a page took ${Math.round(slowest)} ms`);
        },
      );

      assert.deepEqual(errors, [], "no script error and no refused script or style");
    } finally {
      await browser.close();
    }
  },
});
