// The dashboard's pages, routed by the URL's #fragment; data from the JSON API (server/dashboard.py).
"use strict";

(() => {
  const { esc } = Board;
  const view = document.getElementById("view");
  let leave = () => {}; // undoes the current page's timers and streams

  async function api(path) {
    const response = await fetch(path);
    const body = await response.json();
    if (!response.ok) throw new Error(body.error || response.statusText);
    return body;
  }

  const fmt = (x, digits = 2) => Number(x).toFixed(digits);
  const when = (ms) => (Number(ms) ? new Date(Number(ms)).toLocaleString() : "–");
  const botLink = (name) => `<a href="#/bot/${encodeURIComponent(name)}">${esc(name)}</a>`;
  const gameLink = (id, text) => `<a href="#/game/${encodeURIComponent(id)}">${esc(text || id)}</a>`;

  function sparkline(values) {
    if (values.length < 2) return "";
    const w = 110, h = 24, lo = Math.min(...values), hi = Math.max(...values), span = hi - lo || 1;
    const points = values.map((v, i) => `${(i / (values.length - 1)) * w},${h - 2 - ((v - lo) / span) * (h - 4)}`).join(" ");
    return `<svg class="sparkline" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" aria-label="rating history"><polyline points="${points}"/></svg>`;
  }

  function seatsCell(seats) {
    return seats.map((s) => `${botLink(s.name)}${s.place ? ` <span class="place">#${s.place}</span>` : ""}`).join(", ");
  }

  // ---------------------------------------------------------------- leaderboards (polled every 5 s)
  async function leaderboards() {
    view.innerHTML = `<h2>Leaderboards</h2><p class="muted">Ordered by μ − 3σ (OpenSkill); updates every 5 s.</p><div class="boards"></div>`;
    const boards = view.querySelector(".boards");
    async function refresh() {
      const { queues } = await api("/api/queues");
      const tables = await Promise.all(queues.map((q) => api(`/api/leaderboard?queue=${encodeURIComponent(q)}`).catch(() => null)));
      boards.innerHTML = tables.filter((t) => t && t.standings.length).map((t) => `
        <section class="leaderboard" data-queue="${esc(t.queue)}"><h3>${esc(t.queue)}</h3><table>
        <thead><tr><th class="num">rank</th><th>bot</th><th class="num">μ−3σ</th><th class="num">μ</th><th class="num">σ</th><th class="num">games</th>
        <th class="num">wins</th><th class="num">avg place</th><th class="num">timeouts</th><th class="num">forfeits</th><th>rating</th></tr></thead><tbody>
        ${t.standings.map((s) => `<tr><td class="num">${s.rank}</td><td>${botLink(s.bot)}</td><td class="num">${fmt(s.score)}</td>
          <td class="num">${fmt(s.mu)}</td><td class="num">${fmt(s.sigma)}</td><td class="num">${s.games}</td><td class="num">${s.wins}</td>
          <td class="num">${fmt(s.average_place)}</td><td class="num">${s.timeouts}</td><td class="num">${s.forfeits}</td><td>${sparkline(s.history)}</td></tr>`).join("")}
        </tbody></table></section>`).join("") || `<p class="muted">No rated games yet.</p>`;
    }
    await refresh();
    const timer = setInterval(() => refresh().catch(() => {}), 5000);
    leave = () => clearInterval(timer);
  }

  // ---------------------------------------------------------------- games with filters
  async function games(params) {
    const [{ queues }, { tournaments }] = await Promise.all([api("/api/queues"), api("/api/tournaments").catch(() => ({ tournaments: [] }))]);
    const queue = params.get("queue") || "";
    const bot = params.get("bot") || "";
    const tournament = params.get("tournament") || "";
    const tournamentQueues = new Set(tournaments.map((t) => t.queue));
    view.innerHTML = `<h2>Games</h2>
      <form class="filters"><label>queue <select name="queue"><option value="">all</option>
        ${queues.filter((q) => !tournamentQueues.has(q)).map((q) => `<option ${q === queue ? "selected" : ""}>${esc(q)}</option>`).join("")}</select></label>
        <label>tournament <select name="tournament"><option value="">any</option>
        ${tournaments.map((t) => `<option ${t.name === tournament ? "selected" : ""}>${esc(t.name)}</option>`).join("")}</select></label>
        <label>bot <input name="bot" value="${esc(bot)}" placeholder="any"></label><button>filter</button></form>
      <div class="lists"></div>`;
    view.querySelector("form").addEventListener("submit", (e) => {
      e.preventDefault();
      const form = new FormData(e.target);
      location.hash = `#/games?${new URLSearchParams([...form].filter(([, v]) => v))}`;
    });
    async function refresh() {
      const [data, cluster] = await Promise.all([api(`/api/games?${new URLSearchParams({ queue, bot, tournament })}`), api("/api/cluster")]);
      const clustered = cluster.replicas.length > 0;
      view.querySelector(".lists").innerHTML = `${clustered ? clusterPanel(cluster) : ""}
        <h3>Live <span class="badge">${data.live.length}</span></h3>
        ${data.live.length ? `<table class="live-games"><thead><tr><th>game</th><th>queue</th><th class="num">turn</th><th>players</th><th>started</th>${clustered ? "<th>replica</th>" : ""}</tr></thead><tbody>
          ${data.live.map((g) => `<tr><td>${gameLink(g.game_id, `watch ${g.game_id}`)}</td><td>${esc(g.queue)}</td><td class="num">${g.turn < 0 ? "–" : g.turn}</td>
          <td>${seatsCell(g.players)}</td><td>${when(g.started_at_ms)}</td>${clustered ? `<td class="host">${esc(g.host || "(handed over)")}${g.handovers ? ` <span class="muted">moved ${g.handovers}×</span>` : ""}</td>` : ""}</tr>`).join("")}</tbody></table>` : `<p class="muted">No game is being played.</p>`}
        <h3>Finished</h3>
        ${data.games.length ? `<table class="finished-games"><thead><tr><th>game</th><th>queue</th><th>finished</th><th class="num">turns</th><th>end</th><th>seats (place)</th></tr></thead><tbody>
          ${data.games.map((g) => `<tr><td>${gameLink(g.game_id)}</td><td>${esc(g.queue)}${g.rated ? "" : " (unrated)"}</td><td>${when(g.finished_at_ms)}</td>
          <td class="num">${g.turns}</td><td>${esc(g.reason)}</td><td>${seatsCell(g.seats)}</td></tr>`).join("")}</tbody></table>` : `<p class="muted">No finished games.</p>`}`;
    }
    await refresh();
    const timer = setInterval(() => refresh().catch(() => {}), 5000);
    leave = () => clearInterval(timer);
  }

  // The replicas of a cluster (server.cluster): each one's games, alive or presumed dead, the lease holder,
  // and what each did for the others (since its process started), with the cluster's totals since its
  // database was created (replicas gone included).
  const countCells = (c) => `<td class="num">${c.games_handed_over}</td><td class="num">${c.games_taken_over}</td>
    <td class="num">${c.relayed_decisions_played}</td><td class="num">${c.relayed_decisions_sent}</td>`;
  function clusterPanel(cluster) {
    return `<h3>Cluster <span class="badge">${cluster.replicas.filter((r) => r.alive).length} alive</span></h3>
      <table class="cluster"><thead><tr><th>replica</th><th class="num">games</th><th class="num">handed over</th><th class="num">taken over</th>
        <th class="num">relayed decisions played</th><th class="num">relayed decisions sent</th><th>state</th></tr></thead><tbody>
      ${cluster.replicas.map((r) => `<tr data-replica="${esc(r.id)}"><td>${esc(r.id)}${r.id === cluster.replica ? " <span class=\"muted\">(this dashboard's)</span>" : ""}</td>
        <td class="num">${r.games}</td>${countCells(r.counts)}<td>${r.alive ? "alive" : "presumed dead"}${r.lease_holder ? " · matchmaker lease" : ""}</td></tr>`).join("")}</tbody>
      <tfoot><tr class="totals"><td>cluster total <span class="muted">(since the database was created)</span></td><td></td>${countCells(cluster.totals)}<td></td></tr></tfoot></table>
      <p class="muted handed-over">${cluster.handed_over.length} running game(s) changed replica (taken over or handed over).</p>`;
  }

  // ---------------------------------------------------------------- a game: live stream, else its replay
  function game(id) {
    view.innerHTML = `<p class="muted">Connecting to game ${esc(id)}…</p>`;
    const stream = new EventSource(`/api/games/${encodeURIComponent(id)}/watch`);
    leave = () => stream.close();
    let live = null;
    stream.addEventListener("snapshot", (e) => {
      const snapshot = JSON.parse(e.data);
      live = snapshot.r2210 ? startLive2210(snapshot) : startLive(snapshot);
    });
    stream.addEventListener("events", (e) => live && live.events(JSON.parse(e.data).events));
    stream.addEventListener("events_2210", (e) => live && live.update(JSON.parse(e.data)));
    stream.addEventListener("game_over", (e) => { stream.close(); live && live.over(JSON.parse(e.data)); });
    stream.addEventListener("finished", () => { stream.close(); replay(id); });
    stream.addEventListener("missing", (e) => { stream.close(); view.innerHTML = `<p class="error">${esc(JSON.parse(e.data).error)}</p>`; });
    stream.addEventListener("moving", (e) => { stream.close(); view.innerHTML = `<p class="error moving">${esc(JSON.parse(e.data).error)}</p>`; });
    // A refused stream (429: too many live games followed from this address; 503: the dashboard is full or
    // the game server does not answer) ends the EventSource for good; a dropped one reconnects instead.
    stream.addEventListener("error", () => {
      if (stream.readyState === EventSource.CLOSED && !live) {
        view.innerHTML = `<p class="error refused">This live game cannot be followed now: too many live games are open from your address (close another page following one), or the dashboard is busy. Reload the page to try again.</p>`;
      }
    });
  }

  async function replay(id) {
    view.innerHTML = `<p class="muted">Loading the replay of ${esc(id)}…</p>`;
    try {
      ReplayViewer.mount(view, await api(`/api/games/${encodeURIComponent(id)}/replay`));
    } catch (error) {
      view.innerHTML = `<p class="error">${esc(error.message)}</p>`;
    }
  }

  function startLive(snapshot) {
    const names = snapshot.players.map((p) => p.name);
    const obs = snapshot.observation;
    const state = {
      owners: [...obs.owners], armies: [...obs.armies], hand_sizes: [...obs.hand_sizes], turn: obs.turn, seats: names.length,
      turn_seat: obs.turn > 0 ? obs.turn_seat : obs.to_act, // before the first turn the engine's turn_seat stays 0
      reinforcements: obs.reinforcements, phase: obs.phase.replace("PHASE_", "").replace("_", " ").toLowerCase(), places: [],
    };
    const owners = obs.statuses.length;
    view.innerHTML = `<header class="game-head"><h2>Game ${esc(snapshot.game_id)} <span class="badge live">LIVE</span></h2>
      <p>${esc(snapshot.queue)} · rules ${esc(snapshot.rules.preset)} · only public information is shown while the game runs</p></header>
      <div class="status"><span>turn <b class="turn"></b></span><span>phase <b class="phase"></b></span><span>turn of <b class="whose"></b></span></div>
      <div class="game-body"><div class="board-wrap"></div><aside class="side">
        <table class="players"><thead><tr><th>seat</th><th>terr.</th><th>armies</th><th>cards</th></tr></thead><tbody></tbody></table>
        <section><h3>Latest attack</h3><p class="odds muted">none yet</p></section>
        <section class="log"><h3>Events</h3><ol class="events"></ol></section></aside></div>`;
    const board = Board.create(view.querySelector(".board-wrap"), snapshot.map, names.length);
    const log = view.querySelector(".events");
    let attack = "";
    let wanted = null, asking = null; // the odds to ask for next; the request in flight
    const seatHtml = (s) => `<span class="seat" style="--seat:${Board.colour(s, names.length)}">${esc(names[s] || "neutral")}</span>`;
    function render() {
      board.update(state.owners, state.armies);
      view.querySelector(".turn").textContent = state.turn;
      view.querySelector(".phase").textContent = state.phase;
      view.querySelector(".whose").innerHTML = seatHtml(state.turn_seat);
      const sums = Board.totals(state.owners, state.armies, owners);
      view.querySelector(".players tbody").innerHTML = sums.territories.map((count, seat) =>
        `<tr><td>${seatHtml(seat)}${state.places[seat] ? ` <span class="place">#${state.places[seat]}</span>` : ""}</td><td>${count}</td>` +
        `<td>${sums.armies[seat]}</td><td>${state.hand_sizes[seat] ?? 0}</td></tr>`).join("");
      view.dataset.turn = state.turn;
    }
    function showOdds(source, target, attackers, defenders) {
      const key = `${source}-${target}`;
      if (key === attack || attackers < 2) return;
      attack = key;
      const [s, t] = [snapshot.map.territories[source].name, snapshot.map.territories[target].name];
      wanted = { label: `${esc(s)} → ${esc(t)}`, query: `attackers=${attackers}&defenders=${defenders}&repeat_until=1` };
      if (!asking) askOdds();
    }
    // One odds request at a time per viewer, for the latest attack: a fast game's attacks would otherwise
    // fill the dashboard's few heavy-work slots and be refused (503).
    function askOdds() {
      const { label, query } = wanted;
      wanted = null;
      asking = api(`/api/odds?${query}`).then((odds) => {
        view.querySelector(".odds").innerHTML = `${label}: ${Board.oddsHtml(odds)}`;
      }).catch(() => {}).finally(() => {
        asking = null;
        if (wanted) askOdds();
      });
    }
    render();
    return {
      events(batch) {
        const items = [];
        for (const message of batch) {
          const ev = Board.normalize(message);
          if (ev.type === "rolled") showOdds(ev.source, ev.target, state.armies[ev.source], state.armies[ev.target]);
          if (ev.type === "turn_started") attack = "";
          Board.apply(state, ev, snapshot.rules.territory_bonus);
          board.mark(ev.type === "rolled" ? ev.source : -1, ev.type === "rolled" ? ev.target : -1);
          items.push(`<li data-type="${ev.type}">${Board.describe(ev, snapshot.map, names)}</li>`);
        }
        log.insertAdjacentHTML("afterbegin", items.reverse().join(""));
        while (log.children.length > 200) log.lastElementChild.remove();
        render();
      },
      over: (result) => gameOver(snapshot, log, result),
    };
  }

  // The end of a live game: its result in the log, with a link to its replay.
  function gameOver(snapshot, log, result) {
    view.querySelector(".badge").textContent = "OVER";
    view.querySelector(".badge").classList.add("over");
    log.insertAdjacentHTML("afterbegin", `<li><b>Game over</b> (${esc(result.reason)}): ${result.results.map((r) => `${r.place}. ${esc(r.name)}`).join(" · ")}
      — ${gameLink(snapshot.game_id, "open the replay")}</li>`);
    view.dataset.over = "1";
  }

  // A live RISK 2210 A.D. game: the stream sends each action's public events with the board after them
  // (WatchEvents2210), so the page only draws; the board is redrawn once a frame at most.
  function startLive2210(snapshot) {
    const names = snapshot.players.map((p) => p.name);
    const { rules, map, layout } = snapshot.r2210;
    view.innerHTML = `<header class="game-head"><h2>Game ${esc(snapshot.game_id)} <span class="badge live">LIVE</span></h2>
      <p>${esc(snapshot.queue)} · rules ${esc(rules.preset)} · only public information is shown while the game runs</p></header>
      <div class="game-body"><div class="board-wrap"></div><aside class="side"><div class="seats"></div>
        <section class="log"><h3>Events</h3><ol class="events"></ol></section></aside></div>`;
    const board = Board2210.create(view.querySelector(".board-wrap"), map, layout, names);
    const log = view.querySelector(".events");
    let shown = snapshot.r2210.observation;
    let drawing = false;
    function render() {
      drawing = false;
      board.update(shown);
      board.mark(shown.pending_source, shown.pending_target);
      view.querySelector(".seats").innerHTML = Board2210.panel(shown, names, map, rules, null);
      view.dataset.year = shown.year;
    }
    render();
    return {
      update(message) {
        const items = message.events.map((m) => {
          const ev = Board2210.normalize(m);
          return `<li data-type="${ev.type}">${Board2210.describe(ev, map, names, rules)}</li>`;
        });
        log.insertAdjacentHTML("afterbegin", items.reverse().join(""));
        while (log.children.length > 200) log.lastElementChild.remove();
        shown = message.observation;
        if (!drawing) {
          drawing = true;
          requestAnimationFrame(() => drawing && render());
        }
      },
      over(result) {
        if (drawing) render(); // the last board before the result
        gameOver(snapshot, log, result);
      },
    };
  }

  // ---------------------------------------------------------------- a bot
  const duration = (ms) => (ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`);

  // One phase's decision round trips (GetBotStats' PhaseRoundTrips) as a bar per bucket; ``bounds`` in ms.
  function roundTripChart({ phase, decisions, counts }, bounds) {
    const bar = 14, gap = 2, h = 70, top = Math.max(...counts.map(Number), 1);
    const w = counts.length * (bar + gap);
    const label = (i) => (i < bounds.length ? `≤ ${duration(bounds[i])}` : `> ${duration(bounds[bounds.length - 1])}`);
    const bars = counts.map((c, i) => {
      const height = (Number(c) / top) * h;
      return `<rect x="${i * (bar + gap)}" y="${h - height}" width="${bar}" height="${height}" data-count="${c}"><title>${label(i)}: ${c}</title></rect>`;
    }).join("");
    const ticks = [0, 3, 6, 9, 12, counts.length - 1].filter((i) => i < counts.length).map((i) =>
      `<text x="${i * (bar + gap) + bar / 2}" y="${h + 12}">${i < bounds.length ? duration(bounds[i]).replace(" ", "") : `>${duration(bounds[bounds.length - 1]).replace(" ", "")}`}</text>`).join("");
    const name = phase.replace(/_/g, " ");
    const spoken = counts.map((c, i) => (Number(c) ? `${label(i)}: ${c}` : "")).filter(Boolean).join("; ");
    return `<figure class="round-trips" data-phase="${esc(phase)}" data-decisions="${decisions}">
      <figcaption>${esc(name)} · ${decisions} decisions</figcaption>
      <svg width="${w + 16}" height="${h + 16}" viewBox="-8 -1 ${w + 16} ${h + 17}" role="img" aria-label="${esc(`${name} round trips: ${spoken}`)}"><line class="axis" x1="0" y1="${h}" x2="${w}" y2="${h}"/>${bars}${ticks}</svg></figure>`;
  }

  function decisionStats(stats) {
    if (!stats) return `<p class="muted">Recorded for registered bots only.</p>`;
    const bounds = stats.bucket_bounds_ms.map(Number);
    return `<p class="decision-totals">Over ${stats.games} recorded games: <b class="decisions">${stats.decisions}</b> decisions answered ·
      <b class="timeouts">${stats.timeouts}</b> timeouts · <b class="rejections">${stats.rejections}</b> rejected decisions ·
      <b class="crashes">${stats.crashes}</b> crashes (its stream dropped while it held a seat)</p>
      <p class="muted">Round trip: from the server sending a DecisionRequest to receiving the decision it applied; each bar counts the decisions that took at most its bound (the last: longer than every bound).</p>
      ${stats.phases.length ? `<div class="latency">${stats.phases.map((p) => roundTripChart(p, bounds)).join("")}</div>` : `<p class="muted">No answered decisions recorded.</p>`}`;
  }

  async function bot(name) {
    const data = await api(`/api/bots/${encodeURIComponent(name)}`);
    const t = data.totals;
    const charts = Object.entries(data.ratings).map(([queue, changes]) => {
      const scores = changes.map((c) => c.mu_after - 3 * c.sigma_after);
      const places = changes.map((c) => c.place).join(" ");
      return `<tr><td>${esc(queue)}</td><td class="num">${changes.length}</td><td>${sparkline(scores)}</td>
        <td class="num">${scores.length ? fmt(scores[scores.length - 1]) : "–"}</td><td class="muted">${esc(places)}</td></tr>`;
    }).join("");
    view.innerHTML = `<h2>${esc(name)}</h2>
      <p class="muted">${data.bot ? `registered ${when(data.bot.created_at_ms)}${Number(data.bot.revoked_at_ms) ? " · revoked" : ""}` : "practice name (not registered)"}</p>
      <p>${t.games} games · ${t.wins} wins · ${t.forfeits} forfeits</p>
      <h3>Results over time</h3>${charts ? `<table><thead><tr><th>queue</th><th class="num">rated games</th><th>μ−3σ after each game</th><th class="num">now</th><th>places, oldest first</th></tr></thead><tbody>${charts}</tbody></table>` : `<p class="muted">No rated games.</p>`}
      <h3>Head to head</h3>${data.head_to_head.length ? `<table class="h2h"><thead><tr><th>opponent</th><th class="num">games together</th><th class="num">placed ahead</th><th class="num">behind</th><th class="num">level</th></tr></thead><tbody>
        ${data.head_to_head.map((r) => `<tr><td>${botLink(r.opponent)}</td><td class="num">${r.games}</td><td class="num">${r.ahead}</td><td class="num">${r.behind}</td><td class="num">${r.level}</td></tr>`).join("")}</tbody></table>` : `<p class="muted">No games.</p>`}
      <h3>Decisions: round trips by phase, timeouts, rejections, crashes</h3>${decisionStats(data.stats)}
      <h3>Recent games</h3><table><thead><tr><th>game</th><th>queue</th><th>finished</th><th>seats (place)</th></tr></thead><tbody>
        ${data.games.map((g) => `<tr><td>${gameLink(g.game_id)}</td><td>${esc(g.queue)}</td><td>${when(g.finished_at_ms)}</td><td>${seatsCell(g.seats)}</td></tr>`).join("")}</tbody></table>`;
  }

  // ---------------------------------------------------------------- tournaments (docs/tournaments.md)
  const FORMATS = { TOURNAMENT_FORMAT_ROUND_ROBIN: "round robin", TOURNAMENT_FORMAT_SWISS: "Swiss", TOURNAMENT_FORMAT_SINGLE_ELIMINATION: "single elimination" };
  const tournamentLink = (name) => `<a href="#/tournament/${encodeURIComponent(name)}">${esc(name)}</a>`;
  const progress = (t) => (Number(t.finished_at_ms) ? `finished ${when(t.finished_at_ms)}` : `round ${t.current_round} being played`);

  async function tournaments() {
    view.innerHTML = `<h2>Tournaments</h2><div class="tournament-list"></div>`;
    async function refresh() {
      const data = await api("/api/tournaments");
      view.querySelector(".tournament-list").innerHTML = data.tournaments.length ? `<table class="tournaments"><thead><tr><th>tournament</th><th>format</th>
        <th>rules</th><th class="num">seats</th><th class="num">entrants</th><th>created</th><th>state</th></tr></thead><tbody>
        ${data.tournaments.map((t) => `<tr><td>${tournamentLink(t.name)}</td><td>${FORMATS[t.format] || esc(t.format)}</td><td>${esc(t.rules)}</td>
          <td class="num">${t.table_size}</td><td class="num">${t.entrants}</td><td>${when(t.created_at_ms)}</td><td>${progress(t)}</td></tr>`).join("")}
        </tbody></table>` : `<p class="muted">No tournaments yet (conquest tournament create, docs/tournaments.md).</p>`;
    }
    await refresh();
    const timer = setInterval(() => refresh().catch(() => {}), 5000);
    leave = () => clearInterval(timer);
  }

  // A table's seats with their places (best first once played), and its game: the replay, the live game, or why there is none.
  function tableCells(table) {
    if (table.bots.length === 1) return { seats: botLink(table.bots[0]), game: `<span class="muted">bye</span>` };
    const order = table.bots.map((name, seat) => ({ name, place: table.places[seat] })).sort((a, b) => (a.place || 0) - (b.place || 0));
    const seats = order.map((s) => `${botLink(s.name)}${s.place ? ` <span class="place">#${s.place}</span>` : ""}`).join(", ");
    const game = table.game_id ? gameLink(table.game_id, "replay")
      : table.live_game_id ? `<span class="badge live">LIVE</span> ${gameLink(table.live_game_id, "watch")}` : `<span class="muted">waiting for its bots</span>`;
    return { seats, game };
  }

  // Single elimination: one column per round; at a played table, whoever was not knocked out in that round went on.
  function bracket(t) {
    const out = new Map(t.standings.map((s) => [s.bot, s.eliminated_in]));
    const done = Number(t.finished_at_ms) > 0;
    return `<div class="bracket">${t.rounds.map((r) => `<div class="bracket-round"><h4>Round ${r.round}</h4>
      ${r.tables.map((table) => {
        const played = table.bots.length === 1 || table.game_id;
        return `<div class="match" data-round="${r.round}" data-table="${table.number}">${table.bots.map((name, seat) => {
          const on = played && out.get(name) !== r.round;
          const champion = done && on && r.round === t.rounds.length;
          return `<div class="entrant${on ? " advanced" : ""}${played && !on ? " out" : ""}${champion ? " champion" : ""}">${botLink(name)}
            ${table.places[seat] ? `<span class="place">#${table.places[seat]}</span>` : table.bots.length === 1 ? `<span class="place">bye</span>` : ""}</div>`;
        }).join("")}${table.game_id ? `<div class="match-game">${gameLink(table.game_id, "replay")}</div>` : table.live_game_id ? `<div class="match-game">${gameLink(table.live_game_id, "watch live")}</div>` : ""}</div>`;
      }).join("")}</div>`).join("")}</div>`;
  }

  async function tournament(name) {
    view.innerHTML = `<p class="muted">Loading tournament ${esc(name)}…</p>`;
    async function refresh() {
      const { tournament: t } = await api(`/api/tournaments/${encodeURIComponent(name)}`);
      const elimination = t.format === "TOURNAMENT_FORMAT_SINGLE_ELIMINATION";
      view.innerHTML = `<h2>${esc(t.name)}</h2>
        <p class="muted">${FORMATS[t.format] || esc(t.format)} · rules ${esc(t.rules)} · tables of ${t.table_size} · ${t.entrants} entrants
          ${t.planned_rounds ? ` · ${t.planned_rounds} rounds` : ""} · ${progress(t)} · <a href="#/games?tournament=${encodeURIComponent(t.name)}">its games</a></p>
        <h3>Standings</h3><p class="muted">Ranked by ${elimination ? "the round reached, then " : ""}score, then Buchholz, head-to-head and starting rating (docs/tournaments.md).</p>
        <table class="standings"><thead><tr><th class="num">rank</th><th>bot</th><th class="num">seed</th><th class="num">score</th><th class="num">games</th>
          <th class="num">byes</th><th class="num">Buchholz</th><th class="num">head-to-head</th><th class="num">rating</th>${elimination ? `<th>knocked out</th>` : ""}</tr></thead><tbody>
        ${t.standings.map((s) => `<tr data-bot="${esc(s.bot)}"><td class="num">${s.rank}</td><td>${botLink(s.bot)}</td><td class="num">${s.seed}</td><td class="num score">${fmt(s.score)}</td>
          <td class="num">${s.games}</td><td class="num">${s.byes}</td><td class="num">${fmt(s.buchholz)}</td><td class="num">${fmt(s.head_to_head)}</td>
          <td class="num">${fmt(s.rating)}</td>${elimination ? `<td>${s.eliminated_in ? `round ${s.eliminated_in}` : Number(t.finished_at_ms) ? "winner" : "still in"}</td>` : ""}</tr>`).join("")}</tbody></table>
        ${elimination ? `<h3>Bracket</h3>${bracket(t)}` : ""}
        <h3>Rounds</h3>${t.rounds.map((r) => `<section class="round" data-round="${r.round}"><h4>Round ${r.round}</h4>
          <table><thead><tr><th class="num">table</th><th>seats (place)</th><th>game</th></tr></thead><tbody>
          ${r.tables.map((table) => { const c = tableCells(table); return `<tr><td class="num">${table.number}</td><td>${c.seats}</td><td>${c.game}</td></tr>`; }).join("")}
          </tbody></table></section>`).join("")}`;
      view.dataset.finished = Number(t.finished_at_ms) ? "1" : "0";
      return Number(t.finished_at_ms) > 0;
    }
    if (await refresh()) return;
    const timer = setInterval(() => refresh().then((over) => over && clearInterval(timer)).catch(() => {}), 3000);
    leave = () => clearInterval(timer);
  }

  // ---------------------------------------------------------------- the odds calculator
  function odds() {
    view.innerHTML = `<h2>Battle odds</h2><p class="muted">Computed from the dice rules (engine/odds.py), not simulated: exact up to 20 against 20, to about 15 digits up to 200 against 200, estimated beyond.</p>
      <form class="filters odds-form"><label>attacking armies <input name="attackers" type="number" min="2" value="10"></label>
      <label>defending armies <input name="defenders" type="number" min="1" value="5"></label>
      <label>roll on until <input name="repeat_until" type="number" min="0" value="1"> left (0: one roll of 3 dice)</label><button>compute</button></form>
      <p class="odds-result"></p>`;
    const form = view.querySelector("form");
    async function compute() {
      const query = new URLSearchParams(new FormData(form));
      try {
        view.querySelector(".odds-result").innerHTML = Board.oddsHtml(await api(`/api/odds?${query}`));
      } catch (error) {
        view.querySelector(".odds-result").innerHTML = `<span class="error">${esc(error.message)}</span>`;
      }
    }
    form.addEventListener("submit", (e) => { e.preventDefault(); compute(); });
    compute();
  }

  async function route() {
    leave();
    leave = () => {};
    const [path, query] = location.hash.replace(/^#/, "").split("?");
    const params = new URLSearchParams(query || "");
    const parts = (path || "/").split("/").filter(Boolean).map(decodeURIComponent);
    try {
      if (parts[0] === "games") await games(params);
      else if (parts[0] === "game" && parts[1]) game(parts[1]);
      else if (parts[0] === "bot" && parts[1]) await bot(parts[1]);
      else if (parts[0] === "tournaments") await tournaments();
      else if (parts[0] === "tournament" && parts[1]) await tournament(parts[1]);
      else if (parts[0] === "odds") odds();
      else await leaderboards();
    } catch (error) {
      view.innerHTML = `<p class="error">${esc(error.message)}</p>`;
    }
  }

  window.addEventListener("hashchange", route);
  route();
})();
