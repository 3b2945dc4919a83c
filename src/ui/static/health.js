/**
 * Health: what the store holds, each project's files and chunks with the
 * vectors it still waits for (refreshed every two seconds, so a project being
 * embedded counts down), the log, the projections' lag, and the owner.
 * @module
 */
import { call } from "./api.js";
import { count, fill, h, problem } from "./dom.js";

const POLL_MS = 2000;

/** Draws the health page and keeps it fresh until the page changes view. */
export function mount(root) {
  const body = h("div", { id: "health" }, h("p", { class: "muted" }, "loading…"));
  fill(root, body);
  let timer;
  let stopped = false;
  const refresh = async () => {
    try {
      fill(body, ...draw(await call("health")));
    } catch (error) {
      fill(body, problem(error));
    }
    if (!stopped) timer = setTimeout(refresh, POLL_MS);
  };
  refresh();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

function draw({ status, projects, log, owner, lastVerify }) {
  const pending = status.vectors.lag.pending.reduce((sum, p) => sum + p.documents, 0);
  const rate = status.vectors.lag.rate;
  return [
    h(
      "section",
      { class: "cards" },
      card("memories", count(status.memories)),
      card("projects", count(status.code.projects)),
      card("files", count(status.code.files)),
      card("chunks", count(status.code.chunks)),
      card(
        "sessions",
        `${count(status.sessions.sessions)} (${count(status.sessions.turns)} turns)`,
      ),
      card("vectors pending", count(pending), "vectors-pending"),
    ),
    rate ? h("p", { class: "muted" }, `embedding ${rate.toFixed(1)} documents/s`) : null,
    h("h3", {}, "Projects"),
    projects.length
      ? table(
        ["project", "root", "files", "chunks", "vectors pending", "last indexed"],
        projects.map((
          p,
        ) => [
          p.project,
          p.root,
          count(p.files),
          count(p.chunks),
          count(p.pending),
          p.lastIndexed ?? "never",
        ]),
        "projects",
      )
      : h("p", { class: "muted" }, "No project is indexed: `cairn index PATH` indexes one."),
    h("h3", {}, "Log"),
    table(["head (last event)", "segments", "size"], [[
      count(log.head),
      count(log.segments),
      bytes(log.bytes),
    ]], "log"),
    h("h3", {}, "Projections"),
    table(
      ["projection", "checkpoint", "behind the log"],
      status.projections.map((p) => [p.name, count(p.checkpoint), count(p.lag)]),
      "projections",
    ),
    h("h3", {}, "Owner"),
    table(
      ["pid", "up for", "model", "model state", "last verify"],
      [[
        owner?.pid ?? "none",
        owner ? duration(owner.uptimeSeconds) : "",
        status.model.id,
        status.model.state + (status.model.reason ? `: ${status.model.reason}` : ""),
        verified(lastVerify),
      ]],
      "owner",
    ),
  ];
}

function verified(record) {
  if (!record) return "never (cairn verify checks the store)";
  const when = record.at.slice(0, 16).replace("T", " ");
  return record.problems ? `${when}: ${record.problems} problems` : `${when}: ok`;
}

function card(label, value, id) {
  return h(
    "div",
    { class: "card", id },
    h("div", { class: "value" }, value),
    h("div", { class: "label" }, label),
  );
}

function table(head, rows, id) {
  return h(
    "table",
    { id },
    h("thead", {}, h("tr", {}, head.map((cell) => h("th", {}, cell)))),
    h("tbody", {}, rows.map((cells) => h("tr", {}, cells.map((cell) => h("td", {}, cell))))),
  );
}

function bytes(n) {
  const units = ["B", "KiB", "MiB", "GiB"];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) (n /= 1024, i++);
  return `${n.toFixed(i ? 1 : 0)} ${units[i]}`;
}

function duration(seconds) {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}
