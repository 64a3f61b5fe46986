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
    boolean(conf, WriteEnabled, default = "false")

  /**
   * With the split plan on, whether its tasks are floe's native ones (the default): a write
   * the native gate declines then keeps Spark's own plan. Off, the split plan runs
   * iceberg-java's writer in its tasks (the plan's shape alone, for diagnosis).
   */
  val NativeTasks = "spark.floe.iceberg.write.native"

  def nativeTasks(conf: SQLConf): Either[String, Boolean] =
    boolean(conf, NativeTasks, default = "true")

  private def boolean(conf: SQLConf, key: String, default: String): Either[String, Boolean] =
    conf.getConfString(key, default).trim.toLowerCase(java.util.Locale.ROOT) match {
      case "true" => Right(true)
      case "false" => Right(false)
      case _ => Left(s"$key is not true or false")
    }
}
