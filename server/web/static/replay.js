// The replay viewer: every step's board comes computed by the engine (server/web/replay_view.py, and
// server/web/replay_2210.py for RISK 2210 A.D.); this only shows it. Keys: Space play/pause, ←/→ one step, PageUp/PageDown one turn, Home/End first/last step.
"use strict";

const ReplayViewer = (() => {
  const { esc } = Board;

  function chart(series, key, count, players, title) {
    const w = 460, h = 120, last = series[series.length - 1].step || 1;
    const top = Math.max(1, ...series.map((s) => Math.max(...s[key])));
    const lines = [];
    for (let seat = 0; seat < count; seat++) {
      const points = series.map((s) => `${(s.step / last) * w},${h - (s[key][seat] / top) * h}`).join(" ");
      lines.push(`<polyline points="${points}" stroke="${Board.colour(seat, players)}" />`);
    }
    return `<figure class="chart"><figcaption>${title} (max ${top})</figcaption>` +
      `<svg viewBox="0 0 ${w} ${h}" preserveAspectRatio="none" data-key="${key}">${lines.join("")}` +
      `<line class="cursor" x1="0" x2="0" y1="0" y2="${h}"/></svg></figure>`;
  }

  // The transport buttons' icons are drawn, not typed: the media-control characters (⏮ ⏪ ⏯ ...) are
  // missing from many systems' fonts (Debian's defaults among them), where they showed as empty boxes.
  // 16×16 paths in the button's text colour; each button is named by its aria-label.
  const ICONS = {
    first: "M2 3h2v10H2z M9 3v10L4 8z M14 3v10L9 8z",
    "prev-turn": "M8 3v10L3 8z M13 3v10L8 8z",
    prev: "M4 3h2v10H4z M13 3v10L7 8z",
    play: "M4 2v12l10-6z",
    pause: "M4 3h3v10H4z M9 3h3v10H9z",
    next: "M3 3v10l6-5z M10 3h2v10h-2z",
    "next-turn": "M3 3v10l5-5z M8 3v10l5-5z",
    last: "M2 3v10l5-5z M7 3v10l5-5z M12 3h2v10h-2z",
  };
  const LABELS = {
    first: "first step", "prev-turn": "previous turn", prev: "previous step", play: "play", pause: "pause",
    next: "next step", "next-turn": "next turn", last: "last step",
  };

  function icon(name) {
    return `<svg class="icon" viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false"><path d="${ICONS[name]}"/></svg>`;
  }

  function transport(go, title) {
    const play = go === "play" ? ' class="play"' : "";
    return `<button type="button" data-go="${go}"${play} title="${title}" aria-label="${LABELS[go]}">${icon(go)}</button>`;
  }

  function classicAction(step, data) {
    if (!step.action) return "setup";
    const [kind, ...f] = step.action;
    const t = (i) => (data.map.territories[i] ? esc(data.map.territories[i].name) : "?");
    switch (kind) {
      case "claim": return `claim ${t(f[0])}`;
      case "place": return `place ${f[1]} on ${t(f[0])}`;
      case "trade_cards": return "trade cards";
      case "attack": return `attack ${t(f[0])} → ${t(f[1])} with ${f[2]} dice` + (f[3] ? `, on until ${f[3]} left` : ", one roll");
      case "choose_defence": return `defend with ${f[0]} dice`;
      case "occupy": return `move in ${f[0]}`;
      case "fortify": return `fortify ${t(f[0])} → ${t(f[1])}: ${f[2]}`;
      case "end_phase": return "end the phase";
      default: return esc(kind);
    }
  }

  // The seat the turn marker (◀) is on at a classic step: the seat whose turn it is once the turns have
  // begun; before them (the claims, the starting armies, Capital Risk's headquarters) the engine's
  // turn_seat stays at 0, so the seat that acted at this step, or at step 0 the first to act.
  function movingSeat(step) {
    if (step.turn > 0) return step.turn_seat;
    return step.seat >= 0 ? step.seat : step.to_act;
  }

  // What differs between the games a replay can be of: how one step's board, seats table, action and
  // events are shown, and which per-seat series are charted. The transport, seeking, log and charts are
  // the viewer's own (mount, below).
  const CLASSIC = {
    charts: [["territories", "Territories"], ["armies", "Armies"]],
    board(container, data) {
      const board = Board.create(container, data.map, data.seats.length);
      return (step) => {
        board.update(step.owners, step.armies);
        const [kind, a, b] = step.action || [];
        const move = kind === "attack" || kind === "fortify";
        board.mark(move ? a : -1, move ? b : -1);
      };
    },
    where: (step) => `turn ${step.turn} · ${step.phase.replace("_", " ")}`,
    seats(step, data) {
      const names = data.seats;
      const sums = Board.totals(step.owners, step.armies, data.owners);
      const whose = movingSeat(step);
      const rows = sums.territories.map((count, seat) => {
        const name = seat < names.length ? names[seat] : "neutral";
        const hand = step.hands[seat] || [];
        const cards = hand.map((c) => esc(Board.cardName(c, data.map))).join("<br>") || "–";
        const place = data.places[seat] ? ` <span class="place">#${data.places[seat]}</span>` : "";
        const turn = seat === whose ? ` <span class="turn-marker" title="this seat's move">◀</span>` : "";
        return `<tr data-seat="${seat}"${turn ? ' class="moving"' : ""}><td><span class="swatch" style="background:${Board.colour(seat, names.length)}"></span>${esc(name)}${place}${turn}</td>` +
          `<td>${count}</td><td>${sums.armies[seat]}</td><td class="cards" title="${hand.length} cards">${cards}</td></tr>`;
      }).join("");
      return `<table class="players"><thead><tr><th>seat</th><th>terr.</th><th>armies</th><th>cards</th></tr></thead><tbody>${rows}</tbody></table>`;
    },
    action: classicAction,
    describe: (ev, data) => Board.describe(ev, data.map, data.seats),
  };

  // RISK 2210 A.D. (server/web/replay_2210.py): a step's board is a spectator's Observation2210 and the hands.
  const R2210 = {
    charts: [["territories", "Territories"], ["units", "Units (MODs and commanders)"], ["energy", "Energy"]],
    board(container, data) {
      const board = Board2210.create(container, data.map, data.layout, data.seats);
      return (step) => {
        board.update(step);
        const [kind, a, b] = step.action || [];
        const move = kind === "fortify" || kind === "declare";
        board.mark(step.pending_source >= 0 ? step.pending_source : move ? a : -1, step.pending_target >= 0 ? step.pending_target : move ? b : -1);
      };
    },
    where: (step) => `turn ${step.turn} · ${step.year ? `year ${step.year}` : "setup"} · ${Board2210.phaseName(step.phase)}`,
    seats: (step, data) => Board2210.panel(step, data.seats, data.map, data.rules_2210, step.hands),
    action: (step, data) => Board2210.actionText(step.action, data.map, data.rules_2210),
    describe: (ev, data) => Board2210.describe(ev, data.map, data.seats, data.rules_2210),
  };

  function mount(root, data) {
    const game = data.game === "2210" ? R2210 : CLASSIC;
    const steps = data.steps;
    const names = data.seats;
    const owners = data.owners;
    const last = steps.length - 1;
    const result = data.places.length
      ? names.map((n, i) => ({ n, i, place: data.places[i] })).sort((a, b) => a.place - b.place)
        .map((r) => `${r.place}. ${esc(r.n)}`).join(" · ")
      : "unfinished";
    root.innerHTML = `
      <header class="game-head"><h2>Replay ${esc(data.game_id)}</h2>
        <p>${esc(data.queue)} · rules ${esc(data.rules)} · ${esc(data.reason)} · ${result}</p></header>
      <div class="controls" role="toolbar" aria-label="replay controls">
        ${transport("first", "first step (Home)")}
        ${transport("prev-turn", "previous turn (PageUp)")}
        ${transport("prev", "previous step (←)")}
        ${transport("play", "play / pause (Space)")}
        ${transport("next", "next step (→)")}
        ${transport("next-turn", "next turn (PageDown)")}
        ${transport("last", "last step (End)")}
        <input type="range" class="seek" min="0" max="${last}" value="0" aria-label="step">
        <label>turn <input type="number" class="turn-input" min="0" value="0"></label>
        <label>speed <select class="speed"><option value="400">slow</option><option value="120" selected>normal</option><option value="25">fast</option></select></label>
        <span class="position"></span>
      </div>
      <div class="game-body">
        <div class="board-wrap"></div>
        <aside class="side">
          <div class="seats"></div>
          <section class="step"><h3>This step</h3><div class="step-body"></div></section>
          <section class="log"><h3>Events</h3><ol class="events"></ol></section>
        </aside>
      </div>
      <section class="charts">${game.charts.map(([key, title]) => chart(data.series, key, owners, names.length, title)).join("")}</section>`;
    const draw = game.board(root.querySelector(".board-wrap"), data);
    const seek = root.querySelector(".seek");
    const turnInput = root.querySelector(".turn-input");
    const playButton = root.querySelector(".play");
    let index = 0;
    let timer = null;

    function show(k) {
      index = Math.max(0, Math.min(last, k));
      const step = steps[index];
      draw(step);
      seek.value = index;
      turnInput.value = step.turn;
      root.dataset.step = index;
      root.querySelector(".position").textContent = `step ${index} / ${last} · ${game.where(step)}`;
      root.querySelector(".seats").innerHTML = game.seats(step, data);
      const who = step.seat >= 0 ? `<span class="swatch" style="background:${Board.colour(step.seat, names.length)}"></span>${esc(names[step.seat] || "neutral")}: ` : "";
      const note = step.note ? `<p class="note" title="the bot's annotation">💬 ${esc(step.note)}</p>` : "";
      const odds = step.odds ? `<p class="odds">${step.odds.method === "exact" ? "Exact odds" : "Odds"}: ${Board.oddsHtml(step.odds)}</p>` : "";
      root.querySelector(".step-body").innerHTML = `<p class="action">${who}${game.action(step, data)}</p>${odds}${note}`;
      const recent = [];
      for (let s = index; s >= 0 && recent.length < 40; s--) {
        for (const ev of [...steps[s].events].reverse()) {
          recent.push(`<li class="${s === index ? "current" : ""}" data-type="${ev.type}">${game.describe(ev, data)}</li>`);
        }
      }
      root.querySelector(".events").innerHTML = recent.slice(0, 40).join("");
      const x = (index / Math.max(1, last)) * 460;
      root.querySelectorAll(".chart .cursor").forEach((c) => { c.setAttribute("x1", x); c.setAttribute("x2", x); });
    }

    function turnStep(turn) {
      const found = steps.findIndex((s) => s.turn >= turn);
      return found < 0 ? last : found;
    }

    function play(on) {
      clearInterval(timer);
      timer = null;
      if (on) {
        if (index >= last) show(0);
        timer = setInterval(() => (index >= last ? play(false) : show(index + 1)), Number(root.querySelector(".speed").value));
      }
      const shown = timer ? "pause" : "play";
      playButton.innerHTML = icon(shown);
      playButton.setAttribute("aria-label", LABELS[shown]);
    }

    const moves = {
      first: () => show(0),
      last: () => show(last),
      prev: () => show(index - 1),
      next: () => show(index + 1),
      "prev-turn": () => {  // to this turn's start, or from there to the previous turn's
        const start = turnStep(steps[index].turn);
        show(start < index ? start : turnStep(steps[index].turn - 1));
      },
      "next-turn": () => show(turnStep(steps[index].turn + 1)),
      play: () => play(!timer),
    };
    root.querySelectorAll("[data-go]").forEach((b) => b.addEventListener("click", () => moves[b.dataset.go]()));
    seek.addEventListener("input", () => show(Number(seek.value)));
    turnInput.addEventListener("change", () => show(turnStep(Number(turnInput.value))));
    root.querySelector(".speed").addEventListener("change", () => timer && play(true));
    root.querySelectorAll(".chart svg").forEach((svg) => svg.addEventListener("click", (e) => {
      const box = svg.getBoundingClientRect();
      show(Math.round(((e.clientX - box.left) / box.width) * last));
    }));
    const keys = { " ": "play", ArrowLeft: "prev", ArrowRight: "next", PageUp: "prev-turn", PageDown: "next-turn", Home: "first", End: "last" };
    const onKey = (e) => {
      if (!root.isConnected) { document.removeEventListener("keydown", onKey); play(false); return; }
      if (e.target.matches("input, select, textarea") || !keys[e.key]) return;
      e.preventDefault();
      moves[keys[e.key]]();
    };
    document.addEventListener("keydown", onKey);
    show(0);
    return { show, play };
  }

  return { mount };
})();
