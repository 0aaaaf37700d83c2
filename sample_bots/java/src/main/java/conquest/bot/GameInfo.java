package conquest.bot;

import conquest.v1.MapInfo;

/** What the kit remembers of one game in progress: its id, our seat, the number of seats and the board. */
public record GameInfo(String id, int seat, int players, MapInfo map) {}
