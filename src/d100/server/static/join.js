"use strict";
// The invite token arrives in the address's fragment, which the browser never sends to the
// server; it is posted once and swapped for an HttpOnly cookie. The tab keeps it until then,
// so a reload of the join page still joins.
const KEPT = "d100.invite";
const invite = location.hash.slice(1) || sessionStorage.getItem(KEPT) || "";
if (invite) sessionStorage.setItem(KEPT, invite);
history.replaceState(null, "", "/join");
const error = document.getElementById("join-error");
const noInvite = "This page needs the invite link the GM shared.";

// Which table this is, in the GM's words, before the player gives a name.
(async () => {
  if (!invite) { error.textContent = noInvite; return; }
  try {
    const opens = await api("POST", "/api/invitation", { invite });
    const gms = opens.game_masters.join(" and ");
    document.getElementById("join-title").textContent = `Join ${opens.table.name}`;
    document.getElementById("join-about").textContent =
      `${opens.table.title}${gms ? `, run by ${gms}` : ""}. Who are you?`;
  } catch (err) {
    error.textContent = err.status === 401 ? "This invite link no longer works: ask the GM for the current one." : err.message;
  }
})();

document.getElementById("join-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  error.textContent = "";
  try {
    const joined = await api("POST", "/api/join",
      { invite, name: document.getElementById("player-name").value });
    sessionStorage.removeItem(KEPT);
    location.assign(`/t/${joined.table_id}`);
  } catch (err) {
    error.textContent = invite ? err.message : noInvite;
  }
});
