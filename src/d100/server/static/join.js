"use strict";
// The invite token arrives in the address's fragment, which the browser never sends to the
// server; it is posted once and swapped for an HttpOnly cookie.
const invite = location.hash.slice(1);
history.replaceState(null, "", "/join");

document.getElementById("join-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const error = document.getElementById("join-error");
  error.textContent = "";
  try {
    const joined = await api("POST", "/api/join",
      { invite, name: document.getElementById("player-name").value });
    location.assign(`/t/${joined.table_id}`);
  } catch (err) {
    error.textContent = invite ? err.message : "This page needs the invite link the GM shared.";
  }
});
