// Shared by every page: talking to the API, plain words, and forms built from the systems'
// field schemas (GET /api/systems), so no field is typed twice. Percentages come from the
// server, worked out exactly beside each fraction: nothing here does arithmetic on odds.
"use strict";

class ApiError extends Error {
  constructor(message, status, detail, retryAfter) {
    super(message); this.status = status; this.detail = detail; this.retryAfter = retryAfter;
  }
}

async function api(method, path, body, headers = {}) {
  const init = { method, headers: { ...headers }, credentials: "same-origin" };
  if (body !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  // fetch rejects (a TypeError, "Failed to fetch") when no answer came at all: a restart, a
  // lost connection. Said in words, and worth another try a second later.
  try { response = await fetch(path, init); } catch {
    throw new ApiError("The server did not answer: check the connection and try again.", 0, {}, 1);
  }
  const text = await response.text();
  const data = text ? (response.headers.get("content-type") || "").includes("json")
    ? JSON.parse(text) : text : null;
  if (!response.ok) {
    const detail = data && data.error ? data.error : {};
    const fallback = response.status === 429 ? "Too many requests at once: wait a moment and try again."
      : `The server answered ${response.status}: try again.`;
    // Told to come back (too busy, too many at once): how many seconds later.
    const later = [429, 503].includes(response.status) ? Number(response.headers.get("retry-after")) : NaN;
    throw new ApiError(detail.message ? plainError(detail.message) : fallback, response.status, detail,
      Number.isFinite(later) && later >= 0 ? later : null);
  }
  return data;
}

// A roll must be made once however often it is sent: one Idempotency-Key for all its tries,
// and a refusal that says when to come back, or a lost connection, is sent again (a few times,
// a few seconds apart at most), so a roll tapped at a busy moment is made, once, not lost.
const TRIES = 4;
async function once(path, body) {
  const key = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
  for (let tried = 1; ; tried++) {
    try { return await api("POST", path, body, { "idempotency-key": key }); } catch (err) {
      const wait = err instanceof ApiError ? err.retryAfter : null;
      if (wait === null || tried >= TRIES) throw err;
      await new Promise((resolve) => setTimeout(resolve, Math.min(Math.max(wait, 0.2), 5) * 1000));
    }
  }
}

// Rule numbers ("(BRP4)", "(OQ1, OQ2)") help whoever checks the code against the rules, not
// the people at the table: what a player reads leaves them out.
function plain(text) {
  return String(text || "").replace(/\s*\((?:[A-Z]{1,3}\d+[a-z]?(?:,\s*)?)+\)/g, "").trim();
}

// A field path ("actor.fields.luck_rerolls") as the words on the page ("Luck rerolls").
// A field's value as words: a choice's key ("fight_back") read as "fight back".
const valueWords = (value) => String(value).replace(/_/g, " ");

function fieldWords(path) {
  const parts = path.replace(/\[\d+\]/g, "").split(".");
  const last = parts.filter((p) => !/^\d+$/.test(p) && p !== "fields" && p !== "body").pop() || path;
  const words = last.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

// A field the player typed is named in their words ("Name: ..."); one of the page's own (the
// roll's number, the token) is not theirs to fix, so the sentence stands alone.
const PAGE_FIELDS = ["seq", "token", "target_id", "path", "body"];
function plainError(message) {
  return plain(message).replace(/^([\w.[\]]+): ?/, (_, path) => PAGE_FIELDS.includes(path) ? "" : `${fieldWords(path)}: `)
    .replace(/^./, (c) => c.toUpperCase());
}

// A bar's width from the server's percentage ("< 0.01%" draws nothing).
function barWidth(percentText) {
  const n = parseFloat(String(percentText).replace(/[<> ]/g, ""));
  return Number.isFinite(n) && !percentText.startsWith("<") ? n : 0;
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  // nested as deep as a card's parts come (a list of commitments, each a line and its copy)
  for (const child of children.flat(Infinity)) {
    if (child !== null && child !== undefined && child !== false) node.append(child);
  }
  return node;
}

// A long value (a link, a commitment) that wraps anywhere, with a button copying it whole.
function copyable(text, label) {
  const code = el("code", { class: "link", text });
  const button = el("button", { type: "button", class: "secondary small", "aria-label": `Copy ${label}` }, "Copy");
  button.addEventListener("click", async () => {
    try { await navigator.clipboard.writeText(text); button.textContent = "Copied"; }
    catch { button.textContent = "Select and copy it"; }
  });
  return el("span", { class: "copyable" }, code, button);
}

// A sheet to start from, in the command line's TOML format, using what the system declares
// (Luck, an ability factor per skill) and nothing else about it.
function sampleSheet(system) {
  const rules = system.declares;
  const lines = ['name = "Ada"', `system = "${system.name}"`];
  if (rules.luck) lines.push("luck = { current = 5, maximum = 5 }");
  lines.push('skills = { stealth = 60, "spot hidden" = 55, rifle = 45 }');
  if (rules.ability) lines.push("abilities = { dex = 10, per = 5 }", 'uses = { stealth = "dex", "spot hidden" = "per", rifle = "dex" }');
  return lines.join("\n") + "\n";
}

// The request fields a page sets itself rather than through a plain input: those the sheet,
// the table or the page's own controls fill in.
function setByPage(system) {
  const r = system.declares;
  return ["system", "skill", "dice", "house_rules", r.ability, r.synergy,
    r.assistance && r.assistance.field, r.aim && r.aim.field,
    r.luck && r.luck.boost_field, r.luck && r.luck.reroll_field, r.luck && r.luck.after_field].filter(Boolean);
}

// A table's improvement marks in words, each setting its own (a plural is not an added "s").
const MARKS_WORDS = { off: "off", failure: "on failures", success: "on successes" };
const marksText = (setting) => MARKS_WORDS[setting] || setting;

// The tables this browser has sat at, for the home page: names and roles only (the cookie
// holding each table's token is HttpOnly and stays so).
const MY_TABLES = "d100-my-tables";
const MY_TABLES_LIMIT = 30;

function myTables() {
  try { return JSON.parse(localStorage.getItem(MY_TABLES)) || []; } catch { return []; }
}

function rememberTable(id, name, role) {
  const kept = myTables().filter((t) => t.id !== id);
  try { localStorage.setItem(MY_TABLES, JSON.stringify([{ id, name, role }, ...kept].slice(0, MY_TABLES_LIMIT))); }
  catch { /* storage full or refused: the list is a convenience */ }
}

function forgetTable(id) {
  try { localStorage.setItem(MY_TABLES, JSON.stringify(myTables().filter((t) => t.id !== id))); }
  catch { /* a convenience */ }
  keepInvite(id, null);
}

// The invite link a GM made in this browser, per table, to show again: the server keeps only
// its hash (a new one would stop the one already shared).
const INVITES = "d100-invites";

function keptInvites() {
  try { return JSON.parse(localStorage.getItem(INVITES)) || {}; } catch { return {}; }
}

function keepInvite(tableId, link) {
  const kept = keptInvites();
  if (link) kept[tableId] = link; else delete kept[tableId];
  try { localStorage.setItem(INVITES, JSON.stringify(kept)); } catch { /* a convenience */ }
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
    const words = fieldWords(name);
    const label = el("label", { for: id, text: words });
    const help = el("span", { class: "muted", id: `${id}-help`, text: plain(spec.description) });
    let input;
    if (spec.type === "boolean") {
      input = el("input", { type: "checkbox", id, name, "aria-describedby": `${id}-help` });
      out.push(el("div", {}, el("label", { class: "inline", for: id }, input, words), help));
      continue;
    }
    if (spec.oneOf) {  // a preset name or a number
      input = el("input", { type: "text", id, name, list: `${id}-presets`, autocomplete: "off",
                            "aria-describedby": `${id}-help`,
                            placeholder: `e.g. ${spec.oneOf[0].enum[1] || spec.oneOf[0].enum[0]}, or +20`});
      const list = el("datalist", { id: `${id}-presets` },
        spec.oneOf[0].enum.map((v) => el("option", { value: v })));
      out.push(el("div", {}, label, input, list, help));
      continue;
    }
    if (spec.enum) {  // left on "the usual", the request leaves the field to its default
      const usual = spec.enum.includes(null) ? [] : [el("option", { value: "", text: "the usual" })];
      input = el("select", { id, name, "aria-describedby": `${id}-help` }, usual,
        // one option a text: a choice taking a number and its text (2 and "2") shows it once
        [...new Map(spec.enum.map((v) => [String(v), v])).values()]
          .map((v) => el("option", { value: v === null ? "" : v, text: v === null ? "(roll)" : valueWords(v) })));
    } else if (spec.type === "array" && spec.items && spec.items.type === "integer") {
      // the example follows the field's own range: signed modifiers, or values such as skills
      const signed = !(spec.items.minimum >= 0);
      input = el("input", { type: "text", id, name, inputmode: "text",
                            placeholder: signed ? "e.g. +10 -20" : "e.g. 40 70", "aria-describedby": `${id}-help` });
    } else if (spec.type === "integer") {
      input = el("input", { type: "number", id, name, min: spec.minimum, max: spec.maximum,
                            inputmode: "numeric", "aria-describedby": `${id}-help` });
    } else {
      continue;  // nested objects are built by the page (assistance, house rules)
    }
    out.push(el("div", {}, label, input, help));
  }
  return out;
}

const SIGNED = /^[+-]?\d+$/;  // "+20" is as good as "20"

// The values of inputs made by fieldInputs, as contract JSON; empty inputs are left out.
function fieldValues(container, schema) {
  const out = {};
  for (const input of container.querySelectorAll("input[name], select[name]")) {
    const spec = schema.properties[input.name];
    if (!spec) continue;
    if (input.type === "checkbox") { if (input.checked) out[input.name] = true; continue; }
    const raw = input.value.trim();
    if (raw === "") continue;
    if (spec.type === "array") {
      const parts = raw.split(/[ ,]+/).filter(Boolean);
      const bad = parts.find((p) => !SIGNED.test(p));
      if (bad !== undefined) throw new Error(`${fieldWords(input.name)}: "${bad}" is not a number; type numbers such as +10 -20.`);
      out[input.name] = parts.map(Number);
    } else if (spec.type === "integer") out[input.name] = Number(raw);
    else if (spec.enum) {  // the choice itself, a number where it is one (0.5, 50)
      const chosen = spec.enum.find((v) => v !== null && String(v) === raw);
      out[input.name] = chosen === undefined ? raw : chosen;
    }
    else out[input.name] = SIGNED.test(raw) ? Number(raw) : raw;
  }
  return out;
}

// Dice typed in by hand: d100 values, "00" being 100 (G1).
function parseDice(raw) {
  const parts = raw.trim().split(/[ ,]+/).filter(Boolean);
  return parts.map((p) => {
    const value = p === "00" ? 100 : /^\d{1,3}$/.test(p) ? Number(p) : NaN;
    if (!(value >= 1 && value <= 100)) throw new Error(`Dice: "${p}" is not a d100 roll; type each die as 1 to 100 (00 counts as 100), e.g. 42 07.`);
    return value;
  });
}

// The exact distribution of a check or contest: a table with bars and words.
function oddsTable(odds, percent, caption) {
  const key = odds.levels ? "levels" : "winner";
  const rows = odds[key];
  const shown = (percent && percent[key]) || {};
  const body = Object.entries(rows).map(([level, p]) => el("tr", {},
    el("th", { scope: "row", text: level }),
    el("td", { class: "num", text: shown[level] || "" }),
    el("td", { class: "num muted exact", text: p }),
    el("td", {}, el("span", { class: "bar", style: `width:${(barWidth(shown[level] || "0") / 10).toFixed(2)}rem`,
                              "aria-hidden": "true" }))));
  const table = el("table", {}, el("caption", { class: "muted", text: caption || "" }),
    el("thead", {}, el("tr", {}, el("th", { text: "outcome" }), el("th", { text: "chance" }),
                        el("th", { text: "exact" }), el("th", {}, el("span", { class: "muted", text: "bar" })))),
    el("tbody", {}, body));
  const parts = [el("div", { class: "scroll-x" }, table)];
  if (odds.success) parts.push(el("p", {}, el("strong", { text: `Success: ${percent ? percent.success : ""}` }),
                                  ` (${odds.success})`));
  if (odds.luck_spent) parts.push(el("p", { class: "muted", text: `Expected Luck spent: ${odds.luck_spent}` }));
  return el("div", { class: "odds" }, parts);
}

function adviceList(options) {
  return el("ol", {}, options.map((o) => el("li", {},
    el("strong", { text: o.name }), `: ${o.percent.success} success`,
    ` (${o.percent.gain}; cost: ${o.cost})`)));
}
