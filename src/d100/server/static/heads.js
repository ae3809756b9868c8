// The log's heads this browser has seen at a table: each is an event's number and the link of
// the table's hash chain after it, which vouches for every event up to it. They are kept in
// localStorage, so a history the server rewrote is told to the player even weeks later: a
// head at a number already kept with another link, or a log that now ends before a head
// kept. The latest one kept is shown to be copied for `d100 verify --head SEQ:HASH`.
"use strict";

const HEADS_KEPT = 256;  // the newest heads kept for each table
const SHORT_HEAD = 8;  // hex digits of a link shown (as Discord's posts show it)

class Heads {
  // `onShow(latest, warning)` draws the latest kept head ({ seq, link } or null) and the
  // first sign that the history changed (words, or "").
  constructor(tableId, onShow) {
    this.key = `d100-heads:${tableId}`;
    this.file = `d100-${tableId}.jsonl`;  // the export's name (Export as JSON Lines)
    this.onShow = onShow;
    this.kept = this.stored();  // read before the page asks for the state: see `atEnd`
    this.warning = "";
    this.flushing = null;
  }

  stored() {
    try {
      const found = JSON.parse(localStorage.getItem(this.key) || "{}");
      return found && typeof found === "object" && !Array.isArray(found) ? found : {};
    } catch { return {}; }
  }

  latest() {
    const seqs = Object.keys(this.kept).map(Number);
    if (!seqs.length) return null;
    const seq = Math.max(...seqs);
    return { seq, link: this.kept[seq] };
  }

  // The log's end as the page's first state read tells it, against the heads kept before
  // that read (this tab's, and any other tab's until then): a log ending before one of them
  // lost events.
  atEnd(head) {
    const before = this.latest();
    if (head && before && head.seq < before.seq)
      this.warn(`This table's log went back: this browser saw it reach event #${before.seq}, and it now ends at #${head.seq}.`, before);
    this.see(head);
  }

  // A head an answer or a streamed event brings.
  see(head) {
    if (!head || !Number.isInteger(head.seq) || typeof head.link !== "string") return;
    const held = this.kept[head.seq];
    if (held === undefined) this.kept[head.seq] = head.link;
    else if (held !== head.link) this.changed(head.seq, held, head.link);
    clearTimeout(this.flushing);
    this.flushing = setTimeout(() => this.flush(), 100);  // a burst (a log read anew) written once
  }

  changed(seq, held, now) {
    this.warn(`This table's history changed: this browser saw event #${seq} with the link ${held.slice(0, SHORT_HEAD)}, and the server now gives ${now.slice(0, SHORT_HEAD)}.`, { seq, link: held });
  }

  warn(words, witnessed) {
    if (this.warning) return;  // the first sign is the one to check
    this.warning = `${words} Export the log and check it against what you saw: d100 verify ${this.file} --head ${witnessed.seq}:${witnessed.link}`;
  }

  // Merged with what other tabs kept meanwhile (a number both hold with two links is a
  // change too), the newest kept, written back and shown.
  flush() {
    const merged = this.stored();
    for (const [seq, link] of Object.entries(this.kept)) {
      if (merged[seq] !== undefined && merged[seq] !== link) this.changed(Number(seq), merged[seq], link);
      else merged[seq] = link;
    }
    const newest = Object.keys(merged).map(Number).sort((a, b) => b - a).slice(0, HEADS_KEPT);
    this.kept = Object.fromEntries(newest.map((seq) => [seq, merged[seq]]));
    try { localStorage.setItem(this.key, JSON.stringify(this.kept)); } catch { /* full or off: kept for this visit */ }
    this.onShow(this.latest(), this.warning);
  }
}

// The latest kept head in words, with a button copying it as `--head` takes it.
function headLine(head) {
  const copy = el("button", { type: "button", class: "secondary small", "aria-label": "Copy the log's head, for d100 verify --head" }, "Copy");
  const text = `${head.seq}:${head.link}`;
  const code = el("code", { class: "link", text: head.link.slice(0, SHORT_HEAD) });
  copy.addEventListener("click", async () => {
    try { await navigator.clipboard.writeText(text); copy.textContent = "Copied"; }
    catch { code.textContent = head.link; copy.textContent = "Select and copy it"; }
  });
  return [" · ", el("span", { title: `The log's head: ${text}` }, `log #${head.seq} · `, code), " ", copy];
}
