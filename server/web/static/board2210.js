// RISK 2210 A.D.: the Earth and the Moon as SVG from the board (Map2210 as JSON) and the dashboard's
// schematic layout (server/web/layout_2210.py), a board state being a spectator's Observation2210 as JSON
// (the live stream's, and each replay step's); the side panel (year, energy, cards by deck, bids), event
// lines and action lines. Shared by the dashboard and the standalone replay page.
"use strict";

const Board2210 = (() => {
  const { esc, colour, el } = Board;
  const KINDS = ["land", "water", "lunar"];
  const COMMANDERS = [["land", "La", "Land"], ["diplomat", "Di", "Diplomat"], ["naval", "Na", "Naval"],
    ["space", "Sp", "Space"], ["nuclear", "Nu", "Nuclear"]];
  const CONTINENT_TINTS = ["#f3efe6", "#eef3ea", "#eaeff5", "#f5ece8", "#efeaf3", "#eaf3f1"];
  const COLONY_TINTS = { water_colony: "#dcebf7", lunar_colony: "#e6e3dc" };

  const mods = (n) => `${n} MOD${n === 1 ? "" : "s"}`;
  const phaseName = (phase) => String(phase).replace("PHASE2210_", "").replace(/_/g, " ").toLowerCase();

  function canvas(size, name) {
    const svg = el("svg", { viewBox: `-12 -12 ${size.width + 24} ${size.height + 24}`, class: `board ${name}`, role: "img" });
    svg.setAttribute("aria-label", name === "earth" ? "the Earth board" : "the Moon board");
    return svg;
  }

  // Continents as tinted boxes (as the classic board's); water and lunar colonies as a tint behind each member.
  // A region's name goes where the layout says (server/web/layout_2210.py keeps the names apart), else at
  // the top left corner of its members; a continent's box reaches out to hold its name. Returns the names,
  // a group per canvas, to be drawn over the borders.
  function regions(map, layout, svgOf) {
    let continent = 0;
    const names = new Map();
    map.regions.forEach((region, index) => {
      const svg = svgOf(region.territories[0]);
      const xs = region.territories.map((t) => layout.positions[t][0]);
      const ys = region.territories.map((t) => layout.positions[t][1]);
      const [left, top] = [Math.min(...xs) - 32, Math.min(...ys) - 30];
      const [x, y] = layout.labels[index] || [left + 8, top + 13];
      const g = el("g", { class: `region ${region.kind}`, "data-region": region.name }, svg);
      if (region.kind === "continent") {
        const [x0, y0] = [Math.min(left, x - 8), Math.min(top, y - 13)];
        const [x1, y1] = [Math.max(...xs) + 32, Math.max(Math.max(...ys) + 40, y + 8)];
        el("rect", { x: x0, y: y0, width: x1 - x0, height: y1 - y0, rx: 18, fill: CONTINENT_TINTS[continent++ % 6], class: "continent" }, g);
      } else {
        region.territories.forEach((t) => el("circle", { cx: layout.positions[t][0], cy: layout.positions[t][1], r: 27, fill: COLONY_TINTS[region.kind] }, g));
      }
      if (!names.has(svg)) names.set(svg, el("g", { class: "region-names" }));
      const label = el("text", { x, y, class: `continent-name ${region.kind}`, "data-region": region.name }, names.get(svg));
      label.textContent = `${region.name} +${region.bonus_mods}`;
    });
    return names;
  }

  function borders(map, layout, svgOf) {
    const groups = new Map();
    const ts = map.territories;
    const width = layout.earth.width;
    ts.forEach((t, i) => {
      for (const n of t.neighbours) {
        if (n < i) continue;
        const svg = svgOf(i);
        if (!groups.has(svg)) groups.set(svg, el("g", { class: "borders" }, svg));
        const lines = groups.get(svg);
        const [a, b] = [layout.positions[i], layout.positions[n]];
        const line = t.kind === 0 && ts[n].kind === 0 ? (t.region === ts[n].region ? "land" : "sea") : KINDS[Math.max(t.kind, ts[n].kind)];
        if (Math.abs(a[0] - b[0]) > width / 2) { // across the edge of the world
          const [west, east] = a[0] < b[0] ? [a, b] : [b, a];
          el("line", { x1: west[0], y1: west[1], x2: -12, y2: west[1], class: line }, lines);
          el("line", { x1: east[0], y1: east[1], x2: width + 12, y2: east[1], class: line }, lines);
        } else {
          el("line", { x1: a[0], y1: a[1], x2: b[0], y2: b[1], class: line }, lines);
        }
      }
    });
  }

  const icon = (body) => `<svg viewBox="-12 -12 24 24" width="20" height="20" aria-hidden="true">${body}</svg>`;
  const LEGEND = `<div class="legend-2210"><h4>Key</h4><ul>
    <li>${icon('<circle r="9" fill="#fff" stroke="#222"/><text class="armies" dy="0.35em">3</text>')} MODs on a territory, in its owner's colour</li>
    <li>${icon('<circle r="9" fill="#505050"/><path d="M-5 -5L5 5M-5 5L5 -5" stroke="#fff" stroke-width="2.5"/>')} devastated: impassable all game</li>
    <li>${icon('<rect x="-5" y="-5" width="10" height="10" transform="rotate(45)" fill="#ccc" stroke="#000"/>')} a Space Station, in its owner's colour</li>
    <li><span class="commander-key">La Di Na Sp Nu</span> Land, Diplomat, Naval, Space and Nuclear Commanders</li>
    <li>${icon('<circle r="8" fill="#fff" stroke="#2f6f9f" stroke-width="2.4"/>')} water territory (dashed lines: water borders)</li>
    <li>${icon('<circle r="10" fill="none" stroke="#444" stroke-dasharray="3 2"/><circle r="6" fill="#fff" stroke="#222"/>')} lunar landing site, reached from a Space Station</li>
    </ul></div>`;

  // Draw the board into ``container``; ``names`` are the seats' (the neutral army after them). Returns
  // {update(observation), mark(source, target)}.
  function create(container, map, layout, names) {
    const players = names.length;
    const wrap = document.createElement("div");
    wrap.className = "boards-2210";
    const earth = canvas(layout.earth, "earth");
    const moon = canvas(layout.moon, "moon");
    const r = layout.moon.width / 2;
    el("circle", { cx: r, cy: layout.moon.height / 2, r: r + 4, class: "moon-disc" }, moon);
    el("text", { x: 0, y: 0, class: "board-title" }, moon).textContent = "Moon";
    const svgOf = (t) => (map.territories[t].kind === 2 ? moon : earth);
    const regionNames = regions(map, layout, svgOf);
    borders(map, layout, svgOf);
    regionNames.forEach((names, svg) => svg.appendChild(names));
    const sites = new Set(map.landing_sites);
    const nodes = map.territories.map((t, i) => {
      const [x, y] = layout.positions[i];
      const kind = KINDS[t.kind];
      const g = el("g", { class: `territory ${kind}`, "data-id": i, "data-kind": kind, transform: `translate(${x},${y})` }, svgOf(i));
      el("title", {}, g).textContent = `${t.name} (${kind}${sites.has(i) ? ", landing site" : ""})`;
      if (sites.has(i)) el("circle", { r: 20, class: "landing-site" }, g);
      const circle = el("circle", { r: 15 }, g);
      const ruin = el("g", { class: "devastation", visibility: "hidden" }, g);
      el("line", { x1: -9, y1: -9, x2: 9, y2: 9 }, ruin);
      el("line", { x1: -9, y1: 9, x2: 9, y2: -9 }, ruin);
      const count = el("text", { class: "armies", dy: "0.35em" }, g);
      const name = el("text", { class: "name", y: 27 }, g);
      (layout.names ? layout.names[i] : [t.name]).forEach((line, k) => {
        el("tspan", { x: 0, dy: k ? "1.1em" : 0 }, name).textContent = line;
      });
      const station = el("rect", { class: "station", x: 9, y: -21, width: 11, height: 11, transform: "rotate(45 14.5 -15.5)", visibility: "hidden" }, g);
      const stationTitle = el("title", {}, station);
      const commanders = el("g", { class: "commanders" }, g);
      return { g, circle, ruin, count, station, stationTitle, commanders };
    });
    container.appendChild(wrap);
    const below = document.createElement("div");
    below.className = "moon-row";
    below.append(moon);
    below.insertAdjacentHTML("beforeend", LEGEND);
    wrap.append(earth, below);

    function drawCommanders(observation) {
      const here = nodes.map(() => []);
      observation.commanders.forEach((t, k) => { if (t >= 0) here[t].push([Math.floor(k / 5), k % 5]); });
      nodes.forEach((node, t) => {
        node.commanders.replaceChildren();
        here[t].forEach(([seat, kind], j) => {
          const [key, code, name] = COMMANDERS[kind];
          const x = (j - (here[t].length - 1) / 2) * 17 - 8;
          const badge = el("g", { class: "commander", "data-commander": key, "data-seat": seat, transform: `translate(${x},-35)` }, node.commanders);
          el("title", {}, badge).textContent = `${names[seat] ?? "?"}'s ${name} Commander`;
          el("rect", { width: 16, height: 11, rx: 2, fill: colour(seat, players) }, badge);
          el("text", { x: 8, y: 8.5 }, badge).textContent = code;
        });
      });
    }

    return {
      svg: earth,
      update(observation) {
        const devastated = new Set(observation.devastated);
        nodes.forEach((node, i) => {
          const owner = observation.owners[i];
          const ruined = devastated.has(i);
          node.circle.setAttribute("fill", ruined ? "#505050" : colour(owner, players));
          node.count.textContent = ruined || owner < 0 ? "" : observation.mods[i];
          node.ruin.setAttribute("visibility", ruined ? "visible" : "hidden");
          node.g.classList.toggle("devastated", ruined);
          Object.assign(node.g.dataset, { owner, mods: observation.mods[i], devastated: ruined ? "1" : "0" });
          const station = observation.stations[i];
          node.g.dataset.station = station;
          node.station.setAttribute("visibility", station >= 0 ? "visible" : "hidden");
          node.station.setAttribute("fill", colour(station, players));
          node.stationTitle.textContent = station >= 0 ? `${names[station] ?? "?"}'s Space Station` : "";
        });
        drawCommanders(observation);
      },
      mark(source, target) {
        nodes.forEach((node, i) => node.g.classList.toggle("marked", i === source || i === target));
      },
    };
  }

  // ---------------------------------------------------------------- the side panel
  const seatHtml = (seat, names) => `<span class="seat" style="--seat:${colour(seat, names.length)}">${esc(seat >= 0 && seat < names.length ? names[seat] : seat < 0 ? "–" : "neutral")}</span>`;

  // Year and phase, every seat's territories, units, energy, bid, Turn Order marker, cards by deck and
  // stations, and the decks. ``hands``: card ids by seat when they may be shown (a finished game).
  function panel(observation, names, map, rules, hands) {
    const owners = names.length + (observation.owners.some((o) => o === names.length) ? 1 : 0);
    const territories = new Array(owners).fill(0);
    const units = new Array(owners).fill(0);
    observation.owners.forEach((o, t) => { if (o >= 0 && o < owners) { territories[o] += 1; units[o] += observation.mods[t]; } });
    observation.commanders.forEach((t, k) => { if (t >= 0) units[Math.floor(k / 5)] += 1; });
    const stations = new Array(owners).fill(0);
    observation.stations.forEach((s) => { if (s >= 0 && s < owners) stations[s] += 1; });
    const rows = territories.map((count, seat) => {
      const neutral = seat >= names.length;
      const marker = observation.order.indexOf(seat);
      const place = observation.places[seat] ? ` <span class="place">#${observation.places[seat]} · ${observation.scores[seat]} pts</span>` : "";
      const turn = seat === observation.turn_seat ? " ◀" : "";
      const counts = neutral ? [] : observation.card_counts.slice(seat * 5, seat * 5 + 5);
      const held = hands && hands[seat] ? hands[seat].map((c) => rules.cards[c]?.name ?? c).join(", ") : "";
      const cards = counts.map((n, d) => `<span class="deck" title="${COMMANDERS[d][2]}">${n}</span>`).join("");
      const bid = neutral || observation.bids[seat] < 0 ? "–" : observation.bids[seat];
      return `<tr data-seat="${seat}"><td title="${esc(neutral ? "neutral" : names[seat])}">${seatHtml(seat, names)}${place}${turn}</td><td class="num marker">${marker >= 0 ? marker + 1 : "–"}</td>` +
        `<td class="num">${count}</td><td class="num">${units[seat]}</td><td class="num energy">${neutral ? "–" : observation.energy[seat]}</td>` +
        `<td class="num bid">${bid}</td><td class="cards" title="${esc(held || "cards held by deck")}">${cards}</td><td class="num">${stations[seat]}</td></tr>`;
    }).join("");
    const decks = observation.command_deck_sizes.map((n, d) => `${COMMANDERS[d][2]} ${n}`).join(" · ");
    const [land, water, lunar] = observation.territory_deck_sizes;
    const year = observation.year ? `year <b class="year">${observation.year}</b> of ${rules.years}` : `<b class="year">setup</b>`;
    return `<p class="status-2210">${year} · <span class="phase">${phaseName(observation.phase)}</span>` +
      (observation.turn_seat >= 0 ? ` · turn of ${seatHtml(observation.turn_seat, names)}` : "") + `</p>
      <table class="players players-2210"><thead><tr><th>seat</th><th class="num" title="Turn Order marker">#</th><th class="num">terr.</th>
      <th class="num" title="MODs and commanders">units</th><th class="num">energy</th><th class="num" title="this year's bid, once revealed">bid</th>
      <th title="Command cards by deck: ${COMMANDERS.map((c) => c[2]).join(", ")}">cards</th>
      <th class="num" title="Space Stations">st.</th></tr></thead><tbody>${rows}</tbody></table>
      <p class="decks muted">Cards held by deck: ${COMMANDERS.map((c) => c[2]).join(" · ")}. Command decks: ${decks};
      territory decks: land ${land} · water ${water} · lunar ${lunar}</p>`;
  }

  // ---------------------------------------------------------------- event and action lines
  const commanderName = (k) => (COMMANDERS[k] ? COMMANDERS[k][2] : "?");

  // One event ({type, seat, data}) as HTML.
  function describe(ev, map, names, rules) {
    const d = ev.data || {};
    const t = (i) => (i >= 0 && map.territories[i] ? esc(map.territories[i].name) : "?");
    const p = (s) => seatHtml(s, names);
    const card = (c) => esc(rules.cards[c]?.name ?? `card ${c}`);
    const list = (ids) => (ids || []).map(t).join(", ");
    switch (ev.type) {
      case "devastated": return `${t(d.territory)} is <b>devastated</b>`;
      case "first_player_rolled": return `${p(ev.seat)} goes first`;
      case "claimed": return `${p(ev.seat)} claims ${t(d.territory)}`;
      case "placed": return `${p(ev.seat)} places ${mods(d.mods)} on ${t(d.territory)}`;
      case "neutral_placed": return `the neutral army places ${mods(d.mods)} on ${t(d.territory)}`;
      case "commanders_placed":
        return `${p(ev.seat)} places its Land Commander on ${t(d.land)}, its Diplomat on ${t(d.diplomat)} and a Space Station on ${t(d.station)}`;
      case "year_started": return `<b>year ${d.year}</b> begins`;
      case "bid": return `${p(ev.seat)} bids ${d.energy} energy`;
      case "bids_revealed": return `bids revealed: ${d.bids.map((b, s) => `${p(s)} ${b}`).join(", ")}`;
      case "bid_tie_rolled": return `tied bids rolled off: ${d.seats.map(p).join(", ")}`;
      case "marker_chosen": return `${p(ev.seat)} takes Turn Order marker ${d.marker}`;
      case "turn_started": return `<b>turn</b> of ${p(ev.seat)}: ${mods(d.mods)} and ${d.energy} energy (${d.territories} territories)`;
      case "hired": return `${p(ev.seat)} hires a ${commanderName(d.commander)} Commander on ${t(d.territory)}`;
      case "station_built": return `${p(ev.seat)} builds a Space Station on ${t(d.territory)}`;
      case "cards_bought": return `${p(ev.seat)} ${d.bonus ? "takes a bonus card" : "buys cards"}: ${d.counts.map((n, k) => (n ? `${n} ${commanderName(k)}` : "")).filter(Boolean).join(", ")}`;
      case "cards_drawn": return `${p(ev.seat)} draws ${d.cards.map(card).join(", ")}`;
      case "card_played": {
        const kind = String(d.kind || "");
        const on = kind.endsWith("frequency_jam") ? d.targets.map(p).join(", ")
          : kind.endsWith("assassin_bomb") ? d.targets.map((x) => `${p(Math.floor(x / 5))}'s ${commanderName(x % 5)} Commander`).join(", ")
            : list(d.targets);
        return `${p(ev.seat)} plays <b>${card(d.card)}</b>${on ? ` on ${on}` : ""}`;
      }
      case "declared": return `${p(ev.seat)} invades ${t(d.target)} from ${t(d.source)}`;
      case "rolled":
        return `${t(d.source)} → ${t(d.target)} ${d.attacker_dice.map((v, i) => `<span class="die attacker" title="d${d.attacker_faces[i]}">${v}</span>`).join("")} vs ` +
          `${d.defender_dice.map((v, i) => `<span class="die defender" title="d${d.defender_faces[i]}">${v}</span>`).join("")} <span class="losses">−${d.attacker_losses} / −${d.defender_losses}</span>`;
      case "lost": return `${p(ev.seat)} loses ${mods(d.mods)}${(d.commanders || []).length ? ` and its ${d.commanders.map(commanderName).join(", ")} Commander` : ""} on ${t(d.territory)}`;
      case "captured": return `${p(ev.seat)} takes ${t(d.territory)}${d.from >= 0 ? ` from ${p(d.from)}` : ""}`;
      case "occupied": case "fortified": case "decoys_moved": {
        const moved = [d.mods ? mods(d.mods) : "", ...(d.commanders || []).map((c) => `${commanderName(c)} Commander`)].filter(Boolean).join(", ");
        const verb = { occupied: "moves in", fortified: "fortifies", decoys_moved: "moves decoys" }[ev.type];
        return `${p(ev.seat)} ${verb} ${t(d.source)} → ${t(d.target)}: ${moved || "nothing"}`;
      }
      case "station_captured": return `${p(ev.seat)} captures the Space Station on ${t(d.territory)}`;
      case "station_destroyed": return `the Space Station on ${t(d.territory)} is destroyed`;
      case "commander_destroyed": return `${p(d.seat)}'s ${commanderName(d.commander)} Commander on ${t(d.territory)} is destroyed`;
      case "destroyed": return `${d.units} units of ${p(d.owner)} destroyed on ${t(d.territory)}`;
      case "mods_removed": return `${p(ev.seat)} loses MODs on ${list(d.territories)}`;
      case "scouts_landed": return `${p(ev.seat)}'s scouts land ${mods(d.mods)} on ${t(d.territory)}`;
      case "territory_card_drawn": return `territory card drawn: ${t(d.territory)}`;
      case "territory_bonus": case "card_energy": return `${p(ev.seat)} gains ${d.energy} energy`;
      case "card_rolled": return `${p(ev.seat)} rolls a d${d.faces}: ${d.roll}`;
      case "turn_ended": return `${p(ev.seat)} ends the turn`;
      case "eliminated": return `<b>${p(ev.seat)} is eliminated</b>${d.by >= 0 ? ` by ${p(d.by)}` : ""}`;
      case "game_ended": return `<b>game over</b> (${esc(d.reason)}), places ${d.places.join(", ")}, scores ${d.scores.join(", ")}`;
      default: return `${esc(ev.type.replace(/_/g, " "))}${ev.seat >= 0 ? ` (${p(ev.seat)})` : ""}`;
    }
  }

  // A GameEvent2210 as JSON ({sequence, kind, seat, data_json}) in the replay's shape.
  function normalize(message) {
    return { type: message.kind, seat: message.seat, sequence: Number(message.sequence), data: JSON.parse(message.data_json || "{}") };
  }

  // A replay step's action ([kind, field, ...], engine/r2210/replay.py) as text.
  function actionText(action, map, rules) {
    if (!action) return "setup";
    const [kind, ...f] = action;
    const t = (i) => (map.territories[i] ? esc(map.territories[i].name) : "?");
    const commanders = (cs) => cs.map(commanderName).join(", ");
    switch (kind) {
      case "claim": return `claim ${t(f[0])}`;
      case "place": return `place ${mods(f[1])} on ${t(f[0])}`;
      case "place_commanders": return `Land Commander on ${t(f[0])}, Diplomat on ${t(f[1])}, Space Station on ${t(f[2])}`;
      case "bid": return `bid ${f[0]} energy`;
      case "choose_marker": return `take Turn Order marker ${f[0]}`;
      case "hire": return `hire a ${commanderName(f[0])} Commander on ${t(f[1])}`;
      case "build_station": return `build a Space Station on ${t(f[0])}`;
      case "buy_cards": return `buy cards (${f[0].map((n, k) => `${commanderName(k)} ${n}`).join(", ")})`;
      case "take_card": return `take a ${commanderName(f[0])} card`;
      case "declare": return `invade ${t(f[1])} from ${t(f[0])}`;
      case "roll": return `roll ${f[0]} dice${f[1].length ? `, d8 for ${commanders(f[1])}` : ""}`;
      case "defend": return `defend with ${f[0]} dice`;
      case "lose": return `lose ${mods(f[0])}${f[1].length ? ` and ${commanders(f[1])}` : ""}`;
      case "remove": return `remove MODs from ${f[0].map(t).join(", ")}`;
      case "occupy": return `move in ${mods(f[0])}${f[1].length ? ` and ${commanders(f[1])}` : ""}`;
      case "fortify": return `move ${t(f[0])} → ${t(f[1])}: ${mods(f[2])}${f[3].length ? ` and ${commanders(f[3])}` : ""}`;
      case "play_card": return `play ${esc(rules.cards[f[0]]?.name ?? f[0])}`;
      case "end_phase": return "end the phase / pass";
      default: return esc(kind);
    }
  }

  return { create, panel, describe, normalize, actionText, phaseName };
})();
