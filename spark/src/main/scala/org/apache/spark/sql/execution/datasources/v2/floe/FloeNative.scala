package org.apache.spark.sql.execution.datasources.v2.floe

import java.nio.file.{Files, StandardCopyOption}

/**
 * floe's native library (libfloe_spark.so, inside the jar under native/linux-x86_64/ with the
 * Arrow C++ libraries it needs), loaded once per JVM from a private copy in a temporary
 * folder. See spark/native/floe_spark_jni.cc for what each call does.
 */
object FloeNative {
  private val Folder = "/native/linux-x86_64/"
  private val Library = "libfloe_spark.so"

  /**
   * Whether the library loaded; Left(reason) when it cannot (the gate then declines). Every
   * file the jar's `libraries` index names (the library and the Arrow C++ libraries it was
   * built with) is copied into one private temporary folder, where the library's RUNPATH
   * ($ORIGIN) finds them.
   */
  lazy val loaded: Either[String, Unit] = {
    val osName = System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT)
    val arch = System.getProperty("os.arch", "")
    if (!osName.startsWith("linux") || !(arch == "amd64" || arch == "x86_64")) {
      Left(s"floe's native library is built for linux x86_64, not $osName $arch")
    } else {
      Option(getClass.getResourceAsStream(Folder + "libraries")) match {
        case None => Left("floe's native library is not in the jar")
        case Some(index) =>
          try {
            val names = try scala.io.Source.fromInputStream(index, "UTF-8").getLines()
              .map(_.trim).filter(_.nonEmpty).toList finally index.close()
            val dir = Files.createTempDirectory("floe-spark")
            dir.toFile.deleteOnExit()
            names.foreach { name =>
              val in = getClass.getResourceAsStream(Folder + name)
              if (in == null) throw new IllegalStateException(s"$name is not in the jar")
              val file = dir.resolve(name)
              try Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING) finally in.close()
              file.toFile.deleteOnExit()
            }
            System.load(dir.resolve(Library).toString)
            Right(())
          } catch {
            case e: Throwable => Left(s"floe's native library did not load (${e.getMessage})")
          }
      }
    }
  }

  def ensureLoaded(): Unit = loaded match {
    case Left(reason) => throw new IllegalStateException(reason)
    case Right(_) =>
  }

  /** The gate and the plan; IllegalArgumentException("unsupported: ...") on a decline. */
  @native def planWrite(
      metadataJson: String,
      optionKeys: Array[String],
      optionValues: Array[String],
      operationId: String,
      inputClustered: Boolean,
      tasks: Int): String

  /** One write task over the Arrow C stream at `streamAddress`: its TaskCommit message. */
  @native def writeTask(plan: String, streamAddress: Long, partitionId: Int, attemptId: Long)
      : Array[Byte]

  /** Deletes `locations` (below the plan's table location); returns the failures. */
  @native def deleteFiles(plan: String, locations: Array[String]): Int
}
