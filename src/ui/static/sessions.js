/**
 * Sessions: a project's sessions, newest first, a page at a time; a click
 * shows the session's turns in order with their prompt, the files each
 * touched and what the user decided.
 * @module
 */
import { call } from "./api.js";
import { fill, h, problem } from "./dom.js";

/** Draws the sessions page. */
export function mount(root) {
  const project = h("input", { id: "sessions-project", placeholder: "all projects" });
  const list = h("div", { id: "session-list" });
  const turns = h("div", { id: "session-turns" });
  let offset = 0;
  const load = async () => {
    try {
      const { sessions, more } = await call("sessions", {
        offset,
        ...(project.value ? { project: project.value } : {}),
      });
      fill(
        list,
        sessions.length
          ? h(
            "ol",
            { class: "timeline" },
            sessions.map((s) =>
              h(
                "li",
                { class: "session", onclick: () => open(s.session) },
                h("strong", {}, s.last.slice(0, 16).replace("T", " ")),
                ` ${s.project ?? "no project"} · ${s.turns} turns · `,
                h("code", {}, s.session.slice(0, 8)),
              )
            ),
          )
          : h("p", { class: "muted" }, "No sessions: `cairn ingest claude` reads Claude Code's."),
        h(
          "p",
          { class: "pager" },
          h("button", {
            disabled: offset === 0,
            onclick: () => (offset = Math.max(0, offset - 30), load()),
          }, "newer"),
          " ",
          h("button", { disabled: !more, onclick: () => (offset += 30, load()) }, "older"),
        ),
      );
    } catch (error) {
      fill(list, problem(error));
    }
  };
  const open = async (session) => {
    try {
      const answer = await call("sessions", { session });
      fill(
        turns,
        h("h3", {}, `Session ${session}`),
        answer.more ? h("p", { class: "note" }, "only its first 500 turns are shown") : null,
        h(
          "ol",
          { class: "turns" },
          answer.turns.map((t) =>
            h(
              "li",
              { class: "turn" },
              h(
                "div",
                {},
                h("code", {}, `${session.slice(0, 8)}:${t.line}`),
                ` ${t.startedAt.slice(0, 16).replace("T", " ")}`,
              ),
              h("div", { class: "text" }, t.prompt),
              t.decisions.map((d) => h("div", { class: "decision" }, d)),
              t.files.length
                ? h("div", { class: "files" }, t.files.map((f) => h("code", {}, f)))
                : null,
            )
          ),
        ),
      );
    } catch (error) {
      fill(turns, problem(error));
    }
  };
  fill(
    root,
    h(
      "form",
      { class: "bar", onsubmit: (event) => (event.preventDefault(), offset = 0, load()) },
      project,
      h("button", {}, "List"),
    ),
    h("div", { class: "split" }, list, turns),
  );
  load();
}
