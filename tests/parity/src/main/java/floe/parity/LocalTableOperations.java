package floe.parity;

import java.util.Objects;
import org.apache.iceberg.LocationProviders;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;

/**
 * Minimal TableOperations for a table on local disk: each commit writes {@code
 * <location>/metadata/v<N>.metadata.json} (N = 1, 2, ...) through the given FileIO. No catalog,
 * no version-hint file; single writer only.
 */
public class LocalTableOperations implements TableOperations {
  private final FileIO io;
  private TableMetadata current;
  private int version;

  private LocalTableOperations(FileIO io, TableMetadata current, int version) {
    this.io = io;
    this.current = current;
    this.version = version;
  }

  /** Writes the initial metadata file (v1) for a new table and returns operations for it. */
  public static LocalTableOperations create(FileIO io, TableMetadata metadata) {
    LocalTableOperations ops = new LocalTableOperations(io, null, 0);
    ops.commit(null, metadata);
    return ops;
  }

  @Override
  public TableMetadata current() {
    return current;
  }

  @Override
  public TableMetadata refresh() {
    return current;
  }

  @Override
  public void commit(TableMetadata base, TableMetadata metadata) {
    if (!Objects.equals(base, current)) {
      throw new CommitFailedException("Cannot commit: stale table metadata");
    }
    if (base == metadata) {
      return;
    }
    String codec =
        metadata
            .properties()
            .getOrDefault(
                TableProperties.METADATA_COMPRESSION, TableProperties.METADATA_COMPRESSION_DEFAULT);
    int newVersion = version + 1;
    String path =
        metadata.location()
            + "/metadata/v"
            + newVersion
            + TableMetadataParser.getFileExtension(codec);
    // create() fails if the file exists: a crude but sufficient guard against concurrent writers
    TableMetadataParser.write(metadata, io.newOutputFile(path));
    this.current = TableMetadataParser.read(io, path);
    this.version = newVersion;
  }

  @Override
  public FileIO io() {
    return io;
  }

  @Override
  public String metadataFileLocation(String fileName) {
    return current.location() + "/metadata/" + fileName;
  }

  @Override
  public LocationProvider locationProvider() {
    return LocationProviders.locationsFor(current.location(), current.properties());
  }
}
