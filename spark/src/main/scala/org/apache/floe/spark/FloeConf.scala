package org.apache.floe.spark

import org.apache.spark.sql.internal.SQLConf

/** The session settings floe's Spark plugin reads. Each is read when a write is planned. */
object FloeConf {

  /**
   * Routes Spark's Iceberg writes through floe's split plan: the data files are written by
   * one operator on the executors (inside AQE) and committed by iceberg-java's own
   * `BatchWrite.commit`, once, by a second operator on the driver. Off by default; turning
   * it off restores Spark's own plan. Can change within a session (`spark.conf.set`).
   */
  val WriteEnabled = "spark.floe.iceberg.write.enabled"

  /**
   * The setting's value as Spark parses booleans (`true`/`false`, any case, surrounding
   * blanks ignored); Left(reason) for anything else, so a misspelt value is reported
   * rather than read as off.
   */
  def writeEnabled(conf: SQLConf): Either[String, Boolean] =
    conf.getConfString(WriteEnabled, "false").trim.toLowerCase(java.util.Locale.ROOT) match {
      case "true" => Right(true)
      case "false" => Right(false)
      case _ => Left(s"$WriteEnabled is not true or false")
    }
}
