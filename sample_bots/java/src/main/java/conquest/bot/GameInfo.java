package conquest.bot;

import conquest.v1.MapInfo;
import conquest.v1.Mission;
import conquest.v1.Observation;
import conquest.v1.RulesInfo;
import java.util.Optional;

/** What the kit remembers of one game in progress: its id, our seat, the number of seats, the board and the rules. */
public record GameInfo(String id, int seat, int players, MapInfo map, RulesInfo rules) {
  /** Our headquarters territory id (Capital Risk), or -1 before we have chosen and in other games. */
  public int headquarters(Observation obs) {
    return seat < obs.getHeadquartersCount() ? obs.getHeadquarters(seat) : -1;
  }

  /** Our Secret Mission card, empty in other games. */
  public Optional<Mission> mission(Observation obs) {
    int id = obs.getMission();
    return id >= 0 && id < rules.getMissionsCount() ? Optional.of(rules.getMissions(id)) : Optional.empty();
  }
}
