import assert from "node:assert/strict";
import { join } from "node:path";
import type { Signal } from "../../src/recall/fuse.ts";
import type { RecallRequest, Source } from "../../src/recall/types.ts";
import { retrieversOf } from "../../src/recall/recall.ts";
import type { Cairn } from "../../src/service/cairn.ts";
import { tempDir } from "../helpers.ts";
import { answer, prompt, SESSION, tool } from "../service/claude_lines.ts";
import { openWithFakeModel } from "../service/fake_cairn.ts";
import {
  checkRetrieverContract,
  type ContractStore,
  retrieverAnswer,
} from "./retriever_contract.ts";

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
    join(repo, "digest.py"),
    "import hashlib\n\n\ndef digest_secret(password):\n" +
      '    """Hashes the password before it is checked."""\n' +
      "    return hashlib.blake2b(password.encode()).hexdigest()\n",
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

/** Runs `check` on a store `fill` filled, closed after. */
async function withFilledStore(check: (cairn: Cairn) => Promise<void>): Promise<void> {
  await using tmp = await tempDir();
  const cairn = await openWithFakeModel(join(tmp.path, "store"));
  try {
    await fill(cairn, tmp.path);
    await check(cairn);
  } finally {
    await cairn.close();
  }
}

/** The code candidates of the retriever of `signal`, each entry's chunk names, asked in hybrid mode. */
async function codeCandidates(
  cairn: Cairn,
  signal: Signal,
  query: string,
  request: Partial<RecallRequest> = {},
): Promise<string[][]> {
  const deps = cairn.recall.deps;
  const retrievers = retrieversOf(deps);
  const { found } = await retrieverAnswer(
    retrievers.find((r) => r.signal === signal)!,
    retrievers,
    deps,
    { query, sources: ["code"], limit: 10, mode: "hybrid", ...request },
  );
  return (found.get("code") ?? []).map((c) => c.ids.map((id) => deps.codeName!(id)!));
}

Deno.test("every retriever keeps the retriever contract on a store with memories, code and sessions", (t) =>
  withFilledStore(async (cairn) => {
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
  }));

Deno.test("the graph votes for code only from the memories and turns that name or touched it", () =>
  withFilledStore(async (cairn) => {
    const query = "how is the password hash checked";
    const all = { sources: ["memory", "code", "turn"] as Source[] };
    const seeds = await codeCandidates(cairn, "lexical", query, all);
    assert.ok(seeds.flat().includes("digest_secret"), "digest.py matches, so it seeds the walk");
    const walked = (await codeCandidates(cairn, "graph", query, all)).flat();
    assert.ok(
      walked.includes("login"),
      `the memory naming login() and the turn editing auth.py lead to it: ${walked}`,
    );
    assert.ok(!walked.includes("digest_secret"), "no memory or turn names digest.py");
    assert.deepEqual(await codeCandidates(cairn, "graph", query), [], "code alone walks nowhere");
  }));

Deno.test("a question asking for tests gets, before a named definition, the tests that call it", () =>
  withFilledStore(async (cairn) => {
    const named = (query: string, request: Partial<RecallRequest> = {}) =>
      codeCandidates(cairn, "mention", query, request);
    assert.deepEqual(await named("which test covers login()?"), [
      ["test_login_checks_password"],
      ["login"],
    ]);
    assert.deepEqual(await named("why does login() compare hashes?"), [["login"]]);
    assert.deepEqual(
      await named("Tests fail after the upgrade\n\nlogin() raises now"),
      [["login"]],
      "the tests of what the first line names, not the body",
    );
    assert.deepEqual(
      await named("login()", { pathPrefix: "tests" }),
      [["test_login_checks_password"]],
      "a search narrowed to the tests asks for them, and keeps no definition outside",
    );
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
  }));
