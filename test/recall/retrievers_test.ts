import assert from "node:assert/strict";
import { join } from "node:path";
import { askOf } from "../../src/recall/ask.ts";
import { retrieveAll } from "../../src/recall/retriever.ts";
import type { Source } from "../../src/recall/types.ts";
import { retrieversOf } from "../../src/recall/recall.ts";
import type { Cairn } from "../../src/service/cairn.ts";
import { tempDir } from "../helpers.ts";
import { answer, prompt, SESSION, tool } from "../service/claude_lines.ts";
import { openWithFakeModel } from "../service/fake_cairn.ts";
import { checkRetrieverContract, type ContractStore } from "./retriever_contract.ts";

const cwd = "/home/dev/shop";

/** A store with every source: memories, a small project's code, and a session about it. */
async function fill(cairn: Cairn, dir: string): Promise<void> {
  const repo = join(dir, "shop");
  await Deno.mkdir(join(repo, "tests"), { recursive: true });
  await Deno.mkdir(join(repo, "web"), { recursive: true });
  await Deno.writeTextFile(
    join(repo, "auth.py"),
    'import hashlib\n\n\ndef login(user, password):\n    """Checks the password hash."""\n' +
      "    return hashlib.sha256(password.encode()).hexdigest() == user.password_hash\n\n\n" +
      "class Session:\n    def request(self, method, url):\n        return self.send(method, url)\n\n" +
      "    def expire(self, minutes=30):\n        self.expires_in = minutes\n",
  );
  await Deno.writeTextFile(
    join(repo, "tests", "test_auth.py"),
    "from auth import login\n\n\ndef test_login_checks_password():\n    assert not login(None, 'x')\n",
  );
  await Deno.writeTextFile(
    join(repo, "web", "login.ts"),
    "export function renderLogin(password: string): string {\n  return `<form>${password}</form>`;\n}\n",
  );
  await cairn.code.index({ path: repo, project: "shop" });
  for (
    const content of [
      "Passwords are checked against a sha256 hash in login().",
      "Login sessions expire after 30 minutes of inactivity.",
      "The web login form is rendered by renderLogin.",
    ]
  ) await cairn.memories.remember({ content, project: "shop" });
  const transcript = join(dir, `${SESSION}.jsonl`);
  await Deno.writeTextFile(
    transcript,
    prompt("Make sessions expire after 30 minutes", cwd, 0) +
      tool("Edit", { file_path: `${cwd}/auth.py` }, cwd, 1) +
      answer("Session.expire now defaults to 30 minutes.", cwd, 2) +
      prompt("Why does login compare the password hash?", cwd, 3) +
      answer("login() hashes the password with sha256 and compares it to the stored hash.", cwd, 4),
  );
  await cairn.sessions.ingest({ path: transcript, agent: "claude", final: true });
  await cairn.store.runner.settled();
}

Deno.test("every retriever keeps the retriever contract on a store with memories, code and sessions", async (t) => {
  await using tmp = await tempDir();
  const cairn = await openWithFakeModel(join(tmp.path, "store"));
  try {
    await fill(cairn, tmp.path);
    const deps = cairn.recall.deps;
    const retrievers = retrieversOf(deps);
    const store: ContractStore = {
      retrievers,
      deps,
      exists: async (source, id) =>
        source === "memory"
          ? (await cairn.memories.getMany([id])).length === 1
          : source === "code"
          ? deps.codePath?.(id) !== undefined
          : cairn.text.text(`turn:${id}`) !== undefined,
      questions: [
        "how does login check the password hash",
        "Session.request",
        "when do sessions expire? auth.py",
        "which test covers login()?",
      ],
      language: "python",
      session: SESSION,
    };
    for (const retriever of retrievers) {
      await t.step(retriever.signal, () => checkRetrieverContract(retriever, store));
    }
  } finally {
    await cairn.close();
  }
});

Deno.test("the graph votes for code only from the memories and turns that name or touched it", async () => {
  await using tmp = await tempDir();
  const cairn = await openWithFakeModel(join(tmp.path, "store"));
  try {
    await fill(cairn, tmp.path);
    const deps = cairn.recall.deps;
    const retrievers = retrieversOf(deps);
    const graph = retrievers.find((retriever) => retriever.signal === "graph")!;
    const walk = async (sources: Source[]) => {
      const request = { query: "how is the password hash checked", sources, limit: 10 };
      const ask = await askOf(deps, { ...request, mode: "hybrid" }, () => {});
      const earlier = await retrieveAll(
        retrievers.filter((r) => graph.reads.includes(r.signal)),
        ask,
      );
      const found = await graph.retrieve(ask, earlier);
      return (found.get("code") ?? []).map((candidate) => deps.codePath!(candidate.ids[0]!));
    };
    const withMemories = await walk(["memory", "code", "turn"]);
    assert.ok(
      withMemories.includes("auth.py"),
      `the memory naming login() and the turn editing auth.py lead to it: ${withMemories}`,
    );
    assert.deepEqual(await walk(["code"]), [], "code alone walks nowhere");
  } finally {
    await cairn.close();
  }
});

Deno.test("a question asking for tests gets, before a named definition, the tests that call it", async () => {
  await using tmp = await tempDir();
  const cairn = await openWithFakeModel(join(tmp.path, "store"));
  try {
    await fill(cairn, tmp.path);
    const deps = cairn.recall.deps;
    const mention = retrieversOf(deps).find((retriever) => retriever.signal === "mention")!;
    const named = async (query: string) => {
      const request = { query, sources: ["code" as const], limit: 10, mode: "hybrid" as const };
      const found = await mention.retrieve(await askOf(deps, request, () => {}), new Map());
      return (found.get("code") ?? []).map((c) => c.ids.map((id) => deps.codeName!(id)));
    };
    assert.deepEqual(await named("which test covers login()?"), [
      ["test_login_checks_password"],
      ["login"],
    ]);
    assert.deepEqual(await named("why does login() compare hashes?"), [["login"]]);
    const { items } = await cairn.recall.run({
      query: "which test covers login()?",
      sources: ["code"],
      limit: 2,
      mode: "hybrid",
    });
    assert.ok(
      items.some((item) => item.type === "code" && item.code.name === "test_login_checks_password"),
      "the test is among the first two",
    );
  } finally {
    await cairn.close();
  }
});
