package conquest.bot;

import java.util.ArrayList;
import java.util.List;

/** The Java starter kit for Conquest: connects to a server and plays. */
public final class Main {
  private static final String USAGE = """
      usage: java -jar target/conquest-bot.jar [options]
        --server host:port   server address (default localhost:50051)
        --token TOKEN        bot token for ranked play (default $CONQUEST_TOKEN)
        --name NAME          bot name for practice play without a token (default java-aggressive)
        --queue Q1,Q2        queues to join (default: the server's first queue)
        --capacity N         games to play at the same time, 1-64 (default 4)
        --games N            stop after this many games (default 0: until interrupted)""";

  private Main() {}

  public static void main(String[] args) throws InterruptedException {
    String server = "localhost:50051";
    String token = System.getenv().getOrDefault("CONQUEST_TOKEN", "");
    String name = "java-aggressive";
    List<String> queues = new ArrayList<>();
    int capacity = 4;
    int games = 0;
    for (int i = 0; i < args.length; i++) {
      String value = i + 1 < args.length ? args[i + 1] : "";
      switch (args[i]) {
        case "--server" -> server = value;
        case "--token" -> token = value;
        case "--name" -> name = value;
        case "--queue" -> queues.addAll(List.of(value.split(",")));
        case "--capacity" -> capacity = Integer.parseInt(value);
        case "--games" -> games = Integer.parseInt(value);
        default -> {
          System.out.println(USAGE);
          System.exit(args[i].equals("--help") ? 0 : 2);
        }
      }
      i++;
    }
    try {
      new Client(new Client.Config(server, token, name, capacity, queues, games)).run();
    } catch (IllegalStateException refused) {
      System.err.println(refused.getMessage());
      System.exit(1);
    }
  }
}
