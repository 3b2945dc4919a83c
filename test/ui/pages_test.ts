import assert from "node:assert/strict";
import { startUiServer } from "./ui_server.ts";
import { cookieName } from "../../src/ui/auth.ts";
import { writeVerifyRecord } from "../../src/service/verify_record.ts";
import { uiPages } from "../../src/ui/pages.ts";

/** Logs in with a fresh link; the session cookie as a request header sends it. */
async function logIn(base: string, link: string): Promise<string> {
  const response = await fetch(link, { redirect: "manual" });
  await response.body?.cancel();
  assert.equal(response.status, 303);
  assert.equal(response.headers.get("location"), "/ui/");
  const cookie = response.headers.get("set-cookie") ?? "";
  assert.ok(base);
  return cookie.split(";")[0]!;
}

Deno.test("the web view lets in whoever opened a link once, and refuses the rest", async () => {
  await using ui = await startUiServer();
  const link = await ui.link();
  const first = await fetch(link, { redirect: "manual" });
  await first.body?.cancel();
  const setCookie = first.headers.get("set-cookie")!;
  assert.match(setCookie, new RegExp(`^${cookieName(ui.port)}=`));
  assert.match(setCookie, /HttpOnly/);
  assert.match(setCookie, /SameSite=Strict/);
  assert.match(setCookie, /Path=\/ui/);
  const again = await fetch(link, { redirect: "manual" });
  assert.equal(again.status, 401, "a link works once");
  assert.match(await again.text(), /run `cairn ui` for a new one/);
  const forged = await fetch(link.replace(/.$/, (c) => c === "0" ? "1" : "0"), {
    redirect: "manual",
  });
  assert.equal(forged.status, 401);
  await forged.body?.cancel();

  const cookie = setCookie.split(";")[0]!;
  const page = await fetch(`${ui.base}/ui/`, { headers: { cookie } });
  assert.equal(page.status, 200);
  assert.match(page.headers.get("content-security-policy")!, /script-src 'self'/);
  assert.match(await page.text(), /<title>cairn<\/title>/);

  const noCookie = await fetch(`${ui.base}/ui/`);
  assert.equal(noCookie.status, 401);
  await noCookie.body?.cancel();
  const api = (headers: Record<string, string>) =>
    fetch(`${ui.base}/ui/api/health`, { method: "POST", headers, body: "{}" });
  const apiNoCookie = await api({});
  assert.equal(apiNoCookie.status, 401);
  assert.match((await apiNoCookie.json()).error, /cairn ui/);
  const wrongCookie = await api({ cookie: `${cookieName(ui.port)}=1.2.3` });
  assert.equal(wrongCookie.status, 401);
  await wrongCookie.body?.cancel();
  const foreign = await api({ cookie, origin: "http://evil.example" });
  assert.equal(foreign.status, 403, "the owner refuses a foreign Origin");
  await foreign.body?.cancel();
  const otherPort = await api({ cookie, origin: "http://127.0.0.1:1" });
  assert.equal(otherPort.status, 403, "another local port is another site's page");
  await otherPort.body?.cancel();
  const crossSite = await api({ cookie, "sec-fetch-site": "same-site" });
  assert.equal(crossSite.status, 403);
  await crossSite.body?.cancel();
  const own = await api({ cookie, origin: ui.base, "sec-fetch-site": "same-origin" });
  assert.equal(own.status, 200);
  assert.equal(typeof (await own.json()).log.head, "number");
  const mcp = await fetch(`${ui.base}/mcp`, { method: "POST", headers: { cookie }, body: "{}" });
  assert.equal(mcp.status, 401, "the cookie is not the bearer token");
  await mcp.body?.cancel();
});

Deno.test("the web view trusts a connection that opens with its session or an unused login link, and no other", async () => {
  await using ui = await startUiServer();
  const pages = uiPages({ cairn: ui.cairn, token: ui.token });
  const trusts = (target: string, cookie?: string) =>
    pages.trusts({ target, headers: new Headers(cookie ? { cookie } : {}) }, ui.port);
  const link = new URL(await ui.link());
  const login = `${link.pathname}${link.search}`;
  assert.equal(await trusts(login), true, "a link not opened yet");
  const opened = await pages.handle(new Request(link.href), ui.port);
  assert.equal(opened.status, 303);
  const cookie = opened.headers.get("set-cookie")!.split(";")[0]!;
  assert.equal(await trusts(login), false, "a link opened already");
  assert.equal(await trusts("/ui/api/forget", cookie), true);
  assert.equal(await trusts("/ui/api/forget", `${cookieName(ui.port)}=1.2.3`), false);
  assert.equal(await trusts("/ui/api/forget"), false);
  assert.equal(await trusts("/ui/login?code=forged"), false);
  assert.equal(await trusts("http://[bad"), false);
});

Deno.test("the web view's routes run the operations: recall, list, history, revise, forget, purge", async () => {
  await using ui = await startUiServer();
  const cookie = await logIn(ui.base, await ui.link());
  const call = async (name: string, input: Record<string, unknown>) => {
    const response = await fetch(`${ui.base}/ui/api/${name}`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify(input),
    });
    return { status: response.status, body: await response.json() };
  };
  const { memory } = await ui.cairn.memories.remember({
    content: "Billing uses Postgres for its row locks",
    project: "api",
    entities: ["Postgres"],
  });
  await ui.cairn.memories.remember({ content: "The CLI is written in TypeScript", project: "api" });
  const found = await call("recall", { query: "which database does billing use", project: "api" });
  assert.equal(found.status, 200);
  assert.equal(found.body.rows[0].handle, memory.id);
  assert.equal(found.body.rows[0].source, "memory");
  assert.equal(typeof found.body.rows[0].components.fused, "number");
  const bad = await call("recall", { query: "" });
  assert.equal(bad.status, 400);
  assert.match(bad.body.error, /query is empty/);

  assert.equal(
    (await call("revise", { id: memory.id, content: "Billing uses Postgres 16 for its row locks" }))
      .status,
    200,
  );
  const history = await call("history", { id: memory.id });
  assert.deepEqual(history.body.changes.map((c: { change: string }) => c.change), [
    "remembered",
    "revised",
  ]);
  const expanded = await call("graph-expand", { node: "entity:Postgres" });
  assert.ok(expanded.body.nodes.some((n: { id: string }) => n.id === `memory:${memory.id}`));
  const walked = await call("graph-walk", { query: "billing database", project: "api" });
  assert.ok(walked.body.seeds.includes(`memory:${memory.id}`));
  assert.ok(walked.body.edges.some((e: { target: string }) => e.target === "entity:Postgres"));

  const named = await call("graph-find", { query: "Postgres" });
  assert.deepEqual(named.body.nodes.map((n: { id: string }) => n.id), ["entity:Postgres"]);

  assert.equal((await call("forget", { id: memory.id })).status, 200);
  const listed = await call("memories", {});
  assert.deepEqual(listed.body.memories.map((m: { content: string }) => m.content), [
    "The CLI is written in TypeScript",
  ]);
  assert.equal((await call("nothing", {})).status, 404);

  const other = listed.body.memories[0].id;
  assert.equal((await call("forget", { id: other, purge: true })).status, 200);
  const purged = await call("history", { id: other });
  assert.equal(purged.status, 404, "a purged memory has no history left");
  assert.equal((await call("health", {})).body.lastVerify, null);
  await writeVerifyRecord(ui.cairn.store.dir, { at: "2026-11-27T10:00:00Z", head: 7, problems: 0 });
  assert.deepEqual((await call("health", {})).body.lastVerify, {
    at: "2026-11-27T10:00:00Z",
    head: 7,
    problems: 0,
  });
});
