package floe.parity;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.Closeable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.metrics.CommitReport;
import org.apache.iceberg.metrics.CounterResult;
import org.apache.iceberg.metrics.MetricsReport;
import org.apache.iceberg.metrics.MetricsReporter;

/**
 * {@code commit-bench}: iceberg-java's arm of bench/commit. W threads, each with its own
 * JdbcCatalog (its own connection pool, as W processes would have) and its own Table, each
 * committing C fast appends of one described (not written) data file to the same table, after
 * {@code warmup} untimed ones (the JIT's warm-up); only
 * {@code newFastAppend().appendFile(f).commit()} is timed. Attempts per commit come from the
 * CommitReport iceberg-java sends its metrics reporter.
 *
 * <pre>
 *   {"uri": "jdbc:sqlite:/w/catalog.db", "warehouse": "/w", "name": "floe", "table": "db.t",
 *    "properties": {...}, "writers": 4, "commits": 25, "warmup": 5}
 *   -> {"wall_seconds": s, "latencies_ms": [...], "attempts": [...]}
 * </pre>
 */
final class CommitBenchCommand {
  private CommitBenchCommand() {}

  private static final ThreadLocal<Integer> LAST_ATTEMPTS = new ThreadLocal<>();

  /** Records the attempts of the calling thread's last commit. */
  public static final class AttemptsReporter implements MetricsReporter {
    @Override
    public void report(MetricsReport report) {
      if (report instanceof CommitReport) {
        CounterResult attempts = ((CommitReport) report).commitMetrics().attempts();
        LAST_ATTEMPTS.set(attempts == null ? -1 : (int) attempts.value());
      }
    }
  }

  static JsonNode run(JsonNode request) throws Exception {
    Map<String, String> properties = new HashMap<>();
    properties.put(CatalogProperties.URI, request.path("uri").asText());
    properties.put(CatalogProperties.WAREHOUSE_LOCATION, request.path("warehouse").asText());
    properties.put(CatalogProperties.FILE_IO_IMPL, LocalFileIO.class.getName());
    properties.put(CatalogProperties.METRICS_REPORTER_IMPL, AttemptsReporter.class.getName());
    properties.put(CatalogUtil.ICEBERG_CATALOG_TYPE, "jdbc");
    Iterator<Map.Entry<String, JsonNode>> extra = request.path("properties").fields();
    while (extra.hasNext()) {
      Map.Entry<String, JsonNode> entry = extra.next();
      properties.put(entry.getKey(), entry.getValue().asText());
    }
    String name = request.path("name").asText("floe");
    TableIdentifier id = TableIdentifier.parse(request.path("table").asText());
    int writers = request.path("writers").asInt(1);
    int commits = request.path("commits").asInt(10);
    int warmup = request.path("warmup").asInt(0);
    List<List<Double>> latencies = new ArrayList<>();
    List<List<Integer>> attempts = new ArrayList<>();
    List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
    List<Thread> threads = new ArrayList<>();
    long[] begins = new long[writers];
    long[] ends = new long[writers];
    for (int w = 0; w < writers; w++) {
      List<Double> myLatencies = new ArrayList<>();
      List<Integer> myAttempts = new ArrayList<>();
      latencies.add(myLatencies);
      attempts.add(myAttempts);
      final int writer = w;
      Thread thread =
          new Thread(
              () -> {
                Catalog catalog = CatalogUtil.buildIcebergCatalog(name, properties, null);
                try (Closeable closer = (Closeable) catalog) {
                  Table table = catalog.loadTable(id);
                  for (int c = 0; c < warmup + commits; c++) {
                    DataFile file =
                        DataFiles.builder(table.spec())
                            .withPath(
                                table.location() + "/data/j" + writer + "-" + c + "-"
                                    + UUID.randomUUID() + ".parquet")
                            .withFileSizeInBytes(1000)
                            .withRecordCount(10)
                            .withFormat(FileFormat.PARQUET)
                            .build();
                    LAST_ATTEMPTS.remove();
                    long begin = System.nanoTime();
                    if (c == warmup) begins[writer] = begin;
                    table.newFastAppend().appendFile(file).commit();
                    long end = System.nanoTime();
                    ends[writer] = end;
                    double ms = (end - begin) / 1e6;
                    if (c < warmup) continue;
                    myLatencies.add(ms);
                    Integer count = LAST_ATTEMPTS.get();
                    myAttempts.add(count == null ? -1 : count);
                  }
                } catch (Throwable t) {
                  failures.add(t);
                }
              });
      threads.add(thread);
      thread.start();
    }
    for (Thread thread : threads) thread.join();
    // The timed phase: first timed commit started to last one ended, over all writers.
    long first = Long.MAX_VALUE;
    long last = Long.MIN_VALUE;
    for (int w = 0; w < writers; w++) {
      first = Math.min(first, begins[w]);
      last = Math.max(last, ends[w]);
    }
    double wall = (last - first) / 1e9;
    if (!failures.isEmpty()) {
      Throwable failure = failures.get(0);
      throw new RuntimeException(failures.size() + " writer(s) failed: " + failure, failure);
    }
    ObjectNode out = Harness.MAPPER.createObjectNode();
    out.put("wall_seconds", wall);
    ArrayNode latencyNode = out.putArray("latencies_ms");
    for (List<Double> list : latencies) for (Double value : list) latencyNode.add(value);
    ArrayNode attemptsNode = out.putArray("attempts");
    for (List<Integer> list : attempts) for (Integer value : list) attemptsNode.add(value);
    return out;
  }
}
