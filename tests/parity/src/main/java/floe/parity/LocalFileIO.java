package floe.parity;

import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * Minimal local-disk FileIO built on java.nio, so that no Hadoop FileSystem / UGI code runs.
 *
 * <p>Accepts plain absolute paths as well as {@code file:/...} and {@code file:///...} URIs. The
 * location strings handed to it are kept verbatim (they end up in manifests).
 */
public class LocalFileIO implements FileIO {

  public LocalFileIO() {}

  static Path toPath(String location) {
    // Locations are taken literally (no %-decoding), like Hadoop's Path and pyarrow do.
    if (location.startsWith("file://")) {
      return Paths.get(location.substring("file://".length()));
    } else if (location.startsWith("file:")) {
      return Paths.get(location.substring("file:".length()));
    }
    return Paths.get(location);
  }

  @Override
  public InputFile newInputFile(String path) {
    return new LocalInputFile(path);
  }

  @Override
  public InputFile newInputFile(String path, long length) {
    return new LocalInputFile(path, length);
  }

  @Override
  public OutputFile newOutputFile(String path) {
    return new LocalOutputFile(path);
  }

  @Override
  public void deleteFile(String path) {
    try {
      Files.deleteIfExists(toPath(path));
    } catch (IOException e) {
      throw new UncheckedIOException("Failed to delete " + path, e);
    }
  }

  static final class LocalInputFile implements InputFile {
    private final String location;
    private final Path path;
    private Long length;

    LocalInputFile(String location) {
      this.location = location;
      this.path = toPath(location);
    }

    LocalInputFile(String location, long length) {
      this(location);
      this.length = length;
    }

    @Override
    public long getLength() {
      if (length == null) {
        try {
          length = Files.size(path);
        } catch (NoSuchFileException e) {
          throw new NotFoundException(e, "File does not exist: %s", location);
        } catch (IOException e) {
          throw new UncheckedIOException("Failed to stat " + location, e);
        }
      }
      return length;
    }

    @Override
    public SeekableInputStream newStream() {
      try {
        return new LocalSeekableInputStream(FileChannel.open(path, StandardOpenOption.READ));
      } catch (NoSuchFileException e) {
        throw new NotFoundException(e, "File does not exist: %s", location);
      } catch (IOException e) {
        throw new UncheckedIOException("Failed to open " + location, e);
      }
    }

    @Override
    public String location() {
      return location;
    }

    @Override
    public boolean exists() {
      return Files.exists(path);
    }
  }

  static final class LocalOutputFile implements OutputFile {
    private final String location;
    private final Path path;

    LocalOutputFile(String location) {
      this.location = location;
      this.path = toPath(location);
    }

    @Override
    public PositionOutputStream create() {
      return open(false);
    }

    @Override
    public PositionOutputStream createOrOverwrite() {
      return open(true);
    }

    private PositionOutputStream open(boolean overwrite) {
      try {
        Path parent = path.toAbsolutePath().getParent();
        if (parent != null) {
          Files.createDirectories(parent);
        }
        OutputStream out =
            overwrite
                ? Files.newOutputStream(
                    path,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.WRITE)
                : Files.newOutputStream(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        return new LocalPositionOutputStream(new BufferedOutputStream(out, 1 << 16));
      } catch (FileAlreadyExistsException e) {
        throw new AlreadyExistsException(e, "File already exists: %s", location);
      } catch (IOException e) {
        throw new UncheckedIOException("Failed to create " + location, e);
      }
    }

    @Override
    public String location() {
      return location;
    }

    @Override
    public InputFile toInputFile() {
      return new LocalInputFile(location);
    }
  }

  static final class LocalPositionOutputStream extends PositionOutputStream {
    private final OutputStream out;
    private long pos = 0;
    private boolean closed = false;

    LocalPositionOutputStream(OutputStream out) {
      this.out = out;
    }

    @Override
    public long getPos() {
      return pos;
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
      pos += 1;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
      pos += len;
    }

    @Override
    public void flush() throws IOException {
      out.flush();
    }

    @Override
    public void close() throws IOException {
      if (!closed) {
        closed = true;
        out.close();
      }
    }
  }

  /** Buffered, seekable stream over a FileChannel. */
  static final class LocalSeekableInputStream extends SeekableInputStream {
    private static final int BUFFER_SIZE = 1 << 16;
    private final FileChannel channel;
    private final ByteBuffer buffer = ByteBuffer.allocate(BUFFER_SIZE);
    private long bufferStart = 0; // file position of buffer[0]
    private boolean closed = false;

    LocalSeekableInputStream(FileChannel channel) {
      this.channel = channel;
      buffer.limit(0);
    }

    @Override
    public long getPos() {
      return bufferStart + buffer.position();
    }

    @Override
    public void seek(long newPos) throws IOException {
      if (newPos < 0) {
        throw new EOFException("Cannot seek to negative position " + newPos);
      }
      if (newPos >= bufferStart && newPos <= bufferStart + buffer.limit()) {
        buffer.position((int) (newPos - bufferStart));
      } else {
        bufferStart = newPos;
        buffer.clear();
        buffer.limit(0);
      }
    }

    private boolean fill() throws IOException {
      long pos = getPos();
      buffer.clear();
      bufferStart = pos;
      int n = 0;
      while (n == 0) {
        n = channel.read(buffer, pos);
      }
      buffer.flip();
      return n > 0;
    }

    @Override
    public int read() throws IOException {
      if (!buffer.hasRemaining() && !fill()) {
        return -1;
      }
      return buffer.get() & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (len == 0) {
        return 0;
      }
      if (!buffer.hasRemaining()) {
        if (len >= BUFFER_SIZE) {
          // large read: go straight to the channel
          long pos = getPos();
          int n = channel.read(ByteBuffer.wrap(b, off, len), pos);
          if (n <= 0) {
            return -1;
          }
          bufferStart = pos + n;
          buffer.clear();
          buffer.limit(0);
          return n;
        }
        if (!fill()) {
          return -1;
        }
      }
      int n = Math.min(len, buffer.remaining());
      buffer.get(b, off, n);
      return n;
    }

    @Override
    public long skip(long n) throws IOException {
      if (n <= 0) {
        return 0;
      }
      long size = channel.size();
      long pos = getPos();
      long target = Math.min(size, pos + n);
      seek(target);
      return target - pos;
    }

    @Override
    public int available() throws IOException {
      long rem = channel.size() - getPos();
      return (int) Math.max(0, Math.min(Integer.MAX_VALUE, rem));
    }

    @Override
    public void close() throws IOException {
      if (!closed) {
        closed = true;
        channel.close();
      }
    }
  }
}
