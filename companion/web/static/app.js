// The live match page: renders the state, follows server-sent events, lets the referee play.
(function () {
  const app = document.getElementById("app");
  const matchId = app.dataset.match;
  const referee = app.dataset.referee === "1";
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const T = (s) => (window.TWEAK_STRINGS && window.TWEAK_STRINGS[s]) || s;
  const $ = (id) => document.getElementById(id);
  let state = null;
  let selectedHand = null;       // index in the hand
  let selectedTable = new Set(); // indexes on the table
  let tweak = null;              // the T! use chosen for this turn
  let fixingTweak = null;        // {player, kind}: a T! card won that the referee is correcting
  let lastVersion = -1;

  function cardEl(name, extra) {
    const [colour, value] = name.split("-");
    const el = document.createElement("div");
    el.className = "card c-" + colour + (extra || "");
    const points = value === "5" ? (colour === "red" ? 5 : 4) : (colour === "red" ? 3 : 1);
    el.innerHTML = value + "<small>" + points + "</small>";
    el.dataset.card = name;
    el.setAttribute("role", "button");
    el.setAttribute("aria-label", name);
    return el;
  }

  function banner(text, cls) {
    const b = $("banner");
    b.textContent = text;
    b.className = "banner " + cls;
    b.hidden = !text;
  }

  // a card's name in the page's language: "red-3" -> "rood-3" (nl); T! cards by their rule-book name
  const cardName = (name) => {
    const [colour, value] = String(name).split("-");
    return value === undefined ? T(colour) : T(colour) + "-" + value;
  };
  const cardNames = (names) => names.map(cardName).join(", ");

  function describe(entry) {
    const cam = entry.source === "camera" ? "📷 " : "";
    if (entry.kind === "rejected") return { text: cam + "✗ " + T("Invalid") + " (" + entry.rule + "): " + entry.message, cls: "bad" };
    if (entry.kind === "seen_deal") return { text: "📷 " + T("Deal seen") + ": " + cardNames(entry.table) + (entry.target ? " · " + T("Target") + " " + entry.target : ""), cls: "" };
    if (entry.kind === "target") return { text: "✎ " + T("Target") + " " + entry.target, cls: "" };
    if (entry.kind === "seen_deal" && entry.source === "referee") return { text: "✎ " + T("Deal seen") + ": " + cardNames(entry.table) + " · " + T("Target") + " " + entry.target, cls: "" };
    if (entry.kind === "table_fixed") return { text: "✎ " + T("Correct a table card") + ": " + cardName(entry.shown) + " → " + cardName(entry.actual), cls: "" };
    if (entry.kind === "tweak_fixed") return { text: "✎ " + entry.player + ": T! " + T(entry.shown) + " → " + T(entry.actual), cls: "" };
    if (entry.kind === "corrected") return { text: "✎ " + T("Corrected") + ": " + entry.player + " #" + entry.turn, cls: "" };
    if (entry.kind === "undo") return { text: "↶ " + T("Undone") + (entry.player ? ": " + entry.player : ""), cls: "" };
    if (entry.kind === "round") return { text: T("Round") + " " + entry.round + " · " + T("Dealer") + ": " + entry.dealer, cls: "" };
    let text = cam + entry.player + ": ";
    if (entry.tweak) {
      const t = entry.tweak;
      text += "T! " + T(t.card) + (t.card === "joker" ? " " + (t.delta > 0 ? "+1" : "−1") : "")
        + (t.victim ? " → " + t.victim + (t.stolen ? " (" + cardName(t.stolen) + ")" : "") : "") + "; ";
    }
    if (entry.discard) return { text: text + T("discards") + " " + cardName(entry.discard), cls: "" };
    const cards = [entry.sum.hand, ...entry.sum.take];
    const total = cards.reduce((s, c) => s + Number(c.split("-")[1]), 0);
    text += cards.map(cardName).join(" + ") + " = " + total;
    if (entry.tweak_made) return { text: text + " · TWEAK!", cls: "tweak" };
    return { text: text + " ✓", cls: "" };
  }

  function render() {
    const s = state;
    const r = s.round;
    $("target").textContent = r && !r.over ? r.target : "–";
    $("to-move").textContent = r && r.to_move ? r.to_move : (r && r.over ? T("Round over") : "–");
    $("round-info").textContent = r ? T("Round") + " " + r.number + " · " + T("Dealer") + ": " + r.dealer
      + " · " + T("Deck") + ": " + (r.deck_left ?? "–") + " · " + T("T! pile") + ": " + (r.tweak_pile_left ?? "–") : "";
    // table
    const table = $("table");
    table.innerHTML = "";
    (r ? r.table : []).forEach((name, i) => {
      const el = cardEl(name, selectedTable.has(i) ? " selected" : "");
      el.dataset.testid = "table-card";
      el.addEventListener("click", () => { if (!referee) return; selectedTable.has(i) ? selectedTable.delete(i) : selectedTable.add(i); render(); });
      table.appendChild(el);
    });
    // hand of the player to move (the virtual table shows it; a real table keeps it hidden)
    const hand = $("hand");
    hand.innerHTML = "";
    const mover = r && r.to_move;
    $("hand-owner").textContent = mover ? "· " + mover + (r.hidden ? " (" + r.hand_sizes[mover] + " " + T("cards") + ")" : "") : "";
    // a real table: the hands are unknown, the referee picks the card from those still unseen
    (mover ? handList(r) : []).forEach((name, i) => {
      const el = cardEl(name, selectedHand === i ? " selected" : "");
      el.dataset.testid = "hand-card";
      el.addEventListener("click", () => { if (!referee) return; selectedHand = selectedHand === i ? null : i; render(); });
      hand.appendChild(el);
    });
    const playing = referee && r && !r.over && !r.dealing;
    $("enter-deal").hidden = !(referee && r && r.dealing);
    $("target").title = referee && r && r.hidden ? T("Tap to enter the target by hand") : "";
    // a match that cannot be replayed whole (shown read-only, always); what the camera waits for
    // while dealing; later, a table no move fits (the camera is stuck)
    const note = $("note");
    const damaged = s.read_only && s.note;
    const waiting = !damaged && s.note && r && r.dealing;
    const stuck = !damaged && !waiting && r && !r.over && s.camera_stuck;
    note.hidden = !(damaged || waiting || stuck);
    note.textContent = damaged ? "⚠ " + s.note
      : waiting ? "📷 " + s.note
      : stuck ? "📷 " + T("The camera cannot follow the table") + " (" + stuck.rule + "): " + stuck.message +
        (referee ? " — " + T("tap the move in, or correct the last move.") : "")
      : "";
    renderQuestions(s);
    $("controls").hidden = !playing;
    $("next-round").hidden = !(referee && r && r.over && !s.winner);
    const piles = $("piles");
    const showPiles = referee && r && r.over;
    if (piles.hidden === showPiles) {
      piles.hidden = !showPiles;
      const box = $("pile-buttons");
      box.innerHTML = "";
      if (showPiles) s.players.forEach((p) => {
        const b = document.createElement("button");
        b.textContent = T("Count") + " " + p;
        b.dataset.testid = "pile-" + p;
        b.setAttribute("data-testid", "pile-" + p);
        b.addEventListener("click", () => checkPile(p, false));
        box.appendChild(b);
        const more = document.createElement("button");
        more.className = "quiet";
        more.textContent = "+ " + T("picture");
        more.title = T("A pile larger than the view: add one more picture to the count");
        more.setAttribute("data-testid", "pile-add-" + p);
        more.addEventListener("click", () => checkPile(p, true));
        box.appendChild(more);
      });
    }
    $("sum").disabled = selectedHand === null || selectedTable.size === 0;
    $("discard").disabled = selectedHand === null;
    $("undo").disabled = !(r && r.can_undo);
    $("fix-card").hidden = !(r && r.hidden);
    $("fix-card").disabled = selectedTable.size !== 1 || selectedHand !== null;
    // T! cards the player to move can use (R4.5, R6)
    const tc = $("tweak-controls");
    tc.innerHTML = "";
    if (playing && mover) {
      const held = [...new Set(r.held[mover])];
      const others = s.players.filter((p) => p !== mover && (r.hidden ? r.hand_sizes[p] : r.hands[p].length));
      const add = (label, use) => {
        const b = document.createElement("button");
        b.className = "quiet" + (tweak && JSON.stringify(tweak) === JSON.stringify(use) ? " selected" : "");
        b.textContent = (tweak && JSON.stringify(tweak) === JSON.stringify(use) ? "✓ " : "") + label;
        b.dataset.testid = "tweak-" + use.card + (use.delta ? (use.delta > 0 ? "-plus" : "-minus") : "") + (use.victim ? "-" + use.victim : "");
        b.addEventListener("click", () => { tweak = tweak && JSON.stringify(tweak) === JSON.stringify(use) ? null : use; render(); });
        tc.appendChild(b);
      };
      held.forEach((k) => {
        if (k === "joker") { add("T! Joker +1", { card: "joker", delta: 1 }); add("T! Joker −1", { card: "joker", delta: -1 }); }
        if (k === "shifter" && r.deck_left > 0) add("T! Shifter", { card: "shifter" });
        if (k === "bomb") add("T! Bomb", { card: "bomb" });
        if (k === "thief") others.forEach((p) => add("T! Thief " + T("on") + " " + p, { card: "thief", victim: p }));
      });
    }
    // scores: rounds, running totals, the goal line (R5.5), live points of the round
    let html = "<table class='scores'><tr><th></th>" + s.players.map((p) => "<th>" + esc(p) + "</th>").join("") + "</tr>";
    s.rounds.forEach((rd) => { html += "<tr><td>" + T("Round") + " " + rd.round + "</td>" + rd.scores.map((x) => "<td>" + x + "</td>").join("") + "</tr>"; });
    if (r && !r.over) html += "<tr><td>" + T("Round") + " " + r.number + " (" + T("live") + ")</td>" + s.players.map((p) => "<td>" + r.scores[p] + "</td>").join("") + "</tr>";
    html += "<tr><th>" + T("Total") + "</th>" + s.totals.map((x) => "<th data-testid='total'>" + x + "</th>").join("") + "</tr>";
    html += "<tr class='goal'><td>" + T("Goal") + "</td><td colspan='" + s.players.length + "'>" + s.goal + "</td></tr>";
    if (r) {
      html += "<tr><td>" + T("Won cards") + "</td>" + s.players.map((p) => "<td>" + r.won[p] + "</td>").join("") + "</tr>";
      // a camera round: the referee taps a T! card the camera misread when it was won (R4.2)
      const fixable = referee && r.hidden && !r.dealing;
      const heldTag = (p, k) => fixable
        ? "<button class='tag' data-fix-player='" + esc(p) + "' data-fix-kind='" + k + "' data-testid='fix-tweak-" + esc(p) + "-" + k + "'>" + T(k) + " ✎</button>"
        : "<span class='tag'>" + T(k) + "</span>";
      html += "<tr><td>" + T("T! cards") + "</td>" + s.players.map((p) => "<td>" + r.held[p].map((k) => heldTag(p, k)).join("")
        + r.used[p].map((k) => "<span class='tag used' title='" + T("used") + "'>" + k + "</span>").join("") + "</td>").join("") + "</tr>";
    }
    $("scores").innerHTML = html + "</table>";
    $("scores").querySelectorAll("[data-fix-kind]").forEach((b) => b.addEventListener("click", () => {
      fixingTweak = { player: b.dataset.fixPlayer, kind: b.dataset.fixKind };
      render();
    }));
    renderTweakFix(r);
    // log of verdicts
    const log = $("log");
    log.innerHTML = "";
    s.log.forEach((e) => { const d = describe(e); const li = document.createElement("li"); li.textContent = d.text; li.className = d.cls; log.appendChild(li); });
    if (s.winner) banner("🏆 " + T("Winner") + ": " + s.winner, "ok");
    else if (s.tie) banner(T("Tie for the lead: another round (R5.5)"), "ok");
    else if (s.log.length) {
      const d = describe(s.log[0]);
      banner(d.cls === "tweak" ? "TWEAK! " + s.log[0].player : d.text, d.cls === "bad" ? "bad" : d.cls === "tweak" ? "tweak" : "ok");
    } else banner("", "");
  }

  // which T! card a player's card shown as fixingTweak.kind really is: one button a kind (R1.4)
  function renderTweakFix(r) {
    const box = $("fix-tweak");
    const open = fixingTweak && r && r.hidden && (r.held[fixingTweak.player] || []).includes(fixingTweak.kind);
    box.hidden = !open;
    box.innerHTML = "";
    if (!open) { fixingTweak = null; return; }
    const { player, kind } = fixingTweak;
    const hint = document.createElement("p");
    hint.className = "hint";
    hint.textContent = player + ", T! " + T(kind) + ": " + T("Which T! card is it really?");
    box.appendChild(hint);
    ["thief", "joker", "shifter", "bomb"].filter((k) => k !== kind).forEach((k) => {
      const b = document.createElement("button");
      b.className = "quiet";
      b.textContent = T(k);
      b.dataset.testid = "fix-tweak-as-" + k;
      b.addEventListener("click", () => { fixingTweak = null; post("/tweak-won", { player, shown: kind, actual: k }); });
      box.appendChild(b);
    });
    const keep = document.createElement("button");
    keep.className = "quiet";
    keep.textContent = "✕";
    keep.setAttribute("aria-label", T("Keep it"));
    keep.addEventListener("click", () => { fixingTweak = null; render(); });
    box.appendChild(keep);
  }

  function handList(r) { return r.hidden ? r.options : r.hands[r.to_move]; }

  function renderQuestions(s) {
    const box = $("questions");
    const list = $("question-list");
    const open = referee ? (s.questions || []) : [];
    box.hidden = open.length === 0;
    list.innerHTML = "";
    open.forEach((q) => {
      const li = document.createElement("li");
      li.textContent = q.player + " #" + q.turn + ": " + T(q.reason);
      q.readings.forEach((line, k) => {
        const b = document.createElement("button");
        b.className = k === 0 ? "selected" : "quiet";
        b.textContent = (k === 0 ? "✓ " : "") + describe({ kind: "turn", player: line.turn, ...line }).text;
        b.setAttribute("data-testid", "answer-" + q.id + "-" + k);
        b.addEventListener("click", () => post("/questions/" + q.id, { reading: k }));
        li.appendChild(b);
      });
      list.appendChild(li);
    });
  }

  // a real table: a stolen card or the Bomb's cards are not known, the referee names them
  function namedTweak(r) {
    if (!tweak || !r.hidden) return tweak;
    if (tweak.card === "thief") {
      const stolen = window.prompt(T("Which card did the Thief take from") + " " + tweak.victim + "? (red-5)");
      return stolen ? { ...tweak, stolen: stolen.trim() } : null;
    }
    if (tweak.card === "bomb") {
      const cards = {};
      for (const p of state.players) {
        if (p === r.to_move || !r.hand_sizes[p]) continue;
        const c = window.prompt(T("Which card did this player give up to the Bomb?") + " " + p + " (red-5)");
        if (!c) return null;
        cards[p] = c.trim();
      }
      return { ...tweak, cards };
    }
    return tweak;
  }

  function esc(t) { const d = document.createElement("div"); d.textContent = t; return d.innerHTML; }

  async function refresh() {
    const res = await fetch("/api/matches/" + matchId);
    if (!res.ok) return;
    show(await res.json());
  }
  function show(s) {
    if (state && s.version < state.version) return;  // (a fetch answered after a newer message)
    if (state && s.version !== state.version) { selectedHand = null; selectedTable = new Set(); tweak = null; }
    state = s;
    lastVersion = s.version;
    render();
    app.dataset.version = String(s.version);
    if (s.round && !realCamera) $("camera").src = "/api/matches/" + matchId + "/camera.jpg?v=" + s.version;
  }

  // a real camera: its state, and its picture; when it is missing or lost, moves are tapped
  let realCamera = false;
  const picture = $("camera");  // no picture yet (a camera match before the camera answers): no broken image
  picture.addEventListener("error", () => { picture.hidden = true; });
  picture.addEventListener("load", () => { picture.hidden = false; });
  async function cameraState() {
    const res = await fetch("/api/camera").catch(() => null);
    if (!res || !res.ok) return;
    const c = await res.json();
    realCamera = c.state !== "none";
    const box = $("camera-state");
    if (c.state === "none" || c.state === "ok") {
      box.hidden = true;
      if (c.state === "ok") $("camera").src = "/api/camera.jpg?t=" + Date.now();
    } else {
      box.hidden = false;
      box.textContent = T("Camera") + " " + c.state + ": " + c.message + ". " +
        T("Enter the moves by tapping; the camera is tried again by itself.");
    }
  }
  cameraState();
  setInterval(cameraState, 3000);

  async function checkPile(player, add) {
    const out = $("pile-result");
    out.textContent = T("Counting…");
    const res = await fetch("/api/matches/" + matchId + "/piles/" + encodeURIComponent(player) + (add ? "?add=1" : ""), {
      method: "POST", headers: { "X-CSRF-Token": csrf } });
    const d = await res.json().catch(() => ({}));
    if (!res.ok) { out.textContent = d.message || res.statusText; return; }
    const diffs = d.differences.map((x) => x.card + ": " + T("tracked") + " " + x.tracked + ", " + T("camera") + " " + x.scanned);
    out.innerHTML = "<p data-testid='pile-points'><strong>" + esc(player) + "</strong>: " + T("camera") + " " +
      d.scanned.points + " · " + T("tracked") + " " + d.tracked.points + "</p>" +
      (diffs.length ? "<ul class='diffs'>" + diffs.map((t) => "<li>" + esc(t) + "</li>").join("") + "</ul>" +
        "<p class='hint'>" + esc(T("Nothing was changed: if the tracked pile is wrong, undo and correct the moves.")) + "</p>"
        : "<p class='good'>" + esc(T("Same cards as tracked.")) + "</p>") +
      "<img class='camera' alt='' src='" + d.picture + "?t=" + Date.now() + "'>";
  }

  async function post(path, body) {
    const res = await fetch("/api/matches/" + matchId + path, { method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf }, body: JSON.stringify(body || {}) });
    const data = await res.json().catch(() => ({}));
    if (!res.ok && res.status !== 422) banner(data.message || res.statusText, "bad");
    await refresh();
    return data;
  }

  $("sum").addEventListener("click", () => {
    const r = state.round;
    const use = namedTweak(r);
    if (tweak && !use) return;
    post("/turn", { play: "sum", hand: handList(r)[selectedHand], take: [...selectedTable].map((i) => r.table[i]), tweak: use });
  });
  $("discard").addEventListener("click", () => {
    const r = state.round;
    const use = namedTweak(r);
    if (tweak && !use) return;
    post("/turn", { play: "discard", hand: handList(r)[selectedHand], tweak: use });
  });
  $("undo").addEventListener("click", () => post("/undo"));
  // a camera match whose camera is missing: the deal and the target are entered by hand
  $("enter-deal").addEventListener("click", () => {
    const cards = window.prompt(T("The 2 cards face up in the centre") + " (red-2 green-3)");
    if (!cards) return;
    const target = Number(window.prompt(T("Target") + " (7-10)"));
    post("/deal", { table: cards.trim().split(/[\s,]+/), target });
  });
  $("target").addEventListener("click", () => {
    const r = state && state.round;
    if (!referee || !r || !r.hidden || r.dealing || r.over) return;
    const target = window.prompt(T("Target") + " (7-10)", r.target);
    if (target) post("/target", { target: Number(target) });
  });
  // a camera match: a table card misread when it was turned from the deck (R4.6)
  $("fix-card").addEventListener("click", () => {
    const shown = state.round.table[[...selectedTable][0]];
    const actual = window.prompt(T("Which card is it really?") + " (" + shown + ")");
    if (actual) post("/table", { shown, actual: actual.trim() });
  });
  $("next-round").addEventListener("click", () => post("/next-round"));

  // live updates for every phone (server-sent events; the browser reconnects by itself)
  // each message carries the state; a server with too many phones refuses the stream (503), and
  // the page then polls instead
  let polling = null;
  const source = new EventSource("/api/matches/" + matchId + "/stream");
  source.onmessage = (ev) => {
    const m = JSON.parse(ev.data);
    if (m.version === lastVersion) return;
    if (m.state) show(m.state); else refresh();
  };
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED && polling === null) polling = setInterval(refresh, 3000);
  };

  // keep the screen awake during a match (Wake Lock API), again after the tab comes back
  let lock = null;
  async function wake() { try { if ("wakeLock" in navigator && document.visibilityState === "visible") lock = await navigator.wakeLock.request("screen"); } catch (e) { lock = null; } }
  document.addEventListener("visibilitychange", wake);
  wake();
  refresh();
})();
