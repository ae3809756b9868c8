"use strict";

async function start() {
  // Wired before anything is awaited: an early click must not submit the form the browser's way.
  document.getElementById("new-table").addEventListener("submit", create);
  for (const button of document.querySelectorAll("[data-copy]")) {
    button.addEventListener("click", () => navigator.clipboard.writeText(
      document.getElementById(button.dataset.copy).textContent));
  }
  const select = document.getElementById("table-system");
  for (const s of await systems()) select.append(el("option", { value: s.name, text: s.title }));
}

async function create(event) {
  event.preventDefault();
  const error = document.getElementById("new-error");
  error.textContent = "";
  const settings = { manual_dice: document.getElementById("manual-dice").checked };
  const improvement = document.getElementById("improvement").value;
  if (improvement) settings.improvement = improvement;
  try {
    const made = await api("POST", "/api/tables", {
      name: document.getElementById("table-name").value,
      system: document.getElementById("table-system").value,
      gm_name: document.getElementById("gm-name").value,
      settings,
    });
    document.getElementById("invite-link").textContent = made.invite_link;
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
