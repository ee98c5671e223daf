// The explorer's page: it reads the configuration and the path from its URL, asks the API for
// that state, and draws it; each choice is a new URL, so Back, Forward and links just work.
// A run being followed (a counterexample) is in the URL too, as `run`: the page walks along
// it, marks its next action, and says so when a choice leaves it.
"use strict";

const $ = (id) => document.getElementById(id);
let counterexamples = [];
const SHOWN = 12; // counterexamples listed at once
const runs = new Map(); // the steps of each run followed, by its path

async function api(path, query) {
  const answer = await fetch(path + "?" + query);
  const body = await answer.json();
  if (!answer.ok) throw new Error(body.error);
  return body;
}

function element(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

// The configuration part of a query: args or job.
function configOf(query) {
  const out = new URLSearchParams();
  for (const key of ["args", "job"]) if (query.has(key)) out.set(key, query.get(key));
  return out;
}

// The run being followed, as step indexes, if `path` is on it.
function following(query) {
  const run = query.get("run"), path = query.get("path") || "";
  if (!run || !(path === "" || run === path || run.startsWith(path + "."))) return null;
  return run.split(".");
}

// Go to the state `path` leads to; along the run followed, if `path` stays on it (else the
// page says the run was left, and Back returns to it).
function go(path) {
  const now = new URLSearchParams(location.search);
  const query = configOf(now);
  query.set("path", path);
  const run = following(now);
  const state = { ending: "", left: false };
  if (run) {
    const along = { run: run.join("."), path };
    if (following(new URLSearchParams(along))) {
      query.set("run", along.run);
      state.ending = (history.state && history.state.ending) || "";
    } else {
      state.left = true;
    }
  }
  history.pushState(state, "", "?" + query);
  show();
}

// One step along the run followed, or the browser's Forward when none is followed.
function forward() {
  const query = new URLSearchParams(location.search);
  const run = following(query);
  const here = query.get("path") ? query.get("path").split(".") : [];
  if (run && here.length < run.length) go(run.slice(0, here.length + 1).join("."));
  else history.forward();
}

function fields(list, values) {
  list.replaceChildren();
  for (const [key, value] of Object.entries(values)) list.append(element("dt", key), element("dd", String(value)));
}

function drawState(view) {
  const n = view.steps.length;
  $("now-title").textContent = n ? `The state after step ${n}` : "The initial state";
  fields($("client"), view.state.client);
  fields($("agent"), view.state.agent);
  for (const channel of ["to_agent", "to_client"]) {
    const items = view.state[channel];
    $(channel).replaceChildren(...(items.length ? items.map((m) => element("li", m)) : [element("li", "nothing", "none")]));
  }
  $("fields").textContent = JSON.stringify(view.state.fields, null, 1);
}

function rules(list) {
  return list.length ? " [" + list.join(", ") + "]" : "";
}

function drawActions(view, run) {
  const next = run && run[view.steps.length];
  const items = view.actions.map((action) => {
    const button = element("button", action.words, "action " + action.actor);
    button.type = "button";
    button.dataset.index = action.index;
    button.onclick = () => go(view.path ? view.path + "." + action.index : String(action.index));
    const item = element("li");
    if (String(action.index) === next) {
      item.className = "next";
      button.title = "the step the run you follow takes next";
    }
    item.append(button, element("span", rules(action.rules), "rules"));
    if (action.breaks.length) item.append(element("span", " breaks " + action.breaks.join(", "), "breaks"));
    return item;
  });
  if (!items.length) {
    items.push(element("li", view.deadlock ? "Nothing can happen: a deadlock." : "Nothing more can happen: the bounds are used up.", "none"));
  }
  $("actions").replaceChildren(...items);
  const ending = (history.state && history.state.ending) || "";
  $("ending").hidden = !ending;
  $("ending").textContent = ending ? "How this run goes on: " + ending : "";
  const left = Boolean(history.state && history.state.left);
  $("left").hidden = !left;
  $("left").textContent = left ? "You left the run you were following; Back returns to it." : "";
}

function drawProperties(view) {
  $("props").replaceChildren(...view.properties.map((p) => {
    const row = element("tr");
    row.className = [p.broken ? "broken" : "", p.changed ? "changed" : "", p.in_force ? "" : "aside"].join(" ").trim();
    row.dataset.property = p.name;
    const name = element("td");
    name.append(element("code", p.name), element("span", " (" + p.kind + ")", "kind"));
    name.title = p.doc;
    const value = element("td", p.value);
    if (p.why) value.append(element("p", p.why, "why"));
    row.append(name, value, element("td", p.rules.join(", ")));
    return row;
  }));
  const select = $("property");
  if (!select.options.length) {
    for (const p of view.properties) if (p.kind !== "reachable") select.append(new Option(p.name, p.name));
  }
}

// The run so far; along a run followed, its steps still ahead too, greyed.
function drawRun(view, query, run) {
  const parts = run || (view.path ? view.path.split(".") : []);
  const steps = run ? runs.get(run.join(".")) : view.steps;
  const items = steps.map((step, k) => {
    const item = element("li");
    if (k >= view.steps.length) item.className = "ahead";
    const back = element("button", step.words, "step " + step.actor);
    back.type = "button";
    back.title = "go to the state after this step" + (run ? ", along the run" : ", and branch from it");
    back.onclick = () => go(parts.slice(0, k + 1).join("."));
    item.append(back, element("span", rules(step.rules), "rules"));
    return item;
  });
  $("steps").replaceChildren(...items);
  $("chart").src = $("chart-link").href = "/api/chart.svg?" + query;
  $("chart").hidden = false;
}

async function show() {
  const query = new URLSearchParams(location.search);
  document.body.dataset.ready = "no";
  try {
    const view = await api("/api/state", query);
    const run = following(query);
    if (run && !runs.has(run.join("."))) {
      const whole = configOf(query);
      whole.set("path", run.join("."));
      runs.set(run.join("."), (await api("/api/state", whole)).steps);
    }
    if (!query.has("args") && !query.has("job")) {
      const named = new URLSearchParams(view.setting.query);
      named.set("path", view.path);
      if (run) named.set("run", run.join("."));
      history.replaceState(history.state, "", "?" + named);
    }
    $("error").hidden = true;
    $("setting").textContent = view.setting.title;
    drawState(view);
    drawActions(view, run);
    drawProperties(view);
    drawRun(view, new URLSearchParams(location.search), run);
    $("link").value = location.href;
    document.body.dataset.path = view.path;
    document.body.dataset.ready = "yes";
  } catch (error) {
    $("error").textContent = error.message;
    $("error").hidden = false;
    document.body.dataset.ready = "error";
  }
}

function drawCounterexamples() {
  const words = $("filter").value.toLowerCase().split(/\s+/).filter(Boolean);
  const shown = counterexamples.filter((c) => words.every((w) => c.name.toLowerCase().includes(w)));
  $("counterexamples").replaceChildren(...shown.slice(0, SHOWN).map((c) => {
    const button = element("button", c.key + ": " + c.property, "jump");
    button.type = "button";
    button.onclick = () => jumpTo("/api/counterexample", new URLSearchParams({ name: c.name }));
    return element("li").appendChild(button).parentNode;
  }));
  if (shown.length > SHOWN) $("counterexamples").append(element("li", `and ${shown.length - SHOWN} more: narrow the filter`, "none"));
}

async function jumpTo(path, query) {
  try {
    const jump = await api(path, query);
    const target = new URLSearchParams(jump.query);
    target.set("path", jump.path);
    target.set("run", jump.path);
    history.pushState({ ending: jump.ending, left: false }, "", "?" + target);
    show();
  } catch (error) {
    $("error").textContent = error.message;
    $("error").hidden = false;
  }
}

$("shortest").onsubmit = (event) => {
  event.preventDefault();
  const query = configOf(new URLSearchParams(location.search));
  query.set("property", $("property").value);
  $("error").textContent = "Searching every run of this configuration...";
  $("error").hidden = false;
  jumpTo("/api/shortest", query);
};
$("back").onclick = () => history.back();
$("forward").onclick = forward;
$("restart").onclick = () => go("");
$("filter").oninput = drawCounterexamples;
window.onpopstate = show;

api("/api/counterexamples", "").then((listed) => {
  counterexamples = listed.counterexamples;
  const job = new URLSearchParams(location.search).get("job");
  if (job) $("filter").value = job;
  $("review").hidden = !counterexamples.length;
  drawCounterexamples();
});
show();
