// The board as SVG from the map's layout (MapInfo as JSON), event descriptions with dice, and the live
// view's event reducer. Shared by the dashboard and the standalone replay page (no server needed).
"use strict";

const Board = (() => {
  // Okabe–Ito: distinguishable with every common colour-vision deficiency; grey is the neutral army.
  const PALETTE = ["#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7"];
  const NEUTRAL = "#B8B8B8";
  const CONTINENT_TINTS = ["#f3efe6", "#eef3ea", "#eaeff5", "#f5ece8", "#efeaf3", "#eaf3f1"];
  const SVG = "http://www.w3.org/2000/svg";

  const esc = (text) =>
    String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

  function colour(owner, players) {
    if (owner < 0) return "#ffffff";
    return owner >= players ? NEUTRAL : PALETTE[owner % PALETTE.length];
  }

  function el(name, attrs, parent) {
    const node = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (parent) parent.appendChild(node);
    return node;
  }

  // Draw ``map`` into ``container``; returns {update(owners, armies), mark(source, target)}.
  function create(container, map, players) {
    const width = map.width || 1000;
    const height = map.height || 560;
    const svg = el("svg", { viewBox: `-10 -10 ${width + 20} ${height + 20}`, class: "board", role: "img" });
    svg.setAttribute("aria-label", `${map.name} board`);
    const ts = map.territories;
    map.continents.forEach((c, i) => {
      const xs = c.territories.map((t) => ts[t].x);
      const ys = c.territories.map((t) => ts[t].y);
      const [x0, y0] = [Math.min(...xs) - 34, Math.min(...ys) - 28];
      const [x1, y1] = [Math.max(...xs) + 34, Math.max(...ys) + 40];
      el("rect", { x: x0, y: y0, width: x1 - x0, height: y1 - y0, rx: 18, fill: CONTINENT_TINTS[i % 6], class: "continent" }, svg);
      const label = el("text", { x: x0 + 8, y: y0 + 13, class: "continent-name" }, svg);
      label.textContent = `${c.name} +${c.bonus}`;
    });
    const lines = el("g", { class: "borders" }, svg);
    ts.forEach((t, i) => {
      for (const n of t.neighbours) {
        if (n < i) continue;
        const u = ts[n];
        if (Math.abs(t.x - u.x) > width / 2) { // a sea line around the back of the world
          const [west, east] = t.x < u.x ? [t, u] : [u, t];
          el("line", { x1: west.x, y1: west.y, x2: -10, y2: west.y, class: "sea" }, lines);
          el("line", { x1: east.x, y1: east.y, x2: width + 10, y2: east.y, class: "sea" }, lines);
        } else {
          el("line", { x1: t.x, y1: t.y, x2: u.x, y2: u.y, class: t.continent === u.continent ? "land" : "sea" }, lines);
        }
      }
    });
    const arrow = el("line", { class: "attack-arrow", visibility: "hidden" }, svg);
    const nodes = ts.map((t, i) => {
      const g = el("g", { class: "territory", "data-id": i, transform: `translate(${t.x},${t.y})` }, svg);
      el("title", {}, g).textContent = t.name;
      const circle = el("circle", { r: 16 }, g);
      const count = el("text", { class: "armies", dy: "0.35em" }, g);
      el("text", { class: "name", y: 28 }, g).textContent = t.name;
      return { g, circle, count };
    });
    container.appendChild(svg);
    return {
      svg,
      update(owners, armies) {
        nodes.forEach((node, i) => {
          node.circle.setAttribute("fill", colour(owners[i], players));
          node.count.textContent = owners[i] < 0 ? "" : armies[i];
          node.g.dataset.owner = owners[i];
          node.g.dataset.armies = armies[i];
        });
      },
      mark(source, target) {
        nodes.forEach((node, i) => node.g.classList.toggle("marked", i === source || i === target));
        if (source >= 0 && target >= 0 && Math.abs(ts[source].x - ts[target].x) <= width / 2) {
          const [a, b] = [ts[source], ts[target]];
          for (const [k, v] of Object.entries({ x1: a.x, y1: a.y, x2: b.x, y2: b.y })) arrow.setAttribute(k, v);
          arrow.setAttribute("visibility", "visible");
        } else {
          arrow.setAttribute("visibility", "hidden");
        }
      },
    };
  }

  function diceHtml(values, side) {
    return values.map((v) => `<span class="die ${side}" title="${side} die">${v}</span>`).join("");
  }

  // One event ({type, ...fields}) as HTML; ``names`` are the seats' names (the neutral army after them).
  function describe(ev, map, names) {
    const t = (i) => (i >= 0 && map.territories[i] ? esc(map.territories[i].name) : "?");
    const p = (s) => {
      const name = s >= 0 && s < names.length ? names[s] : "neutral";
      return `<span class="seat" style="--seat:${colour(s, names.length)}">${esc(name)}</span>`;
    };
    switch (ev.type) {
      case "first_player_rolled": return `${p(ev.seat)} goes first`;
      case "dealt": return "territories dealt";
      case "claimed": return `${p(ev.seat)} claims ${t(ev.territory)}`;
      case "placed": return `${p(ev.seat)} places ${ev.armies} on ${t(ev.territory)}`;
      case "turn_started":
        return `<b>turn ${ev.turn}</b>: ${p(ev.seat)} gets ${ev.territory_armies} + ${ev.continent_armies} (continents)`;
      case "traded": {
        const bonus = ev.bonus_territory >= 0 ? `, bonus on ${t(ev.bonus_territory)}` : "";
        const cards = ev.cards.every((c) => c >= 0) ? ` [${ev.cards.map((c) => cardName(c, map)).join(", ")}]` : "";
        return `${p(ev.seat)} trades cards${cards} for ${ev.armies}${bonus}`;
      }
      case "rolled":
        return `${t(ev.source)} → ${t(ev.target)} ${diceHtml(ev.attacker_dice, "attacker")} vs ` +
          `${diceHtml(ev.defender_dice, "defender")} <span class="losses">−${ev.attacker_losses} / −${ev.defender_losses}</span>`;
      case "captured": return `${p(ev.seat)} captures ${t(ev.target)} from ${p(ev.previous_owner)}`;
      case "occupied": return `${ev.armies} move into ${t(ev.target)}`;
      case "eliminated": return `<b>${p(ev.seat)} is eliminated</b> by ${p(ev.by)}`;
      case "cards_taken": return `${p(ev.seat)} takes ${ev.cards.length} cards`;
      case "drew": return `${p(ev.seat)} draws ${ev.card >= 0 ? cardName(ev.card, map) : "a card"}`;
      case "fortified": return `fortify ${t(ev.source)} → ${t(ev.target)}: ${ev.armies}`;
      case "turn_ended": return `${p(ev.seat)} ends the turn`;
      case "game_ended": return `<b>game over</b> (${esc(ev.reason)}), places ${ev.places.join(", ")}`;
      default: return esc(ev.type.replace(/_/g, " "));
    }
  }

  function cardName(card, map) {
    const territory = map.territories[card];
    if (!territory) return "wild";
    const design = String(territory.card_design || "").replace("CARD_DESIGN_", "").toLowerCase();
    return `${territory.name} (${design})`;
  }

  // A GameEvent as JSON ({sequence, rolled: {...}}) in the replay's shape ({type: "rolled", ...}).
  function normalize(message) {
    const type = Object.keys(message).find((k) => k !== "sequence");
    return { type, sequence: Number(message.sequence), ...message[type] };
  }

  // The live view's board after ``ev`` (the engine's events say every change; see engine/events.py).
  // ``view.turn_seat`` is whose move it is: the turn's seat, and before the first turn (where the engine's
  // stays at 0) the seat that made the latest setup move (``view.seats``: how many seats play; a placement
  // on the neutral army's territory is its placer's move, so it changes nothing).
  function apply(view, ev, territoryBonus) {
    const { owners, armies, hand_sizes: hands } = view;
    const setupMove = (seat) => {
      if (view.turn === 0 && seat >= 0 && seat < view.seats) view.turn_seat = seat;
    };
    switch (ev.type) {
      case "first_player_rolled": setupMove(ev.seat); break;
      case "dealt": ev.owners.forEach((o, i) => { owners[i] = o; armies[i] = 1; }); view.phase = "setup place"; break;
      case "claimed": owners[ev.territory] = ev.seat; armies[ev.territory] = 1; view.phase = "setup claim"; setupMove(ev.seat); break;
      case "placed":
        armies[ev.territory] += ev.armies;
        if (view.turn > 0) {
          view.reinforcements -= ev.armies;
          view.phase = view.reinforcements > 0 ? "reinforce" : "attack";
        } else {
          view.phase = "setup place";
          setupMove(ev.seat);
        }
        break;
      case "headquarters_chosen": setupMove(ev.seat); break;
      case "turn_started":
        Object.assign(view, { turn: ev.turn, turn_seat: ev.seat, phase: "reinforce" });
        view.reinforcements = ev.territory_armies + ev.continent_armies;
        break;
      case "traded":
        hands[ev.seat] -= 3;
        view.reinforcements += ev.armies;
        if (ev.bonus_territory >= 0) armies[ev.bonus_territory] += territoryBonus;
        break;
      case "rolled": armies[ev.source] -= ev.attacker_losses; armies[ev.target] -= ev.defender_losses; view.phase = "attack"; break;
      case "captured": owners[ev.target] = ev.seat; view.phase = "occupy"; break;
      case "occupied": armies[ev.source] -= ev.armies; armies[ev.target] += ev.armies; view.phase = "attack"; break;
      case "fortified": armies[ev.source] -= ev.armies; armies[ev.target] += ev.armies; view.phase = "fortify"; break;
      case "eliminated": hands[ev.seat] -= ev.cards_taken; break;
      case "cards_taken": hands[ev.seat] += ev.cards.length; break;
      case "drew": hands[ev.seat] += 1; break;
      case "turn_ended": view.phase = "turn over"; break;
      case "game_ended": view.phase = "game over"; view.places = ev.places; break;
      default: break; // events that change no territory
    }
  }

  function totals(owners, armies, count) {
    const territories = new Array(count).fill(0);
    const held = new Array(count).fill(0);
    owners.forEach((o, i) => { if (o >= 0 && o < count) { territories[o] += 1; held[o] += armies[i]; } });
    return { territories, armies: held };
  }

  function percent(x) {
    return `${(100 * x.value).toFixed(x.value > 0.999 || x.value < 0.001 ? 3 : 1)}%`;
  }

  // Odds (server/replay_view.attack_odds) as one line; a large battle's are floats or an estimate.
  function oddsHtml(odds) {
    const exact = odds.capture.exact ? ` <span class="exact">= ${odds.capture.exact}</span>` : "";
    const how = odds.repeat_until ? `rolling on until it falls or ${odds.repeat_until} left` : "in one roll";
    const estimated = odds.method === "estimate" ? ` <span class="muted">(estimated: a battle this large is not computed exactly)</span>` : "";
    return `${odds.attackers} vs ${odds.defenders}, ${how}: takes it <b>${percent(odds.capture)}</b>${exact}${estimated}; ` +
      `expected losses ${odds.attacker_losses.value.toFixed(2)} attacking, ${odds.defender_losses.value.toFixed(2)} defending`;
  }

  return { PALETTE, colour, el, create, describe, normalize, apply, totals, esc, oddsHtml, cardName };
})();
