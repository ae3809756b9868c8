// Shared by every page: talking to the API, exact fractions, and forms built from the
// systems' field schemas (GET /api/systems), so no field is typed twice.
"use strict";

async function api(method, path, body) {
  const init = { method, headers: {}, credentials: "same-origin" };
  if (body !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const text = await response.text();
  const data = text ? (response.headers.get("content-type") || "").includes("json")
    ? JSON.parse(text) : text : null;
  if (!response.ok) {
    const message = data && data.error ? data.error.message : `HTTP ${response.status}`;
    throw new Error(message);
  }
  return data;
}

function fraction(text) {
  const [p, q] = text.split("/").map(Number);
  return p / q;
}

function percent(text) {
  return `${(fraction(text) * 100).toFixed(2)}%`;
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

let systemsCache = null;
async function systems() {
  systemsCache = systemsCache || await api("GET", "/api/systems");
  return systemsCache;
}

// Inputs for the simple fields of a check schema; `skip` names fields the page sets itself.
function fieldInputs(schema, skip, prefix) {
  const out = [];
  for (const [name, spec] of Object.entries(schema.properties)) {
    if (skip.includes(name)) continue;
    const id = `${prefix}-${name}`;
    const label = el("label", { for: id, text: `${name.replace(/_/g, " ")}` });
    const help = el("span", { class: "muted", id: `${id}-help`, text: spec.description });
    let input;
    if (spec.type === "boolean") {
      input = el("input", { type: "checkbox", id, name, "aria-describedby": `${id}-help` });
      out.push(el("div", {}, el("label", { class: "inline", for: id }, input, name.replace(/_/g, " ")), help));
      continue;
    }
    if (spec.oneOf) {  // a preset name or an integer
      input = el("input", { type: "text", id, name, list: `${id}-presets`,
                            "aria-describedby": `${id}-help`,
                            placeholder: spec.oneOf[0].enum.join(", ") });
      const list = el("datalist", { id: `${id}-presets` },
        spec.oneOf[0].enum.map((v) => el("option", { value: v })));
      out.push(el("div", {}, label, input, list, help));
      continue;
    }
    if (spec.enum) {
      input = el("select", { id, name, "aria-describedby": `${id}-help` },
        spec.enum.map((v) => el("option", { value: v === null ? "" : v, text: v === null ? "(roll)" : v })));
    } else if (spec.type === "array" && spec.items && spec.items.type === "integer") {
      input = el("input", { type: "text", id, name, inputmode: "numeric",
                            placeholder: "e.g. 10, -20", "aria-describedby": `${id}-help` });
    } else if (spec.type === "integer") {
      input = el("input", { type: "number", id, name, min: spec.minimum, max: spec.maximum,
                            "aria-describedby": `${id}-help` });
    } else {
      continue;  // nested objects are built by the page (assistance, house rules)
    }
    out.push(el("div", {}, label, input, help));
  }
  return out;
}

// The values of inputs made by fieldInputs, as contract JSON; empty inputs are left out.
function fieldValues(container, schema) {
  const out = {};
  for (const input of container.querySelectorAll("input[name], select[name]")) {
    const spec = schema.properties[input.name];
    if (!spec) continue;
    if (input.type === "checkbox") { if (input.checked) out[input.name] = true; continue; }
    const raw = input.value.trim();
    if (raw === "") continue;
    if (spec.type === "array") out[input.name] = raw.split(/[ ,]+/).filter(Boolean).map(Number);
    else if (spec.type === "integer") out[input.name] = Number(raw);
    else if (spec.enum) out[input.name] = /^\d+$/.test(raw) ? Number(raw) : raw;
    else out[input.name] = /^-?\d+$/.test(raw) ? Number(raw) : raw;
  }
  return out;
}

// The exact distribution of a check or contest: a table with bars and words.
function oddsTable(odds, caption) {
  const rows = odds.levels || odds.winner;
  const body = Object.entries(rows).map(([level, p]) => el("tr", {},
    el("th", { scope: "row", text: level }),
    el("td", { class: "num", text: percent(p) }),
    el("td", { class: "num muted", text: p }),
    el("td", {}, el("span", { class: "bar", style: `width:${(fraction(p) * 10).toFixed(2)}rem`,
                              "aria-hidden": "true" }))));
  const table = el("table", {}, el("caption", { class: "muted", text: caption || "" }),
    el("thead", {}, el("tr", {}, el("th", { text: "outcome" }), el("th", { text: "chance" }),
                        el("th", { text: "exact" }), el("th", { text: "" }))),
    el("tbody", {}, body));
  const parts = [table];
  if (odds.success) parts.push(el("p", {}, el("strong", { text: `Success: ${percent(odds.success)}` }),
                                  ` (${odds.success})`));
  if (odds.luck_spent) parts.push(el("p", { class: "muted", text: `Expected Luck spent: ${odds.luck_spent}` }));
  return el("div", { class: "odds" }, parts);
}

function adviceList(options) {
  return el("ol", {}, options.map((o) => el("li", {},
    el("strong", { text: o.name }), `: ${percent(o.odds.success)} success`,
    ` (${o.gain.startsWith("-") ? "" : "+"}${percent(o.gain)}; cost: ${o.cost})`)));
}
