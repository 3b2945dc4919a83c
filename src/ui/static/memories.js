/**
 * Memories: newest first, a page at a time; one memory's every revision from
 * the log; revise, forget and purge, each after a confirmation.
 * @module
 */
import { call } from "./api.js";
import { confirmAction, fill, h, problem } from "./dom.js";

const PAGE = 50;
const KINDS = ["decision", "fact", "pattern", "preference", "note", "conversation"];

/** Draws the memories page; `params` may carry `id` to open one memory. */
export function mount(root, params) {
  const list = h("div", { id: "memory-list" });
  const detail = h("aside", { id: "memory-detail" });
  const project = h("input", { id: "memory-project", placeholder: "all projects" });
  const forgotten = h("input", { type: "checkbox", id: "show-forgotten" });
  const kind = h(
    "select",
    { id: "memory-kind" },
    h("option", { value: "" }, "every kind"),
    KINDS.map((name) => h("option", { value: name }, name)),
  );
  const asOf = h("input", {
    id: "memory-as-of",
    type: "date",
    title: "the memories as they were then",
  });
  let offset = 0;
  let selected;
  const markSelected = () => {
    for (const row of list.querySelectorAll("tr.memory")) {
      row.classList.toggle("selected", row.dataset.id === selected);
    }
  };
  const form = h(
    "form",
    { class: "bar", onsubmit: (event) => (event.preventDefault(), offset = 0, load()) },
    project,
    kind,
    h("label", {}, "as of ", asOf),
    h("label", {}, forgotten, "forgotten too"),
    h("button", { type: "submit" }, "List"),
  );
  async function load() {
    try {
      const { memories, projects } = await call("memories", {
        limit: PAGE,
        offset,
        ...(project.value ? { project: project.value } : {}),
        ...(forgotten.checked ? { forgotten: true } : {}),
        ...(kind.value ? { kind: kind.value } : {}),
        ...(asOf.value ? { as_of: asOf.value } : {}),
      });
      fill(
        list,
        projects
          ? h(
            "p",
            { class: "muted" },
            `No memory is in project ${project.value}` +
              (projects.length ? ` (memories are in ${projects.join(", ")})` : "") +
              (memories.length ? "; below, the global memories, which every project sees." : "."),
          )
          : "",
        h(
          "table",
          { class: "memories" },
          h(
            "tbody",
            {},
            memories.map((memory) =>
              h(
                "tr",
                {
                  class: `memory ${memory.forgotten_at ? "forgotten" : ""}`,
                  "data-id": memory.id,
                  onclick: () => open(memory.id),
                },
                h("td", {}, h("code", {}, memory.id)),
                h("td", {}, memory.created_at.slice(0, 10)),
                h("td", {}, memory.kind),
                h("td", {}, memory.project ?? "global"),
                h("td", { class: "text" }, memory.content.slice(0, 200)),
              )
            ),
          ),
        ),
        h(
          "p",
          { class: "pager" },
          h("button", { disabled: offset === 0, onclick: () => (offset -= PAGE, load()) }, "newer"),
          ` ${offset + 1}–${offset + memories.length} `,
          h(
            "button",
            { disabled: memories.length < PAGE, onclick: () => (offset += PAGE, load()) },
            "older",
          ),
        ),
      );
      if (memories.length === 0) fill(list, h("p", { class: "muted" }, "No memories match."));
      markSelected();
    } catch (error) {
      fill(list, problem(error));
    }
  }
  async function open(id) {
    selected = id;
    markSelected();
    fill(detail, h("p", { class: "muted" }, "loading…"));
    try {
      fill(
        detail,
        memoryDetail(await call("history", { id }), {
          reload: () => (load(), open(id)),
          gone: () => (load(), fill(detail)),
        }),
      );
    } catch (error) {
      fill(detail, problem(error));
    }
  }
  fill(root, form, h("div", { class: "split" }, list, detail));
  load();
  if (params.get("id")) open(params.get("id"));
}

function memoryDetail({ id, memory, changes }, { reload, gone }) {
  const content = h("textarea", { id: "revise-text", rows: 5 }, memory?.content ?? "");
  const status = h("p", { class: "status" });
  const act = async (question, yes, action) => {
    if (!await confirmAction(question, yes)) return;
    try {
      await action();
    } catch (error) {
      fill(status, problem(error));
    }
  };
  return h(
    "div",
    { class: "memory-detail", "data-id": id },
    h("h2", {}, id),
    memory
      ? h(
        "div",
        {},
        h(
          "p",
          { class: "muted" },
          `${memory.kind} · ${memory.project ?? "global"} · tags ${
            memory.tags.join(", ") || "none"
          }`,
        ),
        memory.forgotten_at ? h("p", { class: "note" }, `forgotten ${memory.forgotten_at}`) : null,
        content,
        h(
          "p",
          {},
          h("button", {
            id: "revise",
            onclick: () =>
              act("Revise this memory? The old text stays in its history.", "Revise", async () => {
                await call("revise", { id, content: content.value });
                reload();
              }),
          }, "Revise"),
          " ",
          h("button", {
            id: "forget",
            class: "danger",
            onclick: () =>
              act(
                "Forget this memory? Recall will no longer return it; its history stays in the log.",
                "Forget",
                async () => {
                  await call("forget", { id });
                  gone();
                },
              ),
          }, "Forget"),
          " ",
          h("button", {
            id: "purge",
            class: "danger",
            onclick: () =>
              act(
                "Purge this memory? Its content is removed from the log itself: this cannot be undone.",
                "Purge",
                async () => {
                  await call("forget", { id, purge: true });
                  gone();
                },
              ),
          }, "Purge"),
        ),
      )
      : h("p", { class: "note" }, "forgotten"),
    status,
    h("h3", {}, `History (${changes.length} changes)`),
    h(
      "ol",
      { class: "history" },
      changes.map((change) =>
        h(
          "li",
          { class: `change ${change.change}` },
          h("strong", {}, change.change),
          ` ${change.at}`,
          change.fields.content ? h("div", { class: "text" }, change.fields.content) : null,
          Object.entries(change.fields).filter(([key]) => key !== "content")
            .map(([key, value]) =>
              h("div", { class: "muted" }, `${key}: ${JSON.stringify(value)}`)
            ),
        )
      ),
    ),
  );
}
