package org.apache.spark.sql.execution.datasources.v2.floe

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.iceberg.{ContentFile, Table}
import org.apache.iceberg.io.{FileIO, SupportsPrefixOperations}
import org.apache.spark.sql.connector.write.WriterCommitMessage

/**
 * The files a task's commit message lists, and their deletion after a failed job. Only files
 * named in this write's own messages are ever deleted: those its completed tasks wrote.
 */
object WrittenFiles {
  // iceberg-java's task commits: SparkWrite.TaskCommit#files (data files) and
  // SparkPositionDeltaWrite.DeltaTaskCommit#dataFiles/#deleteFiles. Their classes are
  // package-private, so the accessors are found by name; an unknown message lists nothing.
  private val DataAccessors = Map(
    "org.apache.iceberg.spark.source.SparkWrite$TaskCommit" -> Seq("files"),
    "org.apache.iceberg.spark.source.SparkPositionDeltaWrite$DeltaTaskCommit" ->
      Seq("dataFiles"))
  private val DeleteAccessors = Map(
    "org.apache.iceberg.spark.source.SparkPositionDeltaWrite$DeltaTaskCommit" ->
      Seq("deleteFiles"))

  /** Every file the message lists: data files, then delete files. */
  def locations(message: WriterCommitMessage): Seq[String] =
    (dataFileLocations(message) ++ listed(message, DeleteAccessors)).distinct

  /**
   * The message's data files. Each is written by one task alone (delete files are not: the
   * deletion vectors of one task share a Puffin file).
   */
  def dataFileLocations(message: WriterCommitMessage): Seq[String] =
    listed(message, DataAccessors)

  /**
   * The first data file two messages both list: a write whose tasks report the same file
   * has lost track of one task's files, and must not commit.
   */
  def sharedDataFile(messages: Array[WriterCommitMessage]): Option[String] = {
    val seen = scala.collection.mutable.HashSet.empty[String]
    messages.iterator.filter(_ != null)
      .flatMap(m => dataFileLocations(m).distinct)
      .find(path => !seen.add(path))
  }

  private def listed(
      message: WriterCommitMessage,
      accessors: Map[String, Seq[String]]): Seq[String] = {
    accessors.getOrElse(message.getClass.getName, Nil).flatMap { name =>
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

  /**
   * The query id iceberg-java's Spark write puts in every data and delete file name it makes
   * (`<partition>-<task>-<query id>-...`; floe's native tasks name theirs with it too), read
   * from SparkWrite's `queryId` or from SparkPositionDeltaWrite's `context.queryId` (a
   * merge-on-read write keeps it in its Context). None for any other write.
   */
  def queryId(write: AnyRef): Option[String] = {
    def field(owner: AnyRef, name: String): Option[AnyRef] =
      Iterator.iterate[Class[_]](owner.getClass)(_.getSuperclass).takeWhile(_ != null)
        .flatMap(c => c.getDeclaredFields.find(_.getName == name)).take(1).toSeq.headOption
        .map { f => f.setAccessible(true); f.get(owner) }
    try {
      field(write, "queryId").orElse(field(write, "context").flatMap(field(_, "queryId")))
        .collect { case id: String if id.nonEmpty => id }
    } catch {
      case NonFatal(_) => None
    }
  }

  /**
   * Every file below the table's data location whose name carries `queryId` (a UUID only
   * this write's tasks use), for a job that failed once all its tasks have ended: what a task
   * wrote and could not delete (a writer's abort that failed, its thread interrupted). On a
   * local file system a file reached through a symbolic link below that location is not the
   * table's and is never named. Empty when the FileIO cannot list.
   */
  def namedFor(table: Table, queryId: String): Seq[String] = {
    val properties = table.properties()
    // Where iceberg-java's location providers put data files, in their order.
    val root = Seq("write.data.path", "write.object-storage.path", "write.folder-storage.path")
      .flatMap(k => Option(properties.get(k))).headOption
      .getOrElse(table.location().stripSuffix("/") + "/data").stripSuffix("/")
    val marker = s"-$queryId-"
    table.io() match {
      case io: SupportsPrefixOperations =>
        io.listPrefix(root).asScala.map(_.location())
          .filter(path => path.substring(path.lastIndexOf('/') + 1).contains(marker))
          .filter(reachedWithoutLink(root)).toSeq
      case _ => Nil
    }
  }

  /**
   * Whether a path listed below `root` is below it on disk too: true for any store without
   * links (anything but a local path); for a local path, whether its real path is the real
   * root's (resolved once) with the same relative part (no link between them).
   */
  private[floe] def reachedWithoutLink(root: String): String => Boolean = {
    // Locations as Hadoop prints them: the path as on disk, not URI-escaped.
    val Scheme = "(?s)^([A-Za-z][A-Za-z0-9+.-]*):(.*)$".r
    def local(location: String): Option[java.nio.file.Path] = location match {
      case Scheme("file", rest) => Some(java.nio.file.Paths.get("/" + rest.dropWhile(_ == '/')))
      case Scheme(_, _) => None
      case _ => Some(java.nio.file.Paths.get(location))
    }
    val localRoot = local(root)
    lazy val realRoot = localRoot.map(_.toRealPath())
    path => try {
      (localRoot, local(path)) match {
        case (Some(r), Some(p)) =>
          val relative = r.normalize().relativize(p.normalize())
          !relative.startsWith("..") && p.toRealPath() == realRoot.get.resolve(relative)
        case (None, None) => true
        case _ => false
      }
    } catch {
      case NonFatal(_) => false
    }
  }
}
