package floe.parity;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * iceberg-java parity harness for floe.
 *
 * <pre>
 *   java -cp 'target/parity-harness.jar:target/lib/*' floe.parity.Harness write|dump|transform|catalog|commit-bench REQUEST.json
 * </pre>
 *
 * Prints exactly one JSON object to stdout. Exit codes: 0 ok, 1 error, 2 usage error, 3 the
 * clustered writer rejected out-of-order partitions.
 */
public final class Harness {
  static final ObjectMapper MAPPER =
      new ObjectMapper().configure(JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN, true);

  /** Thrown to end the run with a JSON {"error": ...} on stdout and a given exit code. */
  static final class HarnessExit extends RuntimeException {
    final int code;

    HarnessExit(int code, String message) {
      super(message);
      this.code = code;
    }
  }

  private Harness() {}

  public static void main(String[] args) {
    // slf4j-simple logs to stderr; keep it quiet unless asked (PARITY_LOG_LEVEL=info|debug|...).
    String level = System.getenv().getOrDefault("PARITY_LOG_LEVEL", "error");
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", level);
    System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
    // stdout carries the JSON result only; keep everything else off it.
    PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, StandardCharsets.UTF_8);
    System.setOut(System.err);

    if (args.length != 2) {
      System.err.println("usage: Harness write|dump|transform|catalog|commit-bench <request.json>");
      System.exit(2);
    }
    String command = args[0];
    int code = 0;
    JsonNode result;
    try {
      JsonNode request = MAPPER.readTree(new File(args[1]));
      if (request == null || !request.isObject()) {
        throw new IllegalArgumentException("Request file does not contain a JSON object: " + args[1]);
      }
      switch (command) {
        case "write":
          result = WriteCommand.run(request);
          break;
        case "dump":
          result = DumpCommand.run(request);
          break;
        case "transform":
          result = TransformCommand.run(request);
          break;
        case "catalog":
          result = CatalogCommand.run(request);
          break;
        case "commit-bench":
          result = CommitBenchCommand.run(request);
          break;
        default:
          throw new HarnessExit(
              2, "unknown command: " + command + " (expected write, dump, transform, catalog or commit-bench)");
      }
    } catch (HarnessExit e) {
      ObjectNode err = MAPPER.createObjectNode();
      err.put("error", e.getMessage());
      result = err;
      code = e.code;
      System.err.println("parity harness: " + e.getMessage());
    } catch (Throwable t) {
      System.err.println("parity harness: " + command + " failed: " + t);
      t.printStackTrace(System.err);
      ObjectNode err = MAPPER.createObjectNode();
      err.put("error", String.valueOf(t.getMessage()));
      err.put("exception", t.getClass().getName());
      result = err;
      code = 1;
    }
    try {
      out.println(MAPPER.writeValueAsString(result));
      out.flush();
    } catch (Exception e) {
      System.err.println("parity harness: cannot serialize result: " + e);
      code = 1;
    }
    System.exit(code);
  }
}
