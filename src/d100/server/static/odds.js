// The odds page: the level distribution, the advice and a chart across skills.
"use strict";

let current = null;

async function start() {
  // Wired before anything is awaited: an early click must not submit the form the browser's way.
  document.getElementById("odds-form").addEventListener("submit", (e) => { e.preventDefault(); if (current) refresh(); });
  const all = await systems();
  const select = document.getElementById("odds-system");
  for (const s of all) select.append(el("option", { value: s.name, text: s.title }));
  select.addEventListener("change", () => { pick(all); refresh(); });
  document.getElementById("odds-opposed").addEventListener("change", () => { oppose(); refresh(); });
  pick(all);
  refresh();
}

function pick(all) {
  current = all.find((s) => s.name === document.getElementById("odds-system").value);
  const fields = document.getElementById("odds-fields");
  fields.replaceChildren(...fieldInputs(current.check, oddsSkip(current), "odds"));
  const target = current.declares.target;
  const input = document.getElementById(`odds-${target.field}`);
  input.value = target.default;
  // a contest's sides take fewer fields than a check (no Luck after the roll, no push): its
  // own schema says which; its own fields (a melee response) go beside the opponent's
  const skip = [...oddsSkip(current), current.declares.tie_break && current.declares.tie_break.field];
  document.getElementById("odds-opponent-fields").replaceChildren(
    ...theirs(fieldInputs(side(), [...skip, "skill"], "odds-opponent")));
  document.getElementById("odds-contest-fields").replaceChildren(...fieldInputs(current.contest, skip, "odds-contest"));
  oppose();
}

// The opponent's inputs are labelled as theirs ("Their bonus dice"): one name, one input.
function theirs(nodes) {
  for (const label of nodes.flatMap((n) => [...n.querySelectorAll("label")])) {
    const words = [...label.childNodes].find((t) => t.nodeType === Node.TEXT_NODE && t.textContent.trim());
    if (words) words.textContent = `Their ${words.textContent.trim().toLowerCase()}`;
  }
  return nodes;
}

const opposed = () => document.getElementById("odds-opposed").checked;
const side = () => current.contest.properties.actor;

// Shows the opponent's inputs, and of the check's only those a contest's side takes.
function oppose() {
  document.getElementById("odds-opponent").hidden = !opposed();
  const taken = side().properties;
  for (const input of document.querySelectorAll("#odds-fields [name]")) {
    input.closest("#odds-fields > div").hidden = opposed() && !(input.name in taken);
  }
  document.getElementById("odds-chart-box").hidden = opposed();
  document.getElementById("odds-advice-box").hidden = opposed();
  document.getElementById("result-title").textContent = opposed() ? "Who wins" : "Levels";
}

// Fields the odds form leaves out: those a character's sheet or a called test fills in.
function oddsSkip(system) {
  const r = system.declares;
  return ["system", "skill", "dice", "house_rules", r.synergy, r.assistance && r.assistance.field].filter(Boolean);
}

function request() {
  const skill = Number(document.getElementById("odds-skill").value);
  const fields = fieldValues(document.getElementById("odds-fields"), current.check);
  if (!opposed()) return { system: current.name, skill, ...fields };
  const taken = side().properties;
  const actor = { skill, ...Object.fromEntries(Object.entries(fields).filter(([k]) => k in taken)) };
  const opponent = { skill: Number(document.getElementById("odds-opponent-skill").value),
                     ...fieldValues(document.getElementById("odds-opponent-fields"), side()) };
  return { system: current.name, actor, opponent,
           ...fieldValues(document.getElementById("odds-contest-fields"), current.contest) };
}

let asked = 0;  // the newest refresh's number: an older one's answer, arriving after, is dropped

async function refresh() {
  const mine = ++asked;
  const error = document.getElementById("odds-error");
  error.textContent = "";
  try {
    const req = request();
    const answer = await api("POST", "/api/odds", req);
    if (mine !== asked) return;
    const caption = opposed() ? `${current.title}, skill ${req.actor.skill} against ${req.opponent.skill}`
      : `${current.title}, skill ${req.skill}`;
    document.getElementById("odds-result").replaceChildren(
      oddsTable(answer.odds, answer.percent, caption),
      el("dl", {}, Object.entries(answer.meanings).flatMap(([k, v]) =>
        [el("dt", { text: k }), el("dd", { text: plain(v) })])));
    document.getElementById("odds-advice").replaceChildren(adviceList(answer.advice || []));
    if (opposed()) return;  // the chart varies one check's skill
    // The chart runs to the skill's maximum, or to 150 where skills have none; 200 at most
    // (a system taking skills to 1000 has little to show past it).
    const high = Math.min(current.declares.skill.high === null ? 150 : current.declares.skill.high, 200);
    const points = await api("POST", "/api/odds/chart", { request: req, low: 0, high, step: 5 });
    if (mine !== asked) return;
    document.getElementById("odds-chart").replaceChildren(chart(points, req.skill));
  } catch (err) {
    if (mine === asked) error.textContent = err.message;
  }
}

// An SVG line of P(success) by skill, with a text table for screen readers.
function chart(points, mark) {
  const w = 600, h = 220, pad = 30;
  const maxSkill = points[points.length - 1].skill || 1;
  const x = (s) => pad + (s / maxSkill) * (w - 2 * pad);
  const y = (p) => h - pad - p * (h - 2 * pad);
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", "Chance of success by skill");
  svg.style.maxWidth = "100%";
  const add = (tag, attrs, text) => {
    const node = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (text) node.textContent = text;
    svg.append(node);
  };
  add("line", { x1: pad, y1: y(0), x2: w - pad, y2: y(0), stroke: "#888" });
  add("line", { x1: pad, y1: y(0), x2: pad, y2: y(1), stroke: "#888" });
  for (const p of [0, 0.5, 1]) add("text", { x: 2, y: y(p) + 3 }, `${p * 100}%`);
  for (const pt of points.filter((_, i) => i % 4 === 0)) add("text", { x: x(pt.skill) - 6, y: h - 8 }, String(pt.skill));
  const p = (pt) => barWidth(pt.percent.success) / 100;
  const line = points.map((pt) => `${x(pt.skill)},${y(p(pt))}`).join(" ");
  add("polyline", { points: line, fill: "none", stroke: "#0b5cad", "stroke-width": 2 });
  for (const pt of points) add("circle", { cx: x(pt.skill), cy: y(p(pt)), r: pt.skill === mark ? 5 : 2 });
  const rows = points.map((pt) => el("tr", {}, el("td", { class: "num", text: pt.skill }),
                                     el("td", { class: "num", text: pt.percent.success })));
  const details = el("details", {}, el("summary", { text: "As a table" }),
    el("table", {}, el("thead", {}, el("tr", {}, el("th", { text: "skill" }), el("th", { text: "success" }))),
       el("tbody", {}, rows)));
  return el("div", {}, svg, details);
}

start();
