package floe.parity;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.Closeable;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.parquet.ParquetUtil;

/**
 * {@code catalog}: opens a catalog with iceberg-java's JdbcCatalog (the same SQLite file or
 * PostgreSQL database floe and pyiceberg use) or, with {@code "type": "rest"}, its RESTCatalog
 * client (the uri is then the REST server's), loads a table, optionally evolves its schema and
 * spec and writes rows under the new spec ({@code evolve}, {@code write_files}: see Evolve),
 * commits a {@code row_delta} of delete files (see RowDeltas), optionally appends Parquet files
 * (written with field ids) to it as one fast append, and reports what iceberg-java sees.
 *
 * <pre>
 *   {"uri": "jdbc:sqlite:/w/catalog.db", "warehouse": "/w", "name": "floe", "table": "db.t",
 *    "type": "jdbc" (default) or "rest",
 *    "properties": {"jdbc.user": "..."}, "append_files": ["/in.parquet"], "id_column": "id"}
 *   -> {"namespaces": [...], "tables": [...], "snapshots": N, "current_snapshot_id": ...,
 *       "operation": ..., "row_count": N, "ids": [...sorted values of id_column],
 *       "rows": [...every column of every row, by id_column] (with "with_rows": true)}
 * </pre>
 */
final class CatalogCommand {
  private CatalogCommand() {}

  static JsonNode run(JsonNode request) throws Exception {
    Map<String, String> properties = new HashMap<>();
    properties.put(CatalogProperties.URI, request.path("uri").asText());
    properties.put(CatalogProperties.WAREHOUSE_LOCATION, request.path("warehouse").asText());
    properties.put(CatalogProperties.FILE_IO_IMPL, LocalFileIO.class.getName());
    Iterator<Map.Entry<String, JsonNode>> extra = request.path("properties").fields();
    while (extra.hasNext()) {
      Map.Entry<String, JsonNode> entry = extra.next();
      properties.put(entry.getKey(), entry.getValue().asText());
    }
    ObjectNode out = Harness.MAPPER.createObjectNode();
    String type = request.path("type").asText("jdbc");
    if (!type.equals("jdbc") && !type.equals("rest")) {
      throw new IllegalArgumentException("catalog type must be jdbc or rest, not " + type);
    }
    properties.put(CatalogUtil.ICEBERG_CATALOG_TYPE, type);
    Catalog built =
        CatalogUtil.buildIcebergCatalog(request.path("name").asText("floe"), properties, null);
    try (Closeable closer = (Closeable) built) {
      SupportsNamespaces catalog = (SupportsNamespaces) built;
      TableIdentifier id = TableIdentifier.parse(request.path("table").asText());
      ArrayNode namespaces = out.putArray("namespaces");
      for (Namespace ns : catalog.listNamespaces()) namespaces.add(ns.toString());
      ArrayNode tables = out.putArray("tables");
      for (TableIdentifier t : built.listTables(id.namespace())) tables.add(t.toString());
      Table table = built.loadTable(id);
      JsonNode appendFiles = request.path("append_files");
      if (appendFiles.isArray() && appendFiles.size() > 0) {
        if (table.spec().isPartitioned()) {
          throw new IllegalArgumentException("append_files needs an unpartitioned table");
        }
        var append = table.newAppend();
        for (JsonNode path : appendFiles) {
          InputFile input = table.io().newInputFile(path.asText());
          DataFile file =
              DataFiles.builder(table.spec())
                  .withInputFile(input)
                  .withFormat(FileFormat.PARQUET)
                  .withMetrics(ParquetUtil.fileMetrics(input, MetricsConfig.forTable(table)))
                  .build();
          append.appendFile(file);
        }
        append.commit();
        table.refresh();
      }
      if (request.path("evolve").isObject()) {
        Evolve.apply(table, request.path("evolve"));
      }
      if (request.path("write_files").isArray() && request.path("write_files").size() > 0) {
        Evolve.writeRows(table, request.path("write_files"));
      }
      if (request.path("row_delta").isObject()) {
        RowDeltas.commit(table, request.path("row_delta"));
      }
      ArrayNode dataFiles = out.putArray("data_files");
      List<String> paths = new java.util.ArrayList<>();
      // Each live data file's data sequence number, as the scan plans it.
      ObjectNode sequenceNumbers = out.putObject("data_sequence_numbers");
      try (CloseableIterable<org.apache.iceberg.FileScanTask> tasks = table.newScan().planFiles()) {
        for (org.apache.iceberg.FileScanTask task : tasks) {
          paths.add(task.file().location());
          sequenceNumbers.put(task.file().location(), task.file().dataSequenceNumber());
        }
      }
      paths.sort(String::compareTo);
      for (String path : paths) dataFiles.add(path);
      int snapshots = 0;
      for (Snapshot ignored : table.snapshots()) snapshots++;
      out.put("snapshots", snapshots);
      Snapshot current = table.currentSnapshot();
      if (current == null) {
        out.putNull("current_snapshot_id");
        out.putNull("operation");
      } else {
        out.put("current_snapshot_id", current.snapshotId());
        out.put("operation", current.operation());
      }
      String idColumn = request.path("id_column").asText("id");
      List<Long> ids = new java.util.ArrayList<>();
      long rows = 0;
      try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
        for (Record record : records) {
          rows++;
          Object value = record.getField(idColumn);
          if (value != null) ids.add(((Number) value).longValue());
        }
      }
      ids.sort(Long::compare);
      if (request.path("with_rows").asBoolean(false)) {
        List<ObjectNode> rowNodes = new java.util.ArrayList<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
          for (Record record : records) {
            ObjectNode row = Harness.MAPPER.createObjectNode();
            for (org.apache.iceberg.types.Types.NestedField column : table.schema().columns()) {
              Object value = record.getField(column.name());
              if (value == null) {
                row.putNull(column.name());
              } else if (value instanceof Long || value instanceof Integer) {
                row.put(column.name(), ((Number) value).longValue());
              } else if (value instanceof Double || value instanceof Float) {
                row.put(column.name(), ((Number) value).doubleValue());
              } else {
                row.put(column.name(), value.toString());
              }
            }
            rowNodes.add(row);
          }
        }
        rowNodes.sort(
            (a, b) -> Long.compare(a.path(idColumn).asLong(), b.path(idColumn).asLong()));
        ArrayNode rowsNode = out.putArray("rows");
        rowNodes.forEach(rowsNode::add);
      }
      out.put("row_count", rows);
      ArrayNode idsNode = out.putArray("ids");
      for (Long value : ids) idsNode.add(value);
    }
    return out;
  }
}
