"use strict";

let all = [];

async function start() {
  // Wired before anything is awaited: an early click must not submit the form the browser's way.
  document.getElementById("new-table").addEventListener("submit", create);
  for (const button of document.querySelectorAll("[data-copy]")) {
    button.addEventListener("click", () => navigator.clipboard.writeText(
      document.getElementById(button.dataset.copy).textContent));
  }
  listMyTables();
  const select = document.getElementById("table-system");
  all = await systems();
  for (const s of all) select.append(el("option", { value: s.name, text: s.title }));
  select.addEventListener("change", houseRules);
  houseRules();
}

// The chosen system's house rules, from its schema; each starts on "the usual". The
// improvement marks to choose from, and the system's usual one, are what it declares.
function houseRules() {
  const system = all.find((s) => s.name === document.getElementById("table-system").value);
  const { improvement, improvements } = system.declares;
  const select = document.getElementById("improvement");
  const keep = select.value;
  select.replaceChildren(el("option", { value: "", id: "improvement-usual", text: `the system's usual (${marksText(improvement)})` }),
    ...improvements.map((v) => el("option", { value: v, text: marksText(v) })));
  if (improvements.includes(keep)) select.value = keep;
  const schema = system.check.properties.house_rules;
  const inputs = fieldInputs(schema, [], "house");
  for (const select of inputs.flatMap((i) => [...i.querySelectorAll("select")])) select.value = "";
  document.getElementById("house-rules").replaceChildren(...(inputs.length ? inputs
    : [el("p", { class: "muted", text: `${system.title} has no house rules to choose.` })]));
}

function listMyTables() {
  const tables = myTables();
  document.getElementById("mine").hidden = !tables.length;
  document.getElementById("my-tables").replaceChildren(...tables.map((t) => el("li", {},
    el("a", { href: `/t/${encodeURIComponent(t.id)}`, text: t.name }),
    el("span", { class: "muted", text: ` (${t.role === "gm" ? "game master" : "player"})` }))));
}

async function create(event) {
  event.preventDefault();
  const error = document.getElementById("new-error");
  error.textContent = "";
  const settings = { manual_dice: document.getElementById("manual-dice").checked };
  const improvement = document.getElementById("improvement").value;
  if (improvement) settings.improvement = improvement;
  try {
    const system = all.find((s) => s.name === document.getElementById("table-system").value);
    const made = await api("POST", "/api/tables", {
      name: document.getElementById("table-name").value,
      system: system.name,
      gm_name: document.getElementById("gm-name").value,
      house_rules: fieldValues(document.getElementById("house-rules"), system.check.properties.house_rules),
      settings,
    });
    document.getElementById("invite-link").textContent = made.invite_link;
    keepInvite(made.table.id, made.invite_link);
    document.getElementById("gm-link").textContent = made.gm_link;
    document.getElementById("go").href = `/t/${made.table.id}`;
    const section = document.getElementById("made");
    section.hidden = false;
    section.querySelector("h2").setAttribute("tabindex", "-1");
    section.querySelector("h2").focus();
  } catch (err) {
    error.textContent = err.message;
  }
}

start();
