// The inspector: plain DOM over the /v1 API, no framework, no build step.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { session: null, shown: new Map(), stream: null };

function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== null && value !== undefined) node.setAttribute(name, value);
  }
  for (const child of children) {
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function newKey() {
  return crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`;
}

async function api(method, path, body, extra = {}) {
  const headers = { "X-Turnframe-Account": $("account").value.trim(), ...extra };
  const options = { method, headers };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const answer = await fetch(path, options);
  const data = await answer.json();
  if (!answer.ok) {
    const error = data.error || {};
    throw new Error(`${error.code}: ${error.message}${error.hint ? ` (${error.hint})` : ""}`);
  }
  return data;
}

function say(text) {
  $("status").textContent = text;
}

// -- sessions ---------------------------------------------------------------------------

async function loadWorkflows() {
  const { workflows } = await api("GET", "/v1/workflows");
  $("workflow").replaceChildren(...workflows.map((w) => element("option", { value: w.name }, w.name)));
}

async function loadSessions() {
  const { sessions } = await api("GET", "/v1/sessions");
  const options = sessions.map((s) =>
    element("option", { value: s.session_id }, `${s.workflow} · ${s.session_id}`));
  $("sessions").replaceChildren(element("option", { value: "" }, "(none)"), ...options);
  if (state.session) $("sessions").value = state.session;
}

async function openSession(sessionId) {
  state.session = sessionId;
  state.shown.clear();
  $("conversation").replaceChildren();
  $("session-info").textContent = `Session ${sessionId} for account ${$("account").value}.`;
  $("message").disabled = false;
  $("send").disabled = false;
  const { turns } = await api("GET", `/v1/sessions/${sessionId}/turns`);
  for (const turn of turns) await showTurn(turn);
  await showCard();
  watch(sessionId);
}

// -- turns ------------------------------------------------------------------------------

async function showTurn(turn, said) {
  if (state.shown.has(turn.turn_id)) return;
  const item = element("li", { class: "turn", "data-turn": turn.turn_id });
  state.shown.set(turn.turn_id, item);
  const number = state.shown.size;
  $("conversation").append(item);
  const replay = await api("GET", `/v1/turns/${turn.turn_id}/replay`);
  const acts = await api("GET", `/v1/turns/${turn.turn_id}/acts`);
  const you = said || (replay.click ? `(clicked ${replay.click.option_id})` : replay.text);
  item.append(
    element("h3", {}, `Turn ${number} · ${turn.phase}`),
    element("p", { class: "said" }, element("strong", {}, "You: "), you),
    blockList(turn.blocks),
    actView(number, acts, replay),
  );
}

function blockList(blocks) {
  return element("ul", { class: "blocks", "aria-label": "Reply" },
    ...blocks.map((b) => element("li", { class: `block ${b.kind}` },
      element("span", { class: "kind" }, b.kind), " ", b.text, " ",
      element("code", {}, b.code))));
}

function actView(number, acts, replay) {
  const details = element("details", { open: "" }, element("summary", {}, "What happened, act by act"));
  if (acts.acts.length) {
    const head = element("tr", {}, ...["#", "Act", "Outcome", "Why", "Result", "Rule (reason code)"]
      .map((h) => element("th", { scope: "col" }, h)));
    const rows = acts.acts.map((a) => element("tr", {},
      element("td", {}, a.index), element("td", {}, a.summary),
      element("td", { class: `word ${a.word.replace(/ /g, "-").toLowerCase()}` }, a.word),
      element("td", {}, a.why), element("td", {}, a.result || "-"),
      element("td", {}, element("code", {}, a.reason || "-"))));
    details.append(element("table", {},
      element("caption", {}, `Acts of turn ${number}`), element("thead", {}, head),
      element("tbody", {}, ...rows)));
  } else {
    details.append(element("p", {}, "No acts: this turn was a click."));
  }
  if (acts.click) details.append(element("p", {}, element("strong", {}, "Click: "), acts.click));
  const events = replay.events.map((e) => `${e.type} on ${e.case_id} (revision ${e.revision})`);
  details.append(element("p", {}, element("strong", {}, "Committed events: "),
    events.length ? events.join("; ") : "none"));
  const attempts = replay.provider_attempts.map((a) =>
    `${a.number}: ${a.provider} ${a.purpose} (${a.step}) → ${a.outcome}` +
    `${a.error_code ? ` · ${a.error_code}` : ""}${a.used ? " · used" : ""}`);
  details.append(element("p", {}, element("strong", {}, "Provider attempts: "),
    attempts.length ? attempts.join("; ") : "none"));
  return details;
}

async function post(body, said) {
  $("send").disabled = true;
  $("conversation").setAttribute("aria-busy", "true");
  try {
    const turn = await api("POST", `/v1/sessions/${state.session}/turns`, body,
      { "Idempotency-Key": newKey() });
    await showTurn(turn, said);
    await showCard();
    say(`Turn ${turn.phase}.`);
  } catch (error) {
    say(error.message);
  } finally {
    $("send").disabled = false;
    $("conversation").removeAttribute("aria-busy");
  }
}

// -- the open card ----------------------------------------------------------------------

async function showCard() {
  const { card } = await api("GET", `/v1/sessions/${state.session}/card`);
  const box = $("card");
  box.hidden = !card;
  if (!card) return;
  const what = card.kind === "confirm_command" ? "Please confirm" : `Choose a case for “${card.target_label}”`;
  $("card-heading").textContent = `Open card: ${what}`;
  $("card-what").textContent = `Card ${card.interaction_id} on ${card.case_id || "no case"}.`;
  $("card-commands").replaceChildren(...card.commands.map((c) => element("li", {},
    element("code", {}, c.name), " ",
    Object.entries(c.args).map(([k, v]) => `${k} = ${JSON.stringify(v)}`).join(", "))));
  $("card-options").replaceChildren(...card.options.map((o) => {
    const button = element("button", { type: "button", "data-option": o.option_id }, o.label);
    button.addEventListener("click", () => {
      for (const b of $("card-options").querySelectorAll("button")) b.disabled = true;
      post({ click: o.label, card: card.interaction_id }, `(clicked ${o.label})`);
    });
    return button;
  }));
  say("A card is open: its buttons follow the conversation.");
}

// -- the event stream (fetch, so the account header goes along) -------------------------

async function watch(sessionId) {
  if (state.stream) state.stream.abort();
  const controller = new AbortController();
  state.stream = controller;
  try {
    const answer = await fetch(`/v1/sessions/${sessionId}/stream`, {
      headers: { "X-Turnframe-Account": $("account").value.trim() }, signal: controller.signal,
    });
    const reader = answer.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = event.split("\n").find((line) => line.startsWith("data: "));
        if (data && sessionId === state.session) {
          await showTurn(JSON.parse(data.slice(6)));
          await showCard();
        }
      }
    }
  } catch (error) {
    if (error.name !== "AbortError") say(`The event stream stopped: ${error.message}`);
  }
}

// -- wiring -----------------------------------------------------------------------------

$("session-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  try {
    const { session_id } = await api("POST", "/v1/sessions", { workflow: $("workflow").value });
    await openSession(session_id);
    await loadSessions();
    $("message").focus();
  } catch (error) {
    say(error.message);
  }
});

$("sessions").addEventListener("change", () => {
  if ($("sessions").value) openSession($("sessions").value).catch((e) => say(e.message));
});

$("account").addEventListener("change", () => loadSessions().catch((e) => say(e.message)));

$("message-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = $("message").value.trim();
  if (!text || !state.session) return;
  $("message").value = "";
  post({ text }, text);
});

$("message").addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey) {
    event.preventDefault();
    $("message-form").requestSubmit();
  }
});

loadWorkflows().then(loadSessions).catch((error) => say(error.message));
