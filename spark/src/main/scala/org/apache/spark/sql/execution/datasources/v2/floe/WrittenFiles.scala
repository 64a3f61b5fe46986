package org.apache.spark.sql.execution.datasources.v2.floe

import scala.util.control.NonFatal

import org.apache.iceberg.ContentFile
import org.apache.iceberg.io.FileIO
import org.apache.spark.sql.connector.write.WriterCommitMessage

/**
 * The files a task's commit message lists, and their deletion after a failed job. Only files
 * named in this write's own messages are ever deleted: those its completed tasks wrote.
 */
object WrittenFiles {
  // iceberg-java's task commits: SparkWrite.TaskCommit#files (data files) and
  // SparkPositionDeltaWrite.DeltaTaskCommit#dataFiles/#deleteFiles. Their classes are
  // package-private, so the accessors are found by name; an unknown message lists nothing.
  private val Accessors = Map(
    "org.apache.iceberg.spark.source.SparkWrite$TaskCommit" -> Seq("files"),
    "org.apache.iceberg.spark.source.SparkPositionDeltaWrite$DeltaTaskCommit" ->
      Seq("dataFiles", "deleteFiles"))

  def locations(message: WriterCommitMessage): Seq[String] = {
    Accessors.getOrElse(message.getClass.getName, Nil).flatMap { name =>
      val method = message.getClass.getDeclaredMethod(name)
      method.setAccessible(true)
      method.invoke(message).asInstanceOf[Array[_ <: ContentFile[_]]].toSeq.map(_.location())
    }
  }

  /** Best effort: a failure is reported to `onError` and never replaces the job's own. */
  def deleteAll(io: FileIO, paths: Seq[String], onError: (String, Throwable) => Unit): Unit =
    paths.foreach { path =>
      try io.deleteFile(path) catch { case NonFatal(e) => onError(path, e) }
    }
}
