package org.apache.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;

/**
 * Parity-harness helper placed in org.apache.iceberg only to reach the package-private manifest
 * entry API (status and sequence numbers of each entry), which has no public accessor in 1.11.
 */
public final class ParityManifestAccess {
  private ParityManifestAccess() {}

  /** A decoded live manifest entry; {@code file} is a detached copy. */
  public record LiveEntry(
      String status, Long snapshotId, Long dataSequenceNumber, Long fileSequenceNumber, DataFile file) {}

  public static List<LiveEntry> liveDataEntries(
      ManifestFile manifest, FileIO io, Map<Integer, PartitionSpec> specsById) {
    List<LiveEntry> result = new ArrayList<>();
    try (ManifestReader<DataFile> reader = ManifestFiles.read(manifest, io, specsById);
        CloseableIterable<ManifestEntry<DataFile>> entries = reader.liveEntries()) {
      for (ManifestEntry<DataFile> entry : entries) {
        result.add(
            new LiveEntry(
                entry.status().name(),
                entry.snapshotId(),
                entry.dataSequenceNumber(),
                entry.fileSequenceNumber(),
                entry.file().copy()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return result;
  }
}
