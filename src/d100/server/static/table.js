// The table page: state from GET /api/tables/{id}, the live log over Server-Sent Events
// (the browser resumes from Last-Event-ID by itself), and forms that call the API.
//
// Requests per log event: one state read, whatever the number of pending calls. Each event
// carries its own card (result, odds and percentages); a pending call's odds are asked once
// per call, and the roll preview again only when what it depends on changed.
"use strict";

const tableId = decodeURIComponent(location.pathname.split("/")[2]);
const base = `/api/tables/${encodeURIComponent(tableId)}`;
const SEEN_BY = { public: "seen by everyone", gm: "seen by the roller and the GM",
  blind: "seen by the GM only", self: "seen by the roller only" };
let state = null;
let system = null;
let rules = null;  // what the system declares (GET /api/systems): every rule the page reads
let editing = null;
let answering = null;  // { call, target } while the roll panel answers a called test
const seen = new Set();
let waited = 0;  // tests waiting for this viewer at the last render
let recent = [];  // the newest results (rolls, contests, blind rolls shown), newest first
const shownHere = new Set();  // results shown where they were rolled: the latest strip skips them
const rolledHere = new Map();  // target id -> the roll made on this page for it
let opposing = false;  // the roll panel rolls a contest against another character
let submitting = false;  // a roll of the panel on its way: a double click on Roll makes one
const shownAs = new Map();  // a blind roll's number -> the number of the entry that showed it
const luck = { boost: false };
const rerolled = new Set();  // checks already rerolled, by event number
const rerolling = new Set();  // checks whose reroll is on its way: offered nowhere meanwhile
const rerollOf = new Map();  // a rerolled check's event number -> its reroll's event
const results = new Map();  // event number -> a result this viewer was sent (a group test's summary)
const rerollDice = new Map();  // a die typed for a reroll, by event number: kept as the page draws again
// The last of a roll's Luck rerolls: a card shows the final outcome (the reroll names its first).
const final = (event) => rerollOf.has(event.seq) ? final(rerollOf.get(event.seq)) : event;

const $ = (id) => document.getElementById(id);
const mine = () => state.characters.filter((c) => c.skills);
const byId = (id) => state.characters.find((c) => c.id === id);
// Characters a test may be called for: none of a removed player's (nobody could roll them).
const callable = () => state.characters.filter((c) => !state.members.some((m) => m.id === c.member_id && m.revoked));
const isGm = () => state.me.role === "gm";
const rounds = (n) => `${n} round${n === 1 ? "" : "s"}`;
const RESULTS = ["roll", "contest", "unblind", "declared", "unblind_declared"];
const memberName = (id) => { const m = state && state.members.find((x) => x.id === id); return m ? m.name : "someone"; };

// The heads of the log seen here, kept in the browser (heads.js); made as the page starts.
let heads = null;
let deleted = false;  // this page's GM deleted the table: going home

// An answer that carries the log's head (a roll's, a follow-up's, a showing's): kept.
async function withHead(call) {
  const made = await call();
  if (made) heads.see(made.head);
  return made;
}

function showHeads(latest, warning) {
  const box = $("head-box"), shown = latest ? `${latest.seq}:${latest.link}` : "";
  if (box.dataset.head !== shown) {  // the same head again keeps its line (and a "Copied")
    box.dataset.head = shown;
    box.replaceChildren(...(latest ? headLine(latest) : []));
  }
  $("heads-warning").textContent = warning;
}

async function start() {
  heads = new Heads(tableId, showHeads);  // read before the state: its head is checked against them
  const token = location.hash.slice(1);
  if (/^[\w-]+$/.test(token)) {  // a token has no "=": "#view=log" is a section, kept  // a GM or rejoin link: swap the fragment's token for an HttpOnly cookie
    history.replaceState(null, "", location.pathname);
    try { await api("POST", "/api/session", { token }); } catch (err) { $("page-error").textContent = err.message; }
  }
  try {
    state = await api("GET", base);
  } catch (err) {
    $("page-error").textContent = `${err.message} Open the table from your GM link, your own link or the invite link.`;
    return;
  }
  heads.atEnd(state.table.head);
  rememberTable(tableId, state.table.name, state.me.role);
  system = (await systems()).find((s) => s.name === state.table.system);
  rules = system.declares;
  $("rest-button").hidden = !(rules.luck && rules.luck.rest);  // only where a rest rule is declared
  buildRollFields();
  newSheet();
  $("export-log").href = `${base}/log.jsonl`;
  wire();
  render();
  showView(hashView());
  $("table-page").inert = false;
  connect();
  showMyLink();
  if (isGm()) showKeptInvite();
}

// The member's own link (GM link or rejoin link), asked once: the cookie holding it is
// HttpOnly, so the server reads it back.
async function showMyLink() {
  try {
    const { link } = await api("POST", `${base}/me/link`);
    const box = isGm() ? $("gm-link") : $("my-link");
    box.replaceChildren(copyable(link, isGm() ? "your GM link" : "your own link"));
    $("my-link-box").hidden = isGm();
  } catch (err) { $("page-error").textContent = err.message; }
}

function connect() {
  const source = new EventSource(`${base}/events/stream`);
  source.onopen = () => { $("live-status").textContent = "live"; };
  source.onerror = () => { $("live-status").textContent = "reconnecting…"; };
  source.onmessage = (message) => {
    const event = JSON.parse(message.data);
    heads.see(event.head);  // an event sent again too: its head must be the one kept
    if (seen.has(event.seq)) return;
    seen.add(event.seq);
    if (event.kind === "unblind" || event.kind === "unblind_declared") showBlind(event);
    if (event.reroll_of) { rerolled.add(event.reroll_of); showReroll(event); }
    for (const offer of document.querySelectorAll(`[data-reroll="${event.reroll_of}"]`)) offer.remove();
    $("log").prepend(el("li", { class: `card ${cardClass(event)}`, "data-seq": event.seq, "data-kind": event.kind }, describe(event)));
    if (RESULTS.includes(event.kind)) {
      results.set(event.seq, event);
      recent = [event, ...recent].sort((a, b) => b.seq - a.seq).slice(0, LATEST + 8);
      renderLatest();
    }
    reload();
  };
  source.addEventListener("denied", () => {
    source.close();
    $("live-status").textContent = "signed out";
    if (!deleted) $("page-error").textContent = "Your access to this table was revoked, or the table was deleted.";
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
      heads.see(fresh.table.head);  // a head at a number kept must be the one kept, whenever read
      if (ticket === asked) { state = fresh; render(); }
    } catch (err) { $("page-error").textContent = err.message; }
  }, 80);
}

// -- sections: on a narrow screen one view at a time, named in the address ------------------

const hashView = () => (location.hash.match(/^#view=(\w+)$/) || [])[1];
const viewOf = (section) => (isGm() && section.dataset.gmView) || section.dataset.view;
let view = "table";

function showView(wanted) {
  const offered = [...document.querySelectorAll("#tabs a")].filter((a) => !a.hidden).map((a) => a.dataset.view);
  view = offered.includes(wanted) ? wanted : "table";
  for (const section of document.querySelectorAll(".layout section[data-view]")) section.classList.toggle("in-view", viewOf(section) === view);
  for (const a of document.querySelectorAll("#tabs a")) {
    if (a.dataset.view === view) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current");
  }
}

// One key to a part of the page, outside a field: the key, the heading it goes to, in words.
const SHORTCUTS = [["c", "chars-title", "your characters"], ["r", "roll-title", "the roll panel"],
  ["k", "calls-title", "what is called for you"], ["l", "log-title", "the results"], ["s", "sheet-title", "the sheets"]];

// A heading brought into view (its tab shown on a phone) and focused, as a skip link does.
function goTo(id) {
  const heading = $(id);
  reveal(heading.closest("section").id);
  heading.setAttribute("tabindex", "-1");
  heading.focus();
}

// An action that leads to another view (a skill tapped, a sheet edited) goes there first.
function reveal(id) {
  const wanted = viewOf($(id).closest("section"));
  if (wanted !== view) { history.replaceState(null, "", `#view=${wanted}`); showView(wanted); }
  $(id).scrollIntoView({ block: "start" });
}

// The newest results not already shown where they were rolled, so the first screen shows each
// once; on a wide screen the log beside shows them and this strip hides (app.css).
const LATEST = 3;
function renderLatest() {
  const shown = recent.filter((e) => !shownHere.has(e.seq)).slice(0, LATEST);
  $("latest").replaceChildren(...shown.map((e) => el("div", { class: `card ${cardClass(e)}`, "data-seq": e.seq }, describe(e))));
  $("latest-box").hidden = !shown.length;
}

// A result where it was rolled (beside the roll panel, in its called test). On a wide screen
// the log beside has the same card at its top: there it shows once, this points to it.
function hereCard(first) {
  const event = final(first);
  shownHere.add(first.seq);
  shownHere.add(event.seq);
  renderLatest();
  return [el("div", { class: `card here ${cardClass(event)}`, "data-seq": event.seq }, describe(event)),
    el("p", { class: "muted pointer", text: "Rolled: the result is at the top of the log." })];
}

// -- rendering ------------------------------------------------------------------------------

// The check's bonus and penalty dice fields, as a schema of their own (none where the system
// has no extra dice).
function extraDice() {
  const extra = rules.extra_dice;
  const fields = extra ? [extra.bonus_field, extra.penalty_field] : [];
  return { properties: Object.fromEntries(fields.map((f) => [f, system.check.properties[f]]).filter(([, spec]) => spec)) };
}

// The check's inputs: the target (difficulty or risk) in view, the rest under "More options";
// fields the sheet, the call or the page's buttons fill in are left out.
function buildRollFields() {
  const target = rules.target;
  const fields = fieldInputs(system.check, setByPage(system), "roll");
  const at = fields.findIndex((f) => f.querySelector(`[name=${target.field}]`));
  $("roll-target").replaceChildren(...(at >= 0 ? fields.splice(at, 1) : []));
  $("roll-fields").replaceChildren(...fields);
  // bonus and penalty dice on a called test are the GM's, where the system declares them
  $("call-extra").replaceChildren(...fieldInputs(extraDice(), [], "call"));
  $("call-extra-box").hidden = !rules.extra_dice;
  $("call-lowest-box").hidden = !rules.group_luck;  // the system's group Luck rule, where it has one
  if (rules.group_luck) $("call-lowest-text").textContent = `Group ${rules.group_luck.skill} roll: ${rules.group_luck.rule}`;
  // a contest's own fields (a melee response), where the system declares any
  $("oppose-fields").replaceChildren(...fieldInputs(system.contest, contestSetByPage(), "oppose"));
  $("call-contest-fields").replaceChildren(...fieldInputs(system.contest, contestSetByPage(), "call-contest"));
  $(`roll-${target.field}`).value = target.default;
  $(`roll-${target.field}`).placeholder = `e.g. ${target.example}`;
  $("call-difficulty-label").textContent = target.label;
  $("call-difficulty").placeholder = `${target.default}; or e.g. ${target.example}`;
  $("call-presets").replaceChildren(...Object.keys(target.presets).map((v) => el("option", { value: v })));
  // A difficulty moves the skill (signed: +20 easier); a risk is the number to beat itself;
  // a target that is a choice of names (a required level) takes its names only.
  const signed = (v) => (target.harder < 0 && v > 0 ? `+${v}` : String(v));
  const named = !!(system.check.properties[target.field] || {}).enum;
  // A multiplicative preset is shown in the words its declaration gives, not as a number.
  const words = target.shown || {};
  const presets = Object.entries(target.presets).map(([k, v]) =>
    (words[k] ? `${k} (${words[k]})` : named ? k : `${k} ${signed(v)}`));
  $("call-difficulty-help").textContent = !presets.length ? `For example ${target.example}.`
    : named ? `${presets.join(", ")}.` : `${presets.join(", ")}; or a number.`;
  if (rules.luck) $("luck-help").textContent = `Luck: ${rules.luck.summary}.`;
}

// What is typed for the target as its field takes it: a preset's name or a number, or, where
// the target is a list (modifiers), the numbers typed.
function targetValue(text) {
  const spec = system.check.properties[rules.target.field] || {};
  if (spec.type !== "array") return SIGNED.test(text) ? Number(text) : text;
  const parts = text.split(/[ ,]+/).filter(Boolean);
  const bad = parts.find((p) => !SIGNED.test(p));
  if (bad !== undefined) throw new Error(`${rules.target.label}: "${bad}" is not a number; type numbers such as +10 -20.`);
  return parts.map(Number);
}

function myPending() {
  return state.calls.flatMap((call) => call.targets
    .filter((t) => t.status === "pending" && byId(t.character.id) && byId(t.character.id).member_id === state.me.id)
    .map((t) => ({ call, target: t })));
}

function render() {
  $("table-title").textContent = `${state.table.name} (${system.title})`;
  $("table-title").title = $("table-title").textContent;
  const waiting = myPending().length;
  // The tab's title is the cue a player on another tab or app sees; a sound, if they asked.
  document.title = `${waiting ? `(${waiting}) Your turn · ` : ""}${state.table.name} · d100`;
  if (waiting > waited && $("turn-sound").checked) chime();
  waited = waiting;
  $("whoami").textContent = `You are ${state.me.name}, ${isGm() ? "the game master" : "a player"}.`;
  $("whoami").title = $("whoami").textContent;
  for (const id of ["gm-tools", "tools-box", "tab-call"]) $(id).hidden = !isGm();
  $("turn-sound-box").hidden = isGm();  // the GM calls the tests: none is called for them
  $("calls-title").textContent = isGm() ? "Open calls" : "Called for you";
  $("chars-title").textContent = isGm() ? "Characters" : "Your characters";
  $("manual-dice-box").hidden = !state.table.settings.manual_dice;
  gmModes();
  $("luck-options").hidden = !boosts();
  options($("roll-character"), mine().map((c) => [c.id, c.name]));
  $("roll-form").hidden = !mine().length;  // a Roll button with nothing to roll, else
  $("roll-none").hidden = !!mine().length;
  options($("declared-character"), [["", "no character"], ...mine().map((c) => [c.id, c.name])]);
  againstOptions();
  // the words the table's rules take beside a check: a Sanity roll where they declare one
  const sanity = system.declares && system.declares.sanity;
  $("declared-words").placeholder = sanity ? `1d6+1 or ${sanity.words.at(-1)} 1/1d6` : "1d6+1";
  const actions = (system.declares && system.declares.actions) || [];
  $("declared-help").textContent = (sanity
    ? `A dice expression (1d6+1; 1d8+DB for a character reads DB from its sheet, db=+1d4 gives it) or a Sanity roll: ${sanity.words.at(-1)} 1/1d6 for a character reads SAN from its sheet and writes back what is left.`
    : "A dice expression such as 1d6+1, or 1d8+DB (a character's DB is its sheet's; db=+1d4 gives it).");
  // the chat-bot words the table's rules take (SealDice's .ra, .sc): read by the server
  const chat = (system.declares && system.declares.chat_words) || [];
  $("declared-chat").hidden = !chat.length;
  $("declared-chat-help").textContent = chat.length
    ? `${chat.join(", ")}: a check of the character's skill (hidden: only you and the GM see it), its Sanity roll, or its development (the GM's), as a chat dice bot reads them.` : "";
  // the actions' grammar, folded: on a phone it was a third of the screen below the field
  $("declared-actions").hidden = !actions.length;
  $("declared-actions-help").textContent = actions.length
    ? `${actions.map((a) => a.form).join("; ")} (SKILL: a number, or a skill of the character's sheet).` : "";
  // a defender at the table, where one of the rules' actions is made against a character
  $("declared-against-box").hidden = !actions.some((a) => a.facing);
  developOptions();
  options($("sheet-owner"), state.members.filter((m) => !m.revoked).map((m) => [m.id, m.name]));
  $("owner-box").hidden = !isGm() || editing !== null;
  skillOptions();
  suggest($("call-skills"), state.characters);
  options($("call-opponent"), [["", "nobody: a check"], ...state.characters.map((c) => [c.id, c.name])]);
  suggest($("call-opponent-skills"), [byId($("call-opponent").value)].filter(Boolean));
  rerender($("call-characters"), callable().map((c) => el("label", { class: "inline", for: `call-${c.id}` },
    el("input", { type: "checkbox", id: `call-${c.id}`, value: c.id, name: "call-character" }), c.name)));
  if (answering && !pendingTarget(answering.target.id)) leaveAnswer();
  renderOppose();
  renderCalls();
  renderCharacters();
  renderMembers();
  $("table-rules").textContent = tableRules();
  renderSeeds();
  renderLedgerWhose();
  preview();
  staleOffers();
}

// An offer drawn with a card goes once the sheet no longer covers it (its Luck spent or
// edited away): the server would refuse the tap, so the page offers it no longer.
function staleOffers() {
  for (const box of document.querySelectorAll("[data-reroll]")) {
    const e = results.get(Number(box.dataset.reroll));
    if (!e || rerolling.has(e.seq)) continue;
    const fresh = followOffers(e);
    if (!fresh) box.remove();
    else if (fresh.querySelectorAll("button").length !== box.querySelectorAll("button").length) box.replaceWith(fresh);
  }
}

// A short two-note chime, made on the spot: no sound file to fetch.
function chime() {
  try {
    const audio = new AudioContext();
    for (const [i, hz] of [660, 880].entries()) {
      const tone = audio.createOscillator();
      const level = audio.createGain();
      const at = audio.currentTime + i * 0.18;
      tone.frequency.value = hz;
      level.gain.setValueAtTime(0.15, at);
      level.gain.exponentialRampToValueAtTime(0.001, at + 0.16);
      tone.connect(level).connect(audio.destination);
      tone.start(at);
      tone.stop(at + 0.17);
    }
  } catch { /* no audio here: the title still says it */ }
}

function options(select, pairs) {
  const keep = select.value;
  select.replaceChildren(...pairs.map(([value, text]) => el("option", { value, text })));
  if (pairs.some(([value]) => value === keep)) select.value = keep;
}

function skillOptions() {
  const character = byId($("roll-character").value);
  const values = character ? character.rollable || character.skills : {};  // characteristics and base skills too
  options($("roll-skill"), Object.keys(values).map((s) => [s, `${s} ${values[s]}`]));
  const aim = character && character.aim;  // the server's: rounds aimed and what they add
  $("aim-option").hidden = !(aim && aim.rounds > 0);
  if (aim) $("roll-aimed-text").textContent = `Fire with the aim built up: ${rounds(aim.rounds)}, +${aim.bonus} (spends it)`;
}

// Skill names to pick from while typing, from the sheets this viewer may see; any name (or
// prefix) can still be typed, as for an opponent whose sheet is hidden.
function suggest(list, characters) {
  const names = [...new Set(characters.flatMap((c) => Object.keys(c.rollable || c.skills || {})))].sort();
  list.replaceChildren(...names.map((name) => el("option", { value: name })));
}

// Whom a free contest may oppose: for the GM any other character; for a player only another
// of their own, whose sheet they read (the server refuses the rest): the GM calls any other.
function opponents() {
  const actor = $("roll-character").value;
  return state.characters.filter((c) => c.id !== actor && (isGm() || c.skills));
}

// A contest is rolled against a skill typed for the other side: until it is typed, Roll waits
// (the odds' place says why), as it does while a roll is on its way.
const THEIR_SKILL = "Their skill: type the skill they oppose with.";
const theirSkillMissing = () => opposing && !$("oppose-skill").value.trim();
function rollReady() {
  $("roll-button").disabled = submitting || theirSkillMissing();
}

function renderOppose() {
  $("oppose-box").hidden = !opposing;
  $("oppose-button").setAttribute("aria-expanded", String(opposing));
  $("oppose-button").textContent = opposing ? "Roll a check instead" : "Oppose…";
  $("roll-button").textContent = opposing ? "Roll the contest" : "Roll";
  rollReady();
  const against = opponents();
  options($("oppose-character"), against.map((c) => [c.id, `${c.name} (${gmOwned(c) ? "NPC" : memberName(c.member_id)})`]));
  suggest($("oppose-skills"), [byId($("oppose-character").value)].filter(Boolean));
  $("oppose-help").textContent = [against.length ? "" : "No other character to oppose yet.",
    isGm() ? "" : "To oppose someone else's character, ask the GM to call it."].filter(Boolean).join(" ");
  offerFields();
}

// A tap is a press and a release on one button: a live event redrawing the part under a
// pressed finger waits for the release (a button replaced in between never gets the click),
// or for the page to lose the pointer (a press ended in another window).
let pressed = null;
const held = new Map();  // container -> its children drawn while pressed
function release() {
  pressed = null;
  setTimeout(() => { for (const [container, children] of held) rerender(container, children); });
}
document.addEventListener("pointerdown", (e) => { pressed = e.target; }, true);
for (const end of ["pointerup", "pointercancel"]) document.addEventListener(end, release, true);
window.addEventListener("blur", release);

// Live events re-render parts of the page while someone may be filling them in: what was
// typed, picked or ticked survives, for every field with an id, and so does the focus (a
// keyboard user tabbing through the skills stays where they were).
function rerender(container, children) {
  if (pressed && container.contains(pressed)) { held.set(container, children); return; }
  held.delete(container);
  const kept = new Map([...container.querySelectorAll("input[id], select[id], textarea[id]")]
    .map((f) => [f.id, f.type === "checkbox" ? f.checked : f.value]));
  const focused = container.contains(document.activeElement) ? focusPlace(document.activeElement) : null;
  container.replaceChildren(...children);
  for (const [id, value] of kept) {
    const field = document.getElementById(id);
    if (!field || !container.contains(field)) continue;
    if (field.type === "checkbox") field.checked = value;
    else if (field.tagName !== "SELECT" || [...field.options].some((o) => o.value === value)) field.value = value;
  }
  if (focused) container.querySelector(focused)?.focus({ preventScroll: true });
}

// Where an element is, as a selector that finds its new copy after a re-render: its id, or
// its character's card and skill, or what it is called.
function focusPlace(e) {
  if (e.id) return `#${CSS.escape(e.id)}`;
  const card = e.closest("[data-character]");
  if (card && e.dataset.skill) return `[data-character="${CSS.escape(card.dataset.character)}"] [data-skill="${CSS.escape(e.dataset.skill)}"]`;
  const label = e.getAttribute("aria-label");
  return label ? `[aria-label="${CSS.escape(label)}"]` : null;
}

function pendingTarget(targetId) {
  for (const call of state.calls) for (const t of call.targets) if (t.id === targetId && t.status === "pending") return t;
  return null;
}

// Calls still waiting on someone, first; a player sees those for their characters. The last
// test rolled here stays below them with its result until another is rolled (each answered
// call stayed till a reload, pushing the pending ones away); resolved and cancelled calls leave.
let lastRolled = null;  // the target id of the called test last rolled on this page
function renderCalls() {
  const box = $("calls");
  const waits = (call) => call.targets.some((t) => !rolledHere.has(t.id)
    && t.status === "pending" && (isGm() || byId(t.character.id)?.skills));
  const last = (call) => call.targets.some((t) => t.id === lastRolled);
  const calls = [...state.calls.filter(waits), ...state.calls.filter((call) => !waits(call) && last(call))];
  if (!calls.length) { rerender(box, [el("p", { class: "muted", text: isGm() ? "No call is open." : "No test called for you." })]); return; }
  rerender(box, calls.slice(0, 8).map((call) => el("div", { class: "called", "data-call": call.id },
    el("p", {}, el("strong", { text: call.skill }), fieldsText(call.fields), versus(call),
       el("span", { class: "tag", text: SEEN_BY[call.visibility] })),
    call.hazard ? el("p", { class: "hazard" }, "If it fails: ", call.hazard) : null,
    el("ul", {}, call.targets.map((t) => targetItem(call, t))),
    groupSummary(call),
    isGm() && call.targets.some((t) => t.status === "pending")
      ? el("button", { type: "button", class: "secondary small", onclick: () => act(() =>
          api("POST", `${base}/calls/${call.id}/cancel`), "page-error") }, `Cancel the ${call.skill} call`) : null)));
}

// A test called for several: how it stands, "3 called: 2 rolled (1 success, 1 failure), 1
// waiting", from the results this viewer was sent (a roll hidden from them counts as rolled).
function groupSummary(call) {
  if (call.targets.length < 2) return null;
  const counts = new Map();
  const add = (key) => counts.set(key, (counts.get(key) || 0) + 1);
  let rolled = 0, won = 0, lost = 0;
  for (const t of call.targets) {
    const made = t.event_seq ? results.get(t.event_seq) : rolledHere.get(t.id);
    if (t.status === "rolled" || made) {
      rolled += 1;
      const result = made && made.result ? final(made).result : null;
      const mine = result && (made.roll_kind === "contest" || made.kind === "contest" ? result.actor : result);
      if (mine && mine.success !== undefined) { if (mine.success) won += 1; else lost += 1; }
    } else add(t.status === "pending" ? "waiting" : t.status);
  }
  const known = won + lost ? ` (${[won ? `${won} success${won > 1 ? "es" : ""}` : "", lost ? `${lost} failure${lost > 1 ? "s" : ""}` : ""].filter(Boolean).join(", ")})` : "";
  const parts = [rolled ? `${rolled} rolled${known}` : "", ...[...counts].map(([k, n]) => `${n} ${k}`)].filter(Boolean);
  return el("p", { class: "muted group-summary", text: `${call.targets.length} called: ${parts.join(", ")}` });
}

function targetItem(call, target) {
  const own = byId(target.character.id);
  const done = rolledHere.get(target.id);
  const status = done && target.status === "pending" ? "rolled" : target.status;  // the state read lags the roll
  const item = el("li", {}, `${target.character.name}: `, el("strong", { text: status }),
    target.assists.length ? ` (helped by ${target.assists.map((a) => `${a.name}, ${a.skill}`).join("; ")})` : "");
  if (done) item.append(...hereCard(done));
  if (status !== "pending" || !own || !own.skills) return item;
  // A contest's odds tell the opponent's skill: asked only where its sheet is readable.
  const readable = !call.opponent || call.opponent.skill;
  const chance = own.member_id === state.me.id && readable ? calledOdds(own, target) : null;
  if (chance && chance.percent) item.append(el("span", { class: "muted", text: ` · success ${chance.percent.success} (${chance.odds.success})` }));
  if (chance && chance.error) item.append(el("span", { class: "error", text: ` ${chance.error}` }));
  item.append(el("div", {},
    el("button", { type: "button", "data-target": target.id, disabled: quickRolling.has(target.id), onclick: (e) => quickRoll(own, target, e.currentTarget) },
      `Roll ${call.skill} for ${own.name}${call.opponent ? ` vs ${call.opponent.character.name}` : ""}`),
    el("button", { type: "button", class: "secondary", onclick: () => answer(call, target) }, "With options…"),
    el("button", { type: "button", class: "secondary", onclick: () => act(() => api("POST",
      `${base}/targets/${target.id}/decline`), "page-error") }, "Decline")));
  const helpers = mine().filter((c) => c.id !== target.character.id);
  if (helpers.length && rules.assistance) {
    const select = el("select", { id: `help-${target.id}`, "aria-label": "Helping character" },
      helpers.map((c) => el("option", { value: c.id, text: c.name })));
    const skill = el("input", { type: "text", id: `help-skill-${target.id}`, "aria-label": "Helping with skill", placeholder: "skill" });
    item.append(el("div", {}, select, skill, el("button", { type: "button", class: "secondary", onclick: () => act(() =>
      api("POST", `${base}/targets/${target.id}/assists`, { character_id: select.value, skill: skill.value }), "page-error") },
      "Help")));
  }
  return item;
}

// A called test's odds for its roller, asked once per test and sheet: a live event that
// changes neither asks again, so a watching page makes no request per pending call.
const callOdds = new Map();
function calledOdds(character, target) {
  const key = `${target.id} ${JSON.stringify(character.skills)}`;
  if (!callOdds.has(key) && !rolling) {
    callOdds.set(key, null);
    askOdds({ actor: { character_id: character.id }, target_id: target.id })
      .then((p) => callOdds.set(key, p), (err) => callOdds.set(key, { error: err.message }))
      .then(renderCalls);
  }
  return callOdds.get(key);
}

// Odds on their way when a called test is rolled arrive first: asked after, they would be
// refused (the test is no longer pending). While a roll is on its way none are asked.
const oddsAsked = new Set();
let rolling = 0;
function askOdds(body) {
  const asked = api("POST", `${base}/odds`, body);
  oddsAsked.add(asked);
  const settled = () => oddsAsked.delete(asked);
  asked.then(settled, settled);
  return asked;
}
async function roll(body) {
  rolling += 1;
  clearTimeout(previewing);
  try {
    await Promise.allSettled([...oddsAsked]);
    return await withHead(() => once(`${base}/rolls`, body));
  } finally {
    rolling -= 1;
    if (!rolling) preview();  // what a live event meanwhile would have asked
  }
}

// One roll per tap or click: a double click, or a second tap on the button drawn again by a
// live event meanwhile, rolls nothing more (a second roll of a free check would be made).
const quickRolling = new Set();  // target ids whose roll is on its way
async function quickRoll(character, target, button) {
  if (quickRolling.has(target.id) || rolledHere.has(target.id)) return;
  quickRolling.add(target.id);
  button.disabled = true;
  try {
    const event = await act(() => roll({ actor: { character_id: character.id }, target_id: target.id }), "page-error");
    if (event) { rolledHere.set(target.id, event); lastRolled = target.id; }
  } finally { quickRolling.delete(target.id); renderCalls(); }
}

// A called contest's other side: its skill only where the server sent it (the sheet's readers).
function versus(call) {
  const o = call.opponent;
  return o ? ` vs ${o.character.name}${o.skill ? ` (${o.skill}${fieldsText(o.fields)})` : ""}${fieldsText(contestOwn(o.contest))}` : "";
}

// What a contest's sides take of a check's fields: a side may take fewer (no difficulty in a
// system whose contests compare levels), and what it lacks is left out of a contest.
function sideOnly(fields) {
  const c = system.contest;
  const known = new Set((c.required || []).flatMap((k) => Object.keys(c.properties[k].properties || {})));
  return Object.fromEntries(Object.entries(fields).filter(([k]) => known.has(k)));
}

// A contest's own fields (not its sides, nor what the table fills in) among ``values``.
function contestOwn(values) {
  const declared = system.contest.properties;
  return Object.fromEntries(Object.entries(values || {}).filter(([k, v]) =>
    v !== null && declared[k] && declared[k].type !== "object" && !contestSetByPage().includes(k)));
}

// A contest's fields the table fills in itself: a check's, and its tie-break flip (drawn).
const contestSetByPage = () => [...setByPage(system), system.declares.tie_break && system.declares.tie_break.field].filter(Boolean);

function fieldsText(fields) {
  const parts = Object.entries(fields).map(([k, v]) => `${fieldWords(k).toLowerCase()} ${valueWords(v)}`);
  return parts.length ? ` (${parts.join(", ")})` : "";
}

const NO_CHARACTER = "No character yet: add one under Sheets (on a phone, the Characters tab).";
function renderCharacters() {
  const rollable = mine();
  $("chars-help").hidden = !rollable.length;
  rerender($("characters"), (rollable.length ? rollable.map(characterCard)
    : [el("p", { class: "muted", text: NO_CHARACTER })]));
}

function characterCard(c) {
  const card = el("div", { class: "pending", "data-character": c.name },
    el("h3", { text: c.name }), el("p", { class: "muted", text: `played by ${memberName(c.member_id)}` }));
  card.append(el("div", { class: "chips" }, Object.entries(c.skills).map(([skill, value]) =>
    el("button", { type: "button", "data-skill": skill, "aria-label": `Roll ${skill} ${value} for ${c.name}`,
                   onclick: () => openRoll(c.id, skill) }, `${skill} `, el("strong", { text: String(value) })))));
  const traits = Object.entries(c.characteristics || {});  // rolled as skills are: DEX, POW hard
  if (traits.length) card.append(el("div", { class: "chips" }, traits.map(([name, value]) =>
    el("button", { type: "button", class: "secondary", "data-skill": name, "aria-label": `Roll ${name} ${value} for ${c.name}`,
                   onclick: () => openRoll(c.id, name) }, `${name} `, el("strong", { text: String(value) })))));
  if (c.luck) card.append(el("p", { class: "luck", text: `Luck ${c.luck.current} of ${c.luck.maximum}` }));
  const marks = Object.entries(c.marks);
  // a system whose mark is a tick (one per skill until cleared) shows the skill, not a count
  const mark = ([k, v]) => (rules.improvement_tick ? `${k} ✓` : `${k} ×${v}`);
  if (marks.length) card.append(el("p", { text: `Improvement marks: ${marks.map(mark).join(", ")}` }));
  if (rules.aim && c.aim) {
    // Aiming adds a round; what the system says ends it shows once there is an aim to end.
    const aiming = c.aim.rounds > 0;
    const actions = [["aim", "Aim a round"], ...(aiming ? rules.aim.ends.map((end) => [end, fieldWords(end)]) : [])];
    card.append(...(aiming ? [el("p", { text: `Aiming: ${rounds(c.aim.rounds)}, +${c.aim.bonus}` })] : []),
      ...actions.map(([action, text]) =>
        el("button", { type: "button", class: "secondary small", "aria-label": `${text} (${c.name})`, onclick: () => act(() =>
          api("POST", `${base}/characters/${c.id}/aim`, { action }), "sheet-error") }, text)));
  }
  // short words on one line, the character's name in what a screen reader says
  card.append(el("p", {}, el("a", { href: `${base}/characters/${c.id}/sheet`, download: `${c.name}.toml`, "aria-label": `Export ${c.name}'s sheet` }, "Export"),
    " ", el("button", { type: "button", class: "secondary small", "aria-label": `Edit ${c.name}`, onclick: () => editCharacter(c) }, "Edit"),
    " ", el("button", { type: "button", class: "secondary small", "aria-label": `Delete ${c.name}`, onclick: () => {
      if (confirm(`Delete ${c.name}? The log keeps what they rolled.`)) act(() => api("DELETE", `${base}/characters/${c.id}`), "sheet-error");
    } }, "Delete")));
  if (isGm() && marks.length) {
    card.append(el("button", { type: "button", class: "secondary small", onclick: () => act(() =>
      api("DELETE", `${base}/characters/${c.id}/marks`), "sheet-error") }, "Clear marks"));
  }
  if (isGm()) {
    // The sheet as the log kept it, shown to every member so their d100 verify checks this
    // character's rolls whole; a full-size button, a tap on a phone.
    card.append(el("p", {}, el("button", { type: "button", class: "secondary", "aria-label": `Reveal sheet of ${c.name} to everyone`,
      onclick: () => {
        if (confirm(`Show every member ${c.name}'s sheet, as created and as each edit left it? Their exports then check ${c.name}'s rolls whole. It cannot be hidden again.`)) {
          act(() => api("POST", `${base}/characters/${c.id}/reveal`), "sheet-error");
        }
      } }, "Reveal sheet")));
  }
  return card;
}

// Editing a character: its values in a form (skills, abilities, Luck), its TOML below.
function editCharacter(c) {
  editing = c.id;
  $("new-form").hidden = true;
  $("sheet-text").value = c.sheet;
  $("sheet-form-title").textContent = `Edit ${c.name}`;
  $("owner-box").hidden = true;
  const number = (id, label, value, data = {}) => el("div", data, el("label", { for: id, text: label }),
    el("input", { type: "number", id, inputmode: "numeric", value: String(value) }));
  const rows = [["skills", c.skills], ["abilities", c.abilities]].flatMap(([kind, values]) =>
    Object.entries(values).map(([name, value], i) => number(`value-${kind}-${i}`, name, value, { "data-kind": kind, "data-name": name })));
  if (c.luck) rows.push(number("value-luck-current", "Luck now", c.luck.current), number("value-luck-maximum", "Luck at most", c.luck.maximum));
  $("values-fields").replaceChildren(...rows);
  $("values-form").hidden = false;
  $("sheet-details").open = true;
  reveal("sheet-box");
  $("values-fields").querySelector("input")?.focus();
}

// A new character by form: rows of a name and its value, several at once.
function newRows(kind, count) {
  const box = $(`new-${kind}`);
  const word = kind === "skills" ? "Skill" : "Ability";
  for (let i = 0; i < count; i += 1) {
    const n = box.children.length + 1;
    box.append(el("div", { class: "pair" },
      el("input", { type: "text", autocomplete: "off", "aria-label": `${word} ${n}`, placeholder: `${word.toLowerCase()} ${n}` }),
      el("input", { type: "number", inputmode: "numeric", "aria-label": `${word} ${n} value`, placeholder: "value" })));
  }
}

// The form's character as a sheet in the command line's format (JSON strings are TOML's).
function formSheet() {
  const rows = (kind) => [...$(`new-${kind}`).children].map((row) => [...row.querySelectorAll("input")].map((i) => i.value.trim()))
    .filter(([name]) => name).map(([name, value]) => `${JSON.stringify(name)} = ${value === "" ? 0 : Number(value)}`);
  const lines = [`name = ${JSON.stringify($("new-name").value.trim())}`, `system = ${JSON.stringify(system.name)}`,
    `skills = { ${rows("skills").join(", ")} }`];
  if (rules.ability && rows("abilities").length) lines.push(`abilities = { ${rows("abilities").join(", ")} }`);
  const luckValue = $("new-luck").value.trim();
  if (rules.luck && luckValue) lines.push(`luck = { current = ${Number(luckValue)}, maximum = ${Number(luckValue)} }`);
  return `${lines.join("\n")}\n`;
}

function valuesBody() {
  const body = { skills: {}, abilities: {} };
  for (const row of $("values-fields").querySelectorAll("div[data-kind]")) {
    const raw = row.querySelector("input").value.trim();
    body[row.dataset.kind][row.dataset.name] = raw === "" ? null : Number(raw);
  }
  const name = $("new-skill-name").value.trim();
  if (name) body.skills[name] = Number($("new-skill-value").value || 0);
  if ($("value-luck-current")) body.luck = { current: Number($("value-luck-current").value), maximum: Number($("value-luck-maximum").value) };
  return body;
}

// Each member with the characters they play: a player learns here who else is at the table.
function renderMembers() {
  const plays = (m) => state.characters.filter((c) => c.member_id === m.id).map((c) => c.name);
  $("members").replaceChildren(...state.members.map((m) => el("li", {},
    `${m.name} (${m.role === "gm" ? "game master" : "player"}${m.revoked ? ", removed" : ""}) `,
    plays(m).length ? el("span", { class: "muted", text: `plays ${plays(m).join(", ")} ` }) : null,
    isGm() && m.role === "player" && !m.revoked ? el("button", { type: "button", class: "secondary small",
      onclick: () => revoke(m) }, `Remove ${m.name}`) : null)));
}

// Revealing the seed cannot be undone and ends the current commitment: asked first, then told.
async function rotate() {
  if (!confirm("Reveal the server seed and commit to a new one? Everyone can then recompute the rolls made with it.")) return;
  $("rotate-done").replaceChildren();
  const made = await act(() => api("POST", `${base}/seeds/rotate`), "tools-error");
  if (!made) return;
  const pending = made.blind.unblind_first.map((seq) => `#${seq}`).join(", ");
  $("rotate-done").replaceChildren(
    el("p", { text: "Server seed revealed: it is in the log. New commitment:" }), copyable(made.commitment, "the new commitment"),
    el("p", { class: "muted", text: made.blind.revealed ? "The blind seed was revealed too."
      : `The blind seed stays secret until every blind roll made with it is shown (${pending}).` }));
}

// Deleting cannot be undone: the page asks in its own words (what goes, how to keep the log)
// before the GM confirms; then this browser forgets the table and goes home.
function askDelete(open) {
  $("delete-confirm").hidden = !open;
  $("delete-button").setAttribute("aria-expanded", String(open));
  if (!open) return;
  $("delete-question").textContent = `Delete ${state.table.name} for good? Its log, characters and seeds `
    + "are gone, and every link to it stops working. To keep the log, export it first (Export as JSON Lines, under Results).";
  $("delete-no").focus();
}

async function deleteTable() {
  $("delete-error").textContent = "";
  try { await api("DELETE", base); } catch (err) { $("delete-error").textContent = err.message; return; }
  deleted = true;  // its stream is told next: not an error to show on the way home
  forgetTable(state.table.id);
  location.assign("/");
}

// Revoking renews the invite link (the removed player holds the old one): the GM gets the new one.
async function revoke(m) {
  const plays = state.characters.filter((c) => c.member_id === m.id).map((c) => c.name);
  const theirs = plays.length ? ` ${plays.join(", ")} can then no longer be called.` : "";
  if (!confirm(`Remove ${m.name} from the table? Their link stops working and the invite link is renewed.${theirs}`)) return;
  const out = await act(() => api("POST", `${base}/members/${m.id}/revoke`), "page-error");
  if (out) {
    $("invite-out").replaceChildren();
    showInvite(out.invite_link, `${m.name} was removed. New invite link (the old one no longer works):`, "revoke-out");
  }
}

// The invite link to share, kept in this browser to show again (see keepInvite).
function showInvite(link, words, box = "invite-out") {
  keepInvite(state.table.id, link);
  $(box).replaceChildren(el("p", { text: words }), copyable(link, "the invite link"));
}

// The invite this browser made, shown again while it still opens the table (another of the
// GM's devices may have renewed it since): the join page's own question tells.
async function showKeptInvite() {
  const link = keptInvites()[state.table.id];
  if (!link) {
    $("invite-out").replaceChildren(el("p", { class: "muted", text: "The invite link was made on another device or before this page kept it: make a new one to share here." }));
    return;
  }
  try {
    await api("POST", "/api/invitation", { invite: link.split("#")[1] || "" });
    $("invite-out").replaceChildren(el("p", { text: "Invite link for players:" }), copyable(link, "the invite link"));
  } catch (err) {
    if (err.status !== 401) return;
    keepInvite(state.table.id, null);
    $("invite-out").replaceChildren(el("p", { class: "muted", text: "The invite link was renewed elsewhere: make a new one to share here." }));
  }
}

// The table's house rules and settings, as the GM chose them when opening it.
function tableRules() {
  const chosen = Object.entries(state.table.house_rules).map(([k, v]) => `${fieldWords(k).toLowerCase()}: ${v}`);
  const settings = state.table.settings;
  return [`House rules: ${chosen.length ? chosen.join("; ") : "none, the rules as written"}.`,
    `Dice rolled by hand: ${settings.manual_dice ? "allowed" : "not allowed"}.`,
    `Improvement marks: ${marksText(settings.improvement)}.`].join(" ");
}

// Whose rolls a chain of seeds draws: its audience (access.Chain).
function chainWords(seed) {
  if (seed.chain === "self") return `${memberName(seed.member_id)}'s self rolls`;
  if (seed.chain === "gm") return seed.member_id ? `${memberName(seed.member_id)}'s GM rolls` : "the GM's rolls";
  return seed.chain === "blind" ? "blind rolls" : "open rolls";
}

function renderSeeds() {
  $("seeds").replaceChildren(el("ul", {}, state.seeds.map((s) => el("li", {},
    `${s.chain !== "open" ? `${chainWords(s)}: ` : ""}${s.server_seed ? "revealed seed " : "current commitment "}`,
    s.server_seed ? copyable(s.server_seed, "the revealed seed") : copyable(s.commitment, "the commitment"),
    el("span", { class: "muted", text: ` ${s.rolls} roll(s)` })))));
  if (document.activeElement !== $("client-seed")) $("client-seed").value = state.me.client_seed;
}

// -- the luck ledger: its card (render/ledger_views.py) as the server built it -------------------

const EACH = "each";  // the whose-select's value for each of the viewer's own characters
const LEDGER_ROLLS = 1000;  // the most a ledger counts (ledger.MAX_ROLLS): a longer log's latest

function renderLedgerWhose() {
  const own = isGm() ? [] : mine();
  const pairs = [...(own.length ? [[EACH, own.length > 1 ? "Each of your characters" : `Your character, ${own[0].name}`]] : []),
    ["", "The whole table (what you may see)"],
    ...state.characters.map((c) => [c.id, c.name])];
  const select = $("ledger-whose");
  options(select, pairs);
  // until the viewer picks, their own characters (once they have one), else the table
  if (!select.dataset.picked) select.value = pairs[0][0];
}

async function showLedger() {
  const whose = $("ledger-whose").value;
  const own = isGm() ? [] : mine();
  const asked = whose === EACH ? own.map((c) => c.id) : [whose];
  const button = $("ledger-button");
  button.disabled = true;
  $("ledger-out").setAttribute("aria-busy", "true");
  const books = await act(async () => {  // one after another: a member reads one ledger at a time
    const out = [];
    for (const id of asked) {
      out.push(await api("GET", `${base}/ledger?last=${LEDGER_ROLLS}${id ? `&character=${encodeURIComponent(id)}` : ""}`));
    }
    return out;
  }, "ledger-error");
  button.disabled = false;
  $("ledger-out").removeAttribute("aria-busy");
  if (books) $("ledger-out").replaceChildren(...books.map((book) => ledgerCard(book.view)));
}

// One ledger: its title, its counts, the tail in words, a row per level, and what it left out.
function ledgerCard(view) {
  const row = (r, strong) => el("tr", { class: strong ? "ledger-total" : null },
    el("th", { scope: "row" }, strong ? r.label : el("span", { class: `level ${r.style}`, text: r.label })),
    view.several ? el("td", { text: r.system }) : null,
    el("td", { class: "num", text: String(r.observed) }),
    el("td", { class: "num" }, r.expected, r.exact ? el("small", { class: "muted exact-line", text: r.exact }) : null));
  return el("article", { class: "ledger" },
    el("h3", { text: view.title }),
    el("p", { class: "muted", text: view.summary }),
    el("p", { class: "ledger-tail" }, el("strong", { text: view.tail })),
    view.rolls ? el("table", { class: "ledger-levels" },
      el("caption", { class: "muted", text: "Each level: times seen, times the odds expected" }),
      el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "Level" }),
        view.several ? el("th", { scope: "col", text: "System" }) : null,
        el("th", { scope: "col", class: "num", text: "Seen" }),
        el("th", { scope: "col", class: "num", text: "Expected" }))),
      el("tbody", {}, view.rows.map((r) => row(r, false)), row(view.successes, true))) : null,
    el("ul", { class: "ledger-verdict" }, view.verdict.map((part) => el("li", { text: part }))),
    view.left_out.length ? el("ul", { class: "muted ledger-verdict" }, view.left_out.map((part) => el("li", { text: part }))) : null);
}

// -- rolling --------------------------------------------------------------------------------

// Tapping a skill: the roll panel takes it, in view, with its Roll button.
function openRoll(characterId, skill) {
  leaveAnswer();
  $("roll-character").value = characterId;
  npcMode();
  skillOptions();
  renderOppose();
  $("roll-skill").value = skill;
  reveal("roll-box");
  $("roll-title").focus({ preventScroll: true });
  preview();
}

// The GM sees every roll: for their own, "only me and the GM" is a secret roll, and a blind
// roll or one for the roller alone would mean the same.
const MODE_WORDS = { public: "everyone", gm: "only me and the GM", blind: "only the GM (blind: I do not see it)", self: "only me" };
function gmModes() {
  for (const option of $("roll-visibility").options) {
    option.hidden = option.disabled = isGm() && ["blind", "self"].includes(option.value);
    option.textContent = isGm() && option.value === "gm" ? "only me (a secret roll)" : MODE_WORDS[option.value];
  }
}

// The GM's own characters are the Keeper's: their rolls start hidden from the players (the GM
// may still pick "everyone"); a player's character starts in public.
function npcMode() {
  const character = byId($("roll-character").value);
  const keepers = isGm() && character && character.member_id === state.me.id;
  $("roll-visibility").value = keepers ? "gm" : "public";
}

// A called test rolled with the same options as a free roll (Luck, bonus dice, typed dice);
// its skill, difficulty and who sees it are the GM's.
function answer(call, target) {
  answering = { call, target };
  $("roll-result").replaceChildren();  // an earlier result under the call's form read as its own
  $("roll-character").value = target.character.id;
  skillOptions();
  $("answering").textContent = `Answering the GM's call: ${target.character.name} rolls ${call.skill}${fieldsText(call.fields)}${versus(call)}`;
  for (const id of ["answering", "answer-cancel"]) $(id).hidden = false;
  for (const id of ["free-roll", "visibility-box"]) $(id).hidden = true;
  opposing = false;
  offerFields();
  renderOppose();
  reveal("roll-box");
  $("roll-title").focus({ preventScroll: true });
  preview();
}

// What the roll panel may send: anything on a free roll; on a called test only what the server
// lets its roller add (the call's players_fields), the rest being the GM's; in a contest only
// what its sides take (CoC7's opposed roll has no difficulty, no Luck after it, no push).
const allowed = (field) => (!answering || answering.call.players_fields.includes(field))
  && (!opposing || field in system.contest.properties.actor.properties);
function offerFields() {
  for (const input of document.querySelectorAll("#roll-target [name], #roll-fields [name]")) {
    input.closest("#roll-target > div, #roll-fields > div").hidden = !allowed(input.name);
  }
  $("luck-options").hidden = !boosts();
}

// A Luck boost before rolling, where the system's Luck has one and the roll may take it.
const boosts = () => !!(rules.luck && rules.luck.boost_field && allowed(rules.luck.boost_field));

function leaveAnswer() {
  if (!answering) return;
  answering = null;
  for (const id of ["answering", "answer-cancel"]) $(id).hidden = true;
  for (const id of ["free-roll", "visibility-box"]) $(id).hidden = false;
  offerFields();
  preview();
}

function rollBody() {
  const fields = Object.fromEntries(Object.entries(fieldValues($("roll-fields"), system.check)).filter(([k]) => allowed(k)));
  if (!answering) Object.assign(fields, fieldValues($("roll-target"), system.check));
  if (luck.boost) fields[rules.luck.boost_field] = true;
  const actor = { character_id: $("roll-character").value, fields };
  if (!answering) actor.skill = $("roll-skill").value;
  if (!$("aim-option").hidden && $("roll-aimed").checked) actor.aimed = true;
  const dice = $("roll-dice").value.trim();
  if (dice) actor.dice = parseDice(dice);
  if (answering) return { actor, target_id: answering.target.id };
  const body = { actor, visibility: $("roll-visibility").value };
  if (opposing) body.opponent = { character_id: $("oppose-character").value, skill: $("oppose-skill").value.trim() };
  if (opposing) actor.fields = sideOnly(fields);
  const own = opposing ? fieldValues($("oppose-fields"), system.contest) : {};
  if (Object.keys(own).length) body.fields = own;
  return body;
}

let previewing = null;
let previewed = null;  // what the last preview was asked for: live events rarely change it
let picked = null;  // the character, skill or call the odds shown are for
let previews = 0;  // the newest odds asked: an answer for an older pick is dropped
function preview() {
  clearTimeout(previewing);
  const now = JSON.stringify([$("roll-character").value, $("roll-skill").value, answering && answering.target.id, opposing]);
  if (now !== picked) {  // another pick: the odds shown are no longer its odds
    picked = now;
    previewed = null;
    previews += 1;
    $("roll-odds").replaceChildren(el("p", { class: "muted", text: "Working out the odds…" }));
  }
  previewing = setTimeout(async () => {
    if (rolling) return;
    if (!$("roll-character").value) { $("roll-odds").replaceChildren(el("p", { class: "muted", text: "Add a character first." })); return; }
    let body;
    try { body = rollBody(); } catch (err) { $("roll-error").textContent = err.message; return; }
    delete body.actor.dice;
    const character = byId(body.actor.character_id);
    const key = JSON.stringify([body, character && [character.skills, character.luck, character.aim]]);
    if (key === previewed) return;
    previewed = key;
    const called = answering && answering.call.opponent;
    if (called && !called.skill) {  // the GM's call keeps its side's skill from this player
      $("roll-odds").replaceChildren(el("p", { class: "muted", text: `The odds would tell ${called.character.name}'s skill: only the GM sees them.` }));
      return;
    }
    if (body.opponent) {  // a contest's odds tell the opponent's skill: only its sheet's readers see them
      const them = byId(body.opponent.character_id);
      if (!them || !them.skills || !body.opponent.skill) {
        $("roll-odds").replaceChildren(el("p", { class: "muted", text: them && !them.skills
          ? `The odds would tell ${them.name}'s skill: only their player and the GM see them.` : "Type their skill to roll the contest." }));
        return;
      }
    }
    const ticket = ++previews;
    try {
      const p = await askOdds(body);
      if (ticket !== previews) return;
      if (body.opponent) { $("roll-odds").replaceChildren(oddsTable(p.odds, p.percent, "who wins")); $("roll-error").textContent = ""; return; }
      $("roll-odds").replaceChildren(
        el("p", {}, el("strong", { text: `Success ${p.percent.success}` }), ` (${p.odds.success})`),
        el("details", {}, el("summary", { text: "Every outcome" }), oddsTable(p.odds, p.percent)));
      $("roll-error").textContent = "";
      if (boosts()) {
        // Each button's exact gain: the advice option that adds just that spend to the roll.
        const { boost_field: boost, reroll_field: reroll } = rules.luck;
        const gain = (wantBoost, wantRerolls) => {
          const o = (p.advice || []).find((a) => !!a.request[boost] === wantBoost && (a.request[reroll] || 0) === wantRerolls);
          return o ? ` (${o.percent.gain} success)` : "";
        };
        $("luck-boost").textContent = luck.boost
          ? `✓ Luck boost on: spends ${rules.luck.boost_cost} for +${rules.luck.boost} (tap to take back)`
          : `Luck boost: spend ${rules.luck.boost_cost} for +${rules.luck.boost}${gain(true, 0)}`;
      }
    } catch (err) {
      if (ticket !== previews) return;
      previewed = null;
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
  $("roll-character").addEventListener("change", () => { npcMode(); skillOptions(); renderOppose(); preview(); });
  $("oppose-button").addEventListener("click", () => {
    opposing = !opposing;
    renderOppose();
    preview();
    $("roll-box").scrollIntoView({ block: "start" });  // the opponent and the Roll button in view
  });
  $("oppose-character").addEventListener("change", renderOppose);
  addEventListener("hashchange", () => { showView(hashView()); scrollTo(0, 0); });
  for (const link of document.querySelectorAll("[data-skip]")) {
    link.addEventListener("click", (e) => {
      e.preventDefault();  // the address keeps naming a view, not a section
      goTo(link.dataset.skip);
    });
  }
  $("shortcut-list").replaceChildren(...SHORTCUTS.flatMap(([key, , what]) => [el("dt", {}, el("kbd", { text: key })), el("dd", { text: what })]),
    el("dt", {}, el("kbd", { text: "?" })), el("dd", { text: "this list" }));
  $("shortcuts-open").addEventListener("click", (e) => { e.preventDefault(); $("shortcuts").showModal(); });
  addEventListener("keydown", (e) => {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || $("shortcuts").open) return;
    if (e.target.closest("input, textarea, select, [contenteditable]")) return;  // typing, not moving
    if (e.key === "?") { e.preventDefault(); $("shortcuts").showModal(); return; }
    const [, heading] = SHORTCUTS.find(([key]) => key === e.key) || [];
    if (!heading || $(heading).closest("section").hidden) return;
    e.preventDefault();
    goTo(heading);
  });
  $("call-opponent").addEventListener("change", () => {
    suggest($("call-opponent-skills"), [byId($("call-opponent").value)].filter(Boolean));
    $("call-contest-fields").hidden = !$("call-opponent").value;  // a contest's own, for a contest
  });
  $("roll-form").addEventListener("input", () => { rollReady(); preview(); });
  $("luck-boost").addEventListener("click", () => toggle($("luck-boost"), "boost"));
  $("answer-cancel").addEventListener("click", leaveAnswer);
  $("turn-sound").checked = localStorage.getItem("d100-turn-sound") === "on";
  $("turn-sound").addEventListener("change", () => localStorage.setItem("d100-turn-sound", $("turn-sound").checked ? "on" : "off"));
  let keepResult = 0;  // until when the panel's growing keeps a new result in view: moments,
  // or until the reader moves the page themselves
  for (const kind of ["wheel", "touchstart", "keydown"]) addEventListener(kind, () => { keepResult = 0; }, { passive: true });
  new ResizeObserver(() => {
    if (Date.now() < keepResult) $("roll-result").scrollIntoView({ block: "nearest" });
  }).observe($("roll-box"));
  $("roll-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    if (submitting) return;
    if (theirSkillMissing()) { $("roll-error").textContent = THEIR_SKILL; return; }
    submitting = true;
    rollReady();
    const answered = answering;
    let event;
    try { event = await act(() => roll(rollBody()), "roll-error"); }
    finally { submitting = false; rollReady(); }
    if (!event) return;
    $("roll-result").replaceChildren(...hereCard(event));
    if (answered) { rolledHere.set(answered.target.id, event); lastRolled = answered.target.id; leaveAnswer(); renderCalls(); }
    // once the panel is back to a free roll and the calls redrawn: they move the result, and
    // so does the free roll's odds arriving a moment later (the panel grows above it)
    keepResult = Date.now() + 10000;
    $("roll-result").scrollIntoView({ block: "nearest" });
    $("roll-dice").value = "";
    luck.boost = false;
    $("luck-boost").setAttribute("aria-pressed", "false");
  });
  $("declared-character").addEventListener("change", againstOptions);
  $("declared-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const words = $("declared-words").value.trim();
    if (!words) { $("declared-error").textContent = "Type what to roll: 1d6+1."; return; }
    const body = { words, visibility: $("declared-visibility").value };
    if ($("declared-character").value) body.character_id = $("declared-character").value;
    if (!$("declared-against-box").hidden && $("declared-against").value) {
      body.defender = { character_id: $("declared-against").value };
      const skill = $("declared-against-skill").value.trim();
      if (skill) body.defender.skill = skill;
    }
    $("declared-button").disabled = true;
    let event;
    try { event = await act(() => withHead(() => once(`${base}/declared-rolls`, body)), "declared-error"); }
    finally { $("declared-button").disabled = false; }
    // refused: the answer before would read as these words' (the log keeps every roll)
    if (!event) { $("declared-result").replaceChildren(); return; }
    // a word that sets nothing (SealDice's .setcoc alone) is answered, not logged: its words
    if (typeof event.told === "string") $("declared-result").replaceChildren(el("p", { class: "told" }, event.told));
    else $("declared-result").replaceChildren(...hereCard(event));
    $("declared-result").scrollIntoView({ block: "nearest" });
  });
  $("call-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const fields = {};
    try {
      fields[rules.target.field] = targetValue($("call-difficulty").value.trim() || String(rules.target.default));
      Object.assign(fields, fieldValues($("call-extra"), extraDice()));
    } catch (err) { $("call-error").textContent = err.message; return; }
    if ($("call-opponent").value && !$("call-opponent-skill").value.trim()) {
      $("call-error").textContent = "Opposed with skill: type the skill they oppose with."; return;
    }
    const ids = [...document.querySelectorAll("input[name=call-character]:checked")].map((i) => i.value);
    if (!ids.length) { $("call-error").textContent = "Who rolls: tick at least one character."; return; }
    const body = { skill: $("call-skill").value, fields, hazard: $("call-hazard").value,
      character_ids: ids, visibility: $("call-visibility").value };
    if ($("call-lowest").checked) body.lowest = true;
    if ($("call-opponent").value) body.fields = sideOnly(fields);
    if ($("call-opponent").value) body.opponent = { character_id: $("call-opponent").value, skill: $("call-opponent-skill").value,
      contest: fieldValues($("call-contest-fields"), system.contest) };
    $("call-done").replaceChildren();
    const made = await act(() => api("POST", `${base}/calls`, body), "call-error");
    if (!made) return;
    $("call-form").reset();
    $("call-contest-fields").hidden = true;
    const names = made.targets.map((t) => t.character.name).join(", ");
    $("call-done").replaceChildren(`Called ${made.skill} for ${names}. `,
      el("a", { href: "#view=table", text: "See the open calls" }));
  });
  $("develop-odds").addEventListener("click", developOdds);
  $("develop-button").addEventListener("click", developRoll);
  $("develop-character").addEventListener("change", developReset);
  $("develop-luck").addEventListener("change", developReset);
  $("develop-luck").addEventListener("change", partyReset);
  $("party-odds").addEventListener("click", partyOdds);
  $("party-button").addEventListener("click", partyRoll);
  $("rest-button").addEventListener("click", () => act(() => api("POST", `${base}/rest`), "tools-error"));
  $("rotate-button").addEventListener("click", rotate);
  $("delete-button").addEventListener("click", () => askDelete($("delete-confirm").hidden));
  $("delete-no").addEventListener("click", () => { askDelete(false); $("delete-button").focus(); });
  $("delete-yes").addEventListener("click", deleteTable);
  $("invite-button").addEventListener("click", async () => {
    if (keptInvites()[state.table.id] && !confirm("Make a new invite link? The one you shared stops working (players already in stay in).")) return;
    const made = await act(() => api("POST", `${base}/invite`), "tools-error");
    if (made) showInvite(made.invite_link, "New invite link (the old one no longer works):");
  });
  $("sheet-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const body = { sheet: $("sheet-text").value };
    if (editing === null && isGm() && $("sheet-owner").value !== state.me.id) body.member_id = $("sheet-owner").value;
    const saved = await act(() => editing === null ? api("POST", `${base}/characters`, body)
      : api("PUT", `${base}/characters/${editing}`, body), "sheet-error");
    if (saved) showSaved();
  });
  $("sheet-new").addEventListener("click", newSheet);
  for (const kind of ["skills", "abilities"]) $(`new-${kind}-more`).addEventListener("click", () => newRows(kind, 1));
  $("new-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const body = { sheet: formSheet() };
    if (isGm() && $("sheet-owner").value !== state.me.id) body.member_id = $("sheet-owner").value;
    const saved = await act(() => api("POST", `${base}/characters`, body), "sheet-error");
    if (saved) showSaved();
  });
  $("values-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const saved = await act(() => api("PATCH", `${base}/characters/${editing}`, valuesBody()), "sheet-error");
    if (saved) showSaved();
  });
  $("ledger-form").addEventListener("submit", (e) => { e.preventDefault(); showLedger(); });
  $("ledger-whose").addEventListener("change", () => { $("ledger-whose").dataset.picked = "yes"; });
  $("seed-form").addEventListener("submit", (e) => {
    e.preventDefault();
    act(() => api("PUT", `${base}/me/client-seed`, { client_seed: $("client-seed").value }), "page-error");
  });
}

// A saved sheet: its card where the page shows the characters (a player's table view).
function showSaved() {
  newSheet();
  if (viewOf($("chars-box")) !== view) reveal("chars-box");
}

function newSheet() {
  editing = null;
  $("values-form").hidden = true;
  $("values-form").reset();
  $("new-form").hidden = false;
  $("new-form").reset();
  $("new-abilities-box").hidden = !rules.ability;
  $("new-luck-box").hidden = !rules.luck;
  for (const kind of ["skills", "abilities"]) { $(`new-${kind}`).replaceChildren(); newRows(kind, 3); }
  $("sheet-form-title").textContent = "Add a character";
  $("sheet-text").value = sampleSheet(system);
  $("owner-box").hidden = !isGm();
}

// -- the log: each roll a card ---------------------------------------------------------------

// A result's level as its view reads (the server builds it from the system's declarations:
// its headline, mark, style, and whether it met what was asked); the page decides nothing.
function levelBadge(view) {
  return el("span", { class: `level ${view.style}`, "data-icon": view.mark, title: view.meaning || null, text: view.badge });
}

function cardClass(e) {
  return (e.view && e.view.style) || "";  // dice and actions have no level style
}

// A check's view, or a contest's side's: [{name, view}] for a contest, its own for a check.
const sideViews = (e) => e.view && e.view.sides ? e.view.sides.map((s) => s.view) : [];

// An entry's number (the log's, which a follow-up, a shown blind roll and `d100 verify` name)
// and its time.
function clock(at, seq, word = "") {
  const when = new Date(at);
  const hour = Number.isNaN(when.getTime()) ? "" : when.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  return el("span", { class: "muted stamp" }, `#${seq}`, hour ? ` · ${word}` : "", hour ? el("time", { datetime: at, text: hour }) : null);
}

// The GM's own character (an NPC) as a player sees it: its dice, target and odds would tell
// its skill, which is the GM's.
function npc(character) {
  if (isGm() || (byId(character.id) || {}).skills) return false;
  return gmOwned(character);
}

const gmOwned = (c) => (state.members.find((m) => m.id === c.member_id) || {}).role === "gm";
// The characters an action may be made against: anyone's at the table but the roller's own
// pick (their name is everyone's; their sheet is read by the server, shown to its readers).
function againstOptions() {
  const by = $("declared-character").value;
  options($("declared-against"), [["", "nobody"], ...state.characters.filter((c) => c.id !== by).map((c) => [c.id, c.name])]);
}

function who(character) {
  return [el("strong", { text: character.name }), el("span", { class: "muted", text: ` (${gmOwned(character) ? "NPC" : memberName(character.member_id)})` })];
}

function diceLine(result, view) {
  if (result.roll === undefined || !view.shown) return null;  // a side shown by its level only (withheld)
  const versus = ` · vs ${view.target_label} ${view.target_words}`;
  if (!result.dice || !result.dice.length) return el("p", {}, `Took ${result.roll}${versus}`);
  const kept = result.dice.lastIndexOf(result.roll);
  return el("p", {}, "Dice ", el("span", { class: "dice" }, result.dice.map((d, i) =>
    el("span", { class: i === kept ? "die kept" : "die", title: i === kept ? "the die that counts" : "", text: d === 100 ? "00" : String(d) }))),
    kept >= 0 && result.dice.length > 1 ? el("span", { class: "muted", text: ` kept ${result.roll}` }) : null,
    // Luck spent after the roll lowers it a point a Luck point (the system's declaration).
    rules.luck && rules.luck.after_field && result.luck_spent ? ` · ${result.luck_spent} Luck lowers it to ${result.roll - result.luck_spent}` : "",
    result.total !== undefined ? ` · total ${result.total}` : "", view.target !== null ? versus : "",
    view.bands ? el("span", { class: "muted", text: ` · ${view.bands}` }) : null,
    view.margin_words ? el("span", { class: "muted margin", text: ` · margin ${view.margin_words}` }) : null);
}

// What the roll was where it followed another, and what failing it brings (a push's stakes).
function againLine(view) {
  if (!view.again || !view.stakes) return null;
  const said = view.met ? `${view.again}: ${view.stakes}` : view.stakes;
  return el("p", { class: view.met ? "muted" : "hazard", text: `${said[0].toUpperCase()}${said.slice(1)}.` });
}

function extras(e, result) {
  const request = e.request || {};
  const { luck: l, extra_dice: extra } = rules;
  const parts = [];
  if (result.luck_spent && !e.reroll_of) parts.push(`Luck spent: ${result.luck_spent}`);  // a follow-up says its own
  if (l && l.boost_field && request[l.boost_field]) parts.push(`Luck boost +${l.boost}`);
  if (e.aim) parts.push(`aimed ${rounds(e.aim.rounds)}, +${e.aim.bonus}`);
  if (extra && request[extra.bonus_field]) parts.push(`bonus dice: ${request[extra.bonus_field]}`);
  if (extra && request[extra.penalty_field]) parts.push(`penalty dice: ${request[extra.penalty_field]}`);
  return parts.length ? el("p", { class: "muted", text: parts.join(" · ") }) : null;
}

// What a follow-up's card says it was: "Luck reroll of roll #12: 1 Luck spent".
function followedText(e) {
  const what = e.follow_up ? e.follow_up.done : "Follow-up";
  return `${what} of roll #${e.reroll_of}${e.luck_spent ? `: ${e.luck_spent} Luck spent` : ""}`;
}

// What its roller may do about a check once its result shows, as the server listed it when
// it was rolled (the system's follow-ups: a Luck reroll, Luck spent, a push), while the
// sheet's Luck covers it; the server decides again at the tap, the page only offers.
function followOffers(e) {
  const character = byId(e.character.id);
  // the Luck the sheet must hold: its cost, or more where the rules say (``needs``, C7-4)
  const offers = (e.follow_ups || []).filter((o) => !o.luck || (character && character.luck && character.luck.current >= (o.needs ?? o.luck)));
  if (e.hidden || e.actor_id !== state.me.id || rerolled.has(e.seq) || rerolling.has(e.seq) || !offers.length) return null;
  if (!["public", "gm"].includes(e.visibility) || !character) return null;
  if (state.table.last_seq - e.seq > state.table.follow_up_window) return null;  // too long ago: refused
  const box = el("div", { class: "reroll", "data-reroll": e.seq });
  const typed = state.table.settings.manual_dice && offers.some((o) => o.draws)
    ? el("input", { type: "text", inputmode: "numeric", class: "small", "aria-label": `Your die for the reroll of roll #${e.seq} (blank: drawn)`, placeholder: "your die (blank: drawn)",
        value: rerollDice.get(e.seq), oninput: (ev) => rerollDice.set(e.seq, ev.target.value) })
    : null;
  const error = el("p", { class: "error", role: "alert" });
  const take = async (offer) => {
    error.textContent = "";
    // A spend of several points is one tap on a phone: say what it leaves first.
    const left = character.luck ? character.luck.current - offer.luck : 0;
    if (offer.luck > 1 && !confirm(`${offer.label}? ${character.name} has ${character.luck.current} Luck and keeps ${left}.`)) return;
    const body = { follow_up: offer.key };
    try { if (offer.draws && typed && typed.value.trim()) body.dice = parseDice(typed.value.trim()); } catch (err) { error.textContent = err.message; return; }
    // Its result where it was asked: the follow-up's own event, arriving first, removes offers.
    const here = el("div", { class: "muted", text: `${offer.label}…` });
    const where = box.closest(".here");  // a follow-up of a result shown where rolled shows there too
    box.replaceWith(here);
    // The same roll may be offered in two places (its call, the roll panel): one tap is all.
    rerolling.add(e.seq);
    for (const other of document.querySelectorAll(`[data-reroll="${e.seq}"]`)) other.remove();
    try {
      const event = await withHead(() => once(`${base}/rolls/${e.seq}/reroll`, body));
      rerolled.add(e.seq);
      showReroll(event);
      // in the log the follow-up is an entry of its own, at the top: pointed to, not shown twice
      if (here.closest("#log")) here.replaceWith(el("p", { class: "muted", text: `${offer.label}: roll #${event.seq}, at the top of the log.` }));
      else if (!where) here.replaceWith(el("div", { class: `card ${cardClass(event)}`, "data-seq": event.seq }, describe(event)));
    } catch (err) { here.replaceWith(box); error.textContent = err.message; } finally { rerolling.delete(e.seq); }
  };
  box.append(...offers.map((offer) => el("button", { type: "button", class: "secondary small", onclick: () => take(offer) },
    `${offer.label}${offer.chance ? ` (${offer.chance} to succeed)` : ""}`)), ...(typed ? [typed] : []),
    ...offers.filter((o) => o.stakes).map(stakesLine), ...offers.filter((o) => o.gives && o.gives.words).map(givesLine), error);
  return box;
}

// Exactly what an offer buys, in its rules' words: "Spend 15 Luck: regular, a hit: damage
// 2-7, mean 9/2 (4.5) against 0 now: 3/10 (0.3) more a Luck point".
function givesLine(offer) {
  return el("p", { class: "muted gives", text: `${offer.label}: ${offer.gives.words}.` });
}

// What taking an offer risks, before it is taken, in the words Discord uses: "Push the roll,
// 60.00% (3/5) to succeed; a failed push brings a dire consequence, the Keeper's to choose."
function stakesLine(offer) {
  const odds = offer.chance ? `, ${offer.chance} (${offer.odds}) to succeed` : "";
  return el("p", { class: "muted stakes", text: `${offer.label}${odds}; ${offer.stakes}.` });
}

// A follow-up's outcome takes its first roll's place wherever that was shown where rolled, and
// keeps it when the page draws again (hereCard follows rerollOf).
function showReroll(event) {
  rerollOf.set(event.reroll_of, event);
  for (const card of document.querySelectorAll(`.here[data-seq="${event.reroll_of}"]`)) card.replaceWith(hereCard(event)[0]);
}

// What an edit changed, in a player's words: "stealth 40 -> 60, Luck 3 -> 5".
const SHEET_WORDS = { "luck.current": "Luck", "luck.maximum": "Luck at most", name: "name" };
function changesText(changes) {
  const shown = (v) => v === null || v === undefined ? "none" : Array.isArray(v) ? v.join(" + ") || "none" : String(v);
  const label = (key) => {
    if (SHEET_WORDS[key]) return SHEET_WORDS[key];
    const [kind, ...rest] = key.split(".");
    const name = rest.join(".");
    return { uses: `${name} adds`, synergy: `${name} synergy` }[kind] || name;
  };
  const last = (key) => key.startsWith("luck.") ? 1 : 0;  // the sheet's values, then its Luck
  return Object.entries(changes).sort(([a], [b]) => last(a) - last(b)).map(([key, [was, now]]) => `${label(key)} ${shown(was)} -> ${shown(now)}`).join(", ");
}

const blindWords = (shown) => shown ? `Rolled blind, then shown to everyone: the result is at #${shown}.`
  : "Rolled blind: only the GM sees the result.";

function oddsLine(e) {
  if (!e.odds || !e.odds.success) return null;
  return el("p", { class: "muted" }, `Odds of success ${e.percent ? e.percent.success : ""} (`, el("span", { class: "link", text: e.odds.success }), ")");
}

// A blind roll shown to everyone: its cards say so, by the number of the entry showing it.
function showBlind(event) {
  shownAs.set(event.unblinds, event.seq);
  const blind = results.get(event.unblinds);
  if (!blind) return;
  for (const card of document.querySelectorAll(`.card[data-seq="${event.unblinds}"]`)) {
    card.replaceChildren(...[describe(blind)].flat(Infinity).filter(Boolean));
  }
}

// A dice expression's or a Sanity roll's card, from its view (the server's reading of it).
// The development phase, the GM's at the end of a session, where the table's rules have one:
// the odds of each marked skill first, then the roll. An NPC's is rolled for the GMs alone.
function developOptions() {
  const rule = rules.development;
  $("develop-details").hidden = !rule || !isGm();
  if (!rule) return;
  $("develop-rule").textContent = rule.rule;
  $("develop-luck-box").hidden = !rule.luck;
  options($("develop-character"), state.characters.map((c) => [c.id, c.name]));
}

function developBody() {
  const c = byId($("develop-character").value);
  const words = $("develop-luck").checked ? rules.development.luck : rules.development.words;
  return { words, character_id: c.id, visibility: gmOwned(c) ? "gm" : "public" };
}

const fractionOf = (text) => { const [n, d] = text.split("/").map(Number); return n / (d || 1); };
// an exact mean as a reader takes it in: 6, not 6/1; 2.03 (81/40), not 81/40 alone
const meanText = (text) => {
  const [n, d] = String(text).split("/").map(Number);
  return !d || d === 1 ? String(n) : `${(n / d).toFixed(2)} (${text})`;
};

function developReset() {
  $("develop-chances").replaceChildren();
  $("develop-button").hidden = true;
}

// Each roll's chance to improve and mean gain, before it is made; led by whose it is where given.
function developTable(lines) {
  const named = lines.some(([whose]) => whose);
  const rows = lines.map(([whose, o]) => el("tr", {}, named ? el("td", { text: whose }) : null, el("td", { text: o.name }),
    el("td", { text: String(o.value) }), el("td", { text: `${(100 * fractionOf(o.improves)).toFixed(2)}%` }),
    el("td", { text: `+${fractionOf(o.mean_gain).toFixed(2)}` })));
  const heads = [...(named ? ["character"] : []), "skill", "value", "improves", "mean gain"];
  return el("div", { class: "scroll-x" }, el("table", { class: "odds" }, el("tr", {}, ...heads.map((h) => el("th", { text: h }))), ...rows));
}

async function developOdds() {
  developReset();
  $("develop-result").replaceChildren();
  const shown = await act(() => api("POST", `${base}/declared-odds`, developBody()), "develop-error");
  if (!shown) return;
  $("develop-chances").replaceChildren(developTable(shown.odds.rolls.map((o) => ["", o])));
  $("develop-button").hidden = false;
}

// The whole party's phase: every player's character's odds first, then one action rolls them
// all, each character's phase its own card (and event) in the log.
const partyBody = () => ({ luck: $("develop-luck").checked });

function partyReset() {
  $("party-chances").replaceChildren();
  $("party-button").hidden = true;
}

async function partyOdds() {
  partyReset();
  $("party-result").replaceChildren();
  const shown = await act(() => api("POST", `${base}/party-development/odds`, partyBody()), "party-error");
  if (!shown) return;
  const lines = shown.phases.flatMap((p) => p.odds.rolls.map((o) => [p.character.name, o]));
  const left = shown.skipped.map((c) => `${c.name} (${c.why})`).join(", ");
  $("party-chances").replaceChildren(el("p", { class: "muted", text: `${shown.rolls} rolls, at most ${shown.most} in one action` }),
    developTable(lines), left ? el("p", { class: "muted", text: `Left out: ${left}` }) : null);
  $("party-button").hidden = false;
}

async function partyRoll() {
  $("party-button").disabled = true;
  let made;
  // not sent again by itself: a phase made is never made twice
  try { made = await act(() => api("POST", `${base}/party-development`, partyBody()), "party-error"); }
  finally { $("party-button").disabled = false; }
  if (!made) return;
  partyReset();
  $("party-result").replaceChildren(...made.events.flatMap((e) => hereCard(e)));
}

async function developRoll() {
  $("develop-button").disabled = true;
  let event;
  try { event = await act(() => once(`${base}/declared-rolls`, developBody()), "develop-error"); }
  finally { $("develop-button").disabled = false; }
  if (!event) return;
  developReset();
  $("develop-result").replaceChildren(...hereCard(event));
}

// A development phase's card: each roll with its chance and mean gain beside it.
function developmentCard(e, v, whose, tag, time, show) {
  const head = el("p", { class: "head" }, ...whose, v.title, tag, time);
  const rows = (v.rolls || []).map((r) => el("tr", {}, el("td", { text: r.name }), el("td", { text: String(r.value) }),
    el("td", { text: r.improves_percent }), el("td", { text: `+${r.mean_gain}` }), el("td", { text: String(r.d100).padStart(2, "0") }),
    el("td", {}, el("strong", { text: r.improved ? `+${r.gain} → ${r.after}` : "no gain" }))));
  return [head, v.rule ? el("p", { class: "muted", text: v.rule }) : null,
    rows.length ? el("div", { class: "scroll-x" }, el("table", { class: "odds" }, el("tr", {}, ...["skill", "value", "improves", "mean gain", "d100", ""].map((h) => el("th", { text: h }))), ...rows)) : null,
    v.reward ? el("p", {}, `${v.reward.name} ${v.reward.before} → `, el("strong", { text: String(v.reward.after) })) : null,
    e.sheet && e.sheet.written ? el("p", { class: "muted", text: "Written to the sheet; marks cleared." }) : null, show];
}

function declaredCard(e, tag, time) {
  const whose = e.character ? [...who(e.character), " · "] : [];
  const v = e.view;
  const shown = shownAs.get(e.seq);
  if (e.hidden || !v) return [el("p", { class: "head" }, ...whose, e.words, tag, time), el("p", { text: blindWords(shown) })];
  // an NPC's, to a player: no words (they hold its numbers), the title the server gives
  const words = e.words || (e.roll === "dice" ? v.title : "roll");
  // a blind one, for the GM until shown (its seed is revealed once every blind roll is)
  const show = e.visibility === "blind" && isGm() && !shown
    ? el("button", { type: "button", class: "secondary small", onclick: () => act(() => withHead(() => api("POST", `${base}/rolls/${e.seq}/unblind`)), "page-error") }, "Show to everyone")
    : null;
  if (e.kind === "unblind_declared") time = clock(e.rolled_at || e.at, e.seq, "rolled ");
  if (e.kind === "unblind_declared") whose.unshift(`Blind roll #${e.unblinds} shown: `);
  if (e.roll === "development") return developmentCard(e, v, whose, tag, time, show);
  if (e.roll === "dice") {
    return [el("p", { class: "head" }, ...whose, words, tag, time),
      el("p", {}, "Total ", el("strong", { class: "total", text: String(v.total) })),
      v.chance ? el("p", { class: "muted", text: `Exact chance of ${v.total}: ${v.chance} · ${v.total} or more: ${v.at_least} · mean ${meanText(v.mean)}` }) : null,
      v.explanation ? el("details", {}, el("summary", { class: "muted", text: "How it was worked out" }), el("p", { class: "explanation", text: v.explanation })) : null, show];
  }
  // a system's action (an attack, shots, full auto, FAR): its report's rows; an NPC's, to a
  // player, keeps its outcome and its name as the title (no heading: it reads as the title)
  if (v.heading || (e.withheld && v.outcome !== undefined)) {
    const head = el("p", { class: "head" }, ...whose, e.words || v.title, tag, time);
    const outcome = v.outcome ? el("p", {}, el("strong", { class: "total", text: v.outcome })) : null;
    if (e.withheld && !v.rows) return [head, outcome];  // an NPC's, to a player: what it came to, no numbers
    // a defender's side kept from this viewer: their level only, no odds (``v.odds`` absent)
    const odds = v.odds || [];
    return [head, el("p", { class: "muted", text: v.title }),
      ...(v.notes || []).map((n) => el("p", { class: "hazard", text: n })),
      ...v.rows.map((r) => el("p", {}, el("span", { class: "muted", text: `${r.label} ` }), r.text)),
      outcome,
      odds.length ? el("p", { class: "muted", text: `Exact odds: ${odds.map((o) => `${o.what} ${o.chance}`).join(" · ")}` }) : null,
      e.reroll_of ? el("p", { class: "muted", text: followedText(e) }) : null,
      e.character ? followOffers(e) : null, show];
  }
  const badge = el("span", { class: `level ${v.style || ""}`, "data-icon": v.mark || null, text: (v.level || "").toUpperCase() });
  const out = [el("p", { class: "head" }, badge, " ", ...whose, `Sanity ${words}`, tag, time)];
  if (e.withheld) return [...out, v.loss !== undefined ? el("p", {}, `Loss ${v.loss}`) : null];
  out.push(el("p", {}, `Rolled ${v.roll} · loss ${v.loss} (${v.loss_words}) · SAN ${v.sanity} → `, el("strong", { text: String(v.sanity_after) })),
    v.int_words ? el("p", { class: "muted", text: `INT roll ${v.int_words}` }) : null,
    el("p", { class: "verdict", text: v.insanity === "none" ? "No insanity" : v.insanity }),
    v.success_odds ? el("p", { class: "muted", text: `Odds of success ${v.success_odds} · mean loss ${meanText(v.mean_loss)}` }) : null,
    e.sheet && !e.sheet.written ? el("p", { class: "hazard", text: "Hidden from a reader of the sheet: its SAN is left for the GM to set." }) : null,
    v.explanation ? el("details", {}, el("summary", { class: "muted", text: "How it was worked out" }), el("p", { class: "explanation", text: v.explanation })) : null, show);
  return out;
}

function describe(e) {
  const shown = shownAs.get(e.seq);
  const tag = e.visibility && e.visibility !== "public"
    ? el("span", { class: "tag", text: shown ? `shown to everyone as #${shown}` : SEEN_BY[e.visibility] }) : null;
  const time = clock(e.at, e.seq);
  switch (e.kind) {
    case "roll": {
      const head = el("p", { class: "head" }, who(e.character), ` · ${e.skill}`, tag, time);
      if (e.hidden || !e.result) return [head, el("p", { text: blindWords(shown) }), oddsLine(e)];
      const failed = !e.view.met && e.call && e.call.hazard;
      if (npc(e.character)) return [el("p", { class: "head" }, levelBadge(e.view), who(e.character), ` · ${e.skill}`, tag, time)];
      const out = [el("p", { class: "head" }, levelBadge(e.view), who(e.character), ` · ${e.skill}`, tag, time),
        diceLine(e.result, e.view), e.view.shown && e.view.headline !== e.view.level ? el("p", { class: "verdict", text: e.view.meaning }) : null,
        oddsLine(e), extras(e, e.result),
        failed ? el("p", { class: "hazard" }, "Hazard: ", e.call.hazard) : null,
        e.manual ? el("p", {}, el("span", { class: "tag", text: "dice by hand" })) : null,
        e.reroll_of ? el("p", { class: "muted", text: followedText(e) }) : null,
        againLine(e.view),
        followOffers(e),
        el("details", {}, el("summary", { class: "muted", text: "How it was worked out" }), el("p", { class: "explanation", text: e.result.explanation }))];
      if (e.visibility === "blind" && isGm() && !shown) {
        // Showing it lets the next rotation reveal the blind seed (docs/server.md).
        out.push(el("button", { type: "button", class: "secondary small",
          onclick: () => act(() => withHead(() => api("POST", `${base}/rolls/${e.seq}/unblind`)), "page-error") }, "Show to everyone"));
      }
      return out;
    }
    case "contest": {
      const head = el("p", { class: "head" }, who(e.character), ` · ${e.skill} vs `, who(e.opponent), e.opponent_skill ? ` · ${e.opponent_skill}` : "", tag, time);
      if (e.hidden || !e.result) return [head, el("p", { text: blindWords(shown) })];
      const winner = { actor: e.character.name, opponent: e.opponent.name, tie: "a tie", none: "nobody" }[e.result.winner];
      // An NPC's dice and target tell its skill: a player reads its name and level only (and
      // the server sends no more of a side a GM's call chose, when its sheet is not theirs).
      const secret = e.withheld || [e.character, e.opponent].some(npc);
      const [actorView, opponentView] = sideViews(e);
      const side = (c, r, v) => el("div", {}, el("p", {}, `${c.name}: `, levelBadge(v)), npc(c) ? null : diceLine(r, v));
      // a called contest the roller's side lost: its hazard, as a failed check shows its own
      const lost = e.result.winner === "opponent" && e.call && e.call.hazard;
      const own = Object.entries(contestOwn(e.request)).map(([k, v]) => `${fieldWords(k)}: ${valueWords(v)}`);
      return [head, el("p", {}, "Winner: ", el("strong", { text: winner })),
        own.length ? el("p", { class: "contest-fields", text: own.join(", ") }) : null,
        side(e.character, e.result.actor, actorView), side(e.opponent, e.result.opponent, opponentView),
        lost ? el("p", { class: "hazard" }, "Hazard: ", e.call.hazard) : null,
        secret ? null : el("details", {}, el("summary", { class: "muted", text: "How it was worked out" }), el("p", { class: "explanation", text: e.result.explanation }))];
    }
    case "declared": case "unblind_declared": return declaredCard(e, tag, time);
    case "call": {
      const names = e.call.targets.map((t) => t.character.name).join(", ");
      return [el("p", { class: "head" }, `${memberName(e.actor_id)} calls for `, el("strong", { text: e.call.skill }), `${fieldsText(e.call.fields)} from ${names}${versus(e.call)}`, time),
        e.call.hazard ? el("p", { class: "hazard" }, "If it fails: ", e.call.hazard) : null];
    }
    case "cancel": return el("p", { class: "head" }, `${memberName(e.actor_id)} cancels the ${e.call.skill} call`, time);
    case "decline": return el("p", { class: "head" }, `${e.character.name} declines the ${e.skill} test`, time);
    case "help": return el("p", { class: "head" }, `${e.character.name} helps ${e.helping.name} with ${e.skill}`, time);
    case "aim": return el("p", { class: "head" }, `${e.character.name}: ${fieldWords(e.action).toLowerCase()}${e.aim ? ` (aiming ${rounds(e.aim.rounds)}, +${e.aim.bonus})` : ""}`, time);
    case "rest": return el("p", { class: "head" }, "A night's rest: Luck is restored", time);
    case "house_rules": return el("p", { class: "head" }, `${memberName(e.actor_id)} set ${e.told}`, time);
    case "join": return el("p", { class: "head" }, `${e.member.name} joins the table`, time);
    case "revoke": return el("p", { class: "head" }, `${e.member.name} was removed from the table`, time);
    case "character": return [el("p", { class: "head" }, `${e.character.name}: character ${e.change}`, time),
      e.changes ? el("p", { class: "changes", text: changesText(e.changes) }) : null];
    case "seed": return [el("p", { class: "head" }, "Server seed revealed", time), copyable(e.revealed.server_seed, "the revealed seed"),
      el("p", { class: "muted", text: "New commitment:" }), copyable(e.active.commitment, "the new commitment"),
      e.blind ? [el("p", { class: "muted", text: "Blind seed revealed:" }), copyable(e.blind.revealed.server_seed, "the blind seed")] : null];
    case "reveal": return [el("p", { class: "head" }, `Seed of ${chainWords(e.revealed)} revealed`, time), copyable(e.revealed.server_seed, "the revealed seed")];
    case "chain": return e.chains.map((c) => [el("p", { class: "head" }, `Seeds for ${chainWords(c)}: first commitment`, time), copyable(c.commitment, "the commitment")]);
    case "unblind": {
      const result = e.roll_kind === "contest" ? e.result.actor : e.result;
      const view = e.roll_kind === "contest" ? sideViews(e)[0] : e.view;
      // when it was rolled, as the blind card said; the stamp's number is the showing's own
      const head = el("p", { class: "head" }, levelBadge(view), `Blind roll #${e.unblinds} shown: `, who(e.character), ` · ${e.skill}`, e.rolled_at ? clock(e.rolled_at, e.seq, "rolled ") : time);
      // a contest shown says who won, as the contest's own card does, beside the roller's side
      const won = e.roll_kind === "contest" && e.view ? el("p", {}, "Winner: ", el("strong", { text: e.view.headline })) : null;
      return [head, won,
        diceLine(result, view), e.result.explanation ? el("p", { class: "explanation muted", text: e.result.explanation }) : null];
    }
    case "client_seed": return [el("p", { class: "head" }, `${memberName(e.member_id)} sets their client seed`, time), copyable(e.client_seed, "the client seed")];
    case "table": return el("p", { class: "head" }, `Table "${e.name}" opened (${system.title})`, time);
    case "invite": return el("p", { class: "head" }, "A new invite link was made", time);
    case "reveal_sheet": return el("p", { class: "head" }, `${memberName(e.actor_id)} reveals ${e.character.name}'s sheet to everyone`, time);
    // A stub of what this viewer may not see: a roll carries its seed and nonce, so that much shows.
    case "hidden": return el("p", { class: "head muted", text: e.provable ? "Someone rolled in secret" : "Something kept from you" });
    default: return el("p", { class: "head" }, e.kind, tag, time);
  }
}

start();
