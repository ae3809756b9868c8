// The table page: state from GET /api/tables/{id}, the live log over Server-Sent Events
// (the browser resumes from Last-Event-ID by itself), and forms that call the API.
"use strict";

const tableId = decodeURIComponent(location.pathname.split("/")[2]);
const base = `/api/tables/${encodeURIComponent(tableId)}`;
const ROLL_SKIP = ["system", "skill", "ability", "synergy", "dice", "house_rules", "assist",
  "assisters", "aim_rounds", "luck_boost", "luck_rerolls"];
const SAMPLE = {
  brp: 'name = "Ada"\nsystem = "brp"\nluck = { current = 5, maximum = 5 }\nskills = { stealth = 60, "spot hidden" = 55, rifle = 45, dodge = 35 }\n',
  openquest: 'name = "Ada"\nsystem = "openquest"\nskills = { stealth = 60, perception = 55, athletics = 40 }\n',
  chances: 'name = "Ada"\nsystem = "chances"\nskills = { sneaking = 40, hearing = 30, shooting = 35 }\nabilities = { dex = 10, per = 5 }\nuses = { sneaking = "dex", hearing = "per", shooting = "dex" }\n',
};
let state = null;
let system = null;
let editing = null;
const seen = new Set();
const luck = { boost: false, reroll: false };

const $ = (id) => document.getElementById(id);
const mine = () => state.characters.filter((c) => c.skills);
const byId = (id) => state.characters.find((c) => c.id === id);
const isGm = () => state.me.role === "gm";

async function start() {
  const token = location.hash.slice(1);
  if (token) {  // a GM or rejoin link: swap the fragment's token for an HttpOnly cookie
    history.replaceState(null, "", location.pathname);
    try { await api("POST", "/api/session", { token }); } catch (err) { $("page-error").textContent = err.message; }
  }
  try {
    state = await api("GET", base);
  } catch (err) {
    $("page-error").textContent = `${err.message}. Open the table from your GM link or the invite link.`;
    return;
  }
  system = (await systems()).find((s) => s.name === state.table.system);
  $("roll-fields").replaceChildren(...fieldInputs(system.check, ROLL_SKIP, "roll"));
  $("sheet-text").value = SAMPLE[system.name];
  $("export-log").href = `${base}/log.jsonl`;
  wire();
  render();
  $("table-page").inert = false;
  connect();
}

function connect() {
  const source = new EventSource(`${base}/events/stream`);
  source.onopen = () => { $("live-status").textContent = "live"; };
  source.onerror = () => { $("live-status").textContent = "reconnecting…"; };
  source.onmessage = (message) => {
    const event = JSON.parse(message.data);
    if (seen.has(event.seq)) return;
    seen.add(event.seq);
    $("log").prepend(el("li", { "data-seq": event.seq, "data-kind": event.kind }, describe(event)));
    reload();
  };
  source.addEventListener("denied", () => {
    source.close();
    $("live-status").textContent = "signed out";
    $("page-error").textContent = "Your access to this table was revoked.";
  });
}

let reloading = null;
let asked = 0;  // the newest state request: an older answer arriving late must not win
function reload() {  // many events arrive together: fetch the state once for the burst
  clearTimeout(reloading);
  reloading = setTimeout(async () => {
    const ticket = ++asked;
    try {
      const fresh = await api("GET", base);
      if (ticket === asked) { state = fresh; render(); }
    } catch (err) { $("page-error").textContent = err.message; }
  }, 80);
}

// -- rendering ------------------------------------------------------------------------------

function render() {
  $("table-title").textContent = `${state.table.name} (${system.title})`;
  document.title = `${state.table.name} · d100`;
  $("whoami").textContent = `You are ${state.me.name}, ${isGm() ? "the game master" : "a player"}.`;
  $("gm-tools").hidden = !isGm();
  $("manual-dice-box").hidden = !state.table.settings.manual_dice;
  $("luck-options").hidden = system.name !== "brp";
  $("call-difficulty-label").textContent = system.name === "chances" ? "Risk" : "Difficulty";
  $("call-difficulty").placeholder = system.name === "chances" ? "e.g. tough, or 80" : "e.g. hard, or -20";
  options($("roll-character"), mine().map((c) => [c.id, c.name]));
  options($("contest-actor"), mine().map((c) => [c.id, c.name]));
  options($("contest-opponent"), state.characters.map((c) => [c.id, c.name]));
  options($("sheet-owner"), state.members.filter((m) => !m.revoked).map((m) => [m.id, m.name]));
  $("owner-box").hidden = !isGm() || editing !== null;
  skillOptions();
  contestSuggestions();
  suggest($("call-skills"), state.characters);
  rerender($("call-characters"), state.characters.map((c) => el("label", { class: "inline", for: `call-${c.id}` },
    el("input", { type: "checkbox", id: `call-${c.id}`, value: c.id, name: "call-character" }), c.name)));
  renderCalls();
  renderCharacters();
  renderMembers();
  renderSeeds();
  preview();
}

function options(select, pairs) {
  const keep = select.value;
  select.replaceChildren(...pairs.map(([value, text]) => el("option", { value, text })));
  if (pairs.some(([value]) => value === keep)) select.value = keep;
}

function skillOptions() {
  const character = byId($("roll-character").value);
  options($("roll-skill"), character ? Object.keys(character.skills).map((s) => [s, `${s} ${character.skills[s]}`]) : []);
  $("aim-option").hidden = !(system.name === "brp" && character && character.aim_rounds > 0);
  if (character) $("roll-aimed").nextSibling.textContent = ` Fire with the aim built up: ${character.aim_rounds} round(s), +${Math.min(character.aim_rounds * 20, 60)} (spends it)`;
}

// Skill names to pick from while typing, from the sheets this viewer may see; any name (or
// prefix) can still be typed, as for an opponent whose sheet is hidden.
function suggest(list, characters) {
  const names = [...new Set(characters.flatMap((c) => Object.keys(c.skills || {})))].sort();
  list.replaceChildren(...names.map((name) => el("option", { value: name })));
}

function contestSuggestions() {
  suggest($("contest-actor-skills"), [byId($("contest-actor").value)].filter(Boolean));
  suggest($("contest-opponent-skills"), [byId($("contest-opponent").value)].filter(Boolean));
}

// Live events re-render parts of the page while someone may be filling them in: what was
// typed, picked or ticked (and the focus) survives, for every field with an id.
function rerender(container, children) {
  const kept = new Map([...container.querySelectorAll("input[id], select[id], textarea[id]")]
    .map((f) => [f.id, f.type === "checkbox" ? f.checked : f.value]));
  const focused = container.contains(document.activeElement) ? document.activeElement.id : null;
  container.replaceChildren(...children);
  for (const [id, value] of kept) {
    const field = document.getElementById(id);
    if (!field || !container.contains(field)) continue;
    if (field.type === "checkbox") field.checked = value;
    else if (field.tagName !== "SELECT" || [...field.options].some((o) => o.value === value)) field.value = value;
  }
  if (focused && $(focused)) $(focused).focus();
}

function renderCalls() {
  const box = $("calls");
  const calls = state.calls.filter((c) => c.targets.some((t) => t.status === "pending") || isGm());
  if (!calls.length) { box.replaceChildren(el("p", { class: "muted", text: "No test called yet." })); return; }
  rerender(box, calls.slice(0, 8).map((call) => el("div", { class: "pending" },
    el("p", {}, el("strong", { text: `${call.skill}` }), fieldsText(call.fields),
       call.hazard ? ` · if it fails: ${call.hazard}` : "", el("span", { class: "tag", text: call.visibility })),
    el("ul", {}, call.targets.map((t) => targetItem(call, t))))));
}

function targetItem(call, target) {
  const own = byId(target.character.id);
  const item = el("li", {}, `${target.character.name}: `, el("strong", { text: target.status }),
    target.assists.length ? ` (helped by ${target.assists.map((a) => `${a.name}, ${a.skill}`).join("; ")})` : "");
  if (target.status !== "pending") return item;
  if (own && own.skills) {
    const odds = el("span", { class: "muted", text: " odds…" });
    api("POST", `${base}/odds`, { actor: { character_id: own.id }, target_id: target.id })
      .then((p) => { odds.textContent = ` success ${percent(p.odds.success)} (${p.odds.success})`; })
      .catch((err) => { odds.textContent = ` ${err.message}`; });
    item.append(odds,
      el("button", { type: "button", "data-target": target.id, onclick: () => act(() => api("POST", `${base}/rolls`,
        { actor: { character_id: own.id }, target_id: target.id }), "page-error") }, `Roll ${call.skill} for ${own.name}`),
      el("button", { type: "button", class: "secondary", onclick: () => act(() => api("POST",
        `${base}/targets/${target.id}/decline`), "page-error") }, "Decline"));
  }
  const helpers = mine().filter((c) => c.id !== target.character.id);
  if (helpers.length && system.name !== "brp") {
    const select = el("select", { id: `help-${target.id}`, "aria-label": "Helping character" },
      helpers.map((c) => el("option", { value: c.id, text: c.name })));
    const skill = el("input", { type: "text", id: `help-skill-${target.id}`, "aria-label": "Helping with skill", placeholder: "skill" });
    item.append(el("div", {}, select, skill, el("button", { type: "button", class: "secondary", onclick: () => act(() =>
      api("POST", `${base}/targets/${target.id}/assists`, { character_id: select.value, skill: skill.value }), "page-error") },
      "Help")));
  }
  return item;
}

function fieldsText(fields) {
  const parts = Object.entries(fields).map(([k, v]) => `${k} ${v}`);
  return parts.length ? ` (${parts.join(", ")})` : "";
}

function renderCharacters() {
  $("characters").replaceChildren(...state.characters.map((c) => {
    const owner = state.members.find((m) => m.id === c.member_id);
    const card = el("div", { class: "pending", "data-character": c.name },
      el("h3", { text: `${c.name}` }), el("p", { class: "muted", text: `played by ${owner ? owner.name : "?"}` }));
    if (!c.skills) return card;
    card.append(el("p", { text: Object.entries(c.skills).map(([k, v]) => `${k} ${v}`).join(", ") }));
    if (c.luck) card.append(el("p", { class: "luck", text: `Luck ${c.luck.current} of ${c.luck.maximum}` }));
    const marks = Object.entries(c.marks);
    if (marks.length) card.append(el("p", { text: `Improvement marks: ${marks.map(([k, v]) => `${k} ×${v}`).join(", ")}` }));
    if (system.name === "brp") {
      card.append(el("p", { text: `Aiming: ${c.aim_rounds} round(s)` }),
        ...[["aim", "Aim a round"], ["move", "Move"], ["damage", "Took damage"]].map(([action, text]) =>
          el("button", { type: "button", class: "secondary", onclick: () => act(() =>
            api("POST", `${base}/characters/${c.id}/aim`, { action }), "sheet-error") }, `${text} (${c.name})`)));
    }
    card.append(el("p", {}, el("a", { href: `${base}/characters/${c.id}/sheet`, download: `${c.name}.toml` }, "Export sheet"),
      " ", el("button", { type: "button", class: "secondary", onclick: () => { editing = c.id; $("sheet-text").value = c.sheet;
        $("sheet-form-title").textContent = `Edit ${c.name}`; $("owner-box").hidden = true; $("sheet-text").focus(); } }, `Edit ${c.name}`)));
    if (isGm() && marks.length) {
      card.append(el("button", { type: "button", class: "secondary", onclick: () => act(() =>
        api("DELETE", `${base}/characters/${c.id}/marks`), "sheet-error") }, "Clear marks"));
    }
    return card;
  }));
}

function renderMembers() {
  $("members").replaceChildren(...state.members.map((m) => el("li", {},
    `${m.name} (${m.role}${m.revoked ? ", revoked" : ""})`,
    isGm() && m.role === "player" && !m.revoked ? el("button", { type: "button", class: "secondary",
      onclick: () => act(() => api("POST", `${base}/members/${m.id}/revoke`), "page-error") }, `Revoke ${m.name}`) : null)));
  const rejoin = sessionStorage.getItem(`rejoin-${tableId}`);
  $("rejoin").textContent = rejoin ? `Your own link, to come back on another device: ${rejoin}` : "";
}

function renderSeeds() {
  $("seeds").replaceChildren(el("ul", {}, state.seeds.map((s) => el("li", {},
    `${s.blind ? "blind rolls: " : ""}` +
    (s.server_seed ? `revealed seed ${s.server_seed} (commitment ${s.commitment}, ${s.rolls} rolls)`
                   : `current commitment ${s.commitment} (${s.rolls} rolls so far)`)))));
  if (document.activeElement !== $("client-seed")) $("client-seed").value = state.me.client_seed;
}

// -- rolling --------------------------------------------------------------------------------

function rollBody() {
  const fields = fieldValues($("roll-fields"), system.check);
  if (luck.boost) fields.luck_boost = true;
  if (luck.reroll) fields.luck_rerolls = 1;
  const actor = { character_id: $("roll-character").value, skill: $("roll-skill").value, fields };
  if (!$("aim-option").hidden && $("roll-aimed").checked) actor.aimed = true;
  const dice = $("roll-dice").value.trim();
  if (dice) actor.dice = dice.split(/[ ,]+/).map(Number);
  return { actor, visibility: $("roll-visibility").value };
}

let previewing = null;
function preview() {
  clearTimeout(previewing);
  previewing = setTimeout(async () => {
    if (!$("roll-character").value) { $("roll-odds").replaceChildren(el("p", { class: "muted", text: "Add a character first." })); return; }
    const body = rollBody();
    delete body.actor.dice;
    try {
      const p = await api("POST", `${base}/odds`, body);
      $("roll-odds").replaceChildren(oddsTable(p.odds));
      $("roll-error").textContent = "";
      const gain = (name) => { const o = (p.advice || []).find((a) => a.name === name); return o ? ` (${o.gain.startsWith("-") ? "" : "+"}${percent(o.gain)} success)` : ""; };
      $("luck-boost").textContent = `Luck boost: spend 1 for +20${luck.boost ? "" : gain("Luck boost")}`;
      $("luck-reroll").textContent = `Luck reroll if it fails${luck.reroll ? "" : gain("Luck reroll")}`;
    } catch (err) {
      $("roll-odds").replaceChildren();
      $("roll-error").textContent = err.message;
    }
  }, 120);
}

function toggle(button, key) {
  luck[key] = !luck[key];
  button.setAttribute("aria-pressed", String(luck[key]));
  preview();
}

async function act(call, errorId) {
  $(errorId).textContent = "";
  try { return await call(); } catch (err) { $(errorId).textContent = err.message; return null; }
}

function wire() {
  $("roll-character").addEventListener("change", () => { skillOptions(); preview(); });
  $("contest-actor").addEventListener("change", contestSuggestions);
  $("contest-opponent").addEventListener("change", contestSuggestions);
  $("roll-form").addEventListener("input", preview);
  $("luck-boost").addEventListener("click", () => toggle($("luck-boost"), "boost"));
  $("luck-reroll").addEventListener("click", () => toggle($("luck-reroll"), "reroll"));
  $("roll-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const event = await act(() => api("POST", `${base}/rolls`, rollBody()), "roll-error");
    if (event) {
      $("roll-result").replaceChildren(describe(event));
      $("roll-dice").value = "";
      for (const key of ["boost", "reroll"]) luck[key] = false;
      $("luck-boost").setAttribute("aria-pressed", "false");
      $("luck-reroll").setAttribute("aria-pressed", "false");
    }
  });
  const contestBody = () => ({
    actor: { character_id: $("contest-actor").value, skill: $("contest-actor-skill").value },
    opponent: { character_id: $("contest-opponent").value, skill: $("contest-opponent-skill").value },
  });
  $("contest-preview").addEventListener("click", async () => {
    const p = await act(() => api("POST", `${base}/odds`, contestBody()), "contest-error");
    if (p) $("contest-odds").replaceChildren(oddsTable(p.odds, "who wins"));
  });
  $("contest-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    await act(() => api("POST", `${base}/rolls`, contestBody()), "contest-error");
  });
  $("call-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const fields = {};
    const level = $("call-difficulty").value.trim();
    if (level) fields[system.name === "chances" ? "risk" : "difficulty"] = /^-?\d+$/.test(level) ? Number(level) : level;
    else if (system.name === "chances") fields.risk = "average";
    const ids = [...document.querySelectorAll("input[name=call-character]:checked")].map((i) => i.value);
    const made = await act(() => api("POST", `${base}/calls`, { skill: $("call-skill").value, fields,
      hazard: $("call-hazard").value, character_ids: ids, visibility: $("call-visibility").value }), "call-error");
    if (made) $("call-form").reset();
  });
  $("rest-button").addEventListener("click", () => act(() => api("POST", `${base}/rest`), "call-error"));
  $("rotate-button").addEventListener("click", () => act(() => api("POST", `${base}/seeds/rotate`), "call-error"));
  $("invite-button").addEventListener("click", async () => {
    const made = await act(() => api("POST", `${base}/invite`), "call-error");
    if (made) $("invite-out").textContent = `New invite link (the old one no longer works): ${made.invite_link}`;
  });
  $("sheet-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const body = { sheet: $("sheet-text").value };
    if (editing === null && isGm() && $("sheet-owner").value !== state.me.id) body.member_id = $("sheet-owner").value;
    const saved = await act(() => editing === null ? api("POST", `${base}/characters`, body)
      : api("PUT", `${base}/characters/${editing}`, body), "sheet-error");
    if (saved) newSheet();
  });
  $("sheet-new").addEventListener("click", newSheet);
  $("seed-form").addEventListener("submit", (e) => {
    e.preventDefault();
    act(() => api("PUT", `${base}/me/client-seed`, { client_seed: $("client-seed").value }), "page-error");
  });
}

function newSheet() {
  editing = null;
  $("sheet-form-title").textContent = "Add a character";
  $("sheet-text").value = SAMPLE[system.name];
  $("owner-box").hidden = !isGm();
}

// -- the log --------------------------------------------------------------------------------

function who(id) {
  const member = state && state.members.find((m) => m.id === id);
  return member ? member.name : "someone";
}

function levelText(result) {
  // The mark and the word say success or failure without colour; a level with another name
  // (special, fumble, great...) says which it counts as.
  const word = result.success ? "success" : "failure";
  return el("span", { class: `level ${result.success ? "win" : "lose"}`,
                      text: result.level === word ? word : `${result.level} (${word})` });
}

function describe(e) {
  const tag = e.visibility !== "public" ? el("span", { class: "tag", text: e.visibility }) : null;
  const time = el("span", { class: "muted", text: ` #${e.seq}` });
  switch (e.kind) {
    case "roll": {
      const head = `${e.character.name} rolls ${e.skill}`;
      const chance = e.odds ? ` · odds of success ${percent(e.odds.success)} (${e.odds.success})` : "";
      if (e.hidden || !e.result) return el("span", { class: "roll" }, `${head}: rolled blind, only the GM sees the result${chance}`, tag, time);
      if (e.visibility === "blind" && isGm()) {
        // Showing it lets the next rotation reveal the blind seed (docs/server.md).
        const show = el("button", { type: "button", class: "secondary",
          onclick: () => act(() => api("POST", `${base}/rolls/${e.seq}/unblind`), "page-error") }, "Show to everyone");
        return el("span", { class: "roll" }, `${head}: `, levelText(e.result), ` — ${e.result.explanation}${chance}`, tag, time, " ", show);
      }
      return el("span", { class: "roll" }, `${head}: `, levelText(e.result), ` — ${e.result.explanation}${chance}`,
        e.manual ? el("span", { class: "tag", text: "dice by hand" }) : null,
        e.call && e.call.hazard ? ` · hazard: ${e.call.hazard}` : "", tag, time);
    }
    case "contest": {
      const head = `${e.character.name} (${e.skill}) vs ${e.opponent.name} (${e.opponent_skill})`;
      if (e.hidden || !e.result) return el("span", {}, `${head}: rolled blind`, tag, time);
      const winner = { actor: e.character.name, opponent: e.opponent.name, tie: "a tie", none: "nobody" }[e.result.winner];
      return el("span", { class: "contest" }, `${head}: winner `, el("strong", { text: winner }), ` — ${e.result.explanation}`, tag, time);
    }
    case "call": {
      const names = e.call.targets.map((t) => t.character.name).join(", ");
      return el("span", {}, `${who(e.actor_id)} calls for ${e.call.skill}${fieldsText(e.call.fields)} from ${names}`,
        e.call.hazard ? ` · if it fails: ${e.call.hazard}` : "", time);
    }
    case "decline": return el("span", {}, `${e.character.name} declines the ${e.skill} test`, time);
    case "assist": return el("span", {}, `${e.character.name} helps ${e.helping.name} with ${e.skill}`, time);
    case "aim": return el("span", {}, `${e.character.name}: ${e.action} (aiming ${e.aim_rounds} round(s))`, time);
    case "rest": return el("span", {}, "A night's rest: Luck is restored", time);
    case "join": return el("span", {}, `${e.member.name} joins the table`, time);
    case "revoke": return el("span", {}, `${e.member.name} was removed from the table`, time);
    case "character": return el("span", {}, `${e.character.name}: character ${e.change}`, time);
    case "seed": return el("span", {}, `Server seed revealed: ${e.revealed.server_seed}; new commitment ${e.active.commitment}`,
      e.blind ? `; blind seed revealed: ${e.blind.revealed.server_seed}; new blind commitment ${e.blind.active.commitment}` : "", time);
    case "unblind": return el("span", { class: "roll" }, `Blind roll #${e.unblinds} shown: ${e.character.name} rolls ${e.skill}: `,
      levelText(e.roll_kind === "contest" ? e.result.actor : e.result), ` — ${e.result.explanation}`, time);
    case "client_seed": return el("span", {}, `${who(e.member_id)} sets their client seed to ${e.client_seed}`, time);
    case "table": return el("span", {}, `Table "${e.name}" opened (${e.system})`, time);
    default: return el("span", {}, `${e.kind}`, tag, time);
  }
}

start();
